//! Remote dispatch: a call that must run elsewhere (a user's desktop app, a
//! browser, a device) is sent to an executor, and the server waits for its
//! one result, within the call's time budget.
//!
//! # Overview of the roles
//!
//! - [`Dispatcher`] (server side): gives each call a dispatch id, opens its
//!   slot in the store, sends a [`ToolExecute`] over the channel and waits.
//!   It never returns an error: every dispatch ends in one
//!   [`ToolOutput`](tool_core::ToolOutput), failures included.
//! - [`ExecutorClient`] (executor side): runs each call on a registered
//!   [`Tool`](tool_core::Tool) under its own, earlier deadline and puts
//!   exactly one result, whatever happens ([`Responder`] for hosts that
//!   answer their own way).
//! - [`DispatchChannel`]: carries messages to executors. Hosts implement it
//!   over their WebSocket, SSE or IPC; [`in_process_channel`] ships.
//! - [`ResultStore`]: where results wait for their dispatcher.
//! - [`route`]: which calls are dispatched at all, from the manifest's
//!   `executors` and the host's [`RoutingConfig`].
//! - [`DispatchedTool`]: a client tool inside the server's pipeline; the
//!   [`Invoker`](tool_core::Invoker)'s deadline, call id and cancellation
//!   carry over to the dispatch.
//!
//! | result store | scope | feature |
//! |---|---|---|
//! | [`MemoryResultStore`] | one process | always |
//! | `RedisResultStore` | several server instances sharing one Redis | `redis` |
//! | `RedisResultStore` on a cluster | server instances over a Redis Cluster | `redis-cluster` |
//!
//! # Deadlines
//!
//! The budget is the one the pipeline resolved for the call (call's own →
//! API default → global, clamped). A batch shares one deadline
//! ([`Dispatcher::dispatch_batch`]): ten parallel calls with a 1 s budget
//! take 1 s, not 10 s. The executor stops at budget − 500 ms (at least
//! 100 ms, [`executor_budget`]) and reports `client_executor_timeout`, so the
//! server gets a named failure; the server reports `timeout` if nothing
//! arrives by the deadline.
//!
//! Every step of a dispatch (opening the slot, handing the call to the
//! channel, waiting) runs under that deadline, so the output comes back at
//! most 50 ms after it (a timer's delay plus [`CLEANUP_MARGIN`], 25 ms, to
//! forget the slot) even with a channel nobody reads or a stalled store;
//! `details.step` says where a timed-out dispatch was (`expect`, `send`:
//! it never reached an executor; `wait`). Measured worst cases in the
//! fault tests (`tests/it/dispatch_faults.rs`, debug build, 2 cores): 2 ms
//! over a full in-process channel, 31 ms against a redis-server stalled
//! with `CLIENT PAUSE` or `DEBUG SLEEP`. Code calling the [`Dispatcher`]
//! directly is protected as well as the pipeline.
//!
//! # Faults of the Redis store
//!
//! Losing only the subscriber connection costs no result: waits resubscribe
//! and re-check their slots. Redis restarted without its data ends the
//! waits with `store_unavailable` at once; Redis unreachable, after the
//! store's bounded recovery (`RedisStoreConfig::recovery_timeout`, 3 s).
//! See `RedisResultStore` for the table.
//!
//! # Deploying the Redis store
//!
//! - **One Redis** (`RedisStoreConfig::new("redis://host:port/db")`,
//!   feature `redis`): every wait of a process shares the store's command
//!   connections (one by default) and one subscriber connection, so a
//!   process holds 2 connections whatever the number of calls in flight
//!   (10 000 concurrent waits were measured on 4 connections for two
//!   stores). `RedisResultStore::connection_bound` gives the figure.
//! - **Redis Cluster 7 or later** (`RedisStoreConfig::cluster(seed_urls)`,
//!   feature `redis-cluster`): a call's keys share one hash tag, so they
//!   live on one slot and its scripts run on one node; results are
//!   announced on sharded pub/sub. The bound is the command connections
//!   plus one subscriber, on each master (6 for three masters and one
//!   command connection). A master that dies ends every wait by its deadline: calls
//!   whose result was stored before, or put after its replica took over,
//!   succeed; a result refused while the slot had no master is lost and its
//!   call ends in `timeout`, or `store_unavailable` past the recovery time
//!   (20 s by default on a cluster, longer than a failover). A manual
//!   failover (`CLUSTER FAILOVER`) loses no result.
//! - **TLS** (`rediss://` URLs, feature `redis-tls`, for one server or the
//!   nodes of a cluster): the system's roots, or a private CA and a client
//!   certificate through `RedisTls`. A server whose certificate does not
//!   chain to the trusted roots, or a plain `redis://` URL to a TLS port, is
//!   refused at `connect` with `store_unavailable`.
//!
//! The tests start real `redis-server` processes for each of these (a
//! single server, a three-master cluster with replicas joined by
//! `redis-cli --cluster create`, TLS with a CA made at test time).
//!
//! # Example
//!
//! ```
//! use std::{sync::Arc, time::Duration};
//! use tool_core::{ApiDefinition, CancellationToken, ToolBuilder, ToolOutput};
//! use tool_dispatch::{
//!     DispatchCall, Dispatcher, ExecutorClient, MemoryResultStore, in_process_channel,
//! };
//!
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
//! let store = Arc::new(MemoryResultStore::new());
//! let (channel, inbox) = in_process_channel(64);
//!
//! // The executor side: a tool that only the device has.
//! let device_clock = ToolBuilder::new("device")
//!     .api(ApiDefinition::new("time", "Local time on the device."), |_, _| async {
//!         Ok(ToolOutput::text("09:41"))
//!     })
//!     .build()
//!     .unwrap();
//! let executor = ExecutorClient::builder(store.clone()).tool(Arc::new(device_clock)).build();
//! tokio::spawn(async move { executor.serve(inbox).await });
//!
//! // The server side.
//! let dispatcher = Dispatcher::with(Arc::new(channel), store);
//! let never = CancellationToken::new();
//! let out = dispatcher
//!     .dispatch(DispatchCall::new("device", "time", "{}"), Duration::from_secs(5), &never)
//!     .await;
//! assert_eq!(out.content, "09:41");
//!
//! let out = dispatcher
//!     .dispatch(DispatchCall::new("device", "reboot", "{}"), Duration::from_secs(5), &never)
//!     .await;
//! assert_eq!(out.error_code().unwrap(), "executor_not_found");
//! # });
//! ```

mod channel;
mod dispatcher;
mod error;
mod executor;
#[cfg(feature = "redis")]
mod ledger;
mod memory;
mod message;
#[cfg(feature = "redis")]
mod redis;
mod route;
mod store;
mod tool;

pub use channel::{DispatchChannel, InProcessChannel, Inbox, in_process_channel};
pub use dispatcher::{CLEANUP_MARGIN, DEFAULT_SLOT_GRACE, DispatchCall, Dispatcher};
pub use error::{Error, Result};
pub use executor::{
    EXECUTOR_SAFETY_MARGIN, ExecutorClient, ExecutorClientBuilder, MIN_EXECUTOR_BUDGET, Responder,
    executor_budget,
};
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub use ledger::RedisLedger;
pub use memory::MemoryResultStore;
pub use message::{
    ARGUMENTS_PARSE_ERROR, CHANNEL_UNAVAILABLE, CLIENT_EXECUTOR_NO_RESULT, CLIENT_EXECUTOR_TIMEOUT,
    ChannelMessage, DISPATCH_FAILED, EXECUTOR_NOT_FOUND, STORE_UNAVAILABLE, ToolExecute,
};
#[cfg(feature = "redis-tls")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis-tls")))]
pub use redis::RedisTls;
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub use redis::{RedisResultStore, RedisStoreConfig};
pub use route::{Route, RoutingConfig, route};
pub use store::ResultStore;
pub use tool::DispatchedTool;
