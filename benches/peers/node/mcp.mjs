// MCP peers of benches/run: the official TypeScript SDK client and a bare
// pipe client (the floor: newline-delimited JSON-RPC written to the
// server's stdin, answers matched by id, nothing else) calling the `echo`
// tool of @modelcontextprotocol/server-everything over stdio.
//
// Usage: node mcp.mjs SERVER_JS [--quick]
// Prints {"versions": {...}, "results": {name: nanoseconds per call}}.

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const server = process.argv[2];
const quick = process.argv.includes("--quick");
if (!server) {
  console.error("usage: node mcp.mjs SERVER_JS [--quick]");
  process.exit(2);
}
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
    command: process.execPath,
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
  const child = spawn(process.execPath, [server, "stdio"], { stdio: ["pipe", "pipe", "ignore"] });
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
const serverMeta = JSON.parse(readFileSync(join(dirname(server), "..", "package.json"), "utf8"));
console.log(
  JSON.stringify({
    versions: {
      node: process.versions.node,
      "@modelcontextprotocol/sdk": version("@modelcontextprotocol/sdk"),
      [serverMeta.name]: serverMeta.version,
    },
    results: {
      "mcp/sdk_sequential": sdk.sequential,
      "mcp/sdk_100_in_flight": sdk.inFlight,
      "mcp/bare_sequential": bare.sequential,
      "mcp/bare_100_in_flight": bare.inFlight,
    },
  }),
);
