#!/usr/bin/env bash
# The providers' official Python SDKs (anthropic, openai) check tool-core's
# provider exports and answer fixtures against their own types
# (tool-core/tests/tool_search.rs, issue 35): pinned with hashes in
# tool-core/tests/fixtures/providers/sdk/requirements.txt, installed
# (--no-deps --require-hashes) into that folder's .venv (gitignored).
# Idempotent: skipped when requirements.txt has not changed since the last
# successful install. Quiet on success.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dir="$root/tool-core/tests/fixtures/providers/sdk"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

stamp_matches() { # file stamp
  [ -f "$2" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$(cat "$2")" ]
}

python=${PYTHON:-python3}
if ! command -v "$python" >/dev/null 2>&1; then
  echo "61-provider-sdks.sh: python3 (3.11, with venv) is needed" >&2
  exit 1
fi
if ! stamp_matches "$dir/requirements.txt" "$dir/.venv/.provider-sdks-stamp"; then
  if ! { [ -x "$dir/.venv/bin/python" ] || "$python" -m venv "$dir/.venv"; } >"$log" 2>&1 ||
     ! "$dir/.venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps --require-hashes -r "$dir/requirements.txt" >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
  fi
  sha256sum "$dir/requirements.txt" | cut -d' ' -f1 >"$dir/.venv/.provider-sdks-stamp"
fi
