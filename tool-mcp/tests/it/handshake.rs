//! Opening a session: by default ([`McpProtocol::Auto`]) `server/discover`
//! first (2026-07-28), and the `initialize` handshake when the server does
//! not know it, proposing the newest version that has one (`2025-11-25`).
//! Seen by an in-process rmcp server (which speaks both) and settled on
//! with the real servers: server-everything knows only 2025-11-25, the
//! Python SDK (2.3) speaks 2026-07-28.

use std::sync::{Arc, Mutex};

use rmcp::model::{InitializeRequestParams, InitializeResult, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use tokio_util::sync::CancellationToken;
use tool_mcp::{McpManager, McpProtocol, McpServerConfig, McpTransport, PROTOCOL_VERSION};

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
        .upsert(
            McpServerConfig::new("recorder", McpTransport::http(format!("http://{addr}/mcp")))
                .with_protocol(McpProtocol::V2025_11_25),
        )
        .unwrap();
    manager.connect("recorder").await.unwrap();
    assert_eq!(
        recorder.proposed.lock().unwrap().as_slice(),
        [PROTOCOL_VERSION]
    );
    let status = manager.status("recorder").await.unwrap();
    assert_eq!(status.protocol_version.as_deref(), Some(PROTOCOL_VERSION));

    // By default the same server is discovered, and never initialized.
    manager
        .upsert(McpServerConfig::new(
            "discovered",
            McpTransport::http(format!("http://{addr}/mcp")),
        ))
        .unwrap();
    manager.connect("discovered").await.unwrap();
    let status = manager.status("discovered").await.unwrap();
    assert_eq!(status.protocol_version.as_deref(), Some("2026-07-28"));
    assert_eq!(
        recorder.proposed.lock().unwrap().len(),
        1,
        "no second initialize"
    );
    manager.shutdown().await;
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_servers_settle_on_the_newest_version_they_speak() {
    let manager = McpManager::default();
    manager
        .upsert(crate::common::everything_stdio("everything"))
        .unwrap();
    manager
        .upsert(crate::common::python_stdio("python", "stdio"))
        .unwrap();
    for (id, version) in [("everything", PROTOCOL_VERSION), ("python", "2026-07-28")] {
        manager.connect(id).await.unwrap();
        let status = manager.status(id).await.unwrap();
        assert_eq!(status.protocol_version.as_deref(), Some(version), "{id}");
        // A second session goes straight to what worked.
        manager.disconnect(id).await;
        manager.connect(id).await.unwrap();
        let status = manager.status(id).await.unwrap();
        assert_eq!(
            status.protocol_version.as_deref(),
            Some(version),
            "{id} again"
        );
    }
    manager.shutdown().await;
}
