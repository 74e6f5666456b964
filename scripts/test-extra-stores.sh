#!/usr/bin/env bash
# PostgresStore against a real PostgreSQL server: installs Debian's
# `postgresql` when missing, starts a throwaway cluster (temp dir, loopback,
# a free port, fsync off) as the `postgres` user, runs the server tests with
# DATABASE_URL pointing at it, and always stops and removes it.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n==> %s\n' "$*"; }
START=$(date +%s)

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

step "postgresql: server binaries"
BIN=$(pg_bin)
if [ -z "$BIN" ] || [ ! -x "$BIN/initdb" ] || [ ! -x "$BIN/pg_ctl" ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y postgresql >/dev/null 2>&1 || { $SUDO apt-get update >/dev/null && $SUDO apt-get install -y postgresql >/dev/null; }
  BIN=$(pg_bin)
fi
echo "using $BIN ($("$BIN/postgres" --version))"

# initdb refuses to run as root: as root, run the cluster as `postgres`.
if [ "$(id -u)" -eq 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
  as_pg() { runuser -u postgres -- "$@"; }
else
  as_pg() { "$@"; }
fi

step "postgresql: throwaway cluster"
PGTMP=$(mktemp -d /tmp/credence-pg.XXXXXX)
cleanup() {
  as_pg "$BIN/pg_ctl" -D "$PGTMP/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$PGTMP"
}
trap cleanup EXIT
[ "$(id -u)" -eq 0 ] && chown postgres "$PGTMP"
PORT=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
as_pg "$BIN/initdb" -D "$PGTMP/data" -U postgres --auth=trust -E UTF8 --locale=C >/dev/null
as_pg "$BIN/pg_ctl" -D "$PGTMP/data" -l "$PGTMP/server.log" -w -t 30 \
  -o "-c listen_addresses=127.0.0.1 -p $PORT -k $PGTMP -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
  start >/dev/null || { cat "$PGTMP/server.log"; exit 1; }
export DATABASE_URL="postgres://postgres@127.0.0.1:$PORT/postgres"
echo "PostgreSQL on 127.0.0.1:$PORT ($(( $(date +%s) - START )) s so far)"

step "the packed package in node_modules"
if [ ! -f pkg/package.json ]; then bash scripts/build.sh; fi
if ! cmp -s pkg/index.cjs node_modules/credence/index.cjs || ! cmp -s pkg/node/credence_bg.wasm node_modules/credence/node/credence_bg.wasm; then
  rm -f credence-*.tgz
  TARBALL=$(cd pkg && npm pack --silent --pack-destination ..)
  npm install --no-save --no-audit --no-fund "./$TARBALL" >/dev/null
fi

step "vitest: PostgresStore on the server"
node_modules/.bin/vitest run js-tests/vitest/stores-postgres.test.js

step "stores on PostgreSQL passed in $(( $(date +%s) - START )) s"
