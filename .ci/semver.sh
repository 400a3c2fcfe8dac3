#!/usr/bin/env bash
# Each library crate's public API against its baseline, with
# cargo-semver-checks (installed by .ci/setup.d/70-ci-tools.sh): a change
# that would break a dependent fails unless the crate's version says so
# (0.1.x -> 0.2.0). Offline and without building anything twice:
#   1. rustdoc JSON of the current workspace, all features, in target/doc
#      (the same package set and features as `.ci/run`'s `cargo doc`, so
#      every dependency's check artifact is reused: only our crates are
#      documented again);
#   2. the baseline commit named in .ci/api-baseline, extracted with
#      `git archive` under target/semver-baseline/ and documented the same
#      way into the same target/ (dependencies shared again; only our crates
#      at that commit are checked and documented);
#   3. `cargo semver-checks check-release --baseline-rustdoc B
#      --current-rustdoc C` per crate published (`publish` not false).
# Needs the baseline commit in the clone's history (not a shallow clone).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_INCREMENTAL=0

rev=$(sed -n 's/^rev *= *//p' .ci/api-baseline)
if ! git cat-file -e "$rev^{commit}" 2>/dev/null; then
  echo "semver: the baseline commit $rev (.ci/api-baseline) is not in this clone; a shallow clone needs \`git fetch --unshallow\`" >&2
  exit 1
fi

# One directory per baseline commit. Cargo no longer tells workspace
# members apart by path (their unit hashes are the same wherever the
# workspace lies), so documenting the baseline overwrites the check
# artifacts of our own crates in target/: their fingerprints are removed
# after it (see forget_ours), and the next cargo command checks our crates
# again (only ours: dependencies stay shared).
base="$root/target/semver-baseline/${rev:0:12}"
if [ ! -f "$base/src/Cargo.toml" ]; then
  rm -rf "$root/target/semver-baseline"
  mkdir -p "$base/src" "$base/json"
  git archive "$rev" | tar -x -m -C "$base/src"
fi

json_docs() { # manifest out-dir
  RUSTDOC="$root/.ci/rustdoc-unstable.sh" RUSTDOC_OUT=$2 \
    RUSTDOCFLAGS="-Z unstable-options --output-format json" \
    cargo doc --quiet --locked --manifest-path "$1" --target-dir "$root/target" \
    --workspace --no-deps --all-features
}
mkdir -p "$root/target/semver-current"
json_docs "$root/Cargo.toml" "$root/target/semver-current"
json_docs "$base/src/Cargo.toml" "$base/json"

# Our crates' units now hold the baseline's artifacts: forget them.
forget_ours() {
  cargo metadata --locked --no-deps --format-version 1 --manifest-path "$1" |
    python3 -c 'import json, sys; print("\n".join(p["name"] for p in json.load(sys.stdin)["packages"]))' |
    while read -r name; do
      rm -rf "$root"/target/debug/.fingerprint/"$name"-*
    done
}
forget_ours "$base/src/Cargo.toml"
forget_ours "$root/Cargo.toml"

# The published library crates of the current workspace, as rustdoc names them.
libs=$(cargo metadata --locked --no-deps --format-version 1 | python3 -c '
import json, sys
meta = json.load(sys.stdin)
for p in meta["packages"]:
    if p.get("publish") == []:
        continue
    for t in p["targets"]:
        if "lib" in t["kind"]:
            print(p["name"], t["name"].replace("-", "_"))
')

base_members=$(cargo metadata --locked --no-deps --format-version 1 --manifest-path "$base/src/Cargo.toml" |
  python3 -c 'import json, sys; print("\n".join(p["name"] for p in json.load(sys.stdin)["packages"]))')

failed=()
while read -r name lib; do
  current="$root/target/semver-current/$lib.json"
  baseline="$base/json/$lib.json"
  if [ ! -f "$baseline" ]; then
    if grep -qx "$name" <<<"$base_members"; then
      echo "semver: $name: no rustdoc JSON of its baseline in $baseline" >&2
      exit 1
    fi
    echo "semver: $name: new since the baseline, nothing to compare"
    continue
  fi
  echo "semver: $name against ${rev:0:12}"
  if ! cargo semver-checks check-release --color never \
      --baseline-rustdoc "$baseline" --current-rustdoc "$current"; then
    failed+=("$name")
  fi
done <<<"$libs"

if [ ${#failed[@]} -gt 0 ]; then
  echo "semver: breaking changes against the baseline ($rev) in: ${failed[*]}" >&2
  echo "semver: bump the crate's version (0.1.x -> 0.2.0), or move the baseline in .ci/api-baseline when the break is meant" >&2
  exit 1
fi
echo "semver: every library crate's API is compatible with the baseline ${rev:0:12}"
