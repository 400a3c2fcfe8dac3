//! `toolhost` with API documents: `--openapi`, `--allow-host`, `openapi validate|tools`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};

fn toolhost(args: &[&str]) -> (i32, Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let value = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (
        out.status.code().unwrap_or(-1),
        value,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn petstore() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tool-openapi/tests/fixtures/petstore-3.0.yaml")
        .display()
        .to_string()
}

async fn server() -> std::net::SocketAddr {
    use axum::routing::get;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = axum::Router::new().route(
        "/hello/{name}",
        get(
            |axum::extract::Path(name): axum::extract::Path<String>| async move {
                axum::Json(json!({"hello": name}))
            },
        ),
    );
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    addr
}

#[test]
fn validate_reports_errors_and_exits_zero() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        r#"{"server": "x", "description": "d", "paths": {"/a": {"get": {}}}}"#,
    )
    .unwrap();
    let (code, out, _) = toolhost(&["openapi", "validate", bad.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(out["ok"], false);
    let paths: Vec<&str> = out["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["/server", "/paths/~1a/get/operationId"]);
    let yaml = dir.path().join("ok.yaml");
    std::fs::write(&yaml, "server: https://api.example.com\ndescription: d\npaths:\n  /a:\n    get:\n      operationId: a\n      description: A.\n").unwrap();
    let (code, out, _) = toolhost(&["openapi", "validate", yaml.to_str().unwrap()]);
    assert_eq!((code, &out["ok"]), (0, &json!(true)), "{out}");
    let (code, out, _) = toolhost(&["openapi", "validate", &petstore()]);
    assert_eq!(code, 0);
    assert_eq!(out["kind"], "openapi-3.0");
    // One operation has a broken $ref; the multipart upload imports.
    assert_eq!(out["errors"].as_array().unwrap().len(), 1, "{out}");
}

#[test]
fn tools_prints_the_compiled_tool_in_each_format() {
    let (code, out, err) = toolhost(&["openapi", "tools", &petstore(), "--format", "openai"]);
    assert_eq!(code, 0, "{err}");
    let names: Vec<&str> = out["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"petstore-3_0____listPets"), "{names:?}");
    let (_, out, _) = toolhost(&["--openapi", &petstore(), "tools", "--format", "anthropic"]);
    let names: Vec<&str> = out["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"petstore-3_0____deletePet"), "{names:?}");
    assert!(names.contains(&"calculator____evaluate"));
}

#[tokio::test(flavor = "multi_thread")]
async fn calls_reach_allowed_hosts_only() {
    let addr = server().await;
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("hello.json");
    std::fs::write(
        &doc,
        json!({"server": format!("http://{addr}"), "description": "Greets.", "paths": {"/hello/{name}": {"get": {
            "operationId": "hello", "description": "Greets.", "parameters": [{"name": "name", "in": "path", "type": "str"}]}}}})
        .to_string(),
    )
    .unwrap();
    let doc = doc.to_str().unwrap().to_owned();
    let args = r#"{"name": "a/b"}"#;
    let allowed = {
        let doc = doc.clone();
        tokio::task::spawn_blocking(move || {
            toolhost(&[
                "--openapi",
                &doc,
                "--allow-host",
                "127.0.0.1",
                "call",
                "hello____hello",
                args,
            ])
        })
        .await
        .unwrap()
    };
    assert_eq!(allowed.0, 0, "{}", allowed.2);
    assert_eq!(
        allowed.1["decision"]["action"], "run",
        "GET defaults to never"
    );
    assert_eq!(
        allowed.1["output"]["state"]["body"],
        json!({"hello": "a/b"})
    );
    let refused = tokio::task::spawn_blocking(move || {
        toolhost(&["--openapi", &doc, "call", "hello____hello", args])
    })
    .await
    .unwrap();
    assert_eq!(
        refused.1["output"]["error"]["code"], "ssrf_blocked",
        "{}",
        refused.1
    );
}

#[test]
fn bad_options_are_usage_or_source_errors() {
    let (code, _, err) = toolhost(&[
        "--allow-host",
        "10.0.0.0/99",
        "--openapi",
        &petstore(),
        "tools",
    ]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = toolhost(&["--openapi", "/nonexistent/api.json", "tools"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("\"source\""));
}
