//! Remote dispatch over `rediss://` (feature `redis-tls`): a real
//! redis-server listening on TLS only, with a private CA made by the test.
#![cfg(feature = "redis-tls")]

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use crate::support::redis_server::setup;
use crate::support::suite;
use crate::support::tls::TestPki;
use tool_dispatch::*;

/// A redis-server with TLS on its only port; killed on drop.
struct TlsServer {
    port: u16,
    child: Child,
    pki: TestPki,
    _dir: tempfile::TempDir,
}

impl Drop for TlsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl TlsServer {
    async fn start() -> Self {
        setup::ensure("10-redis.sh");
        let dir = tempfile::tempdir().expect("a temp dir");
        let pki = TestPki::new(dir.path());
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new("redis-server")
            .args(["--port", "0", "--tls-port", &port.to_string()])
            .args(["--tls-cert-file", &pki.cert_file])
            .args(["--tls-key-file", &pki.key_file])
            .args(["--tls-ca-cert-file", &pki.ca_file])
            .args(["--tls-auth-clients", "no"])
            .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server is missing after .ci/setup.d/10-redis.sh ran");
        let server = Self {
            port,
            child,
            pki,
            _dir: dir,
        };
        for _ in 0..200 {
            let answer = Command::new("redis-cli")
                .args(["--tls", "--cacert", &server.pki.ca_file])
                .args(["-p", &server.port.to_string(), "PING"])
                .output()
                .map(|out| String::from_utf8_lossy(&out.stdout).trim() == "PONG");
            if answer.unwrap_or(false) {
                return server;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("the TLS redis-server did not answer on port {port}");
    }

    fn url(&self) -> String {
        format!("rediss://127.0.0.1:{}/", self.port)
    }

    fn config(&self, ca_pem: &str) -> RedisStoreConfig {
        RedisStoreConfig::new(self.url()).tls(RedisTls::new().root_certificate(ca_pem))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dispatch_suite_passes_over_tls_with_a_private_ca() {
    let server = TlsServer::start().await;
    let store: Arc<dyn ResultStore> = Arc::new(
        RedisResultStore::connect(server.config(&server.pki.ca_pem))
            .await
            .unwrap(),
    );
    suite::round_trip(Arc::clone(&store)).await;
    suite::executor_failures(Arc::clone(&store)).await;
    suite::duplicates(Arc::clone(&store)).await;
    suite::many_concurrent(store, 500).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_signed_by_another_ca_is_refused_with_a_named_error() {
    let server = TlsServer::start().await;
    let Err(error) = RedisResultStore::connect(server.config(&server.pki.other_ca_pem)).await
    else {
        panic!("a certificate from an unknown CA must not be trusted");
    };
    assert!(
        matches!(error, tool_dispatch::Error::StoreUnavailable { .. }),
        "{error:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_url_to_a_tls_server_is_refused_not_hung() {
    let server = TlsServer::start().await;
    let plain = RedisStoreConfig::new(format!("redis://127.0.0.1:{}/", server.port));
    let started = tokio::time::Instant::now();
    let outcome = RedisResultStore::connect(plain).await;
    assert!(outcome.is_err(), "a plain connection to a TLS port worked");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "connect took {:?}",
        started.elapsed()
    );
}

#[cfg(feature = "redis-cluster")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dispatch_suite_passes_over_a_tls_cluster() {
    use crate::support::redis_cluster::{RedisCluster, Tls};
    let dir = tempfile::tempdir().expect("a temp dir");
    let pki = TestPki::new(dir.path());
    let tls = Tls {
        cert: pki.cert_file.clone(),
        key: pki.key_file.clone(),
        ca: pki.ca_file.clone(),
    };
    let cluster = RedisCluster::start_with(3, 0, Some(tls)).await;
    let config = RedisStoreConfig::cluster(cluster.urls())
        .tls(RedisTls::new().root_certificate(pki.ca_pem.as_str()));
    let store: Arc<dyn ResultStore> = Arc::new(RedisResultStore::connect(config).await.unwrap());
    suite::round_trip(Arc::clone(&store)).await;
    suite::many_concurrent(store, 300).await;
}
