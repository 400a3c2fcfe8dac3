#!/usr/bin/env bash
# The declared rust-version (workspace: 1.90), checked as far as one newer
# toolchain can check it. CI has only the current stable toolchain and no
# other can be fetched, so nothing here compiles with 1.90 itself:
#   1. every workspace member declares the workspace's rust-version;
#   2. every package in Cargo.lock that this platform builds (normal and
#      build dependencies of the library crates, all features) declares a
#      rust-version no newer than ours; one declaring none is listed (its
#      MSRV is unknown, it is not a failure);
#   3. (in `.ci/run`'s clippy step, not here) clippy's `incompatible_msrv`
#      lint, on by default and denied there, reads the rust-version and
#      fails on any standard-library item stabilised after it.
# Not covered: language features and cargo manifest features stabilised
# after 1.90 (only a 1.90 compiler finds those).
set -euo pipefail
cd "$(dirname "$0")/.."

meta=$(mktemp)
trap 'rm -f "$meta"' EXIT
cargo metadata --locked --format-version 1 --all-features \
  --filter-platform "$(rustc -vV | awk '/^host:/ { print $2 }')" >"$meta"

python3 - "$meta" <<'PY'
import json, sys

meta = json.load(open(sys.argv[1], encoding="utf-8"))
ws = meta["workspace_members"]
pkgs = {p["id"]: p for p in meta["packages"]}

def ver(s):
    parts = [int(x) for x in s.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))

declared = {pkgs[m]["rust_version"] for m in ws}
if len(declared) != 1 or None in declared:
    sys.exit(f"msrv: workspace members disagree on rust-version: {sorted(map(str, declared))}")
ours = declared.pop()

# What the library crates build: normal and build edges from every member
# that is published (examples and benches are not, their deps do not count).
nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
start = [m for m in ws if pkgs[m].get("publish") != []]
seen, todo = set(start), list(start)
while todo:
    for dep in nodes[todo.pop()]["deps"]:
        kinds = {k["kind"] for k in dep["dep_kinds"]}
        if kinds & {None, "build"} and dep["pkg"] not in seen:
            seen.add(dep["pkg"])
            todo.append(dep["pkg"])

newer, unknown = [], []
for pid in sorted(seen - set(ws), key=lambda i: pkgs[i]["name"]):
    p = pkgs[pid]
    rv = p.get("rust_version")
    if rv is None:
        unknown.append(f"{p['name']} {p['version']}")
    elif ver(rv) > ver(ours):
        newer.append(f"{p['name']} {p['version']} needs {rv}")
print(f"msrv: rust-version {ours}; {len(seen) - len(start)} dependencies of the library crates "
      f"checked, {len(unknown)} declare none")
if unknown:
    print("msrv: no rust-version declared (not checked): " + ", ".join(unknown))
if newer:
    sys.exit("msrv: dependencies newer than our rust-version:\n  " + "\n  ".join(newer))
PY
