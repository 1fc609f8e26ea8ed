#!/usr/bin/env bash
# Starts a throw-away PostgreSQL cluster for the tests and prints its URL on stdout.
#
#   url=$(scripts/pg-test-server.sh)          # start; the data dir is printed on stderr
#   scripts/pg-test-server.sh stop <dir>      # stop and delete it
#
# The cluster lives in a temp dir ($MPAY_PG_DIR if set), listens on 127.0.0.1 (a free port, or $MPAY_PG_PORT) and
# on a unix socket in that dir, trusts local connections and runs without fsync: it is for
# tests only. Run as root, the server runs as the `postgres` user (initdb refuses root).
set -euo pipefail

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$bin" ]; then
  bin=$(dirname "$(command -v pg_ctl 2>/dev/null || echo /nonexistent/x)")
fi
if [ ! -x "$bin/pg_ctl" ]; then
  echo "pg-test-server: PostgreSQL binaries not found (apt-get install postgresql)" >&2
  exit 1
fi

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

if [ "${1:-}" = stop ]; then
  dir=${2:?usage: pg-test-server.sh stop <dir>}
  as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
  exit 0
fi

dir=${MPAY_PG_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/mpay-pg.XXXXXX")}
mkdir -p "$dir"
if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
port=${MPAY_PG_PORT:-$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")}

as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1 \
  || { cat "$dir/initdb.log" >&2; exit 1; }
as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
  -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
  start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }

echo "pg-test-server: data in $dir (stop with: $0 stop $dir)" >&2
echo "postgres://postgres@127.0.0.1:$port/postgres"
