#!/usr/bin/env bash
# The reconciliation benchmark (issue #3) in its quick form: the labeled
# corpus plus a smaller seeded simulation, compared with eval/baseline.json.
# Needs the packed package installed as `credence` (scripts/test-js.sh does it).
set -euo pipefail
cd "$(dirname "$0")/.."
printf '\n==> eval: reconciliation benchmark (quick)\n'
npm run --silent eval -- --quick
