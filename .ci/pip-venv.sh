#!/usr/bin/env bash
# Installs DIR/requirements.txt (pinned with hashes) into DIR/.venv with
# --no-deps --require-hashes, for the .ci/setup.d scripts whose fixtures are
# PyPI packages. Usage: pip-venv.sh NAME DIR (NAME is the calling script's,
# for messages). Idempotent: skipped when requirements.txt has not changed
# since the last successful install. Quiet on success.
set -euo pipefail

name=$1
dir=$2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
stamp="$dir/.venv/.requirements-stamp"

python=${PYTHON:-python3}
if ! command -v "$python" >/dev/null 2>&1; then
  echo "$name: python3 (3.11, with venv) is needed" >&2
  exit 1
fi
if [ -f "$stamp" ] && [ "$(sha256sum "$dir/requirements.txt" | cut -d' ' -f1)" = "$(cat "$stamp")" ]; then
  exit 0
fi
if ! { [ -x "$dir/.venv/bin/python" ] || "$python" -m venv "$dir/.venv"; } >"$log" 2>&1 ||
   ! "$dir/.venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps --require-hashes -r "$dir/requirements.txt" >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
sha256sum "$dir/requirements.txt" | cut -d' ' -f1 >"$stamp"
