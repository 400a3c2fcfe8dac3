//! Base URLs: relative and missing `servers`, server variables, and calls
//! without a base (a real HTTP server on 127.0.0.1 answers those with one).

use serde_json::{Value, json};
use tool_core::{
    Invoker, ToolCall, ToolContext, ToolOutput, ToolRegistry,
    assembly::{ProvideError, ToolProvider, ToolReference},
    manifest::NameRules,
};
use tool_openapi::{
    ApiDocument, ImportOptions, OpenApiProvider, OpenApiTool, SsrfGuard, SsrfPolicy, import_value,
};

use crate::common;

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

fn guard() -> SsrfGuard {
    SsrfGuard::new(SsrfPolicy::default().allow("127.0.0.1").unwrap())
}

/// Builds the reference's tool and calls its `list`.
async fn call_reference(
    provider: &OpenApiProvider,
    params: Value,
) -> Result<ToolOutput, ProvideError> {
    let tool = provider
        .provide(&ToolReference::new("api", "items", "*").with_params(params))
        .await?;
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    let identifier = tool.manifest().identifier.clone();
    registry.register_arc(tool).unwrap();
    Ok(Invoker::default()
        .invoke_in(
            &registry,
            &ToolCall::new(format!("{identifier}____list"), "{}"),
            &ToolContext::new(),
        )
        .await)
}

fn invalid_pointer(result: Result<ToolOutput, ProvideError>) -> (String, String) {
    match result {
        Err(ProvideError::InvalidParams(problems)) => {
            (problems[0].pointer.clone(), problems[0].message.clone())
        }
        other => panic!("expected InvalidParams, got {other:?}"),
    }
}

#[tokio::test]
async fn provider_references_choose_server_variables_and_base_urls() {
    let addr = common::start().await;
    let servers = json!([{"url": "http://127.0.0.1:{port}/{version}", "variables": {
        "port": {"default": "9"},
        "version": {"default": "v1", "enum": ["v1", "v2"]}}}]);
    let import = import_value(&doc(Some(servers)), &ImportOptions::new()).unwrap();
    assert_eq!(import.document.server, "http://127.0.0.1:9/v1");
    let mut provider = OpenApiProvider::new(guard()).unwrap();
    provider.add("items", import.document);

    let port = addr.port().to_string();
    let out = call_reference(
        &provider,
        json!({"server_variables": {"port": port, "version": "v2"}}),
    )
    .await
    .unwrap();
    assert!(out.success, "{out:?}");
    assert_eq!(out.state.unwrap()["body"]["path"], "/v2/items");
    // The stored document is unchanged: another reference gets the defaults.
    assert_eq!(
        provider.document("items").unwrap().server,
        "http://127.0.0.1:9/v1"
    );

    let (pointer, message) = invalid_pointer(
        call_reference(&provider, json!({"server_variables": {"version": "v3"}})).await,
    );
    assert_eq!(pointer, "/server_variables/version");
    assert!(message.contains("one of: v1, v2"), "{message}");
    let (pointer, message) = invalid_pointer(
        call_reference(&provider, json!({"server_variables": {"zone": "a"}})).await,
    );
    assert_eq!(pointer, "/server_variables/zone");
    assert!(message.contains("known: port, version"), "{message}");
    let (pointer, _) = invalid_pointer(
        call_reference(&provider, json!({"server_variables": {"port": 8080}})).await,
    );
    assert_eq!(pointer, "/server_variables/port");
    let (pointer, message) =
        invalid_pointer(call_reference(&provider, json!({"region": "eu"})).await);
    assert_eq!(pointer, "/region");
    assert!(message.contains("base_url"), "{message}");

    // `server` replaces it outright (and then takes no variables).
    let out = call_reference(
        &provider,
        json!({"server": format!("http://{addr}/direct")}),
    )
    .await
    .unwrap();
    assert_eq!(out.state.unwrap()["body"]["path"], "/direct/items");
    let (pointer, _) = invalid_pointer(
        call_reference(
            &provider,
            json!({"server": format!("http://{addr}"), "server_variables": {"version": "v2"}}),
        )
        .await,
    );
    assert_eq!(pointer, "/server_variables");
    let (pointer, _) =
        invalid_pointer(call_reference(&provider, json!({"server": "ftp://x.test"})).await);
    assert_eq!(pointer, "/server");
}

#[tokio::test]
async fn provider_references_give_a_relative_document_its_base_url() {
    let addr = common::start().await;
    let import = import_value(&doc(Some(json!([{"url": "/api"}]))), &ImportOptions::new()).unwrap();
    let mut provider = OpenApiProvider::new(guard()).unwrap();
    provider.add("items", import.document);
    // Without a base: the tool builds, its calls fail with no_base_url.
    let out = call_reference(&provider, Value::Null).await.unwrap();
    assert_eq!(out.error_code().unwrap(), "no_base_url");
    let out = call_reference(
        &provider,
        json!({"base_url": format!("http://{addr}/docs/openapi.json")}),
    )
    .await
    .unwrap();
    assert!(out.success, "{out:?}");
    assert_eq!(out.state.unwrap()["body"]["path"], "/api/items");
    let (pointer, _) = invalid_pointer(call_reference(&provider, json!({"base_url": 3})).await);
    assert_eq!(pointer, "/base_url");
    let (pointer, message) =
        invalid_pointer(call_reference(&provider, json!({"base_url": "not a url"})).await);
    assert_eq!(pointer, "/base_url");
    assert!(message.contains("not an absolute URL"), "{message}");
    // The SSRF guard still judges the address a base leads to.
    let strict = OpenApiProvider::new(SsrfGuard::default()).unwrap();
    let mut strict = strict;
    strict.add("items", provider.document("items").unwrap().clone());
    let out = call_reference(&strict, json!({"base_url": format!("http://{addr}/")}))
        .await
        .unwrap();
    assert_eq!(out.error_code().unwrap(), "ssrf_blocked");
}
