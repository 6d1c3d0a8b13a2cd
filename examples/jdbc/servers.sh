#!/usr/bin/env bash
# Throwaway PostgreSQL and MariaDB servers for the real-database example and
# its tests: Debian's packaged binaries (apt-get install postgresql
# mariadb-server), each with a data directory of its own under
# $ISOCHECK_REALDB_DIR (default /var/tmp/isocheck-realdb), listening on
# 127.0.0.1 only, on ports of their own, so that neither touches the system's
# clusters. No systemd needed; as root the servers run as the packages' users
# (postgres, mysql), otherwise as you.
#
#   examples/jdbc/servers.sh start [postgres|mariadb]   # idempotent: a running server is left alone
#   examples/jdbc/servers.sh stop  [postgres|mariadb]
#   examples/jdbc/servers.sh status
#
# Both servers trust local connections (user isocheck, database isocheck, no
# password): they are for tests, not for data. fsync is off for speed; it
# changes durability across a machine crash, not isolation.
set -euo pipefail

ROOT=${ISOCHECK_REALDB_DIR:-/var/tmp/isocheck-realdb}
PG_PORT=${ISOCHECK_PG_PORT:-55432}
MARIADB_PORT=${ISOCHECK_MARIADB_PORT:-53306}
PG_DIR=$ROOT/postgres
MARIADB_DIR=$ROOT/mariadb

say() { echo "servers.sh: $*" >&2; }
die() { say "$*"; exit 1; }

# Runs a command as the given system user when we are root, else as ourselves.
as() {
  local user=$1; shift
  if [ "$(id -u)" = 0 ]; then runuser -u "$user" -- "$@"; else "$@"; fi
}

owned_by() {
  local user=$1 dir=$2
  mkdir -p "$dir"
  if [ "$(id -u)" = 0 ]; then chown "$user:" "$dir"; fi
}

# Removes a pid or lock file whose process is gone or is not the server (a
# server killed with the machine's session leaves one, and its pid may have
# been reused), so that the server does not refuse to start.
clear_stale() {
  local file=$1 comm=$2 pid
  [ -f "$file" ] || return 0
  pid=$(head -n 1 "$file" | tr -dc 0-9)
  if [ -z "$pid" ] || [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != "$comm" ]; then rm -f "$file"; fi
}

# --- PostgreSQL -------------------------------------------------------------

pg_bin() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  [ -n "$d" ] && [ -x "$d/pg_ctl" ] ||
    die "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/pg_ctl): apt-get install -y postgresql"
  echo "$d"
}

pg_up() {
  psql -X -q -h 127.0.0.1 -p "$PG_PORT" -U isocheck -d isocheck -tAc 'select 1' >/dev/null 2>&1
}

start_postgres() {
  if pg_up; then say "PostgreSQL already running on 127.0.0.1:$PG_PORT"; return; fi
  local bin; bin=$(pg_bin)
  mkdir -p "$ROOT"; chmod 755 "$ROOT"
  # A data directory of another major version (the package was upgraded) is
  # thrown away with the rest: these servers keep nothing worth keeping.
  if [ ! -f "$PG_DIR/PG_VERSION" ] || [ "$(cat "$PG_DIR/PG_VERSION")" != "$(basename "$(dirname "$bin")")" ]; then
    rm -rf "$PG_DIR"
    owned_by postgres "$PG_DIR"
    as postgres "$bin/initdb" -D "$PG_DIR" -U isocheck --auth=trust -E UTF8 --no-sync >"$ROOT/postgres-initdb.log" 2>&1 ||
      die "initdb failed; see $ROOT/postgres-initdb.log"
  fi
  touch "$ROOT/postgres.log"
  if [ "$(id -u)" = 0 ]; then chown postgres: "$ROOT/postgres.log"; fi
  clear_stale "$PG_DIR/postmaster.pid" postgres
  # The settings go on the command line, so that a data directory from an
  # earlier version of this script gets them too. deadlock_timeout: a test
  # server with hot keys should not wait a second to find each deadlock.
  local settings="-c listen_addresses=127.0.0.1 -c port=$PG_PORT -c unix_socket_directories= \
    -c max_connections=100 -c shared_buffers=128MB -c fsync=off -c synchronous_commit=off \
    -c full_page_writes=off -c deadlock_timeout=100ms \
    -c log_min_messages=fatal -c log_min_error_statement=panic"
  as postgres "$bin/pg_ctl" -D "$PG_DIR" -l "$ROOT/postgres.log" -w -t 60 -o "$settings" start </dev/null >/dev/null 2>&1 ||
    die "PostgreSQL did not start on 127.0.0.1:$PG_PORT; see $ROOT/postgres.log (is the port taken? set ISOCHECK_PG_PORT)"
  if ! psql -X -q -h 127.0.0.1 -p "$PG_PORT" -U isocheck -d postgres -tAc \
         "select 1 from pg_database where datname = 'isocheck'" | grep -q 1; then
    psql -X -q -h 127.0.0.1 -p "$PG_PORT" -U isocheck -d postgres -c 'create database isocheck' >/dev/null
  fi
  pg_up || die "PostgreSQL started but user isocheck cannot use database isocheck on 127.0.0.1:$PG_PORT"
  say "PostgreSQL running on 127.0.0.1:$PG_PORT (data $PG_DIR, log $ROOT/postgres.log)"
}

stop_postgres() {
  if [ -f "$PG_DIR/postmaster.pid" ]; then
    as postgres "$(pg_bin)/pg_ctl" -D "$PG_DIR" -m fast -w stop >/dev/null 2>&1 || true
  fi
  say "PostgreSQL stopped"
}

# --- MariaDB ----------------------------------------------------------------

MARIADB_SOCK=$MARIADB_DIR/mariadb.sock

mariadb_up() {
  mariadb --no-defaults --protocol=tcp -h 127.0.0.1 -P "$MARIADB_PORT" -u isocheck isocheck \
    -e 'select 1' >/dev/null 2>&1
}

start_mariadb() {
  if mariadb_up; then say "MariaDB already running on 127.0.0.1:$MARIADB_PORT"; return; fi
  command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] ||
    die "MariaDB is not installed (no mariadbd): apt-get install -y mariadb-server"
  local mariadbd=/usr/sbin/mariadbd
  command -v mariadbd >/dev/null 2>&1 && mariadbd=$(command -v mariadbd)
  local user=() ; [ "$(id -u)" = 0 ] && user=(--user=mysql)
  mkdir -p "$ROOT"; chmod 755 "$ROOT"
  if [ ! -d "$MARIADB_DIR/data/mysql" ]; then
    rm -rf "$MARIADB_DIR"
    owned_by mysql "$MARIADB_DIR"
    mariadb-install-db --no-defaults --datadir="$MARIADB_DIR/data" "${user[@]}" \
      --auth-root-authentication-method=normal --skip-test-db >"$ROOT/mariadb-install.log" 2>&1 ||
      die "mariadb-install-db failed; see $ROOT/mariadb-install.log"
  fi
  owned_by mysql "$MARIADB_DIR"
  clear_stale "$MARIADB_DIR/mariadb.pid" mariadbd
  clear_stale "$MARIADB_SOCK.lock" mariadbd
  touch "$ROOT/mariadb.log"
  if [ "$(id -u)" = 0 ]; then chown mysql: "$ROOT/mariadb.log"; fi
  setsid "$mariadbd" --no-defaults "${user[@]}" --datadir="$MARIADB_DIR/data" \
    --bind-address=127.0.0.1 --port="$MARIADB_PORT" --socket="$MARIADB_SOCK" \
    --pid-file="$MARIADB_DIR/mariadb.pid" --log-error="$ROOT/mariadb.log" \
    --skip-name-resolve --skip-log-bin --max-connections=200 \
    --innodb-buffer-pool-size=128M --innodb-flush-log-at-trx-commit=0 \
    --innodb-lock-wait-timeout=10 </dev/null >/dev/null 2>&1 &
  local i
  for i in $(seq 1 120); do
    if mariadb-admin --no-defaults --socket="$MARIADB_SOCK" -u root ping >/dev/null 2>&1; then break; fi
    sleep 0.5
  done
  mariadb-admin --no-defaults --socket="$MARIADB_SOCK" -u root ping >/dev/null 2>&1 ||
    die "MariaDB did not start on 127.0.0.1:$MARIADB_PORT; see $ROOT/mariadb.log (is the port taken? set ISOCHECK_MARIADB_PORT)"
  mariadb --no-defaults --socket="$MARIADB_SOCK" -u root -e "
    CREATE DATABASE IF NOT EXISTS isocheck;
    CREATE USER IF NOT EXISTS 'isocheck'@'%';
    GRANT ALL PRIVILEGES ON *.* TO 'isocheck'@'%';" ||
    die "MariaDB started but the isocheck user and database could not be created"
  mariadb_up || die "MariaDB started but user isocheck cannot use database isocheck on 127.0.0.1:$MARIADB_PORT"
  say "MariaDB running on 127.0.0.1:$MARIADB_PORT (data $MARIADB_DIR/data, log $ROOT/mariadb.log)"
}

stop_mariadb() {
  if [ -S "$MARIADB_SOCK" ]; then
    mariadb-admin --no-defaults --socket="$MARIADB_SOCK" -u root shutdown >/dev/null 2>&1 || true
  fi
  say "MariaDB stopped"
}

# --- main -------------------------------------------------------------------

cmd=${1:-start}
which=${2:-all}
case "$which" in
  postgres|mariadb|all) ;;
  *) die "unknown server '$which': postgres, mariadb (default: both)" ;;
esac
case "$cmd" in
  start)
    [ "$which" = mariadb ] || start_postgres
    [ "$which" = postgres ] || start_mariadb ;;
  stop)
    [ "$which" = mariadb ] || stop_postgres
    [ "$which" = postgres ] || stop_mariadb ;;
  status)
    if pg_up; then say "PostgreSQL: up on 127.0.0.1:$PG_PORT"; else say "PostgreSQL: down"; fi
    if mariadb_up; then say "MariaDB: up on 127.0.0.1:$MARIADB_PORT"; else say "MariaDB: down"; fi ;;
  *) die "usage: servers.sh start|stop|status [postgres|mariadb]" ;;
esac
