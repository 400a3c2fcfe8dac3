//! Shared helpers: where the pinned real servers live, free ports, HTTP servers.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tool_core::{Invoker, ToolCall, ToolContext, ToolOutput, ToolRegistry};
use tool_mcp::{McpManager, McpProvider, McpServerConfig, McpTransport};

use test_support::fixtures as setup;

pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// server-everything's entry point; installed by `.ci/setup.d/30-mcp.sh`.
pub fn everything_js() -> PathBuf {
    setup::ensure("30-mcp.sh");
    let path =
        fixtures().join("npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        path.exists(),
        "{} is missing after `.ci/setup.d/30-mcp.sh` ran",
        path.display()
    );
    path
}

/// The venv's python with the pinned `mcp` SDK; installed by `.ci/setup.d/30-mcp.sh`.
pub fn python() -> PathBuf {
    setup::ensure("30-mcp.sh");
    let path = fixtures().join("python/.venv/bin/python");
    assert!(
        path.exists(),
        "{} is missing after `.ci/setup.d/30-mcp.sh` ran",
        path.display()
    );
    path
}

pub fn python_script() -> String {
    fixtures().join("python/server.py").display().to_string()
}

pub fn everything_stdio(id: &str) -> McpServerConfig {
    McpServerConfig::new(
        id,
        McpTransport::stdio(
            "node",
            [everything_js().display().to_string(), "stdio".into()],
        ),
    )
    .with_startup_timeout(Duration::from_secs(20))
}

pub fn python_stdio(id: &str, mode: &str) -> McpServerConfig {
    McpServerConfig::new(
        id,
        McpTransport::stdio(
            python().display().to_string(),
            [python_script(), mode.to_owned()],
        ),
    )
    .with_startup_timeout(Duration::from_secs(20))
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A server process killed (with its group) when dropped.
pub struct ServerProcess {
    pub child: tokio::process::Child,
    pub url: String,
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

async fn wait_for_port(port: u16) {
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("nothing listens on 127.0.0.1:{port} after 10 s");
}

pub async fn spawn_http(command: &mut tokio::process::Command, port: u16) -> ServerProcess {
    let child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    wait_for_port(port).await;
    ServerProcess {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    }
}

/// server-everything serving streamable HTTP on a free port.
pub async fn everything_http() -> ServerProcess {
    let port = free_port();
    let mut command = tokio::process::Command::new("node");
    command
        .arg(everything_js())
        .arg("streamableHttp")
        .env("PORT", port.to_string());
    spawn_http(&mut command, port).await
}

/// The Python server serving streamable HTTP on `port` (a free one when `None`).
pub async fn python_http_on(port: Option<u16>) -> ServerProcess {
    let port = port.unwrap_or_else(free_port);
    let mut command = tokio::process::Command::new(python());
    command
        .arg(python_script())
        .arg("http")
        .arg(port.to_string());
    spawn_http(&mut command, port).await
}

pub async fn python_http() -> ServerProcess {
    python_http_on(None).await
}

/// A registry with every configured server's tools, through the provider.
pub async fn registry_of(manager: &Arc<McpManager>) -> ToolRegistry {
    let load = McpProvider::new(Arc::clone(manager)).load_all().await;
    let failures: Vec<String> = load.failures().map(ToString::to_string).collect();
    assert!(failures.is_empty(), "{failures:?}");
    // Remote names are foreign: the registry must accept them.
    let mut registry = ToolRegistry::new().with_name_rules(tool_core::manifest::NameRules::Foreign);
    for tool in load.tools {
        registry.register_arc(tool).unwrap();
    }
    registry
}

pub async fn call(registry: &ToolRegistry, server: &str, tool: &str, args: &str) -> ToolOutput {
    call_in(registry, server, tool, args, &ToolContext::new()).await
}

pub async fn call_in(
    registry: &ToolRegistry,
    server: &str,
    tool: &str,
    args: &str,
    ctx: &ToolContext,
) -> ToolOutput {
    let offered = registry.offer(ctx);
    let api = offered.resolve_pair(server, tool).unwrap();
    let wire = api.wire_name.to_owned();
    Invoker::default()
        .invoke(&offered, &ToolCall::new(wire, args), ctx)
        .await
}

/// `server` on streamable HTTP at 127.0.0.1 until `stop` is cancelled:
/// its `/mcp` URL.
pub async fn serve_http_until(
    server: tool_mcp::RegistryServer,
    stop: &tokio_util::sync::CancellationToken,
) -> String {
    let (addr, _task) = server
        .serve_http("127.0.0.1:0".parse().unwrap(), stop.clone())
        .await
        .unwrap();
    format!("http://{addr}/mcp")
}

/// `server` on streamable HTTP at 127.0.0.1: its `/mcp` URL and what stops it.
pub async fn serve_http(
    server: tool_mcp::RegistryServer,
) -> (String, tokio_util::sync::CancellationToken) {
    let stop = tokio_util::sync::CancellationToken::new();
    (serve_http_until(server, &stop).await, stop)
}

/// A manager (default options) holding one streamable HTTP server, `id`
/// at `url`.
pub fn http_manager(id: &str, url: &str) -> McpManager {
    let manager = McpManager::default();
    manager
        .upsert(McpServerConfig::new(id, McpTransport::http(url)))
        .unwrap();
    manager
}

/// `registry` served, every call let run (`RunEverything`).
pub fn served(registry: ToolRegistry) -> tool_mcp::RegistryServer {
    tool_mcp::RegistryServer::new(
        Arc::new(registry),
        Arc::new(tool_mcp::RunEverything),
        ToolContext::new(),
    )
}
