#!/usr/bin/env bash
# Reliability across processes, with a bounded budget (about 2 minutes on 2 cores):
#   1. OkfStore: writer processes killed with SIGKILL at random moments
#      (CREDENCE_CRASH_RUNS runs, default 50, two kills each)
#   2. PostgreSQL: the server restarted with `pg_ctl restart -m immediate`
#      while writer processes run, one writer killed per run; and while two
#      `credence mcp` servers on it write
#   3. Randomized multi-writer runs on every store (MemoryStore, OkfStore,
#      PGlite, the server), in process and across processes
#   4. The official MCP memory server and `credence mcp` side by side: two
#      concurrent servers each, acknowledged writes counted afterwards
# Each prints its seed and a `<name>: {json}` summary line (the figures in
# RELIABILITY.md); a failure prints the command that replays it.
# All of it runs on each supported Node line (scripts/lib/node-runtimes.sh),
# on one server (every scope carries its run's seed).
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

step "the packed package in node_modules"
if [ ! -f pkg/package.json ]; then bash scripts/build.sh; fi
if ! cmp -s pkg/index.cjs node_modules/credence/index.cjs || ! cmp -s pkg/node/credence_bg.wasm node_modules/credence/node/credence_bg.wasm; then
  bash scripts/install-pkg.sh >/dev/null
fi

step "postgresql: throwaway cluster (synchronous_commit=on: a crash keeps what it acknowledged)"
pg_server_start -c synchronous_commit=on

runs_on_this_node() {
  step "crash safety: OkfStore writers killed with SIGKILL (${CREDENCE_CRASH_RUNS:-50} runs)"
  node js-tests/reliability/crash-okf.mjs "${CREDENCE_CRASH_RUNS:-50}"

  step "crash safety: PostgreSQL restarted (-m immediate) under writer processes"
  node js-tests/reliability/crash-postgres.mjs "${CREDENCE_PG_CRASH_RUNS:-5}"

  step "crash safety: PostgreSQL restarted under two credence mcp servers"
  node js-tests/reliability/mcp-postgres-restart.mjs 60 3

  step "concurrency: randomized writers on every store"
  node js-tests/reliability/concurrency.mjs "${CREDENCE_CONCURRENCY_ROUNDS:-2}"

  step "side by side: @modelcontextprotocol/server-memory vs credence mcp, two concurrent writers"
  node js-tests/reliability/mcp-side-by-side.mjs "${CREDENCE_MCP_WRITES:-100}"
}
with_each_node runs_on_this_node

step "reliability across processes passed in $(( $(date +%s) - START )) s"
