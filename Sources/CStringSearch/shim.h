#ifndef TIMELINE_C_STRING_SEARCH_H
#define TIMELINE_C_STRING_SEARCH_H

#include <stddef.h>

// The C library's `memmem` (glibc, musl and Darwin all have it; glibc declares it only
// with _GNU_SOURCE, which Swift's Glibc module does not define): a substring search far
// faster than anything written per byte, for `timeline history`'s search of a log.
void *memmem(const void *haystack, size_t haystacklen, const void *needle, size_t needlelen);

/// Where `needle` first occurs in `haystack`, or NULL.
static inline const void *timeline_memmem(const void *haystack, size_t haystacklen, const void *needle,
                                          size_t needlelen) {
    return memmem(haystack, haystacklen, needle, needlelen);
}

#endif
