#!/usr/bin/env bash
# Every library crate (`publish` not false) packed as `cargo publish` would
# pack it, then checked from its package: the packages are unpacked side by
# side into one scratch workspace under target/package/ (each one's
# dependencies on the others patched to the unpacked copies, since nothing
# is published; the workspace's Cargo.lock, offline) and each is checked
# alone with all its features (docs.rs's configuration, so every
# feature-gated file is compiled). This catches a file the package leaves
# out (`include` in the crate's Cargo.toml), a dependency declared only in
# the workspace and a path dependency without a version.
#
# Check mode instead of `cargo package`'s own verification, which builds
# each crate's dependency graph again with code generation (13+ minutes on
# 2 cores): the dependencies' check artifacts of the feature-subset step
# before this one are reused, so only our crates are compiled again. That a
# crate builds with only its own features is that step's job. The tests and
# examples stay out of the packages (they read the repository's fixtures)
# and run from the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_INCREMENTAL=0

mapfile -t pkgs < <(cargo metadata --locked --no-deps --format-version 1 | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p.get("publish") != []:
        print(p["name"], p["version"])
')
args=()
for entry in "${pkgs[@]}"; do args+=(-p "${entry%% *}"); done

# --allow-dirty: the check is of the tree as it is (CI's is a clean clone).
# The tests and examples left out of each package are named one warning
# each; every other warning is shown.
cargo package --quiet --locked --allow-dirty --no-verify "${args[@]}" 2>&1 |
  grep -vE '^warning: ignoring (test|example|bench) `' || true

ws="$root/target/package/check"
rm -rf "$ws"
mkdir -p "$ws"
{
  echo '[workspace]'
  echo 'resolver = "3"'
  echo 'members = ['
  for entry in "${pkgs[@]}"; do echo "  \"${entry%% *}-${entry##* }\","; done
  echo ']'
  echo '[patch.crates-io]'
  for entry in "${pkgs[@]}"; do echo "${entry%% *} = { path = \"${entry%% *}-${entry##* }\" }"; done
} >"$ws/Cargo.toml"
for entry in "${pkgs[@]}"; do
  crate="$root/target/package/${entry%% *}-${entry##* }.crate"
  [ -f "$crate" ] || { echo "package: $crate was not made" >&2; exit 1; }
  # The license texts travel with each package (`license` names both:
  # MIT OR Apache-2.0); each crate links the root's and lists them in `include`.
  for text in LICENSE-MIT LICENSE-APACHE; do
    tar -tzf "$crate" "${entry%% *}-${entry##* }/$text" >/dev/null 2>&1 ||
      { echo "package: ${entry%% *} leaves out $text" >&2; exit 1; }
  done
  tar -xzf "$crate" -C "$ws"
done
cp Cargo.lock "$ws/Cargo.lock"

for entry in "${pkgs[@]}"; do
  name=${entry%% *}
  echo "package: checking $name from its package"
  cargo check --quiet --offline --manifest-path "$ws/Cargo.toml" --target-dir "$root/target" \
    -p "$name" --all-features
done
# The scratch workspace's Cargo.lock must not have moved a version.
pairs() { grep -A1 '^name = ' "$1" | grep -v '^--$'; }
moved=$(diff <(pairs Cargo.lock) <(pairs "$ws/Cargo.lock") | grep '^>' || true)
if [ -n "$moved" ]; then
  echo "package: the packages resolved to versions Cargo.lock does not hold:" >&2
  echo "$moved" >&2
  exit 1
fi
echo "package: ${#pkgs[@]} library crates packed and checked from their packages"
