#!/usr/bin/env bash
# Throwaway PostgreSQL and Redis for the engine tests (npm run test:engines) and CI, on loopback
# only; `npm start` and `npm test` never need them (docs/operations.md, Many instances).
#
#   scripts/engines.sh start   start both (a no-op for one already running), print the URLs
#   scripts/engines.sh stop    stop both; their data stays in .tmp/engines until `clean`
#   scripts/engines.sh env     print the URLs (as `start` does) without starting anything
#   scripts/engines.sh clean   stop both and delete .tmp/engines
#
# The URLs go to stdout as KEY=value lines, everything else to stderr, so a caller can do
#   eval "$(scripts/engines.sh start)"; export TEST_DATABASE_URL TEST_REDIS_URL
# Ports: ENGINES_PG_PORT (54329), ENGINES_REDIS_PORT (63799); data: ENGINES_DIR (.tmp/engines);
# binaries: ENGINES_PG_BIN (/usr/lib/postgresql/15/bin, or the first of 16, 17 found),
# redis-server on the PATH. A port already taken by another program fails `start` with the
# server's own message; pick other ports with the variables above.
set -euo pipefail
cd "$(dirname "$0")/.."

root="${ENGINES_DIR:-$PWD/.tmp/engines}"
pg_port="${ENGINES_PG_PORT:-54329}"
redis_port="${ENGINES_REDIS_PORT:-63799}"

# The user PostgreSQL runs as: PostgreSQL refuses root (CI runs as root), so then the `postgres`
# user the Debian package creates, or `nobody` when that user is missing.
pg_user="$(id -un)"
if [ "$(id -u)" -eq 0 ]; then
  pg_user=postgres
  id -u postgres >/dev/null 2>&1 || pg_user=nobody
fi
as_pg() {
  if [ "$(id -u)" -ne 0 ]; then "$@"; else (cd / && runuser -u "$pg_user" -- "$@"); fi
}

# A checkout under a folder closed to that user (/root is 700): the data goes under /tmp instead,
# at a path made from the checkout's, so start, stop and clean find the same one.
pg_data="$root/pg"
if [ -z "${ENGINES_DIR:-}" ] && [ "$(id -u)" -eq 0 ] && ! runuser -u "$pg_user" -- test -x "$PWD"; then
  pg_data="/tmp/engines-pg-$(printf '%s' "$PWD" | cksum | cut -d' ' -f1)"
fi

pg_bin="${ENGINES_PG_BIN:-}"
if [ -z "$pg_bin" ]; then
  for v in 15 16 17; do
    if [ -x "/usr/lib/postgresql/$v/bin/initdb" ]; then pg_bin="/usr/lib/postgresql/$v/bin"; break; fi
  done
fi

say() { echo "engines: $*" >&2; }

print_env() {
  echo "TEST_DATABASE_URL=postgres://postgres@127.0.0.1:$pg_port/postgres"
  echo "TEST_REDIS_URL=redis://127.0.0.1:$redis_port/0"
}

pg_start() {
  if [ -z "$pg_bin" ]; then
    say "PostgreSQL 15 or later not found (apt-get install postgresql)"
    return 1
  fi
  mkdir -p "$root"
  if [ ! -f "$pg_data/PG_VERSION" ]; then
    rm -rf "$pg_data"
    mkdir -p "$pg_data"
    if [ "$(id -u)" -eq 0 ]; then
      chown "$pg_user" "$pg_data"
      if ! runuser -u "$pg_user" -- test -w "$pg_data"; then
        say "user $pg_user cannot reach $pg_data (a parent folder is closed to it); set ENGINES_DIR to a folder it can reach, e.g. /tmp/engines"
        return 1
      fi
    fi
    # C locale: text sorts by bytes, as SQLite's BINARY collation does (the schema also says
    # COLLATE "C" on every text column, so a database with another default sorts the same).
    as_pg "$pg_bin/initdb" -D "$pg_data" -U postgres --auth=trust --locale=C --encoding=UTF8 >"$root/initdb.log" 2>&1 ||
      {
        cat "$root/initdb.log" >&2
        return 1
      }
  fi
  if as_pg "$pg_bin/pg_ctl" -D "$pg_data" status >/dev/null 2>&1; then
    say "PostgreSQL already running on 127.0.0.1:$pg_port"
    return 0
  fi
  # fsync off and no synchronous commit: a throwaway database for tests, speed over durability.
  as_pg "$pg_bin/pg_ctl" -D "$pg_data" -l "$pg_data/server.log" -w -t 30 \
    -o "-p $pg_port -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    start >/dev/null || {
    tail -n 20 "$pg_data/server.log" >&2
    return 1
  }
  say "PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$pg_port (data in $pg_data)"
}

pg_stop() {
  [ -n "$pg_bin" ] && [ -f "$pg_data/PG_VERSION" ] || return 0
  if as_pg "$pg_bin/pg_ctl" -D "$pg_data" status >/dev/null 2>&1; then
    as_pg "$pg_bin/pg_ctl" -D "$pg_data" -m fast -w stop >/dev/null
    say "PostgreSQL stopped"
  fi
}

redis_up() { redis-cli -h 127.0.0.1 -p "$redis_port" ping >/dev/null 2>&1; }

redis_start() {
  if ! command -v redis-server >/dev/null 2>&1; then
    say "redis-server not found (apt-get install redis-server)"
    return 1
  fi
  mkdir -p "$root"
  if redis_up; then
    say "Redis already running on 127.0.0.1:$redis_port"
    return 0
  fi
  redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
    --dir "$root" --pidfile "$root/redis.pid" --logfile "$root/redis.log"
  for _ in $(seq 1 50); do
    redis_up && break
    sleep 0.1
  done
  redis_up || {
    tail -n 20 "$root/redis.log" >&2
    return 1
  }
  say "Redis $(redis-server --version | awk '{print $3}' | cut -d= -f2) on 127.0.0.1:$redis_port"
}

redis_stop() {
  if redis_up; then
    redis-cli -h 127.0.0.1 -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true
    say "Redis stopped"
  fi
}

case "${1:-}" in
  start)
    pg_start
    redis_start
    print_env
    ;;
  stop)
    pg_stop
    redis_stop
    ;;
  env) print_env ;;
  clean)
    pg_stop
    redis_stop
    rm -rf "$root" "$pg_data"
    ;;
  *)
    echo "usage: scripts/engines.sh start|stop|env|clean" >&2
    exit 2
    ;;
esac
