// libpq, PostgreSQL's C client library (pkg-config `libpq`; Debian: libpq-dev).
#include <libpq-fe.h>
