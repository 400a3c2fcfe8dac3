//! How the store reaches Redis: one server through connection managers, or
//! a cluster through the `redis` crate's cluster client; plain or TLS.

use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{
    Cmd, ConnectionInfo, IntoConnectionInfo, Pipeline, ProtocolVersion, RedisFuture, Value,
};

use super::config::RedisStoreConfig;
use crate::error::{Error, Result};

/// Where the store's commands go.
pub(super) enum Backend {
    /// One server (boxed: the client is far larger than the cluster's seed list).
    Single(Box<redis::Client>),
    /// A cluster, reached through its seed nodes.
    #[cfg(feature = "redis-cluster")]
    Cluster(Vec<ConnectionInfo>),
}

/// One command connection: cheap to clone, multiplexed.
#[derive(Clone)]
pub(super) enum Commands {
    Single(ConnectionManager),
    #[cfg(feature = "redis-cluster")]
    Cluster(redis::cluster_async::ClusterConnection),
}

impl redis::aio::ConnectionLike for Commands {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Self::Single(connection) => connection.req_packed_command(cmd),
            #[cfg(feature = "redis-cluster")]
            Self::Cluster(connection) => connection.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Self::Single(connection) => connection.req_packed_commands(pipeline, offset, count),
            #[cfg(feature = "redis-cluster")]
            Self::Cluster(connection) => connection.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Self::Single(connection) => connection.get_db(),
            #[cfg(feature = "redis-cluster")]
            Self::Cluster(connection) => connection.get_db(),
        }
    }
}

impl Backend {
    /// Reads the configuration: URLs, TLS, protocol (always RESP3, for the
    /// subscriber's push messages).
    pub(super) fn new(config: &RedisStoreConfig) -> Result<Self> {
        if config.wants_tls() && !cfg!(feature = "redis-tls") {
            return Err(Error::StoreUnavailable {
                message: "a rediss:// server needs tool-runtime's `redis-tls` feature".into(),
            });
        }
        #[cfg(feature = "redis-tls")]
        if config.wants_tls() {
            install_crypto_provider();
        }
        #[cfg(feature = "redis-cluster")]
        if config.is_cluster() {
            let nodes = config
                .cluster_nodes
                .iter()
                .map(|url| connection_info(url))
                .collect::<Result<Vec<_>>>()?;
            return Ok(Self::Cluster(nodes));
        }
        let info = connection_info(&config.url)?;
        #[cfg(feature = "redis-tls")]
        if let Some(tls) = &config.tls {
            return redis::Client::build_with_tls(info, tls.certificates())
                .map(|client| Self::Single(Box::new(client)))
                .map_err(|e| invalid(&e));
        }
        redis::Client::open(info)
            .map(|client| Self::Single(Box::new(client)))
            .map_err(|e| invalid(&e))
    }

    /// Opens one command connection.
    pub(super) async fn commands(&self, config: &RedisStoreConfig) -> Result<Commands> {
        match self {
            Self::Single(client) => {
                let manager_config = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(config.connect_timeout))
                    .set_response_timeout(Some(config.response_timeout))
                    .set_number_of_retries(1)
                    .set_min_delay(Duration::from_millis(50))
                    .set_max_delay(Duration::from_millis(500));
                client
                    .get_connection_manager_with_config(manager_config)
                    .await
                    .map(Commands::Single)
                    .map_err(|e| unavailable("cannot connect to Redis", &e))
            }
            #[cfg(feature = "redis-cluster")]
            Self::Cluster(nodes) => {
                let client = cluster_client(nodes, config, None)?;
                tokio::time::timeout(config.connect_timeout, client.get_async_connection())
                    .await
                    .map_err(|_| Error::StoreUnavailable {
                        message: format!(
                            "cannot connect to the Redis Cluster within {:?}",
                            config.connect_timeout
                        ),
                    })?
                    .map(Commands::Cluster)
                    .map_err(|e| unavailable("cannot connect to the Redis Cluster", &e))
            }
        }
    }

    /// How many servers one command connection reaches: 1, or the
    /// cluster's master nodes (`CLUSTER SHARDS`).
    pub(super) async fn servers(&self, commands: &mut Commands) -> Result<usize> {
        match commands {
            Commands::Single(_) => Ok(1),
            #[cfg(feature = "redis-cluster")]
            Commands::Cluster(connection) => {
                let slots: Vec<Value> = redis::cmd("CLUSTER")
                    .arg("SLOTS")
                    .query_async(connection)
                    .await
                    .map_err(|e| unavailable("cannot read the cluster's slots", &e))?;
                let mut masters = std::collections::BTreeSet::new();
                for range in &slots {
                    if let Value::Array(parts) = range
                        && let Some(Value::Array(master)) = parts.get(2)
                    {
                        masters.insert(format!("{:?}{:?}", master.first(), master.get(1)));
                    }
                }
                Ok(masters.len().max(1))
            }
        }
    }
}

/// A cluster client; `push` receives the subscriber's push messages.
#[cfg(feature = "redis-cluster")]
pub(super) fn cluster_client(
    nodes: &[ConnectionInfo],
    config: &RedisStoreConfig,
    push: Option<tokio::sync::mpsc::UnboundedSender<redis::PushInfo>>,
) -> Result<redis::cluster::ClusterClient> {
    let mut builder = redis::cluster::ClusterClientBuilder::new(nodes.to_vec())
        .use_protocol(ProtocolVersion::RESP3)
        .connection_timeout(config.connect_timeout)
        .response_timeout(config.response_timeout)
        // A failover takes the cluster's node timeout; the call's deadline
        // bounds a dispatch, so retries stay short and few.
        .retries(6)
        .min_retry_wait(20)
        .max_retry_wait(500);
    #[cfg(feature = "redis-tls")]
    if let Some(tls) = &config.tls {
        builder = builder.certs(tls.certificates());
    }
    if let Some(push) = push {
        builder = builder.push_sender(push);
    }
    builder.build().map_err(|e| invalid(&e))
}

fn connection_info(url: &str) -> Result<ConnectionInfo> {
    let info = url.into_connection_info().map_err(|e| invalid(&e))?;
    let settings = info
        .redis_settings()
        .clone()
        .set_protocol(ProtocolVersion::RESP3);
    Ok(info.set_redis_settings(settings))
}

/// The `redis` crate's rustls needs a process-wide crypto provider when
/// the build enables more than one (or none); the store installs aws-lc-rs
/// (the one reqwest uses) unless the host installed one first.
#[cfg(feature = "redis-tls")]
fn install_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Losing the race to another installer is fine: one is installed.
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    }
}

fn invalid(error: &redis::RedisError) -> Error {
    unavailable("the Redis URL or TLS settings are invalid", error)
}

pub(super) fn unavailable(what: &str, error: &redis::RedisError) -> Error {
    Error::StoreUnavailable {
        message: format!("{what}: {error}"),
    }
}
