//! The `initialize` handshake: the client proposes the newest protocol
//! version that has one (`2025-11-25`), seen by an in-process rmcp server
//! and settled on with the real servers (server-everything, the Python SDK).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::{Arc, Mutex};

use rmcp::model::{InitializeRequestParams, InitializeResult, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use tokio_util::sync::CancellationToken;
use tool_mcp::{McpManager, McpServerConfig, McpTransport, PROTOCOL_VERSION};

/// Records the version each `initialize` proposes.
#[derive(Clone, Default)]
struct Recorder {
    proposed: Arc<Mutex<Vec<String>>>,
}

impl ServerHandler for Recorder {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        self.proposed
            .lock()
            .unwrap()
            .push(request.protocol_version.to_string());
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_proposes_the_newest_version_with_an_initialize_handshake() {
    assert_eq!(PROTOCOL_VERSION, "2025-11-25");
    let recorder = Recorder::default();
    let served = recorder.clone();
    let service: StreamableHttpService<Recorder, LocalSessionManager> = StreamableHttpService::new(
        move || Ok(served.clone()),
        Default::default(),
        StreamableHttpServerConfig::default(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let until = stop.clone();
    tokio::spawn(async move {
        let router = axum::Router::new().nest_service("/mcp", service);
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(async move { until.cancelled_owned().await })
            .await;
    });
    let manager = McpManager::default();
    manager
        .upsert(McpServerConfig::new(
            "recorder",
            McpTransport::http(format!("http://{addr}/mcp")),
        ))
        .unwrap();
    manager.connect("recorder").await.unwrap();
    assert_eq!(
        recorder.proposed.lock().unwrap().as_slice(),
        [PROTOCOL_VERSION]
    );
    let status = manager.status("recorder").await.unwrap();
    assert_eq!(status.protocol_version.as_deref(), Some(PROTOCOL_VERSION));
    manager.shutdown().await;
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_servers_settle_on_the_proposed_version() {
    let manager = McpManager::default();
    manager
        .upsert(common::everything_stdio("everything"))
        .unwrap();
    manager
        .upsert(common::python_stdio("python", "stdio"))
        .unwrap();
    for id in ["everything", "python"] {
        manager.connect(id).await.unwrap();
        let status = manager.status(id).await.unwrap();
        assert_eq!(
            status.protocol_version.as_deref(),
            Some(PROTOCOL_VERSION),
            "{id}"
        );
    }
    manager.shutdown().await;
}
