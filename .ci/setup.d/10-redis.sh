#!/usr/bin/env bash
# tool-dispatch's tests (feature `redis`) start their own
# redis-server on a free 127.0.0.1 port; this installs Debian's package when
# the binary is missing. Idempotent and quiet when it is already there.
set -euo pipefail

if command -v redis-server >/dev/null 2>&1; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "10-redis.sh: redis-server is missing and apt-get is not available; install redis-server (>= 6.2) by hand" >&2
  exit 1
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { "${sudo_cmd[@]}" apt-get update -qq && "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends redis-server; } >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi

# The package may start a system-wide server on 6379; the tests never use it.
command -v redis-server >/dev/null 2>&1
