//! tool-mcp against real MCP servers installed from pinned files by
//! `.ci/setup.d/30-mcp.sh`: `@modelcontextprotocol/server-everything` (npm)
//! and a Python `mcp` SDK server (`tests/fixtures/python/server.py`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::*;
use serde_json::json;
use tool_core::{ContentPart, HumanIntervention, InterventionPolicy, ProviderFormat, ToolContext};
use tool_mcp::{Error, McpManager, McpServerConfig, McpTransport, ServerReport};

fn manager_with(configs: Vec<McpServerConfig>) -> Arc<McpManager> {
    let manager = Arc::new(McpManager::default());
    for config in configs {
        manager.upsert(config).unwrap();
    }
    manager
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_over_stdio_lists_server_everything_with_annotation_defaults() {
    let manager = manager_with(vec![everything_stdio("everything")]);
    // server-everything registers more tools right after the handshake and
    // says so with notifications/tools/list_changed: let that settle.
    manager.connect("everything").await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut catalog = manager.catalog("everything").await.unwrap();
    for _ in 0..20 {
        let next = manager.catalog("everything").await.unwrap();
        if Arc::ptr_eq(&catalog, &next) {
            break;
        }
        catalog = next;
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let names: Vec<&str> = catalog.tools.iter().map(|t| t.name.as_str()).collect();
    for expected in [
        "echo",
        "get-tiny-image",
        "get-structured-content",
        "get-resource-links",
    ] {
        assert!(names.contains(&expected), "{names:?}");
    }
    let echo = catalog.tool("echo").unwrap();
    assert_eq!(echo.input_schema["properties"]["message"]["type"], "string");
    assert_eq!(echo.read_only_hint(), Some(true));
    assert!(
        catalog
            .tool("get-structured-content")
            .unwrap()
            .output_schema
            .is_some()
    );
    // Cached: the same Arc comes back until invalidated.
    let again = manager.catalog("everything").await.unwrap();
    assert!(Arc::ptr_eq(&catalog, &again));
    manager.invalidate("everything");
    let fresh = manager.catalog("everything").await.unwrap();
    assert!(!Arc::ptr_eq(&catalog, &fresh));
    assert_eq!(fresh.tools.len(), catalog.tools.len());

    let registry = registry_of(&manager).await;
    let manifest = registry.get("everything").unwrap().manifest().clone();
    assert_eq!(manifest.kind, Some(tool_core::ToolKind::Mcp));
    let policy = |name: &str| manifest.api(name).unwrap().human_intervention.clone();
    assert_eq!(
        policy("echo"),
        Some(HumanIntervention::Policy(InterventionPolicy::Never))
    );
    // gzip-file-as-resource says readOnlyHint: false → required.
    assert_eq!(
        policy("gzip-file-as-resource"),
        Some(HumanIntervention::Policy(InterventionPolicy::Required))
    );
    let status = manager.status("everything").await.unwrap();
    assert_eq!(
        status.sessions_started, 1,
        "one shared session for every request"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_content_type_maps_to_content_and_state() {
    let manager = manager_with(vec![
        everything_stdio("everything"),
        python_stdio("py", "stdio"),
    ]);
    let registry = registry_of(&manager).await;

    let echo = call(&registry, "everything", "echo", r#"{"message":"hi there"}"#).await;
    assert!(echo.success, "{echo:?}");
    assert_eq!(echo.content, "Echo: hi there");
    assert_eq!(echo.state, None, "text only: no state");

    let image = call(&registry, "everything", "get-tiny-image", "{}").await;
    assert!(image.success, "{image:?}");
    assert!(
        image.content.contains("[image: image/png"),
        "{}",
        image.content
    );
    assert!(
        !image.content.contains("kept in state"),
        "{}",
        image.content
    );
    let png = image
        .parts()
        .into_iter()
        .find_map(|part| match part {
            ContentPart::Image {
                mime_type,
                data: Some(data),
                ..
            } => Some((mime_type, data)),
            _ => None,
        })
        .expect("the image is a content part");
    assert_eq!(png.0, "image/png");
    assert!(png.1.len() > 100, "image kept whole");
    assert!(!image.content.contains(&png.1));
    // Every provider export sends it as that provider's image.
    let exported = exports(&image);
    let anthropic = &exported["anthropic"][0]["content"][0]["content"];
    assert!(
        anthropic
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["type"] == "image"
                && b["source"]["media_type"] == "image/png"
                && b["source"]["data"] == png.1.as_str()),
        "{anthropic}"
    );
    let responses = &exported["openai-responses"][0]["output"];
    assert!(
        responses
            .as_array()
            .unwrap()
            .iter()
            .any(|item| item["type"] == "input_image"
                && item["image_url"] == format!("data:image/png;base64,{}", png.1)),
        "{responses}"
    );
    let chat = exported["openai-chat"].as_array().unwrap();
    assert_eq!(chat[0]["role"], "tool");
    assert!(
        chat[1]["content"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["type"] == "image_url"),
        "the image follows the tool message in a user message: {chat:?}"
    );

    let links = call(
        &registry,
        "everything",
        "get-resource-links",
        r#"{"count":2}"#,
    )
    .await;
    assert!(links.success, "{links:?}");
    assert!(
        links.content.contains("[resource link"),
        "{}",
        links.content
    );
    let linked: Vec<String> = links
        .parts()
        .into_iter()
        .filter_map(|part| match part {
            ContentPart::Resource {
                uri,
                text: None,
                blob: None,
                ..
            } => Some(uri),
            _ => None,
        })
        .collect();
    assert!(linked.len() >= 2, "{:?}", links.parts());

    let reference = call(
        &registry,
        "everything",
        "get-resource-reference",
        r#"{"resourceId":3}"#,
    )
    .await;
    assert!(reference.success, "{reference:?}");
    assert!(
        reference.content.contains("[resource "),
        "{}",
        reference.content
    );
    let (uri, text, blob) = reference
        .parts()
        .into_iter()
        .find_map(|part| match part {
            ContentPart::Resource {
                uri, text, blob, ..
            } => Some((uri, text, blob)),
            _ => None,
        })
        .expect("the embedded resource is a content part");
    assert!(uri.contains('3'), "{uri}");
    assert!(text.is_some() || blob.is_some(), "embedded, not a link");
    if let Some(text) = text {
        // A text resource reaches the model as text in every export.
        let exported = exports(&reference);
        for format in ["anthropic", "openai-responses", "openai-chat"] {
            assert!(
                has_string_containing(&exported[format], &text),
                "{format}: {}",
                exported[format]
            );
        }
    }

    let blob = call(
        &registry,
        "everything",
        "get-resource-reference",
        r#"{"resourceId":4,"resourceType":"Blob"}"#,
    )
    .await;
    assert!(
        blob.parts().iter().any(|part| matches!(
            part,
            ContentPart::Resource { blob: Some(b), text: None, .. } if !b.is_empty()
        )),
        "{blob:?}"
    );

    let structured = call(
        &registry,
        "everything",
        "get-structured-content",
        r#"{"location":"Chicago"}"#,
    )
    .await;
    assert!(structured.success, "{structured:?}");
    let state = structured.state.unwrap();
    assert!(
        state["structuredContent"]["temperature"].is_number(),
        "{state}"
    );

    let audio = call(&registry, "py", "audio", "{}").await;
    assert!(audio.success, "{audio:?}");
    assert!(audio.content.contains("a short clip"));
    assert!(
        audio.content.contains("[audio: audio/wav, 16 bytes]"),
        "{}",
        audio.content
    );
    assert_eq!(
        audio.parts(),
        vec![ContentPart::audio_base64(
            "audio/wav",
            "UklGRiQAAABXQVZFZm10IA=="
        )]
    );
    let chat = exports(&audio)["openai-chat"].clone();
    assert_eq!(
        chat[1]["content"][1]["input_audio"],
        json!({"data": "UklGRiQAAABXQVZFZm10IA==", "format": "wav"}),
        "{chat}"
    );
}

/// Whether a string somewhere in `value` contains `needle`.
fn has_string_containing(value: &serde_json::Value, needle: &str) -> bool {
    match value {
        serde_json::Value::String(s) => s.contains(needle),
        serde_json::Value::Array(items) => items.iter().any(|v| has_string_containing(v, needle)),
        serde_json::Value::Object(map) => map.values().any(|v| has_string_containing(v, needle)),
        _ => false,
    }
}

/// `output` as each provider's result messages (for a call `call_1`).
fn exports(output: &tool_core::ToolOutput) -> serde_json::Value {
    let calls = [tool_core::ToolCall::new("x____y", "{}").with_id("call_1")];
    let mut all = serde_json::Map::new();
    for format in ProviderFormat::ALL {
        let messages = format
            .tool_results(&calls, std::slice::from_ref(output))
            .unwrap();
        all.insert(format.as_str().into(), serde_json::Value::Array(messages));
    }
    serde_json::Value::Object(all)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_result_is_a_failed_output_with_the_servers_text() {
    let manager = manager_with(vec![python_stdio("py", "stdio")]);
    let registry = registry_of(&manager).await;
    let failed = call(&registry, "py", "fail", r#"{"reason":"disk full"}"#).await;
    assert!(!failed.success);
    assert_eq!(failed.error_code().unwrap(), "mcp_tool_error");
    assert!(failed.content.contains("failed: disk full"), "{failed:?}");
    // destructiveHint: true → required; no annotations → required; readOnly → never.
    let manifest = registry.get("py").unwrap().manifest().clone();
    let policy = |n: &str| manifest.api(n).unwrap().human_intervention.clone().unwrap();
    assert_eq!(
        policy("fail"),
        HumanIntervention::Policy(InterventionPolicy::Required)
    );
    assert_eq!(
        policy("sleep"),
        HumanIntervention::Policy(InterventionPolicy::Required)
    );
    assert_eq!(
        policy("echo"),
        HumanIntervention::Policy(InterventionPolicy::Never)
    );
    // Arguments the schema rejects never reach the server.
    let bad = call(&registry, "py", "echo", r#"{"message": 5}"#).await;
    assert_eq!(bad.error_code().unwrap(), "invalid_arguments");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_call_is_cancelled_and_the_server_hears_of_it() {
    let manager = manager_with(vec![python_stdio("py", "stdio")]);
    let registry = registry_of(&manager).await;
    let token = tool_core::CancellationToken::new();
    let ctx = ToolContext::new().with_cancellation(token.clone());
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        token.cancel();
    });
    let started = Instant::now();
    let out = call_in(&registry, "py", "sleep", r#"{"seconds": 30}"#, &ctx).await;
    canceller.await.unwrap();
    assert_eq!(out.error_code().unwrap(), "cancelled");
    assert!(started.elapsed() < Duration::from_secs(5));
    // The server got notifications/cancelled: its handler task was cancelled.
    let mut heard = false;
    for _ in 0..50 {
        if manager
            .status("py")
            .await
            .unwrap()
            .stderr
            .contains("sleep cancelled")
        {
            heard = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        heard,
        "stderr: {}",
        manager.status("py").await.unwrap().stderr
    );
    // The session is still good for the next call.
    let echo = call(&registry, "py", "echo", r#"{"message":"still here"}"#).await;
    assert_eq!(echo.content, "Echo: still here");
    assert_eq!(manager.status("py").await.unwrap().sessions_started, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pipeline_timeout_stops_a_long_call() {
    let manager = manager_with(vec![
        python_stdio("py", "stdio").with_call_timeout(Duration::from_secs(1)),
    ]);
    let registry = registry_of(&manager).await;
    let started = Instant::now();
    let out = call(&registry, "py", "sleep", r#"{"seconds": 30}"#).await;
    assert_eq!(out.error_code().unwrap(), "timeout");
    assert!(started.elapsed() < Duration::from_secs(4));
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_leaves_calls_unanswered_in_a_row_is_restarted() {
    let manager = Arc::new(McpManager::new(
        tool_mcp::ManagerOptions::default().restart_after_timeouts(2),
    ));
    manager
        .upsert(python_stdio("py", "stdio").with_call_timeout(Duration::from_millis(400)))
        .unwrap();
    let registry = registry_of(&manager).await;
    let sleep = r#"{"seconds": 30}"#;
    // An answer between two timeouts starts the count again.
    let out = call(&registry, "py", "sleep", sleep).await;
    assert_eq!(out.error_code().unwrap(), "timeout");
    let echo = call(&registry, "py", "echo", r#"{"message":"one"}"#).await;
    assert_eq!(echo.content, "Echo: one");
    let out = call(&registry, "py", "sleep", sleep).await;
    assert_eq!(out.error_code().unwrap(), "timeout");
    let first = manager.process_id("py").await.unwrap();
    assert_eq!(manager.status("py").await.unwrap().sessions_started, 1);
    // The second in a row: the session is let go.
    let out = call(&registry, "py", "sleep", sleep).await;
    assert_eq!(out.error_code().unwrap(), "timeout");
    assert_eq!(manager.process_id("py").await, None);
    // The next request opens a new process (started here, outside the
    // echo's one-second budget: a loaded machine takes most of it to start
    // Python); the timed-out calls are not sent again (a new process would
    // still be sleeping: the echo answers).
    manager.connect("py").await.unwrap();
    let echo = call(&registry, "py", "echo", r#"{"message":"two"}"#).await;
    assert_eq!(echo.content, "Echo: two", "{echo:?}");
    assert_eq!(manager.status("py").await.unwrap().sessions_started, 2);
    let second = manager.process_id("py").await.unwrap();
    assert_ne!(first, second);
    // The old process is stopped.
    let gone = (0..50).any(|_| {
        std::thread::sleep(Duration::from_millis(100));
        !std::path::Path::new(&format!("/proc/{first}")).exists()
            || std::fs::read_to_string(format!("/proc/{first}/stat"))
                .is_ok_and(|s| s.contains(") Z "))
    });
    assert!(gone, "process {first} still runs");
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_mid_session_is_reconnected_once() {
    let manager = manager_with(vec![everything_stdio("everything")]);
    let registry = registry_of(&manager).await;
    let first = call(&registry, "everything", "echo", r#"{"message":"one"}"#).await;
    assert_eq!(first.content, "Echo: one");
    let pid = manager.process_id("everything").await.unwrap();
    // SAFETY-free: kill(2) through libc on our own child.
    let rc = unsafe_kill(pid);
    assert_eq!(rc, 0);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let second = call(&registry, "everything", "echo", r#"{"message":"two"}"#).await;
    assert!(second.success, "{second:?}");
    assert_eq!(second.content, "Echo: two");
    let status = manager.status("everything").await.unwrap();
    assert_eq!(status.sessions_started, 2);
    assert_ne!(manager.process_id("everything").await.unwrap(), pid);
}

#[cfg(unix)]
fn unsafe_kill(pid: u32) -> i32 {
    // A plain SIGKILL through the `kill` program: the workspace forbids unsafe code.
    let status = std::process::Command::new("kill")
        .arg("-9")
        .arg(pid.to_string())
        .status()
        .unwrap();
    if status.success() { 0 } else { 1 }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_never_answers_the_handshake_times_out_and_others_still_load() {
    let silent = python_stdio("silent", "silent").with_startup_timeout(Duration::from_millis(700));
    let manager = manager_with(vec![silent, python_stdio("py", "stdio")]);
    let started = Instant::now();
    let load = tool_mcp::McpProvider::new(Arc::clone(&manager))
        .load_all()
        .await;
    assert!(started.elapsed() < Duration::from_secs(15));
    assert_eq!(load.tools.len(), 1, "the good server loads");
    let failure = load.failures().next().unwrap();
    assert!(
        matches!(failure, Error::HandshakeTimeout { server, timeout_ms: 700, .. } if server == "silent"),
        "{failure}"
    );
    assert!(failure.is_unavailable());
    assert!(
        load.reports
            .iter()
            .any(|r| matches!(r, ServerReport::Loaded { server, .. } if server == "py"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_printing_garbage_on_stdout_is_still_usable() {
    // Lines that are not JSON-RPC are skipped; the session goes on.
    let manager = manager_with(vec![python_stdio("garbage", "garbage")]);
    let catalog = manager.catalog("garbage").await.unwrap();
    assert!(catalog.tool("echo").is_some());
    let registry = registry_of(&manager).await;
    let echo = call(&registry, "garbage", "echo", r#"{"message":"ok"}"#).await;
    assert_eq!(echo.content, "Echo: ok");
    assert_eq!(manager.status("garbage").await.unwrap().sessions_started, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invalid_answer_fails_the_call_at_once_and_the_session_goes_on() {
    // The server (hand-written, no SDK) answers `malformed` with a message
    // that is not JSON-RPC (an error without a numeric code): the
    // call fails with what was wrong, well before its 60 s timeout.
    let manager = manager_with(vec![
        python_stdio("py", "broken").with_call_timeout(Duration::from_secs(60)),
    ]);
    let registry = registry_of(&manager).await;
    let started = std::time::Instant::now();
    let broken = call(&registry, "py", "malformed", "{}").await;
    assert!(!broken.success, "{broken:?}");
    assert!(
        broken.content.contains("not a valid MCP message"),
        "{broken:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    let echo = call(&registry, "py", "echo", r#"{"message":"still here"}"#).await;
    assert_eq!(echo.content, "Echo: still here");
    assert_eq!(manager.status("py").await.unwrap().sessions_started, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_command_and_a_disabled_server_are_reported_not_fatal() {
    let mut disabled = python_stdio("off", "stdio");
    disabled.enabled = false;
    let missing = McpServerConfig::new(
        "missing",
        McpTransport::stdio("/nonexistent/mcp-server", Vec::<String>::new()),
    );
    let manager = manager_with(vec![disabled, missing, python_stdio("py", "stdio")]);
    let load = tool_mcp::McpProvider::new(Arc::clone(&manager))
        .load_all()
        .await;
    assert_eq!(load.tools.len(), 1);
    assert!(
        load.reports
            .iter()
            .any(|r| matches!(r, ServerReport::Disabled { server } if server == "off"))
    );
    let failure = load.failures().next().unwrap();
    assert!(
        matches!(failure, Error::Spawn { server, .. } if server == "missing"),
        "{failure}"
    );
    // The same load as tool-core's batch shape: the good server's tool, the
    // missing one as a failure named by its id (the disabled one neither);
    // into_complete makes it one error naming the server.
    let partial = load.into_partial();
    assert_eq!(partial.loaded().len(), 1);
    let sources: Vec<&str> = partial.failed().iter().map(|f| f.source.as_str()).collect();
    assert_eq!(sources, ["missing"]);
    let mut registry =
        tool_core::ToolRegistry::new().with_name_rules(tool_core::manifest::NameRules::Foreign);
    let registered = registry.register_all(partial.loaded().iter().cloned());
    assert!(registered.is_complete(), "{:?}", registered.failed());
    let Err(error) = partial.into_complete() else {
        panic!("a failed server makes the load incomplete");
    };
    assert!(
        error
            .to_string()
            .starts_with("1 of 2 failed to load: missing: "),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_in_env_never_reach_errors_or_outputs() {
    let mut config = python_stdio("py", "stdio");
    if let McpTransport::Stdio { env, .. } = &mut config.transport {
        env.insert("FIXTURE_TOKEN".into(), "tok-6f1e2d3c".into());
    }
    let manager = manager_with(vec![config]);
    let registry = registry_of(&manager).await;
    let out = call(&registry, "py", "env_echo", r#"{"name":"FIXTURE_TOKEN"}"#).await;
    // The server itself may print the value back (its own business), but our
    // stderr capture scrubs it.
    let _ = out;
    let status = manager.status("py").await.unwrap();
    assert!(!status.stderr.contains("tok-6f1e2d3c"), "{}", status.stderr);
    assert!(
        status.stderr.contains("FIXTURE_TOKEN=***"),
        "{}",
        status.stderr
    );
    let debug = format!("{:?}", manager.config("py").unwrap());
    assert!(!debug.contains("tok-6f1e2d3c"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_discovery_and_calls_against_both_servers() {
    let everything = everything_http().await;
    let py = python_http().await;
    let manager = manager_with(vec![
        McpServerConfig::new("everything", McpTransport::http(everything.url.clone())),
        McpServerConfig::new("py", McpTransport::http(py.url.clone())),
    ]);
    let catalog = manager.catalog("everything").await.unwrap();
    assert!(catalog.tool("echo").is_some());
    let registry = registry_of(&manager).await;
    let echo = call(
        &registry,
        "everything",
        "echo",
        r#"{"message":"over http"}"#,
    )
    .await;
    assert_eq!(echo.content, "Echo: over http", "{echo:?}");
    let image = call(&registry, "everything", "get-tiny-image", "{}").await;
    assert!(image.content.contains("[image: image/png"), "{image:?}");
    let structured = call(
        &registry,
        "everything",
        "get-structured-content",
        r#"{"location":"New York"}"#,
    )
    .await;
    assert!(structured.state.unwrap()["structuredContent"]["humidity"].is_number());
    let audio = call(&registry, "py", "audio", "{}").await;
    assert!(audio.content.contains("[audio: audio/wav"), "{audio:?}");
    let failed = call(&registry, "py", "fail", r#"{"reason":"nope"}"#).await;
    assert_eq!(failed.error_code().unwrap(), "mcp_tool_error");
    // A cancelled call over HTTP comes back promptly too.
    let token = tool_core::CancellationToken::new();
    let ctx = ToolContext::new().with_cancellation(token.clone());
    let cancel = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        token.cancel();
    });
    let out = call_in(&registry, "py", "sleep", r#"{"seconds": 30}"#, &ctx).await;
    cancel.await.unwrap();
    assert_eq!(out.error_code().unwrap(), "cancelled");
    let after = call(&registry, "py", "echo", r#"{"message":"after"}"#).await;
    assert_eq!(after.content, "Echo: after");
    let _ = json!(null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_server_that_is_not_there_is_reported() {
    let port = free_port();
    let manager = manager_with(vec![
        McpServerConfig::new(
            "gone",
            McpTransport::http(format!("http://127.0.0.1:{port}/mcp")),
        )
        .with_startup_timeout(Duration::from_secs(3)),
    ]);
    let error = manager.catalog("gone").await.unwrap_err();
    assert!(error.is_unavailable(), "{error}");
    assert_eq!(error.server(), Some("gone"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_share_one_session_and_disconnect_kills_the_process() {
    let manager = manager_with(vec![python_stdio("py", "stdio")]);
    let registry = registry_of(&manager).await;
    let outs = futures::future::join_all((0..20).map(|i| {
        let registry = &registry;
        async move { call(registry, "py", "echo", &format!(r#"{{"message":"n{i}"}}"#)).await }
    }))
    .await;
    for (i, out) in outs.iter().enumerate() {
        assert_eq!(out.content, format!("Echo: n{i}"));
    }
    assert_eq!(manager.status("py").await.unwrap().sessions_started, 1);
    let pid = manager.process_id("py").await.unwrap();
    let proc_dir = std::path::PathBuf::from(format!("/proc/{pid}"));
    assert!(proc_dir.exists());
    manager.disconnect("py").await;
    let mut gone = false;
    for _ in 0..50 {
        let alive = std::fs::read_to_string(proc_dir.join("stat"))
            .map(|stat| !stat.contains(") Z "))
            .unwrap_or(false);
        if !alive {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        gone,
        "the server process was killed when its session closed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_server_restarted_under_the_session_is_reconnected_transparently() {
    let first = python_http().await;
    let port: u16 = first
        .url
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches("/mcp")
        .parse()
        .unwrap();
    let manager = manager_with(vec![McpServerConfig::new(
        "py",
        McpTransport::http(first.url.clone()),
    )]);
    let registry = registry_of(&manager).await;
    assert_eq!(
        call(&registry, "py", "echo", r#"{"message":"before"}"#)
            .await
            .content,
        "Echo: before"
    );
    drop(first);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let _second = python_http_on(Some(port)).await;
    // The old session id means nothing to the new process (404): the session
    // is re-established once and the call goes through.
    let after = call(&registry, "py", "echo", r#"{"message":"after"}"#).await;
    assert_eq!(after.content, "Echo: after", "{after:?}");
    assert!(manager.status("py").await.unwrap().sessions_started <= 2);
}

/// server-everything's catalog once its late tools are registered.
async fn settled_catalog(
    manager: &McpManager,
    id: &str,
    wanted: &str,
) -> Arc<tool_mcp::McpCatalog> {
    manager.connect(id).await.unwrap();
    for _ in 0..50 {
        let catalog = manager.catalog(id).await.unwrap();
        if catalog.tool(wanted).is_some() {
            return catalog;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("{id} never listed `{wanted}`");
}

/// rmcp drops `execution.taskSupport` from listings; our transports read
/// it from the raw answers, so server-everything's
/// `simulate-research-query` (`taskSupport: "required"` on 2025-11-25) is
/// called as a task (`tools/call` with `task`, `tasks/get` while it works,
/// `tasks/result`) instead of failing every time — over stdio and over
/// streamable HTTP, by the manager and through the pipeline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_required_tool_of_a_2025_server_is_called_as_a_task() {
    let everything = everything_http().await;
    let http = McpServerConfig::new("everything", McpTransport::http(everything.url.clone()))
        .with_startup_timeout(Duration::from_secs(20));
    for config in [everything_stdio("everything"), http] {
        let manager = manager_with(vec![config]);
        settled_catalog(&manager, "everything", "simulate-research-query").await;
        let done = manager
            .call_tool(
                "everything",
                "simulate-research-query",
                json!({"topic": "tide pools"}).as_object().unwrap().clone(),
            )
            .await
            .unwrap();
        let text = done.content[0].as_text().unwrap().text.clone();
        assert!(text.contains("Research Report: tide pools"), "{text}");
        assert!(
            text.contains("Generating report"),
            "all four stages ran: {text}"
        );
        // Through the pipeline, the same.
        let registry = registry_of(&manager).await;
        let output = call(
            &registry,
            "everything",
            "simulate-research-query",
            r#"{"topic": "kelp"}"#,
        )
        .await;
        assert!(output.success, "{output:?}");
        assert!(
            output.content.contains("Research Report: kelp"),
            "{output:?}"
        );
        // A tool listed without task support is called as before.
        let echo = call(&registry, "everything", "echo", r#"{"message": "hi"}"#).await;
        assert!(echo.success && echo.content.contains("hi"), "{echo:?}");
        manager.shutdown().await;
    }
}

/// A task of a 2025-11-25 server (server-everything's
/// `simulate-research-query`, four stages of a second) handed back at once
/// as a handle (`McpManager::start_task`), the handle stored as JSON and
/// read back, then looked at and waited for by it (each stage seen, the
/// report whole at the end); another one cancelled by handle; an edited
/// handle refused before the server hears of it. A 2025-11-25 server keeps
/// a task in the session that made it: the handle is used on that session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_servers_task_is_detached_as_a_handle_and_followed_by_it() {
    let keys = tool_mcp::TaskKeys::new(tool_mcp::TaskKey::new("k1", [7u8; 32]).unwrap());
    let manager = McpManager::new(tool_mcp::ManagerOptions::default().task_keys(keys));
    manager.upsert(everything_stdio("everything")).unwrap();
    settled_catalog(&manager, "everything", "simulate-research-query").await;
    let status = manager.status("everything").await.unwrap();
    assert_eq!(status.protocol_version.as_deref(), Some("2025-11-25"));
    let start = |topic: &str| {
        manager.start_task(
            "everything",
            "simulate-research-query",
            json!({ "topic": topic }).as_object().unwrap().clone(),
            json!({"decision": "run", "by": "test"}),
        )
    };
    let tool_mcp::McpTaskStart::Task(handle) = start("tide pools").await.unwrap() else {
        panic!("the server ran a task-required tool at once");
    };
    assert_eq!(handle.server, "everything");
    let stored = serde_json::to_string(&handle).unwrap();
    let handle: tool_mcp::McpTaskHandle = serde_json::from_str(&stored).unwrap();

    let first = manager.task_status(&handle).await.unwrap();
    assert_eq!(first.status, "working", "{first:?}");
    let mut seen = Vec::new();
    let done = tokio::time::timeout(
        Duration::from_secs(30),
        manager.wait_task(&handle, |status| {
            seen.push(status.status_message.clone().unwrap_or_default());
        }),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(done.status, "completed", "{done:?}");
    let text = done.result.as_ref().unwrap().content[0]
        .as_text()
        .unwrap()
        .text
        .clone();
    assert!(text.contains("Research Report: tide pools"), "{text}");
    assert!(
        seen.iter().any(|m| m.contains("Generating report")),
        "the stages were seen: {seen:?}"
    );

    // An edited handle never reaches the server.
    let mut edited: serde_json::Value = serde_json::from_str(&stored).unwrap();
    edited["taskId"] = json!("someone-elses-task");
    let edited: tool_mcp::McpTaskHandle = serde_json::from_value(edited).unwrap();
    let refused = manager.task_status(&edited).await.unwrap_err();
    assert_eq!(refused.code(), "mcp_task_handle", "{refused}");

    // Cancelled by handle: it ends `cancelled`, with no report.
    let tool_mcp::McpTaskStart::Task(other) = start("kelp").await.unwrap() else {
        panic!("the server ran a task-required tool at once");
    };
    let cancelled = manager.cancel_task(&other).await.unwrap();
    assert_eq!(cancelled.status, "cancelled", "{cancelled:?}");
    assert!(cancelled.result.is_none(), "{cancelled:?}");
    manager.shutdown().await;
}
