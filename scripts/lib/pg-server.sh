# Sourced helper: a throwaway PostgreSQL cluster for tests.
#
#   source scripts/lib/pg-server.sh
#   pg_server_start [-c name=value ...]   # extra server settings
#
# Installs Debian's `postgresql` when missing, creates a cluster in a temp dir
# (loopback only, a free port, fsync off) as the `postgres` user when run as
# root, starts it and exports:
#   DATABASE_URL         postgres://postgres@127.0.0.1:<port>/postgres
#   PG_RESTART_COMMAND   a shell command that restarts the server with
#                        `pg_ctl restart -m immediate` (a crash: no checkpoint,
#                        clients cut off) and waits until it accepts connections
# An EXIT trap stops the server and removes the directory. Callers set
# `set -euo pipefail` themselves.

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

pg_server_start() {
  PG_BIN=$(pg_bin)
  if [ -z "$PG_BIN" ] || [ ! -x "$PG_BIN/initdb" ] || [ ! -x "$PG_BIN/pg_ctl" ]; then
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get install -y postgresql >/dev/null 2>&1 || { $sudo apt-get update >/dev/null && $sudo apt-get install -y postgresql >/dev/null; }
    PG_BIN=$(pg_bin)
  fi
  echo "using $PG_BIN ($("$PG_BIN/postgres" --version))"

  # initdb refuses to run as root: as root, run the cluster as `postgres`.
  PG_AS=""
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
    PG_AS="runuser -u postgres --"
  fi

  PGTMP=$(mktemp -d /tmp/credence-pg.XXXXXX)
  trap pg_server_stop EXIT
  [ "$(id -u)" -eq 0 ] && chown postgres "$PGTMP"
  local port
  port=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  $PG_AS "$PG_BIN/initdb" -D "$PGTMP/data" -U postgres --auth=trust -E UTF8 --locale=C >/dev/null
  PG_OPTIONS="-c listen_addresses=127.0.0.1 -p $port -k $PGTMP -c fsync=off -c full_page_writes=off -c max_connections=200 $*"
  $PG_AS "$PG_BIN/pg_ctl" -D "$PGTMP/data" -l "$PGTMP/server.log" -w -t 30 -o "$PG_OPTIONS" start >/dev/null \
    || { cat "$PGTMP/server.log"; return 1; }
  export DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
  export PG_RESTART_COMMAND="$PG_AS $PG_BIN/pg_ctl -D $PGTMP/data -l $PGTMP/server.log -w -t 30 -m immediate -o '$PG_OPTIONS' restart >/dev/null"
  echo "PostgreSQL on 127.0.0.1:$port"
}

pg_server_stop() {
  [ -n "${PGTMP:-}" ] || return 0
  $PG_AS "$PG_BIN/pg_ctl" -D "$PGTMP/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$PGTMP"
}
