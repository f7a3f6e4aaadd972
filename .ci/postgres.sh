#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests of the PostgreSQL log.
#
#   .ci/postgres.sh start   starts a server on 127.0.0.1 (port $TIMELINE_POSTGRES_PORT, default
#                           54329), its data in a new temporary directory, and prints its URL
#   .ci/postgres.sh crash-restart   stops it as a crash would (`pg_ctl stop -m immediate`:
#                           no checkpoint, recovery from the WAL) and starts it again
#   .ci/postgres.sh stop    stops it and removes its data
#
# Installs the server with apt-get only when `initdb` is missing. As root, the server runs as
# the `postgres` user (initdb refuses root). Authentication is `trust`: the server listens on
# the loopback interface only, and lives for one run.
set -euo pipefail
cd "$(dirname "$0")/.."

port="${TIMELINE_POSTGRES_PORT:-54329}"
state=".build/postgres-server"

find_bin() {
    if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return; fi
    local dir
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [ -x "$dir/initdb" ]; then echo "$dir"; return; fi
    done
}

as_server_user() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-}" in
start)
    bin="$(find_bin)"
    if [ -z "$bin" ]; then
        echo "postgres.sh: initdb not found: installing postgresql with apt-get" >&2
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
        bin="$(find_bin)"
    fi
    [ -n "$bin" ] || { echo "postgres.sh: no initdb after installing postgresql" >&2; exit 1; }
    if [ -f "$state" ]; then "$0" stop || true; fi
    dir="$(mktemp -d)"
    chmod 755 "$dir"
    mkdir "$dir/data" "$dir/socket"
    [ "$(id -u)" = 0 ] && chown postgres "$dir/data" "$dir/socket"
    mkdir -p .build
    printf '%s\n%s\n' "$dir" "$bin" > "$state"
    as_server_user "$bin/initdb" -D "$dir/data" --auth=trust --username=postgres --encoding=UTF8 --no-locale >/dev/null
    printf '%s\n' "-c listen_addresses=127.0.0.1 -p $port -k $dir/socket -c max_connections=200" >> "$state"
    as_server_user "$bin/pg_ctl" -D "$dir/data" -l "$dir/data/server.log" -w -o "$(sed -n 3p "$state")" start >/dev/null
    echo "postgresql://postgres@127.0.0.1:$port/postgres"
    ;;
crash-restart)
    [ -f "$state" ] || { echo "postgres.sh: no server started" >&2; exit 1; }
    dir="$(sed -n 1p "$state")"
    bin="$(sed -n 2p "$state")"
    as_server_user "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null
    as_server_user "$bin/pg_ctl" -D "$dir/data" -l "$dir/data/server.log" -w -o "$(sed -n 3p "$state")" start >/dev/null
    ;;
stop)
    [ -f "$state" ] || exit 0
    dir="$(sed -n 1p "$state")"
    bin="$(sed -n 2p "$state")"
    as_server_user "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$dir" "$state"
    ;;
*)
    echo "usage: .ci/postgres.sh start|stop" >&2
    exit 2
    ;;
esac
