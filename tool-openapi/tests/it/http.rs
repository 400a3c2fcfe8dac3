//! Execution against a real HTTP server on 127.0.0.1 (axum, started here).

mod judge;
mod security;
mod styles;
mod traces;

use std::time::Duration;

use serde_json::{Value, json};
use tool_core::{
    ApiDefinition, Invoker, Tool, ToolCall, ToolContext, ToolOutput, ToolRegistry,
    manifest::NameRules,
};
use tool_openapi::{OpenApiTool, SsrfGuard, SsrfPolicy, parse_narrow};

use crate::common::{self, body_of};

async fn setup() -> (std::net::SocketAddr, ToolRegistry) {
    let addr = common::start().await;
    let (doc, _) = parse_narrow(&common::narrow_doc(addr)).unwrap();
    let guard = SsrfGuard::new(
        SsrfPolicy::default()
            .allow("127.0.0.1")
            .unwrap()
            .max_body_bytes(1024 * 1024),
    );
    let tool = OpenApiTool::builder(doc, "test")
        .guard(guard)
        .header("X-Mode", "provider")
        .unwrap()
        .secret_header("X-Api-Key", "provider-secret-42")
        .unwrap()
        .build()
        .unwrap();
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    registry.register(tool).unwrap();
    (addr, registry)
}

async fn call(registry: &ToolRegistry, api: &str, args: Value) -> ToolOutput {
    Invoker::default()
        .invoke_in(
            registry,
            &ToolCall::new(format!("test____{api}"), args.to_string()),
            &ToolContext::new(),
        )
        .await
}

#[tokio::test]
async fn every_location_and_type_reaches_the_server() {
    let (_, registry) = setup().await;
    let out = call(
        &registry,
        "echoPost",
        json!({"name": "rex", "n": 5, "f": 2.5, "flag": true, "X-Mode": "param",
               "sid": "a b;c", "theme": "dark", "title": "Hi", "count": 3, "ratio": 0.5, "done": false}),
    )
    .await;
    assert!(out.success, "{out:?}");
    let state = out.state.as_ref().unwrap();
    assert_eq!(state["status"], 200);
    assert_eq!(state["headers"]["content-type"], "application/json");
    let body = body_of(&out);
    assert_eq!(body["method"], "POST");
    assert_eq!(body["path"], "/echo/rex");
    assert_eq!(body["query"], "n=5&f=2.5&flag=true");
    assert_eq!(
        body["headers"]["x-mode"], "param",
        "header params override provider headers"
    );
    assert_eq!(body["headers"]["cookie"], "sid=a%20b%3Bc; theme=dark");
    assert_eq!(body["headers"]["content-type"], "application/json");
    let sent: Value = serde_json::from_str(body["body"].as_str().unwrap()).unwrap();
    assert_eq!(
        sent,
        json!({"title": "Hi", "count": 3, "ratio": 0.5, "done": false})
    );
    // The content is the body, compact, for the model.
    assert!(out.content.starts_with('{') && out.content.contains("\"/echo/rex\""));
}

#[tokio::test]
async fn optional_arguments_are_not_sent_and_get_has_no_body() {
    let (_, registry) = setup().await;
    let out = call(&registry, "echoPost", json!({"name": "x"})).await;
    let body = body_of(&out);
    assert_eq!(body["query"], Value::Null);
    assert_eq!(body["body"], "", "no body arguments, no body");
    assert!(body["headers"].get("cookie").is_none());
    assert!(body["headers"].get("content-type").is_none());
    assert_eq!(body["headers"]["x-mode"], "provider");

    let out = call(&registry, "echoGet", json!({"name": "x", "q": "a&b=c d"})).await;
    let body = body_of(&out);
    assert_eq!(body["method"], "GET");
    assert_eq!(body["query"], "q=a%26b%3Dc%20d");
    assert_eq!(body["body"], "");
}

#[tokio::test]
async fn missing_and_mistyped_arguments_are_refused_before_sending() {
    let (_, registry) = setup().await;
    let out = call(&registry, "echoPost", json!({})).await;
    assert_eq!(out.error_code().unwrap(), "invalid_arguments");
    let out = call(&registry, "echoPost", json!({"name": "x", "n": "five"})).await;
    assert_eq!(out.error_code().unwrap(), "invalid_arguments");
}

#[tokio::test]
async fn lenient_coercion_when_called_directly() {
    let (_, registry) = setup().await;
    let tool = registry.get("test").unwrap();
    let ctx = ToolContext::new();
    let out = tool
        .call(
            "echoPost",
            json!({"name": 7, "n": "5", "flag": "false", "count": "2"}),
            &ctx,
        )
        .await
        .unwrap();
    let body = body_of(&out);
    assert_eq!(body["path"], "/echo/7");
    assert_eq!(body["query"], "n=5&flag=false");
    assert_eq!(body["body"], r#"{"count":2}"#);
    let refused = tool
        .call("echoPost", json!({"name": "x", "n": "5.5"}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(refused.code, "invalid_arguments");
    assert!(
        refused.message.contains("`n` expected integer"),
        "{}",
        refused.message
    );
}

#[tokio::test]
async fn percent_encoding_attacks_cannot_change_the_route() {
    let (_, registry) = setup().await;
    for (value, path) in [
        ("../status/500", "/echo/..%2Fstatus%2F500"),
        ("a/b", "/echo/a%2Fb"),
        ("x?admin=1", "/echo/x%3Fadmin%3D1"),
        ("x#frag", "/echo/x%23frag"),
        ("%2e%2e", "/echo/%252e%252e"),
        ("..\\..", "/echo/..%5C.."),
        ("é ü", "/echo/%C3%A9%20%C3%BC"),
    ] {
        let out = call(&registry, "echoGet", json!({ "name": value })).await;
        assert!(out.success, "{value}: {out:?}");
        let body = body_of(&out);
        assert_eq!(body["path"], path, "{value}");
        assert_eq!(body["query"], Value::Null, "{value}");
    }
    for dots in [".", ".."] {
        let out = call(&registry, "echoGet", json!({ "name": dots })).await;
        assert_eq!(out.error_code().unwrap(), "invalid_arguments", "{dots}");
    }
}

#[tokio::test]
async fn non_2xx_is_a_failure_naming_the_status_with_state() {
    let (_, registry) = setup().await;
    for code in [404, 500, 418] {
        let out = call(&registry, "status", json!({ "code": code })).await;
        assert!(!out.success);
        assert_eq!(out.error_code().unwrap(), "http_status");
        assert!(
            out.content.contains(&format!("HTTP {code}")),
            "{}",
            out.content
        );
        assert_eq!(out.state.as_ref().unwrap()["status"], code);
        assert_eq!(body_of(&out)["error"], "as asked");
        assert_eq!(
            out.error.as_ref().unwrap().details.as_ref().unwrap()["status"],
            code
        );
    }
    let out = call(&registry, "status", json!({ "code": 201 })).await;
    assert!(out.success);
}

#[tokio::test]
async fn a_server_slower_than_the_budget_times_out() {
    let (_, registry) = setup().await;
    let started = std::time::Instant::now();
    let out = call(&registry, "slow", json!({ "timeout": 1000 })).await;
    assert_eq!(out.error_code().unwrap(), "timeout");
    assert!(started.elapsed() < Duration::from_secs(5));

    // Called directly, the context's deadline bounds the request.
    let tool = registry.get("test").unwrap();
    let ctx = ToolContext::new().with_timeout(Duration::from_millis(300));
    let started = std::time::Instant::now();
    let err = tool.call("slow", json!({}), &ctx).await.unwrap_err();
    assert_eq!(err.code, "timeout");
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn an_oversize_body_is_reported_not_cut() {
    let (_, registry) = setup().await;
    for api in ["big", "bigStream"] {
        let out = call(&registry, api, json!({})).await;
        assert_eq!(out.error_code().unwrap(), "body_too_large", "{api}");
        assert!(out.content.contains("1048576"), "{}", out.content);
    }
}

#[tokio::test]
async fn redirects_are_followed_capped_and_rechecked() {
    let (addr, registry) = setup().await;
    let out = call(&registry, "redirect", json!({ "n": 3 })).await;
    assert!(out.success, "{out:?}");
    assert_eq!(body_of(&out), "arrived");
    let out = call(&registry, "redirect", json!({ "n": 9 })).await;
    assert_eq!(out.error_code().unwrap(), "too_many_redirects");

    // A chain that ends at a refused address (127.0.0.1 is allowed, the
    // metadata address and a private one are not).
    for target in [
        "169.254.169.254/latest/meta-data",
        "10.1.2.3/",
        "[::ffff:169.254.169.254]/",
    ] {
        let out = call(&registry, "redirectTo", json!({ "target": target })).await;
        assert_eq!(
            out.error_code().unwrap(),
            "ssrf_blocked",
            "{target}: {out:?}"
        );
    }
    let out = call(
        &registry,
        "redirectTo",
        json!({ "target": "169.254.169.254/x" }),
    )
    .await;
    assert!(out.content.contains("169.254.169.254"), "{}", out.content);
    // A name resolving to an allowed address stays allowed.
    let target = format!("localhost:{}/redirect/0", addr.port());
    let out = call(&registry, "redirectTo", json!({ "target": target })).await;
    assert!(out.success, "{out:?}");
}

#[tokio::test]
async fn credentials_never_reach_state_content_or_manifest() {
    let (_, registry) = setup().await;
    let out = call(&registry, "echoSecret", json!({})).await;
    assert!(out.success);
    let everything = serde_json::to_string(&out).unwrap();
    assert!(!everything.contains("provider-secret-42"), "{everything}");
    assert_eq!(
        out.state.as_ref().unwrap()["headers"]["x-echoed-key"],
        "[redacted]"
    );
    assert_eq!(body_of(&out)["youSent"], "[redacted]");
    let manifest = serde_json::to_string(registry.get("test").unwrap().manifest()).unwrap();
    assert!(!manifest.contains("provider-secret-42"));
    assert!(
        !format!("{:?}", registry.get("test").unwrap().manifest()).contains("provider-secret-42")
    );
}

#[tokio::test]
async fn connection_refused_and_dns_failure_have_their_own_codes() {
    // A port nothing listens on.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let text = json!({"server": format!("http://127.0.0.1:{port}"), "description": "d",
        "paths": {"/x": {"get": {"operationId": "x", "description": "x"}}}})
    .to_string();
    let (doc, _) = parse_narrow(&text).unwrap();
    let guard = SsrfGuard::new(SsrfPolicy::default().allow("127.0.0.0/8").unwrap());
    let tool = OpenApiTool::builder(doc, "gone")
        .guard(guard.clone())
        .build()
        .unwrap();
    let err = tool
        .call("x", json!({}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(err.code, "connection_refused", "{err:?}");

    let text = json!({"server": "http://no-such-host.invalid", "description": "d",
        "paths": {"/x": {"get": {"operationId": "x", "description": "x"}}}})
    .to_string();
    let (doc, _) = parse_narrow(&text).unwrap();
    let tool = OpenApiTool::builder(doc, "nowhere")
        .guard(guard)
        .build()
        .unwrap();
    let err = tool
        .call("x", json!({}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(err.code, "dns_failure", "{err:?}");
    assert!(err.message.contains("no-such-host.invalid"));
}

#[tokio::test]
async fn the_default_guard_refuses_the_local_server() {
    let addr = common::start().await;
    let (doc, _) = parse_narrow(&common::narrow_doc(addr)).unwrap();
    let tool = OpenApiTool::builder(doc, "test").build().unwrap();
    let err = tool
        .call("echoGet", json!({"name": "x"}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(err.code, "ssrf_blocked");
    assert!(err.message.contains("127.0.0.1"), "{}", err.message);
    let _ = ApiDefinition::new("unused", "");
}
