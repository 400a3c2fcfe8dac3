//! A real HTTP server on 127.0.0.1 for the tests.
#![allow(dead_code, clippy::unwrap_used)]

pub mod synthetic;

use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::extract::{Path, Request};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Map, Value, json};

/// Starts the test server; returns its address.
pub async fn start() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = Router::new()
        .route("/status/{code}", get(status))
        .route("/slow", get(slow))
        .route("/big", get(big))
        .route("/big-stream", get(big_stream))
        .route("/redirect/{n}", get(redirect))
        .route("/to/{*target}", get(redirect_to))
        .route("/echo-secret", get(echo_secret))
        .fallback(echo);
    tokio::spawn(async move {
        axum::serve(listener, router).await.unwrap();
    });
    addr
}

async fn echo(request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = to_bytes(body, 1 << 20).await.unwrap();
    let mut headers = Map::new();
    for (name, value) in &parts.headers {
        headers.insert(name.to_string(), json!(value.to_str().unwrap_or("?")));
    }
    axum::Json(json!({
        "method": parts.method.as_str(),
        "path": parts.uri.path(),
        "query": parts.uri.query(),
        "headers": headers,
        "body": String::from_utf8_lossy(&body),
    }))
    .into_response()
}

async fn status(Path(code): Path<u16>) -> Response {
    let status = StatusCode::from_u16(code).unwrap();
    (
        status,
        axum::Json(json!({"error": "as asked", "code": code})),
    )
        .into_response()
}

async fn slow() -> &'static str {
    tokio::time::sleep(Duration::from_secs(30)).await;
    "late"
}

async fn big() -> Vec<u8> {
    vec![b'x'; 5 * 1024 * 1024]
}

async fn big_stream() -> Response {
    let chunks = (0..100).map(|_| Ok::<_, std::io::Error>(vec![b'y'; 64 * 1024]));
    Body::from_stream(futures::stream::iter(chunks)).into_response()
}

async fn redirect(Path(n): Path<u32>) -> Response {
    if n == 0 {
        return "arrived".into_response();
    }
    (
        StatusCode::FOUND,
        [(header::LOCATION, format!("/redirect/{}", n - 1))],
    )
        .into_response()
}

async fn redirect_to(Path(target): Path<String>) -> Response {
    (
        StatusCode::FOUND,
        [(header::LOCATION, format!("http://{target}"))],
    )
        .into_response()
}

async fn echo_secret(headers: HeaderMap) -> Response {
    let key = headers
        .get("x-api-key")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    (
        [("x-echoed-key", key.clone())],
        axum::Json(json!({"youSent": key})),
    )
        .into_response()
}

pub fn narrow_doc(addr: SocketAddr) -> String {
    json!({
        "server": format!("http://{addr}"),
        "description": "The test server.",
        "paths": {
            "/echo/{name}": {
                "post": {"operationId": "echoPost", "description": "Echo.", "parameters": [
                    {"name": "name", "in": "path", "type": "str"},
                    {"name": "n", "in": "query", "type": "int"},
                    {"name": "f", "in": "query", "type": "float"},
                    {"name": "flag", "in": "query", "type": "bool"},
                    {"name": "X-Mode", "in": "header", "type": "str"},
                    {"name": "sid", "in": "cookie", "type": "str"},
                    {"name": "theme", "in": "cookie", "type": "str"},
                    {"name": "title", "in": "request_body", "type": "str"},
                    {"name": "count", "in": "request_body", "type": "int"},
                    {"name": "ratio", "in": "request_body", "type": "float"},
                    {"name": "done", "in": "request_body", "type": "bool"}
                ]},
                "get": {"operationId": "echoGet", "description": "Echo.", "parameters": [
                    {"name": "name", "in": "path", "type": "str"},
                    {"name": "q", "in": "query", "type": "str"}
                ]}
            },
            "/status/{code}": {"get": {"operationId": "status", "description": "Status.", "parameters": [
                {"name": "code", "in": "path", "type": "int"}]}},
            "/slow": {"get": {"operationId": "slow", "description": "Slow."}},
            "/big": {"get": {"operationId": "big", "description": "Big."}},
            "/big-stream": {"get": {"operationId": "bigStream", "description": "Big, streamed."}},
            "/redirect/{n}": {"get": {"operationId": "redirect", "description": "Redirects n times.", "parameters": [
                {"name": "n", "in": "path", "type": "int"}]}},
            "/to/{target}": {"get": {"operationId": "redirectTo", "description": "Redirects to target.", "parameters": [
                {"name": "target", "in": "path", "type": "str"}]}},
            "/echo-secret": {"get": {"operationId": "echoSecret", "description": "Echoes the key."}}
        }
    })
    .to_string()
}

pub fn body_of(output: &tool_core::ToolOutput) -> Value {
    output.state.as_ref().unwrap()["body"].clone()
}
