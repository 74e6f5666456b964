#!/usr/bin/env bash
# PostgresStore against a real PostgreSQL server: installs Debian's
# `postgresql` when missing, starts a throwaway cluster (temp dir, loopback,
# a free port, fsync off) as the `postgres` user, runs the server tests with
# DATABASE_URL pointing at it, and always stops and removes it. The tests
# run on each supported Node line (scripts/lib/node-runtimes.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
# The clock time on each step, so a slow CI run shows where its minutes went.
step() { printf '\n==> [%s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
START=$(date +%s)

# shellcheck source=lib/pg-server.sh
source scripts/lib/pg-server.sh
# shellcheck source=lib/node-runtimes.sh
source scripts/lib/node-runtimes.sh
node_runtimes_install

step "postgresql: throwaway cluster"
pg_server_start -c synchronous_commit=off
echo "($(( $(date +%s) - START )) s so far)"

step "the packed package in node_modules"
if [ ! -f pkg/package.json ]; then bash scripts/build.sh; fi
if ! cmp -s pkg/index.cjs node_modules/credence/index.cjs || ! cmp -s pkg/node/credence_bg.wasm node_modules/credence/node/credence_bg.wasm; then
  rm -f credence-*.tgz
  TARBALL=$(cd pkg && npm pack --silent --pack-destination ..)
  npm install --no-save --no-audit --no-fund "./$TARBALL" >/dev/null
fi

step "vitest: PostgresStore on the server, on each Node line"
with_each_node node_modules/.bin/vitest run js-tests/vitest/stores-postgres.test.js js-tests/vitest/held-snapshots.test.js

step "vitest: the model-based (in-memory and server) and concurrent-agents random tests"
node_modules/.bin/vitest run js-tests/vitest/model-random.test.js js-tests/vitest/concurrency-random.test.js

step "stores on PostgreSQL passed in $(( $(date +%s) - START )) s"
