#!/usr/bin/env bash
# Tool retrieval quality (tool-core's tool_search tests and the tool_search
# bench, issue 35) is measured on the Berkeley Function Calling Leaderboard's
# labelled data against a reference BM25: bfcl-eval, rank-bm25 and numpy,
# pinned with hashes in benches/peers/retrieval/requirements.txt, installed
# (--no-deps --require-hashes) into benches/peers/retrieval/.venv (gitignored).
# (through .ci/pip-venv.sh: idempotent, quiet on success).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
exec bash "$root/.ci/pip-venv.sh" 60-retrieval.sh "$root/benches/peers/retrieval"
