//! Remote dispatch over a real Redis Cluster (feature `redis-cluster`):
//! nodes started by the test, a load run, and failovers in the middle of
//! one.
#![cfg(feature = "redis-cluster")]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use crate::support::redis_cluster::RedisCluster;
use crate::support::suite;
use serde_json::json;
use tokio::time::Instant;
use tool_core::{ApiDefinition, CancellationToken, ToolBuilder, ToolOutput};
use tool_dispatch::*;

async fn store(cluster: &RedisCluster) -> RedisResultStore {
    RedisResultStore::connect(RedisStoreConfig::cluster(cluster.urls()))
        .await
        .unwrap()
}

/// Waits until no master holds a key.
async fn no_leftover_keys(cluster: &RedisCluster) {
    let until = Instant::now() + Duration::from_secs(3);
    loop {
        let keys = cluster.keys();
        if keys.is_empty() {
            return;
        }
        assert!(Instant::now() < until, "keys left behind: {keys:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `load.echo {n, ms}`: answers `n` after `ms`.
fn load_tool() -> Arc<dyn tool_core::Tool> {
    Arc::new(
        ToolBuilder::new("load")
            .api(
                ApiDefinition::new("echo", "Echoes n after ms."),
                |args, _| async move {
                    let ms = args["ms"].as_u64().unwrap_or(0);
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    Ok(ToolOutput::text(args["n"].to_string()))
                },
            )
            .build()
            .unwrap(),
    )
}

/// A dispatcher waiting on `waits_on`, its executor answering through
/// `answers_through` (as two processes would).
fn side(waits_on: &RedisResultStore, answers_through: &RedisResultStore) -> Dispatcher {
    let (channel, inbox) = in_process_channel(4_096);
    let executor = ExecutorClient::builder(Arc::new(answers_through.clone()))
        .tool(load_tool())
        .build();
    tokio::spawn(async move { executor.serve(inbox).await });
    Dispatcher::with(Arc::new(channel), Arc::new(waits_on.clone()))
}

/// What a load run saw.
#[derive(Debug, Default)]
struct Tally {
    /// Outcome code (`success`, `timeout`, …) → count.
    codes: BTreeMap<String, usize>,
    /// Successes whose content was another call's.
    wrong: usize,
    /// Worst time past its deadline of any call.
    worst_over: Duration,
    /// A few failure messages, by code.
    samples: BTreeMap<String, Vec<String>>,
    /// Completion times of the successes, sorted.
    times: Vec<Duration>,
}

/// `count` dispatches of `load.echo` with delays spread over `spread`
/// ms, each with budget `budget`; `during` runs once the calls are out.
async fn load_run<F>(
    dispatcher: &Dispatcher,
    count: usize,
    spread: u64,
    budget: Duration,
    during: F,
) -> Tally
where
    F: std::future::Future<Output = ()>,
{
    let started = Instant::now();
    let calls = futures::future::join_all((0..count).map(|n| {
        let dispatcher = dispatcher.clone();
        async move {
            let ms = (n as u64 * 7_919) % spread.max(1);
            let call = DispatchCall::new("load", "echo", json!({"n": n, "ms": ms}).to_string());
            let begun = Instant::now();
            let out = dispatcher
                .dispatch(call, budget, &CancellationToken::new())
                .await;
            if !out.success && std::env::var_os("DISPATCH_TRACE").is_some() {
                eprintln!(
                    "{n} (ms {ms}) failed at {:?}: {}",
                    started.elapsed(),
                    out.content
                );
            }
            (n, out, begun.elapsed())
        }
    }));
    let (outs, ()) = tokio::join!(calls, during);
    let mut tally = Tally::default();
    for (n, out, took) in outs {
        let code = suite::code(&out).to_owned();
        if out.success {
            if out.content != n.to_string() {
                tally.wrong += 1;
            }
            tally.times.push(took);
        }
        if !out.success {
            let samples = tally.samples.entry(code.clone()).or_default();
            if samples.len() < 3 && !samples.contains(&out.content) {
                samples.push(out.content.clone());
            }
        }
        *tally.codes.entry(code).or_default() += 1;
        tally.worst_over = tally.worst_over.max(took.saturating_sub(budget));
    }
    tally.times.sort();
    eprintln!(
        "{count} dispatches in {:?}: {:?}, wrong {}, worst past the deadline {:?}; {:#?}",
        started.elapsed(),
        tally.codes,
        tally.wrong,
        tally.worst_over,
        tally.samples
    );
    tally
}

/// The margin the dispatch guide documents (a timer's delay plus
/// `CLEANUP_MARGIN`), widened for a debug build of 2 000 calls and a
/// six-node cluster sharing 2 cores.
const MARGIN: Duration = Duration::from_millis(500);

/// The behaviour suite over one cluster (each case in its own namespace).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dispatch_suite_passes_over_a_cluster() {
    let cluster = RedisCluster::start(3, 0).await;
    let probe = store(&cluster).await;
    assert!(probe.is_cluster());
    // One command connection and one subscriber per master.
    assert_eq!(probe.connection_bound(), 6);
    drop(probe);
    macro_rules! cases {
        ($($name:ident $(($arg:expr))?),* $(,)?) => {$(
            let config = RedisStoreConfig::cluster(cluster.urls()).namespace(stringify!($name));
            let shared: Arc<dyn ResultStore> =
                Arc::new(RedisResultStore::connect(config).await.unwrap());
            suite::$name(shared $(, $arg)?).await;
            no_leftover_keys(&cluster).await;
        )*};
    }
    cases!(
        round_trip,
        executor_failures,
        client_executor_timeout,
        server_timeout,
        dispatcher_failures,
        cancellation,
        no_result,
        duplicates,
        late_result_is_dropped,
        shared_deadline,
    );
}

/// 2 000 dispatches between two "processes" over the cluster: every result
/// right, keys of a call on one slot (the scripts would fail with
/// CROSSSLOT otherwise), no key left, and connections within the bound
/// while they all wait.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_thousand_dispatches_over_a_cluster_each_get_their_own_result() {
    let cluster = RedisCluster::start(3, 0).await;
    let (server, executor) = (store(&cluster).await, store(&cluster).await);
    let dispatcher = side(&server, &executor);
    let before = cluster.clients();
    let tally = load_run(&dispatcher, 2_000, 800, Duration::from_secs(30), async {
        tokio::time::sleep(Duration::from_millis(400)).await;
        let used = cluster.clients() - before;
        let bound = server.connection_bound() + executor.connection_bound();
        eprintln!("connections opened by both stores with ~2 000 waits: {used} (bound {bound})");
        assert!(used <= bound, "{used} connections, bound {bound}");
    })
    .await;
    assert_eq!(tally.codes.get("success"), Some(&2_000), "{tally:?}");
    assert_eq!(tally.wrong, 0);
    no_leftover_keys(&cluster).await;
}

/// 10 000 dispatches started at once over the cluster with the defaults:
/// each gets its own result. Commands beyond `max_in_flight` wait for
/// their turn in the store; without that bound (or with 1 000) they queued
/// behind the cluster connections past the 1 s reply timeout and calls
/// failed with `store_unavailable` ("cannot open the result slot").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_dispatches_at_once_over_a_cluster_all_succeed() {
    let cluster = RedisCluster::start(3, 0).await;
    let (server, executor) = (store(&cluster).await, store(&cluster).await);
    assert_eq!(server.config().max_in_flight, 256);
    let dispatcher = side(&server, &executor);
    let tally = load_run(&dispatcher, 10_000, 1, Duration::from_secs(60), async {}).await;
    assert_eq!(tally.codes.get("success"), Some(&10_000), "{tally:?}");
    assert_eq!(tally.wrong, 0);
    no_leftover_keys(&cluster).await;
}

/// A manual failover (`CLUSTER FAILOVER` on a replica) in the middle of
/// 2 000 waits: the old master drops the sharded subscription, the store
/// subscribes again on the new one and re-checks; every result arrives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_manual_failover_mid_load_loses_no_result() {
    let cluster = RedisCluster::start(3, 1).await;
    let (server, executor) = (store(&cluster).await, store(&cluster).await);
    let dispatcher = side(&server, &executor);
    let budget = Duration::from_secs(20);
    let tally = load_run(&dispatcher, 2_000, 3_000, budget, async {
        tokio::time::sleep(Duration::from_millis(800)).await;
        for replica in cluster.ports_with_role("slave") {
            let reply = cluster.cli(replica, &["CLUSTER", "FAILOVER"]);
            assert_eq!(reply.trim(), "OK", "CLUSTER FAILOVER on {replica}");
        }
        cluster.wait_until_ok().await;
    })
    .await;
    eprintln!(
        "command connections renewed: {}",
        server.renewed_connections() + executor.renewed_connections()
    );
    assert_eq!(tally.codes.get("success"), Some(&2_000), "{tally:?}");
    assert_eq!(tally.wrong, 0);
    // The roles really swapped: three masters, each a former replica.
    assert_eq!(cluster.ports_with_role("master").len(), 3);
    no_leftover_keys(&cluster).await;
}

/// A master killed in the middle of 2 000 waits (its replica takes over
/// after the node timeout): every call ends with its own result or a named
/// failure by its deadline + margin, never a hang or another call's
/// result; afterwards the store serves new calls.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_master_killed_mid_load_ends_every_call_by_its_deadline() {
    let mut cluster = RedisCluster::start(3, 1).await;
    let (server, executor) = (store(&cluster).await, store(&cluster).await);
    let dispatcher = side(&server, &executor);
    let budget = Duration::from_secs(10);
    let victim = cluster.ports_with_role("master")[0];
    let tally = load_run(&dispatcher, 2_000, 3_000, budget, async {
        tokio::time::sleep(Duration::from_millis(800)).await;
        cluster.kill(victim);
    })
    .await;
    assert_eq!(tally.wrong, 0, "{tally:?}");
    let named = [
        "success",
        "timeout",
        "store_unavailable",
        "client_executor_no_result",
    ];
    for code in tally.codes.keys() {
        assert!(
            named.contains(&code.as_str()),
            "unexpected outcome {code}: {tally:?}"
        );
    }
    assert!(
        tally.worst_over <= MARGIN,
        "a call ended {:?} past its deadline",
        tally.worst_over
    );
    // Calls that ended before the kill, or whose executor put its result
    // after the replica took over, succeed; a put refused while the cluster
    // was down loses that result, and its call ends in `timeout`.
    assert!(tally.codes.contains_key("success"), "{tally:?}");
    cluster.wait_until_ok().await;
    let after = load_run(&dispatcher, 200, 100, Duration::from_secs(10), async {}).await;
    assert_eq!(after.codes.get("success"), Some(&200), "{after:?}");
}
