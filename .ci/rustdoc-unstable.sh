#!/usr/bin/env bash
# rustdoc with its unstable options allowed (RUSTC_BOOTSTRAP=1), for the
# rustdoc JSON `.ci/semver.sh` reads; set as RUSTDOC for those `cargo doc`
# runs only. Setting RUSTC_BOOTSTRAP for the whole cargo run instead would
# rebuild every dependency whose build script watches it (proc-macro2, and
# with it everything built on syn).
# With RUSTDOC_OUT set, the output directory cargo gives (`-o DIR`) is
# replaced by it, so the baseline's JSON does not overwrite the current one
# (same crate names, same target/doc otherwise).
set -euo pipefail
args=()
while [ $# -gt 0 ]; do
  if [ -n "${RUSTDOC_OUT:-}" ]; then
    case $1 in
      -o | --out-dir) args+=("$1" "$RUSTDOC_OUT"); shift 2; continue ;;
      --out-dir=*) args+=("--out-dir=$RUSTDOC_OUT"); shift; continue ;;
    esac
  fi
  args+=("$1")
  shift
done
RUSTC_BOOTSTRAP=1 exec rustdoc "${args[@]}"
