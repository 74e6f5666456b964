#!/usr/bin/env bash
# Installs the packed tarball into an empty folder and uses it both ways.
set -euo pipefail
TARBALL="$1"
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
cd "$DIR"
npm init -y >/dev/null
npm install --no-audit --no-fund "$TARBALL" >/dev/null
node -e '
  const { Memory, CredenceError } = require("credence");
  new Memory().remember({ predicate: "likes", object: "tea" }).then((o) => {
    if (o.action !== "added" || typeof CredenceError !== "function") process.exit(1);
    console.log("require: ok (" + o.action + ")");
  });
'
node --input-type=module -e '
  import { Memory, ConcurrencyError } from "credence";
  const o = await new Memory().remember({ predicate: "likes", object: "tea" });
  if (o.action !== "added" || typeof ConcurrencyError !== "function") process.exit(1);
  console.log("import: ok (" + o.action + ")");
'
