#!/usr/bin/env bash
# tool-openapi's outside judge (tests/http/judge.rs): Stoplight Prism's
# validating mock, npm @stoplight/prism-cli 5.16.0 (213 packages, 74 MB
# unpacked), pinned by tool-openapi/tests/fixtures/prism/package.json +
# package-lock.json and installed into tool-openapi/tests/fixtures/prism/
# node_modules (gitignored). Prism declares node >= 24 but runs on the
# node 20 Debian ships (the judge test checks it starts). Idempotent:
# skipped when the lock file has not changed since the last successful
# install. Quiet on success.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
npm_dir="$root/tool-openapi/tests/fixtures/prism"
stamp="$npm_dir/node_modules/.tool-openapi-stamp"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

if ! command -v npm >/dev/null 2>&1; then
  echo "25-prism.sh: npm is needed (Debian: apt-get install nodejs npm)" >&2
  exit 1
fi
if [ -f "$stamp" ] && [ "$(sha256sum "$npm_dir/package-lock.json" | cut -d' ' -f1)" = "$(cat "$stamp")" ]; then
  exit 0
fi
if ! (cd "$npm_dir" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error) >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
sha256sum "$npm_dir/package-lock.json" | cut -d' ' -f1 >"$stamp"
