#!/usr/bin/env bash
# examples/console's browser test drives a real headless Chromium through
# chromedriver (WebDriver over HTTP on 127.0.0.1). This installs Debian's
# `chromium` and `chromium-driver` packages when either binary is missing.
# Idempotent and quiet when they are already there.
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1; }

if have chromium && have chromedriver; then
  exit 0
fi

if ! have apt-get; then
  echo "50-chromium.sh: chromium/chromedriver are missing and apt-get is not available; install Chromium and its chromedriver by hand" >&2
  exit 1
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { "${sudo_cmd[@]}" apt-get update -qq && "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends chromium chromium-driver; } >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi

have chromium && have chromedriver
