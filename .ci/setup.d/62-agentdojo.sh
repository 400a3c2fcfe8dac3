#!/usr/bin/env bash
# The outside benchmark of the trust-and-taint gate (tool-core/tests/it/taint.rs,
# issue 39): AgentDojo's suites, their ground-truth calls and injection
# tasks, from PyPI's agentdojo and the parts of its closure that loading the
# suites needs, pinned with hashes in
# tool-core/tests/fixtures/agentdojo/requirements.txt, installed
# (--no-deps --require-hashes) into that folder's .venv (gitignored).
# (through .ci/pip-venv.sh: idempotent, quiet on success).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
exec bash "$root/.ci/pip-venv.sh" 62-agentdojo.sh "$root/tool-core/tests/fixtures/agentdojo"
