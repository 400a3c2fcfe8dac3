#!/usr/bin/env bash
# benches/peers_approval's instruction guard counts a decision's
# instructions under callgrind; this installs Debian's valgrind package when
# the binary is missing. Idempotent and quiet when it is already there.
set -euo pipefail

if command -v valgrind >/dev/null 2>&1; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "75-valgrind.sh: valgrind is missing and apt-get is not available; install valgrind (callgrind) by hand" >&2
  exit 1
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { "${sudo_cmd[@]}" apt-get update -qq && "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends valgrind; } >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi

command -v valgrind >/dev/null 2>&1
