//! `--mcp-http` obeys the host's SSRF guard (the one HTTP tools use):
//! private, loopback, link-local and metadata addresses are refused — in
//! the URL in any spelling, behind a host name, behind a redirect — unless
//! `--allow-host` lets them through. Every refusal is a `mcp_url_refused`
//! report naming the configured URL. Only 127.0.0.1 is ever connected to.

use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tool_core::{ApiDefinition, ToolBuilder, ToolContext, ToolOutput, ToolRegistry};
use tool_mcp::{RegistryServer, RunEverything};

fn clock_server() -> RegistryServer {
    let mut registry = ToolRegistry::new();
    registry
        .register(
            ToolBuilder::new("clock")
                .api(ApiDefinition::new("now", "The time."), |_, _| async {
                    Ok(ToolOutput::text("noon"))
                })
                .build()
                .unwrap(),
        )
        .unwrap();
    RegistryServer::new(
        Arc::new(registry),
        Arc::new(RunEverything),
        ToolContext::new(),
    )
}

/// A real MCP server (streamable HTTP) on 127.0.0.1 with one tool.
async fn mcp_server(stop: CancellationToken) -> String {
    let (addr, _task) = clock_server()
        .serve_http("127.0.0.1:0".parse().unwrap(), stop)
        .await
        .unwrap();
    format!("http://{addr}/mcp")
}

async fn serve_router(router: axum::Router, stop: CancellationToken) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(async move { stop.cancelled_owned().await })
            .await;
    });
    addr
}

/// The same server, plus `/old` answering 307 → `/mcp` (same origin).
async fn moved_server(stop: CancellationToken) -> String {
    let router = clock_server().http_router(stop.clone()).route(
        "/old",
        axum::routing::any(|| async {
            (
                axum::http::StatusCode::TEMPORARY_REDIRECT,
                [(axum::http::header::LOCATION, "/mcp")],
            )
        }),
    );
    format!("http://{}/old", serve_router(router, stop).await)
}

/// An HTTP server on 127.0.0.1 answering every request with a 307 to `target`.
async fn redirector(target: String, stop: CancellationToken) -> String {
    let app = axum::Router::new().fallback(move || {
        let target = target.clone();
        async move {
            (
                axum::http::StatusCode::TEMPORARY_REDIRECT,
                [(axum::http::header::LOCATION, target)],
            )
        }
    });
    format!("http://{}/mcp", serve_router(app, stop).await)
}

/// `toolhost [--allow-host A]… --mcp-http URL… mcp tools` → the `servers` list.
async fn mcp_tools(allow: &[&str], urls: &[String]) -> Vec<Value> {
    let mut args: Vec<String> = Vec::new();
    for entry in allow {
        args.extend(["--allow-host".into(), (*entry).to_owned()]);
    }
    for url in urls {
        args.extend(["--mcp-http".into(), url.clone()]);
    }
    args.extend(["mcp".into(), "tools".into()]);
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(&args)
        .output()
        .await
        .unwrap();
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    doc["servers"].as_array().unwrap().clone()
}

fn assert_refused(report: &Value, url: &str, address: &str) {
    assert_eq!(report["status"], "failed", "{report}");
    assert_eq!(report["code"], "mcp_url_refused", "{report}");
    let error = report["error"].as_str().unwrap();
    assert!(error.contains(url), "names the URL {url}: {error}");
    assert!(error.contains(address), "names {address}: {error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loopback_server_is_reached_only_when_allowed_explicitly() {
    let stop = CancellationToken::new();
    let url = mcp_server(stop.clone()).await;

    let refused = mcp_tools(&[], std::slice::from_ref(&url)).await;
    assert_refused(&refused[0], &url, "127.0.0.1");
    assert!(refused[0]["error"].as_str().unwrap().contains("loopback"));

    // A name resolving to loopback is refused at resolution, not just literals.
    let by_name = url.replace("127.0.0.1", "localhost");
    let refused = mcp_tools(&[], std::slice::from_ref(&by_name)).await;
    assert_eq!(refused[0]["code"], "mcp_url_refused", "{}", refused[0]);
    assert!(
        refused[0]["error"].as_str().unwrap().contains(&by_name),
        "{}",
        refused[0]
    );

    // Allowing another address does not open loopback.
    let refused = mcp_tools(&["10.0.0.0/8"], std::slice::from_ref(&url)).await;
    assert_refused(&refused[0], &url, "127.0.0.1");

    let allowed = mcp_tools(&["127.0.0.1"], std::slice::from_ref(&url)).await;
    assert_eq!(allowed[0]["status"], "loaded", "{}", allowed[0]);
    assert_eq!(allowed[0]["tools"][0]["name"], "clock____now");

    // The same allow makes the server's tools callable through the pipeline.
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args([
            "--allow-host",
            "127.0.0.1",
            "--mcp-http",
            &url,
            "--mode",
            "auto-run",
            "call",
            "mcp1____clock____now",
        ])
        .output()
        .await
        .unwrap();
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&output.stderr));
    });
    assert_eq!(doc["output"]["content"], "noon", "{doc}");
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_link_local_and_metadata_literals_are_refused_in_every_spelling() {
    // Even with loopback allowed (as tests need), these stay refused; none
    // is ever connected to: the URL check runs before anything is sent.
    let cases: &[(&str, &str)] = &[
        (
            "http://169.254.169.254/latest/meta-data/",
            "169.254.169.254",
        ),
        ("http://[fd00:ec2::254]/mcp", "fd00:ec2::254"),
        ("http://100.100.100.200/mcp", "100.100.100.200"),
        ("http://10.0.0.5:8080/mcp", "10.0.0.5"),
        ("http://192.168.1.1/mcp", "192.168.1.1"),
        ("http://172.16.0.1/mcp", "172.16.0.1"),
        ("http://[fe80::1]/mcp", "fe80::1"),
        ("http://[::ffff:169.254.169.254]/mcp", "169.254.169.254"),
        ("http://2852039166/mcp", "169.254.169.254"),
        ("http://0xa9.0xfe.0xa9.0xfe/mcp", "169.254.169.254"),
        ("http://0251.0376.0251.0376/mcp", "169.254.169.254"),
        ("http://0.0.0.0:1/mcp", "0.0.0.0"),
    ];
    let urls: Vec<String> = cases.iter().map(|(u, _)| (*u).to_owned()).collect();
    let reports = mcp_tools(&["127.0.0.1"], &urls).await;
    assert_eq!(reports.len(), cases.len());
    for (n, (url, address)) in cases.iter().enumerate() {
        // Servers are reported in id order (`mcp1`, `mcp10`, …): find each.
        let id = format!("mcp{}", n + 1);
        let report = reports.iter().find(|r| r["id"] == id.as_str()).unwrap();
        assert_eq!(report["code"], "mcp_url_refused", "{url}: {report}");
        let error = report["error"].as_str().unwrap();
        assert!(error.contains(address), "{url} names {address}: {error}");
    }
    // Loopback spelled otherwise is refused without the allow, like 127.0.0.1.
    let spelled: Vec<String> = [
        "http://0x7f.1:9/mcp",
        "http://2130706433:9/mcp",
        "http://[::1]:9/mcp",
    ]
    .iter()
    .map(|u| (*u).to_owned())
    .collect();
    for (report, url) in mcp_tools(&[], &spelled).await.iter().zip(&spelled) {
        assert_eq!(report["code"], "mcp_url_refused", "{url}: {report}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redirects_to_refused_addresses_are_refused() {
    let stop = CancellationToken::new();
    let to_metadata = redirector(
        "http://169.254.169.254/latest/meta-data/".into(),
        stop.clone(),
    )
    .await;
    let to_private = redirector("http://10.1.2.3/mcp".into(), stop.clone()).await;
    let reports = mcp_tools(&["127.0.0.1"], &[to_metadata.clone(), to_private.clone()]).await;
    assert_refused(&reports[0], &to_metadata, "169.254.169.254");
    assert_refused(&reports[1], &to_private, "10.1.2.3");
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_same_origin_redirects_are_followed() {
    let stop = CancellationToken::new();
    let moved = moved_server(stop.clone()).await;
    let target = mcp_server(stop.clone()).await;
    // To an allowed address, but another origin: it would get the session
    // id and the configured headers, so it is not followed.
    let elsewhere = redirector(target, stop.clone()).await;
    let reports = mcp_tools(&["127.0.0.1"], &[moved.clone(), elsewhere.clone()]).await;
    assert_eq!(reports[0]["status"], "loaded", "{}", reports[0]);
    assert_eq!(reports[0]["tools"][0]["name"], "clock____now");
    assert_eq!(reports[1]["status"], "failed", "{}", reports[1]);
    assert_ne!(reports[1]["code"], "mcp_url_refused", "{}", reports[1]);
    stop.cancel();
}
