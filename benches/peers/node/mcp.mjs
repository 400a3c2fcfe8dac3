// MCP peers of benches/run: the official TypeScript SDK client and a bare
// pipe client (the floor: newline-delimited JSON-RPC written to the
// server's stdin, answers matched by id, nothing else) calling the `echo`
// tool of @modelcontextprotocol/server-everything over stdio.
//
// Usage: node mcp.mjs SERVER_JS [--quick]
//        node mcp.mjs SERVER_PY --python PYTHON [--quick]
// Prints {"versions": {...}, "results": {name: nanoseconds per call}}.
// With --python the server is tool-mcp's Python `mcp` SDK fixture
// (`PYTHON SERVER_PY stdio`, speaking 2025-11-25 and 2026-07-28; the SDK
// client speaks its latest, 2025-11-25) and the results are named
// `mcp_revisions/…` (the `mcp_revisions` pair of benches/run).

import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";

const server = process.argv[2];
const quick = process.argv.includes("--quick");
const pythonAt = process.argv.indexOf("--python");
const python = pythonAt > 0 ? process.argv[pythonAt + 1] : null;
if (!server || (pythonAt > 0 && !python)) {
  console.error("usage: node mcp.mjs SERVER_JS [--quick] | node mcp.mjs SERVER_PY --python PYTHON [--quick]");
  process.exit(2);
}
// How the server is started, and the prefix of the result names.
const command = python ?? process.execPath;
const prefix = python ? "mcp_revisions" : "mcp";
const SEQUENTIAL = quick ? 300 : 2000;
const ROUNDS = quick ? 5 : 20;
const IN_FLIGHT = 100;
const ARGS = { message: "hello" };

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const now = () => process.hrtime.bigint();

/** Median of one call at a time, and per-call time with 100 in flight. */
async function measure(call) {
  for (let i = 0; i < 50; i++) await call(); // warm up
  const one = [];
  for (let i = 0; i < SEQUENTIAL; i++) {
    const t = now();
    await call();
    one.push(Number(now() - t));
  }
  const batch = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t = now();
    await Promise.all(Array.from({ length: IN_FLIGHT }, () => call()));
    batch.push(Number(now() - t) / IN_FLIGHT);
  }
  return { sequential: median(one), inFlight: median(batch) };
}

async function sdkClient() {
  const transport = new StdioClientTransport({
    command,
    args: [server, "stdio"],
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(transport);
  const call = async () => {
    const r = await client.callTool({ name: "echo", arguments: ARGS });
    if (r.isError || !r.content?.[0]?.text?.includes("hello")) {
      throw new Error(`unexpected echo answer: ${JSON.stringify(r)}`);
    }
  };
  try {
    return await measure(call);
  } finally {
    await client.close();
  }
}

async function bareClient() {
  const child = spawn(command, [server, "stdio"], { stdio: ["pipe", "pipe", "ignore"] });
  const waiting = new Map();
  let buffered = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (!line.trim()) continue;
      const msg = JSON.parse(line);
      const done = waiting.get(msg.id);
      if (done) {
        waiting.delete(msg.id);
        done(msg);
      }
    }
  });
  let next = 0;
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = ++next;
      waiting.set(id, resolve);
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  const init = await request("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "bare", version: "1.0.0" },
  });
  if (!init.result) throw new Error(`initialize failed: ${JSON.stringify(init)}`);
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  const call = async () => {
    const r = await request("tools/call", { name: "echo", arguments: ARGS });
    if (!r.result?.content?.[0]?.text?.includes("hello")) {
      throw new Error(`unexpected echo answer: ${JSON.stringify(r)}`);
    }
  };
  try {
    return await measure(call);
  } finally {
    child.kill();
  }
}

const here = dirname(fileURLToPath(import.meta.url));
const version = (pkg) =>
  JSON.parse(readFileSync(join(here, "node_modules", pkg, "package.json"), "utf8")).version;

const sdk = await sdkClient();
const bare = await bareClient();
const versions = {
  node: process.versions.node,
  "@modelcontextprotocol/sdk": `${version("@modelcontextprotocol/sdk")} (protocol ${LATEST_PROTOCOL_VERSION})`,
};
if (python) {
  const probe = spawnSync(python, ["-c", "import importlib.metadata as m; print(m.version('mcp'))"], {
    encoding: "utf8",
  });
  versions["mcp (Python fixture server)"] = probe.stdout.trim() || "unknown";
} else {
  const serverMeta = JSON.parse(readFileSync(join(dirname(server), "..", "package.json"), "utf8"));
  versions[serverMeta.name] = serverMeta.version;
}
console.log(
  JSON.stringify({
    versions,
    results: {
      [`${prefix}/sdk_sequential`]: sdk.sequential,
      [`${prefix}/sdk_100_in_flight`]: sdk.inFlight,
      [`${prefix}/bare_sequential`]: bare.sequential,
      [`${prefix}/bare_100_in_flight`]: bare.inFlight,
    },
  }),
);
