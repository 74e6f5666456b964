# Sourced helper: the Node lines the packed package is tested on (README,
# "Supported runtimes"). Node binaries come from the npm registry as packages
# (node-<os>-<arch>@<version>, a plain bin/node) and live in the git-ignored
# .tools/ folder, installed only when missing.
#
#   source scripts/lib/node-runtimes.sh
#   node_runtimes_install            # installs what is missing; sets NODE_RUNTIME_BINS
#   with_each_node CMD [ARGS...]     # runs CMD once per runtime, that `node` first on PATH
#   with_each_node_at_once CMD ...   # the same, all runtimes at once (for long CPU-bound loops
#                                    # on a multi-core machine), output lines tagged by version
#   newest_node_bin                  # bin dir of the newest runtime
#
# CREDENCE_NODE_LINES="24" narrows a run to some lines (default: all of them).
# Callers set `set -euo pipefail` themselves.

# Exact versions: one place to move them forward.
NODE_RUNTIME_VERSIONS=(22.23.5 24.22.3)

_node_runtimes_root() { echo "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.tools/node"; }

_node_package_name() {
  local os arch
  case "$(uname -s)" in
    Linux) os=linux ;; Darwin) os=darwin ;;
    *) echo "no Node package for $(uname -s); install Node 22 and 24 yourself" >&2; return 1 ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 ;; aarch64 | arm64) arch=arm64 ;;
    *) echo "no Node package for $(uname -m)" >&2; return 1 ;;
  esac
  echo "node-$os-$arch"
}

node_runtimes_install() {
  local root name version major dir bin
  root=$(_node_runtimes_root)
  name=$(_node_package_name)
  NODE_RUNTIME_BINS=()
  for version in "${NODE_RUNTIME_VERSIONS[@]}"; do
    major=${version%%.*}
    if [ -n "${CREDENCE_NODE_LINES:-}" ] && ! grep -qw "$major" <<<"$CREDENCE_NODE_LINES"; then continue; fi
    dir="$root/$version"
    bin="$dir/node_modules/$name/bin"
    if [ "$("$bin/node" --version 2>/dev/null)" != "v$version" ]; then
      echo "installing Node $version ($name@$version from the npm registry) into ${dir#"$PWD"/}"
      rm -rf "$dir" && mkdir -p "$dir"
      # Its own package.json: npm must not walk up to the repo's.
      echo '{"private":true}' >"$dir/package.json"
      npm install --prefix "$dir" --no-audit --no-fund --no-package-lock --loglevel=error "$name@$version" >/dev/null
      [ "$("$bin/node" --version)" = "v$version" ] || { echo "Node $version did not install into $dir" >&2; return 1; }
    fi
    NODE_RUNTIME_BINS+=("$bin")
  done
  [ "${#NODE_RUNTIME_BINS[@]}" -gt 0 ] || { echo "CREDENCE_NODE_LINES=$CREDENCE_NODE_LINES selects no runtime of: ${NODE_RUNTIME_VERSIONS[*]}" >&2; return 1; }
}

newest_node_bin() { echo "${NODE_RUNTIME_BINS[${#NODE_RUNTIME_BINS[@]}-1]}"; }

with_each_node() {
  local bin
  for bin in "${NODE_RUNTIME_BINS[@]}"; do
    printf '\n--> on Node %s: %s\n' "$("$bin/node" --version)" "$*"
    PATH="$bin:$PATH" "$@"
  done
}

with_each_node_at_once() {
  local bin pids=() failed=0 i
  for bin in "${NODE_RUNTIME_BINS[@]}"; do
    # Each output line is tagged with its Node version as it comes.
    (set -o pipefail; PATH="$bin:$PATH" "$@" 2>&1 | sed -u "s/^/[node $("$bin/node" --version)] /") &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || { echo "FAILED on Node $("${NODE_RUNTIME_BINS[$i]}/node" --version): $*"; failed=1; }
  done
  return "$failed"
}
