//! Base URLs: relative and missing `servers`, server variables, and calls
//! without a base (a real HTTP server on 127.0.0.1 answers those with one).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use serde_json::{Value, json};
use tool_core::{Invoker, NameRules, ToolCall, ToolContext, ToolOutput, ToolRegistry};
use tool_openapi::{ApiDocument, ImportOptions, OpenApiTool, SsrfGuard, SsrfPolicy, import_value};

fn doc(servers: Option<Value>) -> Value {
    let mut doc = json!({
        "openapi": "3.0.3",
        "info": {"title": "T", "version": "1"},
        "paths": {"/items": {"get": {"operationId": "list", "responses": {"200": {"description": "ok"}}}}}
    });
    if let Some(servers) = servers {
        doc["servers"] = servers;
    }
    doc
}

async fn call(document: ApiDocument) -> ToolOutput {
    let guard = SsrfGuard::new(SsrfPolicy::default().allow("127.0.0.1").unwrap());
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    OpenApiTool::builder(document, "t")
        .guard(guard)
        .register(&mut registry)
        .unwrap();
    Invoker::default()
        .invoke_in(
            &registry,
            &ToolCall::new("t____list", "{}"),
            &ToolContext::new(),
        )
        .await
}

#[test]
fn relative_and_missing_servers_resolve_against_the_base_url() {
    let base = "https://api.example.com/specs/openapi.json";
    for (servers, expected) in [
        (Some(json!([{"url": "/v1"}])), "https://api.example.com/v1"),
        (Some(json!([{"url": ""}])), "https://api.example.com"),
        (
            Some(json!([{"url": "//other.example.com/api"}])),
            "https://other.example.com/api",
        ),
        (None, "https://api.example.com"),
        (Some(json!([])), "https://api.example.com"),
        (
            Some(json!([{"url": "https://kept.example.com/"}])),
            "https://kept.example.com",
        ),
    ] {
        let import =
            import_value(&doc(servers.clone()), &ImportOptions::new().base_url(base)).unwrap();
        assert_eq!(import.document.server, expected, "{servers:?}");
    }
}

#[test]
fn without_a_base_the_import_warns_and_the_tools_still_compile() {
    for servers in [None, Some(json!([{"url": "/v1"}]))] {
        let import = import_value(&doc(servers.clone()), &ImportOptions::new()).unwrap();
        let warning = import
            .warnings
            .iter()
            .find(|w| w.message.contains("needs a base URL"))
            .unwrap_or_else(|| panic!("{servers:?}: {:?}", import.warnings));
        assert_eq!(warning.pointer, "/servers");
        assert!(!import.document.has_base_url());
        OpenApiTool::builder(import.document, "t").build().unwrap();
    }
    // Protocol-relative without a base is taken as https, with a warning.
    let import = import_value(
        &doc(Some(json!([{"url": "//h.example.com/v2"}]))),
        &ImportOptions::new(),
    )
    .unwrap();
    assert_eq!(import.document.server, "https://h.example.com/v2");
    assert!(
        import
            .warnings
            .iter()
            .any(|w| w.message.contains("protocol-relative"))
    );
}

#[tokio::test]
async fn a_call_without_a_base_fails_with_no_base_url_until_one_is_given() {
    let addr = common::start().await;
    let import = import_value(&doc(Some(json!([{"url": "/v1"}]))), &ImportOptions::new()).unwrap();
    let out = call(import.document.clone()).await;
    assert_eq!(out.error_code().unwrap(), "no_base_url", "{out:?}");
    assert!(out.content.contains("`/v1`, relative"), "{}", out.content);

    let mut document = import.document;
    document
        .resolve_server(&format!("http://{addr}/openapi.json"))
        .unwrap();
    let out = call(document).await;
    assert!(out.success, "{out:?}");
    assert_eq!(out.state.unwrap()["body"]["path"], "/v1/items");
}

#[test]
fn server_variables_take_the_chosen_value_checked_against_their_enum() {
    let servers = json!([{"url": "https://{region}.example.com/{version}", "variables": {
        "region": {"default": "eu", "enum": ["eu", "us"]},
        "version": {"enum": ["v2", "v1"]}}}]);
    let import = import_value(&doc(Some(servers.clone())), &ImportOptions::new()).unwrap();
    assert_eq!(import.document.server, "https://eu.example.com/v2");
    assert!(
        import
            .warnings
            .iter()
            .any(|w| w.pointer == "/servers/0/variables/version/default")
    );
    let chosen = ImportOptions::new().server_variable("region", "us");
    let import = import_value(&doc(Some(servers.clone())), &chosen).unwrap();
    assert_eq!(import.document.server, "https://us.example.com/v2");
    let wrong = ImportOptions::new().server_variable("region", "mars");
    let e = import_value(&doc(Some(servers)), &wrong).unwrap_err();
    assert_eq!(e.problems()[0].pointer, "/servers/0/variables/region/enum");
    assert!(e.to_string().contains("one of: eu, us"), "{e}");
}
