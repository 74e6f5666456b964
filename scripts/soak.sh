#!/usr/bin/env bash
# `npm run soak`: the long runs that do not fit in `npm test`.
#   1. The long write loop (js-tests/soak/long-write-loop.mjs: warm-up, 20,000
#      timed writes, 200,000 more into one in-memory Memory), CREDENCE_SOAK_RUNS
#      runs (default 20), each in its own process, on each supported Node line
#      (scripts/lib/node-runtimes.sh), the lines side by side (one core
#      each). On Node 20 this loop aborted V8
#      (README, "Supported runtimes"); here no run may fail.
#      CREDENCE_SOAK_JOBS=N runs N loops per line at once (default 1).
#   2. Every scripts/soak-*.sh, in name order (one file per area).
# Every run of the loop writes the same seeded candidates.
set -euo pipefail
cd "$(dirname "$0")/.."
# The clock time on each step, so a slow CI run shows where its minutes went.
step() { printf '\n==> [%s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
# shellcheck source=lib/node-runtimes.sh
source scripts/lib/node-runtimes.sh
START=$(date +%s)

step "Node runtimes: ${NODE_RUNTIME_VERSIONS[*]} (installed into .tools/ when missing)"
node_runtimes_install
PATH="$(newest_node_bin):$PATH"
export PATH

step "the packed package in node_modules"
if [ ! -f pkg/package.json ]; then bash scripts/build.sh; fi
if ! cmp -s pkg/index.cjs node_modules/credence/index.cjs || ! cmp -s pkg/web/credence_bg.wasm node_modules/credence/web/credence_bg.wasm; then
  bash scripts/install-pkg.sh >/dev/null
fi

step "long write loop: ${CREDENCE_SOAK_RUNS:-20} runs of 222,000 writes on each Node line (the lines side by side)"
with_each_node_at_once node js-tests/soak/repeat.mjs --jobs="${CREDENCE_SOAK_JOBS:-1}" "${CREDENCE_SOAK_RUNS:-20}" js-tests/soak/long-write-loop.mjs

for soak in scripts/soak-*.sh; do
  [ -e "$soak" ] || continue
  step "$soak"
  bash "$soak"
done

step "soak passed in $(( $(date +%s) - START )) s"
