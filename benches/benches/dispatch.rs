//! tool-runtime remote dispatch: dispatch → execute → result round trips,
//! one at a time and 1 000 in flight, over the in-memory store, over a real
//! redis-server and over a real 3-master Redis Cluster (both started here on
//! free 127.0.0.1 ports by tool-runtime's own test support, which installs
//! redis-server through `.ci/setup.d/10-redis.sh` when it is missing).
//!
//! Then 10 000 calls in flight at once over one Redis and over the cluster,
//! timed as one batch (not by criterion: the figure of interest is the
//! spread of completion times within the batch): per-call time, the
//! completion time of the median, 99th percentile and last call from the
//! batch's start, and the Redis connections open after it. They are printed
//! and written as JSON to `TOOL_BENCHES_MEMORY_OUT` when that is set.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;
use tool_core::{ApiDefinition, CancellationToken, ToolBuilder, ToolOutput};
use tool_dispatch::{
    DispatchCall, Dispatcher, ExecutorClient, MemoryResultStore, RedisResultStore,
    RedisStoreConfig, ResultStore, in_process_channel,
};

#[allow(dead_code)]
#[path = "../../tool-runtime/dispatch/tests/it/support/redis_server.rs"]
mod redis_server;

#[allow(dead_code)]
#[path = "../../tool-runtime/dispatch/tests/it/support/redis_cluster.rs"]
mod redis_cluster;

use redis_cluster::RedisCluster;
use redis_server::RedisServer;

const IN_FLIGHT: usize = 1_000;
const BATCH: usize = 10_000;
/// Batches of 10 000 per store; the figures are those of the median batch.
const BATCHES: usize = 5;

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
    let (channel, inbox) = in_process_channel(BATCH * 2);
    let executor = ExecutorClient::builder(answers_through)
        .tool(Arc::new(echo))
        .build();
    tokio::spawn(async move { executor.serve(inbox).await });
    Dispatcher::with(Arc::new(channel), waits_on)
}

async fn one(dispatcher: &Dispatcher, n: usize, never: &CancellationToken) {
    let call = DispatchCall::new("device", "echo", format!(r#"{{"n": {n}}}"#));
    let out = dispatcher
        .dispatch(call, Duration::from_secs(60), never)
        .await;
    assert!(out.success, "{out:?}");
    let got = out.state.as_ref().and_then(|state| state["n"].as_u64());
    assert_eq!(got, Some(n as u64), "call {n} got another call's result");
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

/// One batch of `BATCH` calls started at once: each call's completion time
/// from the batch's start, sorted.
async fn batch(dispatcher: &Dispatcher) -> Vec<Duration> {
    let never = CancellationToken::new();
    let start = Instant::now();
    let mut done = futures::future::join_all((0..BATCH).map(|n| {
        let never = &never;
        async move {
            one(dispatcher, n, never).await;
            start.elapsed()
        }
    }))
    .await;
    done.sort();
    done
}

/// The spread figures of the median of `BATCHES` batches (by total time),
/// under `dispatch/{name}/10000 in flight/…`.
fn spread(
    rt: &tokio::runtime::Runtime,
    name: &str,
    dispatcher: &Dispatcher,
    figures: &mut BTreeMap<String, f64>,
) {
    rt.block_on(batch(dispatcher)); // warm-up
    let mut runs: Vec<Vec<Duration>> = (0..BATCHES)
        .map(|_| rt.block_on(batch(dispatcher)))
        .collect();
    runs.sort_by_key(|done| done[BATCH - 1]);
    let median = &runs[BATCHES / 2];
    let at = |q: f64| median[((BATCH as f64 * q) as usize).min(BATCH - 1)].as_nanos() as f64;
    let key = |what: &str| format!("dispatch/{name}/10000 in flight/{what}");
    let total = median[BATCH - 1].as_nanos() as f64;
    figures.insert(key("per call"), total / BATCH as f64);
    figures.insert(key("p50"), at(0.5));
    figures.insert(key("p99"), at(0.99));
    figures.insert(key("last"), total);
    eprintln!(
        "dispatch/{name}: {BATCH} in flight: {:.1} µs per call; completions from the start: p50 {:.0} ms, p99 {:.0} ms, last {:.0} ms",
        total / BATCH as f64 / 1e3,
        at(0.5) / 1e6,
        at(0.99) / 1e6,
        total / 1e6
    );
}

/// Two stores on `config`: the dispatcher's (it waits) and the executor's
/// (it only puts), as two processes would have.
async fn stores(config: impl Fn() -> RedisStoreConfig) -> (RedisResultStore, RedisResultStore) {
    let waits_on = RedisResultStore::connect(config()).await.unwrap();
    let answers_through = RedisResultStore::connect(config()).await.unwrap();
    (waits_on, answers_through)
}

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let mut figures = BTreeMap::new();

    let memory: Arc<dyn ResultStore> = Arc::new(MemoryResultStore::new());
    let dispatcher = rt.block_on(async { pair(Arc::clone(&memory), memory) });
    bench_pair(c, &rt, "memory", &dispatcher);
    spread(&rt, "memory", &dispatcher, &mut figures);

    let server = rt.block_on(RedisServer::start());
    let url = server.url();
    let (waits_on, answers_through) = rt.block_on(stores(|| RedisStoreConfig::new(url.clone())));
    let bound = waits_on.connection_bound();
    let dispatcher = rt.block_on(async { pair(Arc::new(waits_on), Arc::new(answers_through)) });
    bench_pair(c, &rt, "redis", &dispatcher);
    spread(&rt, "redis", &dispatcher, &mut figures);
    let clients = rt.block_on(server.clients());
    figures.insert("dispatch/redis/connections".into(), clients as f64);
    eprintln!(
        "redis: {clients} connections after the benches (dispatcher store bound {bound} + subscriber, executor store 1)"
    );
    drop(dispatcher);

    let cluster = rt.block_on(RedisCluster::start(3, 0));
    let urls = cluster.urls();
    let (waits_on, answers_through) =
        rt.block_on(stores(|| RedisStoreConfig::cluster(urls.clone())));
    assert!(waits_on.is_cluster());
    let bound = waits_on.connection_bound();
    let dispatcher = rt.block_on(async { pair(Arc::new(waits_on), Arc::new(answers_through)) });
    bench_pair(c, &rt, "cluster", &dispatcher);
    spread(&rt, "cluster", &dispatcher, &mut figures);
    let clients = cluster.clients();
    figures.insert("dispatch/cluster/connections".into(), clients as f64);
    eprintln!(
        "cluster (3 masters): {clients} connections on all nodes after the benches (dispatcher store bound {bound}: a command connection and a subscriber per master; executor store: a command connection per master)"
    );

    if let Some(out) = std::env::var_os("TOOL_BENCHES_MEMORY_OUT") {
        std::fs::write(out, serde_json::to_string(&figures).unwrap()).unwrap();
    }
}

criterion_group!(dispatch, benches);
criterion_main!(dispatch);
