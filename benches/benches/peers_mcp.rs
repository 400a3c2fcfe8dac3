//! Our side of the MCP pair run by `benches/run`: the `echo` tool of
//! `@modelcontextprotocol/server-everything` over stdio through tool-mcp
//! (`McpManager::call_tool` on one shared session, mapped to a
//! `ToolOutput`), one call at a time and 100 in flight | the official
//! TypeScript SDK client and a bare pipe client
//! (`benches/peers/node/mcp.mjs`) against the same server.
//!
//! Environment: `TOOL_BENCHES_MCP_SERVER`, the server's `dist/index.js`
//! (default: tool-mcp's test fixture, else `benches/peers/node`'s install).
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Map, Value, json};
use tool_mcp::{McpManager, McpServerConfig, McpTransport, map_call_result};

const SERVER: &str = "node_modules/@modelcontextprotocol/server-everything/dist/index.js";

fn server_js() -> PathBuf {
    if let Some(path) = std::env::var_os("TOOL_BENCHES_MCP_SERVER") {
        return PathBuf::from(path);
    }
    let benches = Path::new(env!("CARGO_MANIFEST_DIR"));
    let theirs = benches.join("../tool-mcp/tests/fixtures/npm").join(SERVER);
    if theirs.exists() {
        theirs
    } else {
        benches.join("peers/node").join(SERVER)
    }
}

async fn echo(manager: &McpManager, args: &Map<String, Value>) {
    let result = manager
        .call_tool("everything", "echo", args.clone())
        .await
        .expect("echo answers");
    let output = map_call_result("everything", "echo", result);
    assert!(
        output.success && output.content.contains("hello"),
        "{output:?}"
    );
}

fn bench(c: &mut Criterion) {
    let server = server_js();
    assert!(
        server.exists(),
        "server-everything is not installed at {}",
        server.display()
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let manager = McpManager::default();
    manager
        .upsert(
            McpServerConfig::new(
                "everything",
                McpTransport::stdio("node", [server.display().to_string(), "stdio".into()]),
            )
            .with_startup_timeout(Duration::from_secs(30)),
        )
        .unwrap();
    let args = json!({"message": "hello"}).as_object().unwrap().clone();
    rt.block_on(async {
        manager
            .catalog("everything")
            .await
            .expect("handshake and discovery");
        for _ in 0..50 {
            echo(&manager, &args).await;
        }
    });

    let mut group = c.benchmark_group("peers_mcp");
    group.bench_function("echo_sequential", |b| {
        b.iter(|| rt.block_on(echo(&manager, &args)))
    });
    // Per-call time of 100 concurrent calls on the one session.
    group.bench_function("echo_100_in_flight", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let start = Instant::now();
                rt.block_on(futures::future::join_all(
                    (0..100).map(|_| echo(&manager, &args)),
                ));
                total += start.elapsed() / 100;
            }
            total
        })
    });
    group.finish();
    rt.block_on(manager.shutdown());
}

criterion_group!(benches, bench);
criterion_main!(benches);
