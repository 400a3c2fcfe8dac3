#!/usr/bin/env bash
# The cargo subcommands `.ci/run` uses beyond the toolchain, pinned here and
# built from crates.io with their own lock files (`cargo install --locked`):
#   - cargo-hack: every library crate checked with each of its features
#     alone (and none), so a feature subset that stops building fails CI;
#   - cargo-semver-checks: each library crate's public API compared with
#     the baseline kept in `.ci/api-baseline/` (see `.ci/semver.sh`).
# Run by `.ci/run` before the steps that need them (no test needs them).
# Idempotent: a tool whose installed version already matches the pin is
# left alone, so a warm machine does no network work. Quiet on success.
set -euo pipefail

# Bump a pin here (and only here); `.ci/run` prints the versions it ran.
tools=(
  "cargo-hack 0.6.46"
  "cargo-semver-checks 0.51.0"
)

log=$(mktemp)
trap 'rm -f "$log"' EXIT

for entry in "${tools[@]}"; do
  read -r name version <<<"$entry"
  sub=${name#cargo-}
  # `cargo hack --version` prints "cargo-hack 0.6.46"; same for semver-checks.
  installed=$(cargo "$sub" --version 2>/dev/null | awk '{ print $2 }' || true)
  if [ "$installed" = "$version" ]; then
    continue
  fi
  # CARGO_INCREMENTAL=0: a one-off build, incremental caches would only cost disk.
  if ! CARGO_INCREMENTAL=0 cargo install --quiet --locked --version "$version" "$name" >"$log" 2>&1; then
    echo "70-ci-tools.sh: \`cargo install --locked --version $version $name\` failed:" >&2
    cat "$log" >&2
    exit 1
  fi
done
