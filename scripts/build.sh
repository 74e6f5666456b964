#!/usr/bin/env bash
# Builds the npm package into pkg/ from a fresh machine that has rustup/cargo,
# Node 20+ and npm (scripts/test.sh brings the supported Node 22 and 24 and
# builds with the newest). Each step is named; set CREDENCE_SKIP_WASM=1 to
# reuse the last wasm (JS-only changes).
set -euo pipefail
cd "$(dirname "$0")/.."
# The clock time on each step, so a slow CI run shows where its minutes went.
step() { printf '\n==> [%s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }

WB_VERSION=$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' Cargo.toml)
PKG_VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)

step "toolchain: wasm32-unknown-unknown target"
rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown

step "toolchain: wasm-bindgen-cli $WB_VERSION"
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WB_VERSION" ]; then
  # --locked fails on this registry (webpki-roots); see TOOLCHAIN.md.
  cargo install wasm-bindgen-cli --version "=$WB_VERSION"
fi

step "npm: build and test tools (npm ci from package-lock.json)"
# npm ci wipes node_modules: run it only when the lockfile or package.json's
# dependency fields changed since the last install (their hash is kept inside
# node_modules; editing a script in package.json reinstalls nothing).
DEPS_HASH=$({
  node -p 'const p = require("./package.json"); JSON.stringify([p.dependencies, p.devDependencies, p.optionalDependencies, p.overrides, p.allowScripts])'
  cat package-lock.json
} | sha256sum | cut -d' ' -f1)
if [ ! -x node_modules/.bin/esbuild ] || [ "$(cat node_modules/.credence-deps.sha256 2>/dev/null)" != "$DEPS_HASH" ]; then
  npm ci --no-audit --no-fund
  echo "$DEPS_HASH" >node_modules/.credence-deps.sha256
else
  echo "node_modules matches package-lock.json"
fi

if [ "${CREDENCE_SKIP_WASM:-}" != 1 ] || [ ! -f pkg/web/credence_bg.wasm ] || [ -f pkg/node/credence_bg.wasm ]; then
  step "cargo: release wasm"
  # No Rust Unicode tables in the wasm: NFKC comes from the host (see Cargo.toml).
  cargo build --release --target wasm32-unknown-unknown --no-default-features
  WASM=target/wasm32-unknown-unknown/release/credence.wasm

  step "wasm-bindgen: node (CommonJS) and web (ESM) glue"
  rm -rf pkg && mkdir -p pkg
  wasm-bindgen "$WASM" --target nodejs --out-dir pkg/node --out-name credence
  wasm-bindgen "$WASM" --target web --out-dir pkg/web --out-name credence
  mv pkg/node/credence.js pkg/node/credence.cjs
  mv pkg/node/credence.d.ts pkg/node/credence.d.cts

  step "wasm-opt -Oz (binaryen from npm; Debian's 108 breaks this output)"
  node_modules/.bin/wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
    pkg/node/credence_bg.wasm -o pkg/node/credence_bg.wasm
  # One wasm in the package: web/credence_bg.wasm (bundlers find it through
  # the web glue's `new URL(..., import.meta.url)`); the node glue reads it there.
  mv pkg/node/credence_bg.wasm pkg/web/credence_bg.wasm
  rm -f pkg/node/credence_bg.wasm.d.ts
  node -e '
    const fs = require("fs"), f = "pkg/node/credence.cjs";
    const from = "const wasmPath = `${__dirname}/credence_bg.wasm`;";
    const text = fs.readFileSync(f, "utf8");
    if (!text.includes(from)) { console.error("build: the node glue no longer reads " + from + "; update scripts/build.sh"); process.exit(1); }
    // TextEncoder/TextDecoder from node:util, not the globals: a jsdom test
    // environment (Jest) has none, and the node glue runs in Node anyway.
    const codec = "const { TextEncoder, TextDecoder } = require(\"node:util\");\n";
    fs.writeFileSync(f, codec + text.replace(from, "const wasmPath = require(\"path\").join(__dirname, \"..\", \"web\", \"credence_bg.wasm\");"));
  '
else
  step "reusing pkg/web/credence_bg.wasm (CREDENCE_SKIP_WASM=1)"
  find pkg -maxdepth 1 -type f -delete
fi

step "package: entries, types, templates"
node_modules/.bin/esbuild pkg-templates/src/entry.node.js --bundle --platform=node --format=cjs \
  --target=node22 --external:./node/credence.cjs --external:pg --external:yaml --log-level=warning --outfile=pkg/index.cjs \
  --banner:js='const { TextEncoder, TextDecoder } = require("node:util"); // a jsdom test environment has no such globals'
node_modules/.bin/esbuild pkg-templates/src/entry.browser.js --bundle --platform=browser --format=esm \
  --target=es2022 --external:./web/credence.js --log-level=warning --outfile=pkg/index.browser.js
cp pkg-templates/index.node.js pkg/index.node.js
# One self-contained declaration file: the generated types + the hand-written ones.
node scripts/finish-dts.mjs pkg/node/credence.d.cts pkg/index.d.ts
cat pkg-templates/types/extra.d.ts pkg-templates/types/okf.d.ts pkg-templates/types/postgres.d.ts pkg-templates/types/indexeddb.d.ts >> pkg/index.d.ts
cp pkg/index.d.ts pkg/index.d.cts
cp README.md LICENSE pkg/
cp pkg-templates/judge.d.ts pkg/judge.d.ts
# The CLI and MCP server ship as plain ESM files next to the entries, and
# so do the agent tools (credence/tools), which the MCP server is built on.
rm -rf pkg/cli && cp -r pkg-templates/cli pkg/cli
rm -rf pkg/tools && cp -r pkg-templates/tools pkg/tools
# The store conformance suite (credence/conformance) ships as ESM files as
# written, plus one CommonJS bundle for require() (Jest); 'credence' stays an
# import of the package itself, so the suite and its user share one copy.
rm -rf pkg/conformance && cp -r pkg-templates/conformance pkg/conformance
node_modules/.bin/esbuild pkg-templates/conformance/index.js --bundle --platform=node --format=cjs \
  --target=node22 --external:credence --log-level=warning --outfile=pkg/conformance/index.cjs
sed "s#from '../index.js'#from '../index.cjs'#" pkg/conformance/index.d.ts >pkg/conformance/index.d.cts
node -e '
  const fs = require("fs");
  const p = JSON.parse(fs.readFileSync("pkg-templates/package.json", "utf8"));
  p.version = process.argv[1];
  fs.writeFileSync("pkg/package.json", JSON.stringify(p, null, 2) + "\n");
' "$PKG_VERSION"

step "tsc: type-check the emitted declarations"
node_modules/.bin/tsc --noEmit --strict --skipLibCheck false --lib es2022,dom pkg/index.d.ts
# …and without the DOM lib (a Node project's tsconfig): nothing may need it.
node_modules/.bin/tsc --noEmit --strict --skipLibCheck false --lib es2022 pkg/index.d.ts pkg/tools/index.d.ts pkg/conformance/index.d.ts pkg/conformance/index.d.cts

step "size"
node -e '
  const fs = require("fs"), zlib = require("zlib");
  const b = fs.readFileSync("pkg/web/credence_bg.wasm");
  const kb = n => (n / 1024).toFixed(1) + " KB";
  console.log(`wasm: ${kb(b.length)} raw, ${kb(zlib.gzipSync(b, { level: 9 }).length)} gzipped`);
'
