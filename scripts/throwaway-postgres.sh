# Sourced, not run: `source scripts/throwaway-postgres.sh && start_throwaway_postgres`.
# Installs Debian's `postgresql` when its server binaries are missing, starts a
# throwaway cluster (temp dir, loopback, a free port, fsync off) as the
# `postgres` user, exports DATABASE_URL, and stops and removes it when the
# calling shell exits (an EXIT trap). Used by test-extra-stores.sh and the bench.

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

start_throwaway_postgres() {
  local bin
  bin=$(pg_bin)
  if [ -z "$bin" ] || [ ! -x "$bin/initdb" ] || [ ! -x "$bin/pg_ctl" ]; then
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get install -y postgresql >/dev/null 2>&1 || { $sudo apt-get update >/dev/null && $sudo apt-get install -y postgresql >/dev/null; }
    bin=$(pg_bin)
  fi
  [ -n "$bin" ] && [ -x "$bin/initdb" ] || { echo "PostgreSQL server binaries not found and could not be installed" >&2; return 1; }
  echo "using $bin ($("$bin/postgres" --version))"

  # initdb refuses to run as root: as root, run the cluster as `postgres`.
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
    as_pg() { runuser -u postgres -- "$@"; }
  else
    as_pg() { "$@"; }
  fi

  PGTMP=$(mktemp -d /tmp/credence-pg.XXXXXX)
  PG_BIN_DIR=$bin
  trap stop_throwaway_postgres EXIT
  [ "$(id -u)" -eq 0 ] && chown postgres "$PGTMP"
  local port
  port=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  as_pg "$bin/initdb" -D "$PGTMP/data" -U postgres --auth=trust -E UTF8 --locale=C >/dev/null
  as_pg "$bin/pg_ctl" -D "$PGTMP/data" -l "$PGTMP/server.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $PGTMP -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    start >/dev/null || { cat "$PGTMP/server.log"; return 1; }
  export DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
  echo "PostgreSQL on 127.0.0.1:$port"
}

stop_throwaway_postgres() {
  [ -n "${PGTMP:-}" ] || return 0
  as_pg "$PG_BIN_DIR/pg_ctl" -D "$PGTMP/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$PGTMP"
  PGTMP=""
}
