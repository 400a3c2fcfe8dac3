#!/usr/bin/env bash
# The providers' official Python SDKs (anthropic, openai) check tool-core's
# provider exports and answer fixtures against their own types
# (tool-core/tests/it/tool_search.rs, issue 35): pinned with hashes in
# tool-core/tests/fixtures/providers/sdk/requirements.txt, installed
# (--no-deps --require-hashes) into that folder's .venv (gitignored).
# (through .ci/pip-venv.sh: idempotent, quiet on success).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
exec bash "$root/.ci/pip-venv.sh" 61-provider-sdks.sh "$root/tool-core/tests/fixtures/providers/sdk"
