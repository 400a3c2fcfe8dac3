#!/usr/bin/env bash
# tool-mcp's integration tests and benches talk to real MCP servers:
#   - @modelcontextprotocol/server-everything (npm), pinned by
#     tool-mcp/tests/fixtures/npm/package.json + package-lock.json, installed
#     into tool-mcp/tests/fixtures/npm/node_modules (gitignored);
#   - a Python server script on the `mcp` SDK, its whole dependency closure
#     pinned in tool-mcp/tests/fixtures/python/requirements.txt, installed
#     into tool-mcp/tests/fixtures/python/.venv (gitignored).
# Idempotent: each install is skipped when its lock file has not changed
# since the last successful install. Quiet on success.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
npm_dir="$root/tool-mcp/tests/fixtures/npm"
py_dir="$root/tool-mcp/tests/fixtures/python"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

stamp_matches() { # file stamp
  [ -f "$2" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$(cat "$2")" ]
}

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "30-mcp.sh: node and npm are needed (Debian: apt-get install nodejs npm)" >&2
  exit 1
fi
if ! stamp_matches "$npm_dir/package-lock.json" "$npm_dir/node_modules/.tool-mcp-stamp"; then
  if ! (cd "$npm_dir" && npm ci --no-audit --no-fund --ignore-scripts) >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
  fi
  sha256sum "$npm_dir/package-lock.json" | cut -d' ' -f1 >"$npm_dir/node_modules/.tool-mcp-stamp"
fi

python=${PYTHON:-python3}
if ! command -v "$python" >/dev/null 2>&1; then
  echo "30-mcp.sh: python3 (>= 3.10, with venv) is needed" >&2
  exit 1
fi
if ! stamp_matches "$py_dir/requirements.txt" "$py_dir/.venv/.tool-mcp-stamp"; then
  if ! { [ -x "$py_dir/.venv/bin/python" ] || "$python" -m venv "$py_dir/.venv"; } >"$log" 2>&1 ||
     ! "$py_dir/.venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps -r "$py_dir/requirements.txt" >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
  fi
  sha256sum "$py_dir/requirements.txt" | cut -d' ' -f1 >"$py_dir/.venv/.tool-mcp-stamp"
fi
