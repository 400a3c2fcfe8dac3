//! The Redis use-once ledger of durable approvals against a real
//! redis-server (feature `redis`): claims are atomic across connections,
//! two hosts resuming one pending turn run the call exactly once, a claim
//! never marked started is named, and an unreachable server fails closed.
#![cfg(feature = "redis")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use crate::support::redis_server::RedisServer;
use async_trait::async_trait;
use tool_core::durable::{
    Claim, Durable, KeyRing, MacKey, Pending, Reply, UseOnceLedger, UseState,
};
use tool_core::{
    ApiDefinition, Gate, GateDecision, Invoker, OfferedTools, ToolBuilder, ToolCall, ToolContext,
    ToolOutput, ToolRegistry, pipeline::PreparedCall,
};
use tool_dispatch::RedisLedger;

struct AskAll;

#[async_trait]
impl Gate for AskAll {
    async fn decide(
        &self,
        calls: &[PreparedCall],
        _: &OfferedTools,
        _: &ToolContext,
    ) -> Vec<GateDecision> {
        calls
            .iter()
            .map(|_| GateDecision::ask("always ask"))
            .collect()
    }
}

fn keys() -> KeyRing {
    KeyRing::new(MacKey::new("k", [7u8; 32]).unwrap())
}

/// One "instance": its own registry, invoker and Redis connection.
async fn instance(
    server: &RedisServer,
    runs: &Arc<AtomicUsize>,
) -> (OfferedTools, Invoker, Durable, ToolContext) {
    let counter = Arc::clone(runs);
    let tool = ToolBuilder::new("bank")
        .api(ApiDefinition::new("pay", "Pays."), move |_, _| {
            let counter = Arc::clone(&counter);
            async move {
                counter.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(20)).await;
                Ok(ToolOutput::text("paid"))
            }
        })
        .build()
        .unwrap();
    let mut registry = ToolRegistry::new();
    registry.register(tool).unwrap();
    let ctx = ToolContext::new();
    let ledger = RedisLedger::connect(&server.url()).await.unwrap();
    (
        registry.offer(&ctx),
        Invoker::default().with_gate(Arc::new(AskAll)),
        Durable::new(keys()).with_ledger(Arc::new(ledger)),
        ctx,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claims_from_many_connections_have_exactly_one_winner() {
    let server = RedisServer::start().await;
    let mut ledgers = Vec::new();
    for _ in 0..4 {
        ledgers.push(Arc::new(RedisLedger::connect(&server.url()).await.unwrap()));
    }
    let until = SystemTime::now() + Duration::from_secs(300);
    let mut tasks = Vec::new();
    for i in 0..64 {
        let ledger = Arc::clone(&ledgers[i % 4]);
        tasks.push(tokio::spawn(async move {
            ledger.claim("item-1", until).await.unwrap()
        }));
    }
    let mut first = 0;
    for task in tasks {
        if task.await.unwrap() == Claim::First {
            first += 1;
        }
    }
    assert_eq!(first, 1);
    // Claimed, never started: a later claimer is told so.
    assert_eq!(
        ledgers[1].claim("item-1", until).await.unwrap(),
        Claim::Taken(UseState::Claimed)
    );
    ledgers[2].mark_started("item-1").await.unwrap();
    assert_eq!(
        ledgers[3].claim("item-1", until).await.unwrap(),
        Claim::Taken(UseState::Started)
    );
    // Marking an item nobody claimed is an error, not a silent claim.
    assert!(ledgers[0].mark_started("item-2").await.is_err());
    // The entry expires with the item (kept at least a minute).
    let ttl: i64 = redis::cmd("PTTL")
        .arg("tool-ledger:item-1")
        .query_async(
            &mut redis::Client::open(server.url())
                .unwrap()
                .get_multiplexed_async_connection()
                .await
                .unwrap(),
        )
        .await
        .unwrap();
    assert!(ttl > 200_000 && ttl <= 300_000, "{ttl}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_resuming_one_turn_over_redis_run_the_call_exactly_once() {
    let server = RedisServer::start().await;
    let runs = Arc::new(AtomicUsize::new(0));
    let (offered, invoker, durable, ctx) = instance(&server, &runs).await;
    let turn = invoker
        .invoke_turn(
            &durable,
            &offered,
            &[ToolCall::new("bank____pay", "{}").with_id("p1")],
            &ctx,
        )
        .await;
    let stored = serde_json::to_string(&turn.pending.unwrap()).unwrap();
    let pending = Pending::from_json(&stored).unwrap();
    let answer = pending
        .answer("p1", Reply::approve(), durable.keys())
        .unwrap();

    let a = instance(&server, &runs).await;
    let b = instance(&server, &runs).await;
    let (ra, rb) = tokio::join!(
        a.1.resume(
            &a.2,
            &a.0,
            pending.clone(),
            std::slice::from_ref(&answer),
            &a.3
        ),
        b.1.resume(
            &b.2,
            &b.0,
            pending.clone(),
            std::slice::from_ref(&answer),
            &b.3
        ),
    );
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let outputs = [
        ra.unwrap().outputs[0].clone().unwrap(),
        rb.unwrap().outputs[0].clone().unwrap(),
    ];
    let paid = outputs.iter().filter(|o| o.content == "paid").count();
    let used = outputs
        .iter()
        // The loser finds the winner's claim started, or not yet
        // (in flight, or crashed): either way it does not run.
        .filter(|o| {
            o.error_code()
                .is_some_and(|c| c == "approval_used" || c == "approval_interrupted")
        })
        .count();
    assert_eq!((paid, used), (1, 1), "{outputs:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_ledger_fails_closed_and_the_call_does_not_run() {
    let mut server = RedisServer::start().await;
    let runs = Arc::new(AtomicUsize::new(0));
    let (offered, invoker, durable, ctx) = instance(&server, &runs).await;
    let turn = invoker
        .invoke_turn(
            &durable,
            &offered,
            &[ToolCall::new("bank____pay", "{}").with_id("p1")],
            &ctx,
        )
        .await;
    let pending = turn.pending.unwrap();
    let answer = pending
        .answer("p1", Reply::approve(), durable.keys())
        .unwrap();
    server.stop().await;
    let resumed = invoker
        .resume(&durable, &offered, pending, &[answer], &ctx)
        .await
        .unwrap();
    let output = resumed.outputs[0].as_ref().unwrap();
    assert_eq!(
        output.error_code().unwrap(),
        "approval_ledger_unavailable",
        "{output:?}"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}
