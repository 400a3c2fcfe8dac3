//! tool-dispatch's integration tests, in one binary: a module per store or
//! fault family, over the shared behaviour suite in `support`. The Redis
//! modules start real `redis-server` processes (installed by
//! `.ci/setup.d/10-redis.sh`) and need the crate's `redis` features. Run one
//! with its path, e.g. `cargo test -p tool-dispatch --all-features --test it
//! dispatch_redis::`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

/// Real redis-server processes, the behaviour suite and its tools.
mod support;

mod dispatch;
mod dispatch_cluster;
mod dispatch_faults;
mod dispatch_redis;
mod dispatch_tls;
mod durable_ledger;
mod module_graph;
