//! The example against a small OTLP/HTTP receiver on 127.0.0.1 (axum,
//! started here): the `execute_tool` span of its gated call arrives as
//! protobuf at `/v1/traces`, named and attributed by the GenAI conventions,
//! with the gate's decision and the answer as its events, and without the
//! call's argument value.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::routing::post;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;

/// What the receiver was sent: each request's content type and body.
type Received = Arc<Mutex<Vec<(String, Bytes)>>>;

async fn receive(State(received): State<Received>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let kind = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    received.lock().unwrap().push((kind, body));
    // An empty ExportTraceServiceResponse: full success.
    StatusCode::OK
}

async fn start_receiver() -> (SocketAddr, Received) {
    let received = Received::default();
    let router = Router::new()
        .route("/v1/traces", post(receive))
        .with_state(Arc::clone(&received));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    (addr, received)
}

fn text(value: Option<&AnyValue>) -> Option<String> {
    match value?.value.as_ref()? {
        any_value::Value::StringValue(s) => Some(s.clone()),
        any_value::Value::IntValue(i) => Some(i.to_string()),
        any_value::Value::BoolValue(b) => Some(b.to_string()),
        any_value::Value::DoubleValue(d) => Some(d.to_string()),
        _ => None,
    }
}

fn attribute(attributes: &[KeyValue], key: &str) -> Option<String> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| text(kv.value.as_ref()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gated_calls_execute_tool_span_reaches_an_otlp_http_receiver() {
    let (addr, received) = start_receiver().await;
    let run = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_otel"))
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", format!("http://{addr}"))
            .stdin(Stdio::null())
            .output()
            .unwrap()
    });
    let output = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("the example ran for a minute")
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}: {stdout}{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let printed: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(printed["exported"], true);
    assert_eq!(printed["output"]["content"], "added");

    // The provider's shutdown flushed before the process exited.
    let started = Instant::now();
    while received.lock().unwrap().is_empty() && started.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let received = received.lock().unwrap().clone();
    assert!(!received.is_empty(), "nothing arrived");
    let mut spans: Vec<Span> = Vec::new();
    for (kind, body) in &received {
        assert_eq!(kind, "application/x-protobuf");
        assert!(
            !String::from_utf8_lossy(body).contains("buy milk"),
            "the argument value was exported"
        );
        let request = ExportTraceServiceRequest::decode(body.as_ref()).unwrap();
        for resource in request.resource_spans {
            let service = resource
                .resource
                .as_ref()
                .and_then(|r| attribute(&r.attributes, "service.name"));
            assert_eq!(service.as_deref(), Some("otel-example"));
            for scope in resource.scope_spans {
                spans.extend(scope.spans);
            }
        }
    }
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_str()).collect();
    let span = spans
        .iter()
        .find(|s| s.name == "execute_tool notes____add")
        .unwrap_or_else(|| panic!("no execute_tool span among {names:?}"));
    let attr = |key: &str| attribute(&span.attributes, key);
    assert_eq!(
        attr("gen_ai.operation.name").as_deref(),
        Some("execute_tool")
    );
    assert_eq!(attr("gen_ai.tool.name").as_deref(), Some("notes____add"));
    assert_eq!(attr("gen_ai.tool.call.id").as_deref(), Some("call-1"));
    assert_eq!(attr("gen_ai.tool.type").as_deref(), Some("function"));
    assert_eq!(
        attr("gen_ai.tool.description").as_deref(),
        Some("Adds a note.")
    );
    assert_eq!(attr("error.type"), None);
    // `otel.kind = "internal"` → SPAN_KIND_INTERNAL (1).
    assert_eq!(span.kind, 1, "{span:?}");
    assert_eq!(span.trace_id.len(), 16);
    assert!(span.end_time_unix_nano >= span.start_time_unix_nano);
    // The gate asked (the policy's rule), the stand-in person approved.
    let decision = span
        .events
        .iter()
        .find(|e| attribute(&e.attributes, "action").as_deref() == Some("ask"))
        .unwrap_or_else(|| panic!("no ask decision on {:?}", span.events));
    assert!(
        attribute(&decision.attributes, "rule").is_some_and(|r| r.contains("notes/add")),
        "{decision:?}"
    );
    assert!(
        span.events
            .iter()
            .any(|e| attribute(&e.attributes, "answer").as_deref() == Some("approved")),
        "{:?}",
        span.events
    );
}
