//! The dispatch behaviour suite, run over every result store
//! (`dispatch` in memory, `dispatch_redis` over a real redis-server).
#![allow(dead_code)]

#[cfg(feature = "redis-cluster")]
pub mod redis_cluster;
#[cfg(feature = "redis")]
pub mod redis_server;
pub mod suite;
#[cfg(feature = "redis-tls")]
pub mod tls;
pub mod tools;
