#!/usr/bin/env bash
# What a host pays to build the crates: cold build time and number of crates
# for a minimal host (tool-core alone; tool-core + tool-approval) and for the
# whole family, and what each cargo feature adds. Writes benches/BUILD_COST.md.
#
# Usage: benches/build_cost.sh [OUT.md]
#        benches/build_cost.sh --graph-only
#
# --graph-only builds nothing: it prints, for each row of the per-feature
# table, the number of crates the feature adds and their names (the same
# `cargo tree` comparison as the full run), in seconds. The crate counts do
# not move with the machine's load, so a change to a feature's dependencies
# can be checked with it before and after, and the full run kept for when
# the compile times are wanted.
#
# Each scenario is one cold `cargo build` (dev profile, the library targets
# only, --locked, CARGO_INCREMENTAL=0) into a private target directory made
# empty before it and deleted at the end, so nothing of the workspace's own
# target/ is reused and nothing is left behind. The number of crates is the
# number of packages cargo compiled. Per-feature costs come from the last
# (all-features) build's `--timings` report: the crates a feature adds to its
# crate's graph (`cargo tree`, this host's target), and the sum of their
# compile times (serial seconds: on N cores the wall-clock share is lower).
#
# It takes about 15 minutes on 2 cores and needs ~3 GB free: not for CI, run
# it by hand on a quiet machine when the dependency graph changes.
set -euo pipefail
cd "$(dirname "$0")/.."
graph_only=false
if [ "${1:-}" = "--graph-only" ]; then
  graph_only=true
  shift
fi
out=${1:-benches/BUILD_COST.md}

export CARGO_INCREMENTAL=0 CARGO_TERM_COLOR=never
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target="$work/target"

family=(tool-core tool-approval tool-runtime tool-dispatch tool-openapi tool-mcp tool-skills)
pkgs() { local a=(); for p in "$@"; do a+=(-p "$p"); done; echo "${a[@]}"; }

# scenario label | cargo arguments
scenarios=(
  "tool-core (default features)|-p tool-core"
  "tool-core + tool-approval|-p tool-core -p tool-approval"
  "whole family, default features|$(pkgs "${family[@]}")"
  "whole family, all features|$(pkgs "${family[@]}") --all-features"
)

rows="$work/rows.tsv"
: >"$rows"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
$graph_only && scenarios=()
for entry in "${scenarios[@]}"; do
  label=${entry%%|*}
  # shellcheck disable=SC2206
  args=(${entry#*|})
  rm -rf "$target"
  log="$work/build.log"
  start=$(date +%s.%N)
  cargo build --locked --lib --timings --target-dir "$target" "${args[@]}" >"$log" 2>&1 || {
    cat "$log" >&2
    exit 1
  }
  end=$(date +%s.%N)
  compiled=$(grep -c '^ *Compiling ' "$log" || true)
  # A C/C++ toolchain is needed when cc or cmake is in the graph.
  c_crates=$(cargo tree --locked -e normal,build --prefix none "${args[@]}" 2>/dev/null |
    awk '{ print $1 }' | sort -u | grep -xE 'cc|cmake' | paste -sd, - || true)
  printf '%s\t%.0f\t%s\t%s\t%s\n' "$label" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" "$compiled" \
    "${c_crates:-none}" "$(cut -d' ' -f1 /proc/loadavg)" >>"$rows"
  echo "build_cost: $label: $(tail -n1 "$rows" | cut -f2)s, $compiled crates" >&2
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
timings="$target/cargo-timings/cargo-timing.html"

# Per feature: the packages it adds to its crate's graph (without it).
# crate | feature | arguments without | arguments with
features=(
  "tool-core|net|-p tool-core|-p tool-core --features net"
  "tool-approval|(crate, over tool-core)|-p tool-core|-p tool-approval"
  "tool-runtime|(crate, no features, over tool-core)|-p tool-core|-p tool-runtime --no-default-features"
  "tool-runtime|egress (default)|-p tool-runtime --no-default-features|-p tool-runtime"
  "tool-dispatch|(crate, no features, over tool-core)|-p tool-core|-p tool-dispatch"
  "tool-dispatch|redis|-p tool-dispatch|-p tool-dispatch --features redis"
  "tool-dispatch|redis-cluster|-p tool-dispatch --features redis|-p tool-dispatch --features redis-cluster"
  "tool-dispatch|redis-tls|-p tool-dispatch --features redis|-p tool-dispatch --features redis-tls"
  "tool-openapi|(crate, over tool-core)|-p tool-core|-p tool-openapi"
  "tool-mcp|(crate, no features, over tool-core)|-p tool-core|-p tool-mcp --no-default-features"
  "tool-mcp|client|-p tool-mcp --no-default-features|-p tool-mcp --no-default-features --features client"
  "tool-mcp|server|-p tool-mcp --no-default-features|-p tool-mcp --no-default-features --features server"
  "tool-mcp|encryption|-p tool-mcp|-p tool-mcp --features encryption"
  "tool-skills|(crate, over tool-core)|-p tool-core|-p tool-skills"
  "tool-skills|scripts|-p tool-skills|-p tool-skills --features scripts"
)
feat="$work/features.tsv"
: >"$feat"
for entry in "${features[@]}"; do
  IFS='|' read -r crate feature without with <<<"$entry"
  # shellcheck disable=SC2086
  cargo tree --locked -e normal,build --prefix none $without 2>/dev/null | awk '{ print $1 }' | sort -u >"$work/a"
  # shellcheck disable=SC2086
  cargo tree --locked -e normal,build --prefix none $with 2>/dev/null | awk '{ print $1 }' | sort -u >"$work/b"
  printf '%s\t%s\t%s\n' "$crate" "$feature" "$(comm -13 "$work/a" "$work/b" | paste -sd' ' -)" >>"$feat"
done

if $graph_only; then
  printf '| crate | feature | crates added | added crates |\n|---|---|---:|---|\n'
  while IFS=$'\t' read -r crate feature added; do
    # shellcheck disable=SC2086
    set -- $added
    printf '| %s | %s | %d | %s |\n' "$crate" "$feature" "$#" "$added"
  done <"$feat"
  exit 0
fi

python3 - "$rows" "$feat" "$timings" "$out" "$load_before" "$load_after" \
  "$(rustc --version)" "$(nproc)" "$(date -u +%Y-%m-%d)" <<'PY'
import html, json, re, sys
rows, feat, timings, out, load_before, load_after, rustc, cores, day = sys.argv[1:]
text = open(timings, encoding="utf-8").read()
m = re.search(r"const UNIT_DATA = (\[.*?\]);\n", text, re.S)
units = json.loads(m.group(1)) if m else []
secs = {}
for u in units:
    secs[u["name"]] = secs.get(u["name"], 0.0) + float(u["duration"])
lines = []
w = lines.append
w("# Build cost of the crate family")
w("")
w(f"Written by `benches/build_cost.sh` on {day}: {rustc}, {cores} cores, dev profile,")
w("library targets only, each scenario a cold build into an empty target directory")
w(f"(`CARGO_INCREMENTAL=0`). Load average before: {load_before}; after: {load_after}.")
w("Wall-clock figures move with the machine's load; the crate counts do not.")
w("")
w("## Minimal hosts and the whole family")
w("")
w("| host depends on | cold build (s) | crates compiled | C/C++ build crates | load at end |")
w("|---|---:|---:|---|---:|")
for line in open(rows, encoding="utf-8"):
    label, t, n, c, load = line.rstrip("\n").split("\t")
    w(f"| {label} | {t} | {n} | {c} | {load} |")
w("")
w("## What each feature (or crate) adds")
w("")
w("Crates added to the graph of the row's crate by turning the feature on (or by")
w("depending on the crate, over tool-core alone), and the sum of their compile times")
w("in the all-features build (serial seconds; a crate already in the graph with more")
w("features turned on is not counted).")
w("")
w("| crate | feature | crates added | compile time added (serial s) | heaviest added crates |")
w("|---|---|---:|---:|---|")
for line in open(feat, encoding="utf-8"):
    crate, feature, added = line.rstrip("\n").split("\t")
    names = [a for a in added.split() if a]
    total = sum(secs.get(n.replace("-", "_"), secs.get(n, 0.0)) for n in names)
    heavy = sorted(names, key=lambda n: -secs.get(n.replace("-", "_"), secs.get(n, 0.0)))[:4]
    heavy_s = ", ".join(f"{n} {secs.get(n.replace('-', '_'), secs.get(n, 0.0)):.0f}s" for n in heavy)
    w(f"| {crate} | {feature} | {len(names)} | {total:.0f} | {heavy_s} |")
w("")
open(out, "w", encoding="utf-8").write("\n".join(lines))
PY
echo "build_cost: wrote $out" >&2
