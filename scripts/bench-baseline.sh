#!/usr/bin/env bash
# Builds the package and the native bench of a pinned git commit (the last
# release before the speed work, issue #20) so `npm run bench` can measure
# this tree against it in one run. Cached under .bench-baseline/<commit>/
# (git-ignored); a second run only prints the path. Nothing in the repo's own
# tree, node_modules or git state changes: the commit is exported with
# `git archive` and installed into its own prefix as `credence-baseline`.
#
#   bash scripts/bench-baseline.sh [commit]   (default $CREDENCE_BENCH_BASELINE or 756ab32)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
COMMIT=$(git rev-parse --short=12 "${1:-${CREDENCE_BENCH_BASELINE:-756ab32}}^{commit}")
CACHE=$ROOT/.bench-baseline/$COMMIT
SRC=$CACHE/src
step() { printf '\n==> baseline %s: %s\n' "$COMMIT" "$*" >&2; }

if [ -f "$CACHE/ready" ]; then
  echo "$CACHE"
  exit 0
fi
mkdir -p "$CACHE"

step "export the tree (git archive)"
rm -rf "$SRC" && mkdir -p "$SRC"
git archive "$COMMIT" | tar -x -C "$SRC"

# The baseline's build.sh runs `npm ci` unless node_modules matches its
# lockfile. Give it a folder of links to this tree's tools and the matching
# hash; should it still run npm ci, only the links are removed.
step "tools: link this tree's node_modules"
mkdir -p "$SRC/node_modules"
for entry in "$ROOT"/node_modules/* "$ROOT"/node_modules/.bin; do
  ln -s "$entry" "$SRC/node_modules/"
done
(cd "$SRC" && {
  node -p 'const p = require("./package.json"); JSON.stringify([p.dependencies, p.devDependencies, p.optionalDependencies, p.overrides, p.allowScripts])'
  cat package-lock.json
} | sha256sum | cut -d' ' -f1 >node_modules/.credence-deps.sha256)

# Warm start: the registry crates are the same, so the release artifacts of
# this tree's target/ spare most of a cold build (only the crate itself rebuilds).
if [ ! -d "$SRC/target" ] && [ -d target ]; then
  step "seed target/ from this tree's release builds"
  mkdir -p "$SRC/target"
  for dir in release wasm32-unknown-unknown/release; do
    [ -d "target/$dir" ] && mkdir -p "$SRC/target/$dir" && cp -r "target/$dir/." "$SRC/target/$dir/"
  done
fi

step "build the package (its own scripts/build.sh)"
(cd "$SRC" && bash scripts/build.sh >&2)

step "pack and install as credence-baseline"
TARBALL=$(cd "$SRC/pkg" && npm pack --silent --pack-destination "$CACHE")
mkdir -p "$CACHE/install"
echo '{ "private": true }' >"$CACHE/install/package.json"
(cd "$CACHE/install" && npm install --no-save --no-audit --no-fund --no-package-lock "credence-baseline@file:../$TARBALL" >&2)

step "native bench (cargo bench --no-run)"
(cd "$SRC" && cargo bench --quiet --bench native --no-run >&2)

touch "$CACHE/ready"
echo "$CACHE"
