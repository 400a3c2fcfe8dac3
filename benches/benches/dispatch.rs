//! tool-runtime remote dispatch: dispatch → execute → result round trips,
//! one at a time and 1 000 in flight, over the in-memory store and over a
//! real redis-server (started here on a free 127.0.0.1 port, skipped with a
//! note when `redis-server` is not installed).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;
use tool_core::{ApiDefinition, CancellationToken, ToolBuilder, ToolOutput};
use tool_runtime::dispatch::{
    DispatchCall, Dispatcher, ExecutorClient, MemoryResultStore, RedisResultStore,
    RedisStoreConfig, ResultStore, in_process_channel,
};

const IN_FLIGHT: usize = 1_000;

/// A dispatcher waiting on `waits_on`, an executor task answering through
/// `answers_through`, joined by an in-process channel.
fn pair(waits_on: Arc<dyn ResultStore>, answers_through: Arc<dyn ResultStore>) -> Dispatcher {
    let echo = ToolBuilder::new("device")
        .api(
            ApiDefinition::new("echo", "Echoes n."),
            |args, _| async move { Ok(ToolOutput::with_state("ok", json!({ "n": args["n"] }))) },
        )
        .build()
        .unwrap();
    let (channel, inbox) = in_process_channel(IN_FLIGHT * 2);
    let executor = ExecutorClient::builder(answers_through)
        .tool(Arc::new(echo))
        .build();
    tokio::spawn(async move { executor.serve(inbox).await });
    Dispatcher::with(Arc::new(channel), waits_on)
}

async fn one(dispatcher: &Dispatcher, n: usize, never: &CancellationToken) {
    let call = DispatchCall::new("device", "echo", format!(r#"{{"n": {n}}}"#));
    let out = dispatcher
        .dispatch(call, Duration::from_secs(30), never)
        .await;
    assert!(out.success, "{out:?}");
    black_box(out);
}

async fn many(dispatcher: &Dispatcher, never: &CancellationToken) {
    futures::future::join_all((0..IN_FLIGHT).map(|n| one(dispatcher, n, never))).await;
}

fn bench_pair(
    c: &mut Criterion,
    rt: &tokio::runtime::Runtime,
    name: &str,
    dispatcher: &Dispatcher,
) {
    let never = CancellationToken::new();
    let mut group = c.benchmark_group(format!("dispatch/{name}"));
    group.throughput(Throughput::Elements(1));
    group.bench_function("one at a time", |b| {
        b.iter(|| rt.block_on(one(dispatcher, 1, &never)));
    });
    group.throughput(Throughput::Elements(IN_FLIGHT as u64));
    group.sample_size(20);
    group.bench_function("1000 in flight", |b| {
        b.iter(|| rt.block_on(many(dispatcher, &never)));
    });
    group.finish();
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn redis_server() -> Option<(Server, String)> {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .ok()?
        .port();
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no", "--loglevel", "warning"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    Some((Server(child), format!("redis://127.0.0.1:{port}/")))
}

async fn client_count(url: &str) -> usize {
    let mut admin = redis::Client::open(url)
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let list: String = redis::cmd("CLIENT")
        .arg("LIST")
        .query_async(&mut admin)
        .await
        .unwrap();
    list.lines().filter(|l| !l.trim().is_empty()).count() - 1
}

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();

    let memory: Arc<dyn ResultStore> = Arc::new(MemoryResultStore::new());
    let dispatcher = rt.block_on(async { pair(Arc::clone(&memory), memory) });
    bench_pair(c, &rt, "memory", &dispatcher);

    let Some((_server, url)) = redis_server() else {
        eprintln!("redis-server is not installed: the Redis benches are skipped");
        return;
    };
    let (dispatcher, waits_on) = rt.block_on(async {
        let mut connected = None;
        for _ in 0..100 {
            if let Ok(store) = RedisResultStore::connect(RedisStoreConfig::new(url.clone())).await {
                connected = Some(store);
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let waits_on = connected.expect("redis-server did not start");
        // The executor answers through a store of its own, as a separate
        // process would (it only puts: one connection, no subscriber).
        let answers_through = RedisResultStore::connect(RedisStoreConfig::new(url.clone()))
            .await
            .unwrap();
        let dispatcher = pair(Arc::new(waits_on.clone()), Arc::new(answers_through));
        (dispatcher, waits_on)
    });
    bench_pair(c, &rt, "redis", &dispatcher);
    let clients = rt.block_on(client_count(&url));
    eprintln!(
        "redis: {clients} connections after the benches (dispatcher store bound {}, executor store 1)",
        waits_on.connection_bound()
    );
}

criterion_group!(dispatch, benches);
criterion_main!(dispatch);
