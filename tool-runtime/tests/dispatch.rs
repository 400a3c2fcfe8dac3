//! Remote dispatch over the in-memory result store.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod dispatch_support;

use std::sync::Arc;

use dispatch_support::suite;
use tool_runtime::dispatch::{MemoryResultStore, ResultStore};

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
    no_result,
    duplicates,
    late_result_is_dropped,
    shared_deadline,
    many_concurrent(10_000),
);
