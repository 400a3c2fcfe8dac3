//! tool-mcp: round trips of a small call (`echo` of
//! `@modelcontextprotocol/server-everything`) over stdio on one shared
//! session — the manager's raw `call_tool`, the whole pipeline (parse,
//! validate, timeout, MCP call, content mapping, cap), and 100 calls in
//! flight through the pipeline (reported per call).
//!
//! The server is the one `.ci/setup.d/30-mcp.sh` installs for tool-mcp's
//! tests (`tool-mcp/tests/fixtures/npm`). For orientation on this kind of
//! machine: the official TypeScript client ~250 µs per sequential echo and
//! ~70 µs per call with 100 in flight; targets ≤ 167 µs and ≤ 50 µs.
//! Measured 2026-12 on a busy shared 2-core machine: `call_tool` 125 µs,
//! pipeline 152 µs sequential; 89 µs per call with 100 in flight. After
//! tool-mcp's own stdio transport (direct `CallToolResult` decoding), at
//! load ~4, this bench before → after back to back: pipeline 100 in flight
//! 73.5 → 52.0 and 67.6 µs per call; `call_tool` 115 → 125–129 µs and
//! pipeline 152 → 161–167 µs sequential (within this machine's noise;
//! `peers_mcp` in `benches/run mcp`: 49–52 µs with 100 in flight).
//!
//! Group `mcp_revisions` (issue 34): the same echo on the Python SDK
//! fixture opened as 2026-07-28 and as 2025-11-25, sequential and 100 in
//! flight (see [`bench_revisions`]). First run, 2026-12-07 on the shared
//! 2-core machine at load ~5 (noisy): 2026-07-28 2.55 ms sequential and
//! 1.11 ms per call with 100 in flight; 2025-11-25 1.38 ms and 1.41 ms.
//! The Python server dominates both (server-everything's echo is ~0.13 ms).
//! Again 2026-12-07 at load 5–6.6: 2026-07-28 1.71 ms sequential and
//! 0.69 ms per call with 100 in flight; 2025-11-25 1.11 ms and 0.84 ms.
//! Why 2026-07-28 is slower sequentially, measured by CPU time (load
//! independent) over 1 000 echoes per revision, alternated three times in
//! one process (release): tool-mcp's client spends the same on both,
//! 0.07–0.10 ms per call; the Python server spends 0.12–0.17 ms more per
//! call on 2026-07-28 (0.74–1.02 against 0.62–0.87 ms), and the wall-clock
//! gap there (0.85–1.1 against 0.68–0.97 ms) is that. A bare JSON-lines
//! client (no tool-mcp) sees the server's share too: +0.03 ms for the
//! stateless request itself (the `_meta` envelope checked, `serverInfo`
//! and `resultType` in each result) and +0.07 ms more while a
//! `subscriptions/listen` stream is open (tool-mcp opens one when a server
//! declares `tools.listChanged`). The wire holds one request and one
//! answer per call on both revisions. The rest of the gap in this row is
//! the machine's noise at this load.
//! Against the TypeScript SDK (issue 34's 2026-07-28 row), 2026-12-07
//! 14:24 in one run, load 4.8–7 (others' builds; noisy): the pinned SDK
//! (1.32.2, `benches/peers/node`) has no 2026-07-28, so it speaks
//! 2025-11-25 to the same Python fixture over stdio (`callTool`, median of
//! 1 000 sequential, per call of 100 in flight), measured just before and
//! just after this group: 1.10 / 0.93 ms sequential, 0.82 / 0.92 ms per
//! call with 100 in flight. This group in between: 2026-07-28 1.24 ms
//! sequential (ratio to the SDK 1.13–1.33) and 1.52 ms per call with 100
//! in flight (1.65–1.85); 2025-11-25 1.74 ms and 1.62 ms. Ours is the
//! slower here, on both revisions, unlike against server-everything
//! (`peers_mcp`); not yet explained. Now the pair `mcp_revisions` of
//! `benches/run` (the SDK and a bare pipe against the same fixture,
//! `benches/peers/node/mcp.mjs --python`): 2026-12-07 19:26–19:37, load
//! 2.7–4.3, 2026-07-28 1.17 ms sequential (1.4 × the SDK's 837 µs, 1.46 ×
//! the bare pipe's 801 µs) and 675 µs per call with 100 in flight (0.995 ×
//! the SDK's 678 µs); 2025-11-25 1.12 ms and 800 µs. Why, measured
//! with a bare Python client of the same server (2025-11-25, 1 200 echoes
//! per request shape, load 5): the server's per-call times are
//! heavy-tailed (median 0.84–0.92 ms, mean 1.4–1.6 ms), and this group
//! reports criterion's median of per-sample means (the tail counted) where
//! the peers report the median single call; the `_meta` our calls carry
//! costs the server ~20 µs (`progressToken`) and ~40 µs (`traceparent`,
//! with the fixture's OpenTelemetry) per call.
//!
//! Group `mcp_faults` (issue 18 §5): loading 10 000 hostile remote tool
//! descriptions into a registry, and one `tools/call` whose answer comes
//! behind 0 or 100 000 `notifications/message` lines, against the same
//! flood read by a bare client (each line parsed as JSON, no session): the
//! difference per notification is what a session adds to reading one.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use tool_core::{Invoker, ToolCall, ToolContext, ToolRegistry, manifest::NameRules};
use tool_mcp::{
    McpCatalog, McpCatalogTool, McpManager, McpProtocol, McpProvider, McpServerConfig, McpTool,
    McpTransport,
};

fn bench(c: &mut Criterion) {
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../tool-mcp/tests/fixtures/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    assert!(
        server.exists(),
        "{} is missing: run `bash .ci/setup.d/30-mcp.sh`",
        server.display()
    );
    // `TOOL_MCP_BENCH_RUNTIME=current` measures on a current-thread runtime
    // (default: a 2-worker multi-thread runtime, as a host would have).
    let rt = match std::env::var("TOOL_MCP_BENCH_RUNTIME").as_deref() {
        Ok("current") => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap(),
        _ => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap(),
    };
    let manager = Arc::new(McpManager::default());
    manager
        .upsert(
            McpServerConfig::new(
                "everything",
                McpTransport::stdio("node", [server.display().to_string(), "stdio".into()]),
            )
            .with_startup_timeout(Duration::from_secs(30)),
        )
        .unwrap();
    let registry = rt.block_on(async {
        manager.connect("everything").await.unwrap();
        // server-everything adds tools right after the handshake.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let load = McpProvider::new(Arc::clone(&manager)).load_all().await;
        let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
        for tool in load.tools {
            registry.register_arc(tool).unwrap();
        }
        registry
    });
    let ctx = ToolContext::new();
    let offered = registry.offer(&ctx);
    let wire = offered
        .resolve_pair("everything", "echo")
        .unwrap()
        .wire_name
        .to_owned();
    let call = ToolCall::new(wire, r#"{"message":"hello"}"#);
    let invoker = Invoker::default();
    let args = json!({"message": "hello"}).as_object().unwrap().clone();
    rt.block_on(async {
        for _ in 0..100 {
            let out = invoker.invoke(&offered, &call, &ctx).await;
            assert_eq!(out.content, "Echo: hello", "{out:?}");
        }
    });

    let mut group = c.benchmark_group("mcp");
    group.bench_function("echo_call_tool_sequential", |b| {
        b.iter(|| {
            rt.block_on(manager.call_tool("everything", "echo", args.clone()))
                .unwrap()
        })
    });
    group.bench_function("echo_pipeline_sequential", |b| {
        b.iter(|| rt.block_on(invoker.invoke(&offered, &call, &ctx)))
    });
    group.bench_function("echo_pipeline_100_in_flight_per_call", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let start = Instant::now();
                let outs = rt.block_on(futures::future::join_all(
                    (0..100).map(|_| invoker.invoke(&offered, &call, &ctx)),
                ));
                total += start.elapsed() / 100;
                assert!(outs.iter().all(|o| o.success));
            }
            total
        })
    });
    group.finish();
    rt.block_on(manager.shutdown());
}

/// Loading a server's tools (catalog → tool → registry), 10 000 remote
/// tools with hostile names: long, Unicode, slashes and spaces, the wire
/// separator, control characters and duplicates (the last two skipped with
/// a finding each).
fn hostile_catalog(count: usize) -> McpCatalog {
    let tools = (0..count)
        .map(|i| {
            let name = match i % 10 {
                0 => format!("files/read {i}"),
                1 => format!("ünïcödé-{i}-{}", "é".repeat(40)),
                2 => format!("{}{i}", "n".repeat(240)),
                3 => format!("a____b{i}"),
                4 if i % 100 == 4 => format!("bell\u{7}{i}"),
                5 if i % 100 == 5 => "duplicate".to_owned(),
                _ => format!("tool_{i}"),
            };
            McpCatalogTool {
                name,
                title: None,
                description: Some("A tool.".into()),
                input_schema: json!({"type": "object", "properties": {"q": {"type": "string"}}}),
                output_schema: None,
                annotations: None,
                icons: None,
                meta: None,
                execution: None,
            }
        })
        .collect();
    McpCatalog {
        server: "hostile".into(),
        updated_at: None,
        server_name: None,
        instructions: None,
        pages: 1,
        tools,
    }
}

fn bench_faults(c: &mut Criterion) {
    let manager = Arc::new(McpManager::default());
    let config = McpServerConfig::new("hostile", McpTransport::stdio("true", Vec::<String>::new()));
    let catalog = hostile_catalog(10_000);
    let mut group = c.benchmark_group("mcp_faults");
    group.sample_size(10);
    group.bench_function("load_10000_hostile_tools", |b| {
        b.iter(|| {
            let (tool, skipped) =
                McpTool::from_catalog(Arc::clone(&manager), &config, &catalog, None);
            assert_eq!(
                tool_core::Tool::manifest(&tool).api.len() + skipped.len(),
                10_000
            );
            let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
            assert!(
                registry
                    .register_all([Arc::new(tool) as Arc<dyn tool_core::Tool>])
                    .is_complete()
            );
            registry
        })
    });

    // A flood of log notifications ahead of an answer, from the hand-written
    // `faults` server of tool-mcp's tests (Python): 100 000 lines vs none.
    let python = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tool-mcp/tests/fixtures/python/.venv/bin/python");
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tool-mcp/tests/fixtures/python/server.py");
    if python.exists() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let manager = McpManager::default();
        manager
            .upsert(
                McpServerConfig::new(
                    "faults",
                    McpTransport::stdio(
                        python.display().to_string(),
                        [script.display().to_string(), "faults".into()],
                    ),
                )
                .with_startup_timeout(Duration::from_secs(30)),
            )
            .unwrap();
        rt.block_on(manager.connect("faults")).unwrap();
        for count in [0, 100_000] {
            let args = json!({"count": count}).as_object().unwrap().clone();
            group.bench_function(format!("answer_behind_{count}_log_notifications"), |b| {
                b.iter(|| {
                    rt.block_on(manager.call_tool("faults", "flood", args.clone()))
                        .unwrap()
                })
            });
        }
        rt.block_on(manager.shutdown());
        // The floor: the same flood read by a bare client (each line split
        // off and parsed as JSON, the answer found by its id), no session.
        let mut bare = BareFlood::start(&python, &script);
        for count in [0, 100_000] {
            group.bench_function(format!("bare_read_behind_{count}_log_notifications"), |b| {
                b.iter(|| assert_eq!(bare.call(count), count))
            });
        }
    } else {
        eprintln!(
            "{} is missing: run `bash .ci/setup.d/30-mcp.sh`",
            python.display()
        );
    }
    group.finish();
}

/// The `faults` server spoken to over a bare pipe: newline-delimited
/// JSON-RPC, every line parsed into a `Value`.
struct BareFlood {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: std::io::BufReader<std::process::ChildStdout>,
    line: String,
    next_id: u64,
}

impl BareFlood {
    fn start(python: &Path, script: &Path) -> Self {
        use std::process::{Command, Stdio};
        let mut child = Command::new(python)
            .arg(script)
            .arg("faults")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut bare = Self {
            child,
            stdin,
            stdout,
            line: String::new(),
            next_id: 0,
        };
        bare.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "bare", "version": "1"}}),
        );
        bare
    }

    /// Sends a request and reads up to its answer; the notifications read
    /// on the way.
    fn request(&mut self, method: &str, params: serde_json::Value) -> usize {
        use std::io::{BufRead, Write};
        self.next_id += 1;
        let id = self.next_id;
        let mut bytes = serde_json::to_vec(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        )
        .unwrap();
        bytes.push(b'\n');
        self.stdin.write_all(&bytes).unwrap();
        self.stdin.flush().unwrap();
        let mut notes = 0;
        loop {
            self.line.clear();
            assert!(
                self.stdout.read_line(&mut self.line).unwrap() > 0,
                "the server ended"
            );
            let message: serde_json::Value = serde_json::from_str(&self.line).unwrap();
            if message["id"] == id {
                return notes;
            }
            notes += 1;
        }
    }

    fn call(&mut self, count: usize) -> usize {
        self.request(
            "tools/call",
            json!({"name": "flood", "arguments": {"count": count}}),
        )
    }
}

impl Drop for BareFlood {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The same echo on the same server (the pinned Python `mcp` SDK fixture
/// over stdio, which speaks both revisions) opened as 2026-07-28
/// (`server/discover`, stateless requests with per-request `_meta`) and as
/// 2025-11-25 (`initialize`, a session): the manager's `call_tool`,
/// sequential and 100 in flight (per call).
fn bench_revisions(c: &mut Criterion) {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tool-mcp/tests/fixtures/python");
    let python = fixtures.join(".venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run `bash .ci/setup.d/30-mcp.sh`",
        python.display()
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let manager = Arc::new(McpManager::default());
    let script = fixtures.join("server.py").display().to_string();
    for (id, protocol) in [
        ("v2026", McpProtocol::V2026_07_28),
        ("v2025", McpProtocol::V2025_11_25),
    ] {
        manager
            .upsert(
                McpServerConfig::new(
                    id,
                    McpTransport::stdio(
                        python.display().to_string(),
                        [script.clone(), "stdio".into()],
                    ),
                )
                .with_protocol(protocol)
                .with_startup_timeout(Duration::from_secs(30)),
            )
            .unwrap();
    }
    let args = json!({"message": "hello"}).as_object().unwrap().clone();
    rt.block_on(async {
        for (id, version) in [("v2026", "2026-07-28"), ("v2025", "2025-11-25")] {
            manager.connect(id).await.unwrap();
            let status = manager.status(id).await.unwrap();
            assert_eq!(status.protocol_version.as_deref(), Some(version));
            let out = manager.call_tool(id, "echo", args.clone()).await.unwrap();
            assert!(format!("{out:?}").contains("Echo: hello"), "{out:?}");
        }
    });
    let mut group = c.benchmark_group("mcp_revisions");
    for id in ["v2026", "v2025"] {
        group.bench_function(format!("echo_{id}_sequential"), |b| {
            b.iter(|| {
                rt.block_on(manager.call_tool(id, "echo", args.clone()))
                    .unwrap()
            })
        });
        group.bench_function(format!("echo_{id}_100_in_flight_per_call"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let start = Instant::now();
                    let outs = rt.block_on(futures::future::join_all(
                        (0..100).map(|_| manager.call_tool(id, "echo", args.clone())),
                    ));
                    total += start.elapsed() / 100;
                    assert!(outs.iter().all(Result::is_ok));
                }
                total
            })
        });
    }
    group.finish();
    rt.block_on(manager.shutdown());
}

criterion_group!(benches, bench, bench_faults, bench_revisions);
criterion_main!(benches);
