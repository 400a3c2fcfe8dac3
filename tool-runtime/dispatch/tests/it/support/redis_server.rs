//! A real redis-server for the tests: its own process on a free 127.0.0.1
//! port, no persistence, stopped when dropped.

use std::net::TcpListener;
use std::process::Stdio;
use std::time::Duration;

use tokio::process::{Child, Command};

pub use test_support::fixtures as setup;

pub struct RedisServer {
    pub port: u16,
    child: Option<Child>,
    /// `--requirepass`, when set.
    password: Option<String>,
}

impl RedisServer {
    /// Starts a server on a free port.
    pub async fn start() -> Self {
        Self::start_on_free_port(None).await
    }

    /// Starts a server that requires `password` (`--requirepass`).
    pub async fn start_with_password(password: &str) -> Self {
        Self::start_on_free_port(Some(password.to_owned())).await
    }

    async fn start_on_free_port(password: Option<String>) -> Self {
        setup::ensure("10-redis.sh");
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let mut server = Self {
            port,
            child: None,
            password,
        };
        server.restart().await;
        server
    }

    /// The URL, with the password when the server requires one.
    pub fn url(&self) -> String {
        match &self.password {
            Some(password) => self.url_with(&format!(":{password}@")),
            None => self.url_with(""),
        }
    }

    /// The URL with `userinfo` (`""`, `":pass@"`, `"user:pass@"`) before the host.
    pub fn url_with(&self, userinfo: &str) -> String {
        format!("redis://{userinfo}127.0.0.1:{}/", self.port)
    }

    /// Starts (again) on the same port; the data is gone.
    pub async fn restart(&mut self) {
        self.stop().await;
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string()])
            .args(["--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .args(["--protected-mode", "yes", "--loglevel", "warning"])
            // DEBUG SLEEP stalls the server in the fault tests (loopback only).
            .args(["--enable-debug-command", "local"])
            .args(
                self.password
                    .as_deref()
                    .map(|p| vec!["--requirepass", p])
                    .unwrap_or_default(),
            )
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("redis-server is missing after .ci/setup.d/10-redis.sh ran (Debian package redis-server)");
        self.child = Some(child);
        // A loaded 2-core machine can take seconds to start a server: wait
        // by the clock, not by a count of tries.
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while std::time::Instant::now() < deadline {
            if self.ping().await {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!(
            "redis-server did not answer on port {} within 30 s",
            self.port
        );
    }

    /// Kills the server and waits for it to be gone.
    pub async fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill().await;
        }
    }

    async fn ping(&self) -> bool {
        let Ok(client) = redis::Client::open(self.url()) else {
            return false;
        };
        let Ok(mut connection) = client.get_multiplexed_async_connection().await else {
            return false;
        };
        redis::cmd("PING")
            .query_async::<String>(&mut connection)
            .await
            .is_ok()
    }

    /// An admin connection (counts as one client itself).
    pub async fn admin(&self) -> redis::aio::MultiplexedConnection {
        redis::Client::open(self.url())
            .unwrap()
            .get_multiplexed_async_connection()
            .await
            .unwrap()
    }

    /// Runs an admin command (`CLIENT PAUSE 500 ALL`, `CLIENT KILL TYPE
    /// pubsub`…) and returns its reply.
    pub async fn command(&self, args: &[&str]) -> redis::Value {
        let mut command = redis::cmd(args[0]);
        for arg in &args[1..] {
            command.arg(*arg);
        }
        command
            .query_async::<redis::Value>(&mut self.admin().await)
            .await
            .unwrap()
    }

    /// Keys in the database.
    pub async fn keys(&self) -> Vec<String> {
        redis::cmd("KEYS")
            .arg("*")
            .query_async(&mut self.admin().await)
            .await
            .unwrap()
    }

    /// Client connections, minus the admin connection asking.
    pub async fn clients(&self) -> usize {
        let list: String = redis::cmd("CLIENT")
            .arg("LIST")
            .query_async(&mut self.admin().await)
            .await
            .unwrap();
        list.lines().filter(|l| !l.trim().is_empty()).count() - 1
    }
}
