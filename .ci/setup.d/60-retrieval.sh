#!/usr/bin/env bash
# Tool retrieval quality (tool-core's tool_search tests and the tool_search
# bench, issue 35) is measured on the Berkeley Function Calling Leaderboard's
# labelled data against a reference BM25: bfcl-eval, rank-bm25 and numpy,
# pinned with hashes in benches/peers/retrieval/requirements.txt, installed
# (--no-deps --require-hashes) into benches/peers/retrieval/.venv (gitignored).
# Idempotent: skipped when requirements.txt has not changed since the last
# successful install. Quiet on success.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dir="$root/benches/peers/retrieval"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

stamp_matches() { # file stamp
  [ -f "$2" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$(cat "$2")" ]
}

python=${PYTHON:-python3}
if ! command -v "$python" >/dev/null 2>&1; then
  echo "60-retrieval.sh: python3 (3.11, with venv) is needed" >&2
  exit 1
fi
if ! stamp_matches "$dir/requirements.txt" "$dir/.venv/.tool-search-stamp"; then
  if ! { [ -x "$dir/.venv/bin/python" ] || "$python" -m venv "$dir/.venv"; } >"$log" 2>&1 ||
     ! "$dir/.venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps --require-hashes -r "$dir/requirements.txt" >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
  fi
  sha256sum "$dir/requirements.txt" | cut -d' ' -f1 >"$dir/.venv/.tool-search-stamp"
fi
