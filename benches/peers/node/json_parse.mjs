// OpenAPI peer of benches/run: node's JSON.parse of the GitHub REST
// description (the same bytes our import reads), and the peak memory of a
// process that reads and parses it once.
//
// Usage: node json_parse.mjs FILE [--quick]
// Prints {"versions": {...}, "results": {name: nanoseconds}, "memory": {name: KiB}}.
// With --peak-once (internal): parses once and prints its own peak RSS in KiB.

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const file = process.argv[2];
if (!file) {
  console.error("usage: node json_parse.mjs FILE [--quick]");
  process.exit(2);
}

if (process.argv.includes("--peak-once") || process.argv.includes("--baseline-once")) {
  const text = readFileSync(file, "utf8");
  const doc = process.argv.includes("--peak-once") ? JSON.parse(text) : null;
  if (doc && typeof doc.paths !== "object") throw new Error("not an OpenAPI document");
  console.log(process.resourceUsage().maxRSS);
  process.exit(0);
}

const quick = process.argv.includes("--quick");
const rounds = quick ? 5 : 20;
const text = readFileSync(file, "utf8");
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
let operations = 0;
const samples = [];
for (let i = 0; i < rounds + 2; i++) {
  const t = process.hrtime.bigint();
  const doc = JSON.parse(text);
  const dt = Number(process.hrtime.bigint() - t);
  if (i >= 2) samples.push(dt); // two warm-up parses
  operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
}

const self = fileURLToPath(import.meta.url);
const once = (flag) => {
  const r = spawnSync(process.execPath, [self, file, flag], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(r.stderr);
  return Number(r.stdout.trim());
};

console.log(
  JSON.stringify({
    versions: { node: process.versions.node },
    results: { "node/json_parse": median(samples) },
    memory: {
      "node/json_parse_peak_rss": once("--peak-once"),
      "node/read_only_peak_rss": once("--baseline-once"),
    },
    info: { bytes: Buffer.byteLength(text), path_method_entries: operations },
  }),
);
