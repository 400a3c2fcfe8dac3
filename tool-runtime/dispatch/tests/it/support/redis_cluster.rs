//! A real Redis Cluster for the tests: `redis-server --cluster-enabled yes`
//! nodes on free 127.0.0.1 ports in a temp dir, joined with `redis-cli
//! --cluster create`; every node is killed when the cluster is dropped (on
//! a panic too).

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::redis_server::setup;

/// How long a started server may take to answer.
const STARTUP_WAIT: Duration = Duration::from_secs(30);

/// One node process; killed and reaped on drop.
struct Node {
    port: u16,
    child: Option<Child>,
}

impl Node {
    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A running cluster.
pub struct RedisCluster {
    nodes: Vec<Node>,
    dir: tempfile::TempDir,
    tls: Option<Tls>,
}

/// TLS files of a cluster's nodes (paths in its temp dir).
#[derive(Clone)]
pub struct Tls {
    pub cert: String,
    pub key: String,
    pub ca: String,
}

/// How many times a node that died at start is started again on other
/// ports.
const START_TRIES: usize = 5;

/// A free port whose cluster bus port (`port + 10000`) is free too and
/// inside the port range, and that no other node of this cluster has taken.
/// A node whose bus port is taken exits at once.
fn free_port(taken: &[u16]) -> u16 {
    loop {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let port = listener.local_addr().expect("a bound address").port();
        let Some(bus) = port.checked_add(10000) else {
            continue;
        };
        if taken
            .iter()
            .any(|&t| t == port || t == bus || u32::from(t) + 10000 == u32::from(port))
        {
            continue;
        }
        if TcpListener::bind(("127.0.0.1", bus)).is_ok() {
            return port;
        }
    }
}

impl RedisCluster {
    /// `masters` masters with `replicas` replicas each.
    pub async fn start(masters: usize, replicas: usize) -> Self {
        Self::start_with(masters, replicas, None).await
    }

    /// The same, every node listening on TLS only (`tls` files made by the
    /// test).
    pub async fn start_with(masters: usize, replicas: usize, tls: Option<Tls>) -> Self {
        setup::ensure("10-redis.sh");
        let dir = tempfile::tempdir().expect("a temp dir");
        let mut cluster = Self {
            nodes: Vec::new(),
            dir,
            tls,
        };
        for _ in 0..masters * (1 + replicas) {
            let port = free_port(&cluster.ports());
            let mut node = Node { port, child: None };
            node.child = Some(cluster.spawn(port));
            cluster.nodes.push(node);
        }
        for index in 0..cluster.nodes.len() {
            cluster.wait_until_node_answers(index).await;
        }
        let mut create = cluster.cli_command();
        create.arg("--cluster").arg("create");
        for node in &cluster.nodes {
            create.arg(format!("127.0.0.1:{}", node.port));
        }
        create
            .args(["--cluster-replicas", &replicas.to_string(), "--cluster-yes"])
            .stdout(Stdio::null());
        let status = create.status().expect("redis-cli runs");
        assert!(status.success(), "redis-cli --cluster create failed");
        cluster.wait_until_ok().await;
        cluster.wait_until_replicas_synced().await;
        cluster
    }

    /// Waits until every replica has its master's data: a replica that never
    /// synced refuses to take over when its master dies.
    async fn wait_until_replicas_synced(&self) {
        for _ in 0..400 {
            let synced = self.nodes.iter().filter(|n| n.child.is_some()).all(|n| {
                let info = self.cli(n.port, &["INFO", "replication"]);
                !info.contains("role:slave") || info.contains("master_link_status:up")
            });
            if synced {
                return;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("the replicas did not sync with their masters");
    }

    fn spawn(&self, port: u16) -> Child {
        let node_dir = self.dir.path().join(port.to_string());
        std::fs::create_dir_all(&node_dir).expect("node dir");
        let mut command = Command::new("redis-server");
        match &self.tls {
            Some(tls) => command
                .args(["--port", "0", "--tls-port", &port.to_string()])
                .args([
                    "--tls-cert-file",
                    &tls.cert,
                    "--tls-key-file",
                    &tls.key,
                    "--tls-ca-cert-file",
                    &tls.ca,
                    "--tls-auth-clients",
                    "no",
                    "--tls-cluster",
                    "yes",
                    "--tls-replication",
                    "yes",
                ]),
            None => command.args(["--port", &port.to_string()]),
        };
        command
            .args(["--bind", "127.0.0.1"])
            .args(["--cluster-enabled", "yes"])
            .arg("--cluster-config-file")
            .arg(node_dir.join("nodes.conf"))
            .arg("--dir")
            .arg(&node_dir)
            // A dead master is replaced by its replica after about 1 s.
            .args(["--cluster-node-timeout", "1000"])
            .args(["--save", "", "--appendonly", "no"])
            // Replicas sync at once (the default waits 5 s for more replicas).
            .args(["--repl-diskless-sync-delay", "0"])
            .args(["--loglevel", "warning"])
            .arg("--logfile")
            .arg(node_dir.join("redis.log"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server is missing after .ci/setup.d/10-redis.sh ran (Debian package redis-server)")
    }

    fn cli_command(&self) -> Command {
        let mut command = Command::new("redis-cli");
        if let Some(tls) = &self.tls {
            command.args(["--tls", "--cacert", &tls.ca]);
        }
        command
    }

    /// `redis-cli -p PORT ARGS…`, its standard output.
    pub fn cli(&self, port: u16, args: &[&str]) -> String {
        let out = self
            .cli_command()
            .args(["-h", "127.0.0.1", "-p", &port.to_string()])
            .args(args)
            .stderr(Stdio::null())
            .output()
            .expect("redis-cli runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn ports(&self) -> Vec<u16> {
        self.nodes.iter().map(|n| n.port).collect()
    }

    /// Waits until node `index` answers `PING`. A node that exited (its
    /// port or bus port was taken between the choice and its bind, by
    /// another test's connection) is started again on new ports.
    async fn wait_until_node_answers(&mut self, index: usize) {
        for _ in 0..START_TRIES {
            match self.wait_until_answers(index).await {
                Ok(()) => return,
                Err(exit) => {
                    let port = free_port(&self.ports());
                    let node = &mut self.nodes[index];
                    eprintln!(
                        "redis-server on port {} exited at start ({exit}); retrying on port {port}",
                        node.port
                    );
                    node.kill();
                    node.port = port;
                    let child = self.spawn(port);
                    self.nodes[index].child = Some(child);
                }
            }
        }
        let node = &self.nodes[index];
        panic!(
            "redis-server exited at start {START_TRIES} times; last log:\n{}",
            self.log(node.port)
        );
    }

    /// `Ok` once the node answers; `Err` with its exit status if it exited.
    async fn wait_until_answers(&mut self, index: usize) -> Result<(), String> {
        // A loaded 2-core machine (CI builds other test binaries meanwhile)
        // can take seconds to start a server: wait by the clock, not by a
        // count of tries that each also start a `redis-cli`.
        let deadline = std::time::Instant::now() + STARTUP_WAIT;
        let port = self.nodes[index].port;
        while std::time::Instant::now() < deadline {
            if self.cli(port, &["PING"]).trim() == "PONG" {
                return Ok(());
            }
            if let Some(child) = self.nodes[index].child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                return Err(status.to_string());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!(
            "redis-server did not answer on port {port} within {STARTUP_WAIT:?}; its log:\n{}",
            self.log(port)
        );
    }

    /// The node's log file (empty if it has none yet).
    fn log(&self, port: u16) -> String {
        std::fs::read_to_string(self.dir.path().join(port.to_string()).join("redis.log"))
            .unwrap_or_default()
    }

    /// Waits until every live node says `cluster_state:ok`.
    pub async fn wait_until_ok(&self) {
        for _ in 0..300 {
            let ok = self.nodes.iter().filter(|n| n.child.is_some()).all(|n| {
                self.cli(n.port, &["CLUSTER", "INFO"])
                    .contains("cluster_state:ok")
            });
            if ok {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let states: Vec<String> = self
            .nodes
            .iter()
            .filter(|n| n.child.is_some())
            .map(|n| {
                format!(
                    "node {}:\n{}",
                    n.port,
                    self.cli(n.port, &["CLUSTER", "NODES"])
                )
            })
            .collect();
        panic!("the cluster did not become ok:\n{}", states.join("\n"));
    }

    /// The seed node URLs (`redis://` or `rediss://`).
    pub fn urls(&self) -> Vec<String> {
        let scheme = if self.tls.is_some() {
            "rediss"
        } else {
            "redis"
        };
        self.nodes
            .iter()
            .map(|n| format!("{scheme}://127.0.0.1:{}/", n.port))
            .collect()
    }

    /// The ports of the nodes whose role is `role` (`master`, `slave`).
    pub fn ports_with_role(&self, role: &str) -> Vec<u16> {
        self.nodes
            .iter()
            .filter(|n| n.child.is_some())
            .filter(|n| {
                self.cli(n.port, &["ROLE"])
                    .lines()
                    .next()
                    .is_some_and(|l| l.trim() == role)
            })
            .map(|n| n.port)
            .collect()
    }

    /// Kills the node on `port` (SIGKILL: no goodbye to the cluster).
    pub fn kill(&mut self, port: u16) {
        if let Some(node) = self.nodes.iter_mut().find(|n| n.port == port) {
            node.kill();
        }
    }

    /// Client connections on every live node, minus the one asking each.
    pub fn clients(&self) -> usize {
        self.nodes
            .iter()
            .filter(|n| n.child.is_some())
            .map(|n| {
                self.cli(n.port, &["CLIENT", "LIST"])
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .count()
                    .saturating_sub(1)
            })
            .sum()
    }

    /// Keys on every live master.
    pub fn keys(&self) -> Vec<String> {
        self.ports_with_role("master")
            .into_iter()
            .flat_map(|port| {
                self.cli(port, &["KEYS", "*"])
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}
