//! Remote dispatch over the in-memory result store.

use std::sync::Arc;

use crate::support::suite;
use tool_dispatch::{MemoryResultStore, ResultStore};

/// Runs a suite case over a fresh store, then checks nothing is left.
macro_rules! over_memory {
    ($($name:ident $(($arg:expr))?),* $(,)?) => {$(
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $name() {
            let store = MemoryResultStore::new();
            let shared: Arc<dyn ResultStore> = Arc::new(store.clone());
            suite::$name(shared $(, $arg)?).await;
            suite::wait_for(|| store.is_empty()).await;
        }
    )*};
}

over_memory!(
    round_trip,
    executor_failures,
    client_executor_timeout,
    server_timeout,
    dispatcher_failures,
    cancellation,
    dropped_dispatch,
    no_result,
    duplicates,
    late_result_is_dropped,
    shared_deadline,
    many_concurrent(10_000),
);

mod through_the_pipeline {
    use std::sync::Arc;
    use std::time::Duration;

    use tokio::time::Instant;
    use tool_core::{ApiDefinition, Invoker, Tool, ToolCall, ToolContext, ToolRegistry};
    use tool_dispatch::{DispatchedTool, MemoryResultStore};

    use crate::support::suite::{self, code};
    use crate::support::tools::{Observed, device};

    /// The server registers a DispatchedTool with the device's manifest (its
    /// `hang` API given a 1 s default budget); the Invoker's deadline, call
    /// id and cancellation reach the executor.
    fn server(store: &MemoryResultStore) -> (ToolRegistry, suite::Rig) {
        let rig = suite::rig(Arc::new(store.clone()));
        let mut manifest = device(&Observed::default()).manifest().clone();
        for api in &mut manifest.api {
            if api.name == "hang" {
                *api = ApiDefinition::clone(api).with_default_timeout_ms(1_000);
            }
        }
        let mut registry = ToolRegistry::new();
        registry
            .register(DispatchedTool::new(manifest, rig.dispatcher.clone()))
            .unwrap();
        (registry, rig)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_invoked_call_runs_on_the_executor() {
        let store = MemoryResultStore::new();
        let (registry, _rig) = server(&store);
        let ctx = ToolContext::new();
        let offered = registry.offer(&ctx);
        let out = Invoker::default()
            .invoke(
                &offered,
                &ToolCall::new("device____echo", r#"{"n": 5}"#).with_id("call_9"),
                &ctx,
            )
            .await;
        assert!(out.success, "{out:?}");
        assert_eq!(out.content, "5");
        suite::wait_for(|| store.is_empty()).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_batch_of_ten_through_the_invoker_shares_the_budget() {
        let store = MemoryResultStore::new();
        let (registry, rig) = server(&store);
        let ctx = ToolContext::new();
        let offered = registry.offer(&ctx);
        let calls: Vec<ToolCall> = (0..10)
            .map(|i| ToolCall::new("device____hang", "{}").with_id(format!("c{i}")))
            .collect();
        let started = Instant::now();
        let outs = Invoker::default()
            .invoke_batch(&offered, &calls, &ctx)
            .await;
        let took = started.elapsed();
        assert!(
            outs.iter().all(|o| code(o) == "client_executor_timeout"),
            "{outs:?}"
        );
        // Executor budget 1 s − 500 ms, all ten side by side.
        assert!(took < Duration::from_millis(1_500), "{took:?}");
        suite::wait_for(|| rig.observed.stopped() == 10).await;
        suite::wait_for(|| store.is_empty()).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn cancelling_the_turn_cancels_the_dispatch() {
        let store = MemoryResultStore::new();
        let (registry, rig) = server(&store);
        let turn = tool_core::CancellationToken::new();
        let ctx = ToolContext::new().with_cancellation(turn.clone());
        let offered = registry.offer(&ctx);
        let trigger = turn.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            trigger.cancel();
        });
        let out = Invoker::default()
            .invoke(&offered, &ToolCall::new("device____hang", "{}"), &ctx)
            .await;
        assert_eq!(code(&out), "cancelled", "{out:?}");
        suite::wait_for(|| rig.observed.stopped() == 1).await;
        suite::wait_for(|| store.is_empty()).await;
    }
}
