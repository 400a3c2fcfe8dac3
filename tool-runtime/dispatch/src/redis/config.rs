//! The settings of a Redis result store: where Redis is (one server or a
//! cluster), how it is reached (TLS) and the budgets.

use std::time::Duration;

/// Settings of a [`RedisResultStore`](super::RedisResultStore).
///
/// Defaults: namespace `tool-dispatch`, uncollected results expire after
/// 10 minutes, one command connection, 2 s to connect and 5 s for a reply,
/// at most 256 commands awaiting a reply,
/// 3 s to recover a lost subscriber or store before a wait fails; on a
/// cluster, 1 s for a reply, 20 s of recovery (a failover lasts the
/// cluster's node timeout plus an election) and waits also re-check their
/// slot every second.
///
/// | deployment | constructor | feature |
/// |---|---|---|
/// | one Redis (`redis://host:port/db`) | [`new`](Self::new) | `redis` |
/// | one Redis over TLS (`rediss://…`) | [`new`](Self::new) + [`tls`](Self::tls) for a private CA | `redis-tls` |
/// | Redis Cluster (7 or later) | `cluster` | `redis-cluster` |
/// | Redis Cluster over TLS | `cluster` with `rediss://` nodes | `redis-cluster` + `redis-tls` |
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RedisStoreConfig {
    /// The server, `redis://host:port/db` or `rediss://…` (RESP3 is always
    /// used). On a cluster, the first node.
    pub url: String,
    /// The cluster's seed nodes (any few of them; the rest is discovered).
    /// Empty for one server.
    #[cfg(feature = "redis-cluster")]
    #[cfg_attr(docsrs, doc(cfg(feature = "redis-cluster")))]
    pub cluster_nodes: Vec<String>,
    /// Certificates for `rediss://` servers signed by a private CA, or
    /// asking for a client certificate. `None`: the system's roots.
    #[cfg(feature = "redis-tls")]
    #[cfg_attr(docsrs, doc(cfg(feature = "redis-tls")))]
    pub tls: Option<RedisTls>,
    /// Prefix of every key and channel (`<namespace>:pending:{<id>}`, …).
    pub namespace: String,
    /// How long an uncollected result stays in Redis.
    pub result_ttl: Duration,
    /// How many multiplexed command connections the store opens (at least
    /// 1); on a cluster, per master node. With the subscriber, the store
    /// uses at most this + 1 connections (per master node on a cluster)
    /// whatever the number of concurrent waits.
    pub command_connections: usize,
    /// How long to wait for a connection (and, when a wait starts, for the
    /// subscriber to be subscribed).
    pub connect_timeout: Duration,
    /// How long to wait for one command's reply.
    pub response_timeout: Duration,
    /// How many commands the store has awaiting a reply at once (at least
    /// 1; 256 by default). More wait for their turn before being sent, so a
    /// burst of dispatches queues in the store, bounded by each call's
    /// deadline, instead of behind the connection, where the wait would
    /// count against `response_timeout` (10 000 calls at once on a cluster
    /// timed out that way with 1 000 or no bound).
    pub max_in_flight: usize,
    /// How long a wait keeps trying when the subscriber connection was lost
    /// or the store does not answer (resubscribing, re-checking the stored
    /// result) before it fails with `store_unavailable`; never past the
    /// call's deadline.
    pub recovery_timeout: Duration,
    /// How often a wait re-checks its slot without being woken. `None` on
    /// one server (the wake-up is published by the same script that stores
    /// the result); one second on a cluster, where the wake-up is a second
    /// command that a failover can lose.
    pub recheck_interval: Option<Duration>,
}

impl RedisStoreConfig {
    /// The defaults for the server at `url`.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            #[cfg(feature = "redis-cluster")]
            cluster_nodes: Vec::new(),
            #[cfg(feature = "redis-tls")]
            tls: None,
            namespace: "tool-dispatch".into(),
            result_ttl: Duration::from_secs(600),
            command_connections: 1,
            connect_timeout: Duration::from_secs(2),
            response_timeout: Duration::from_secs(5),
            max_in_flight: 256,
            recovery_timeout: Duration::from_secs(3),
            recheck_interval: None,
        }
    }

    /// The defaults for the Redis Cluster reached through `nodes` (seed
    /// nodes, `redis://host:port` or `rediss://…`). Needs Redis 7 or later
    /// (sharded pub/sub).
    #[cfg(feature = "redis-cluster")]
    #[cfg_attr(docsrs, doc(cfg(feature = "redis-cluster")))]
    pub fn cluster<I, S>(nodes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let cluster_nodes: Vec<String> = nodes.into_iter().map(Into::into).collect();
        let mut config = Self::new(cluster_nodes.first().cloned().unwrap_or_default());
        config.cluster_nodes = cluster_nodes;
        config.recheck_interval = Some(Duration::from_secs(1));
        // A node that stopped answering is found sooner, and its
        // connection replaced (commands are small).
        config.response_timeout = Duration::from_secs(1);
        // A failover takes the cluster's node timeout (15 s by default)
        // plus an election; the call's deadline still bounds each wait.
        config.recovery_timeout = Duration::from_secs(20);
        config
    }

    /// Whether this is a cluster deployment.
    pub fn is_cluster(&self) -> bool {
        #[cfg(feature = "redis-cluster")]
        {
            !self.cluster_nodes.is_empty()
        }
        #[cfg(not(feature = "redis-cluster"))]
        {
            false
        }
    }

    /// Sets the certificates for `rediss://` servers.
    #[cfg(feature = "redis-tls")]
    #[cfg_attr(docsrs, doc(cfg(feature = "redis-tls")))]
    pub fn tls(mut self, tls: RedisTls) -> Self {
        self.tls = Some(tls);
        self
    }

    /// Sets how long a wait tries to recover before failing.
    pub fn recovery_timeout(mut self, timeout: Duration) -> Self {
        self.recovery_timeout = timeout;
        self
    }

    /// Sets how often a wait re-checks its slot without a wake-up (`None`:
    /// never).
    pub fn recheck_interval(mut self, interval: Option<Duration>) -> Self {
        self.recheck_interval = interval;
        self
    }

    /// Sets the namespace.
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = namespace.into();
        self
    }

    /// Sets the expiry of uncollected results.
    pub fn result_ttl(mut self, ttl: Duration) -> Self {
        self.result_ttl = ttl;
        self
    }

    /// Sets the number of command connections (at least 1).
    pub fn command_connections(mut self, count: usize) -> Self {
        self.command_connections = count.max(1);
        self
    }

    /// Sets the connect timeout.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sets the reply timeout.
    pub fn response_timeout(mut self, timeout: Duration) -> Self {
        self.response_timeout = timeout;
        self
    }

    /// Sets how many commands may await a reply at once (at least 1).
    pub fn max_in_flight(mut self, count: usize) -> Self {
        self.max_in_flight = count.max(1);
        self
    }

    /// Whether any server is reached over TLS.
    pub(super) fn wants_tls(&self) -> bool {
        let tls = |url: &str| url.trim_start().to_ascii_lowercase().starts_with("rediss:");
        #[cfg(feature = "redis-cluster")]
        if self.cluster_nodes.iter().any(|url| tls(url)) {
            return true;
        }
        tls(&self.url)
    }
}

/// Certificates for a Redis reached over TLS (`rediss://`), in PEM.
///
/// ```
/// # #[cfg(feature = "redis-tls")] {
/// use tool_dispatch::{RedisStoreConfig, RedisTls};
/// let ca = b"-----BEGIN CERTIFICATE-----\n...".to_vec();
/// let config = RedisStoreConfig::new("rediss://redis.internal:6380/")
///     .tls(RedisTls::new().root_certificate(ca));
/// # let _ = config; }
/// ```
#[cfg(feature = "redis-tls")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis-tls")))]
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct RedisTls {
    /// The CA that signed the server's certificate; `None`: the system's
    /// roots.
    pub root_certificate: Option<Vec<u8>>,
    /// A client certificate and its key, for servers that ask for one
    /// (`tls-auth-clients yes`).
    pub client_identity: Option<(Vec<u8>, Vec<u8>)>,
}

#[cfg(feature = "redis-tls")]
impl RedisTls {
    /// No private CA, no client certificate.
    pub fn new() -> Self {
        Self::default()
    }

    /// Trusts the CA certificate `pem` (instead of the system's roots).
    pub fn root_certificate(mut self, pem: impl Into<Vec<u8>>) -> Self {
        self.root_certificate = Some(pem.into());
        self
    }

    /// Presents the client certificate `cert_pem` with its key `key_pem`.
    pub fn client_identity(
        mut self,
        cert_pem: impl Into<Vec<u8>>,
        key_pem: impl Into<Vec<u8>>,
    ) -> Self {
        self.client_identity = Some((cert_pem.into(), key_pem.into()));
        self
    }

    pub(super) fn certificates(&self) -> redis::TlsCertificates {
        redis::TlsCertificates {
            client_tls: self
                .client_identity
                .as_ref()
                .map(|(cert, key)| redis::ClientTlsConfig {
                    client_cert: cert.clone(),
                    client_key: key.clone(),
                }),
            root_cert: self.root_certificate.clone(),
        }
    }
}

#[cfg(feature = "redis-tls")]
impl std::fmt::Debug for RedisTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key stays out of logs.
        f.debug_struct("RedisTls")
            .field("root_certificate", &self.root_certificate.is_some())
            .field("client_identity", &self.client_identity.is_some())
            .finish()
    }
}
