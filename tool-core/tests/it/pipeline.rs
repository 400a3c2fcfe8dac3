//! The invocation pipeline: every call yields exactly one ToolOutput.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tool_core::{
    ApiDefinition, CancellationToken, InvokeConfig, Invoker, OfferedTools, ToolBuilder, ToolCall,
    ToolContext, ToolError, ToolOutput, ToolRegistry, pipeline::cap_content,
};

struct Fixture {
    offered: OfferedTools,
    runs: Arc<AtomicUsize>,
}

fn fixture() -> Fixture {
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&runs);
    let nested_schema = json!({
        "type": "object",
        "properties": {
            "user": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "tags": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["name"]
            },
            "count": {"type": "integer", "minimum": 0}
        },
        "required": ["user"],
        "additionalProperties": false
    });
    let tool = ToolBuilder::new("test")
        .api(
            ApiDefinition::new("echo", "Echoes its arguments.").with_parameters(json!({
                "type": "object", "properties": {"text": {"type": "string"}, "i": {"type": "integer"}}
            })),
            move |args: Value, _| {
                counter.fetch_add(1, Ordering::SeqCst);
                async move { Ok(ToolOutput::with_state(args.to_string(), args)) }
            },
        )
        .api(
            ApiDefinition::new("nested", "Schema with nesting.").with_parameters(nested_schema),
            |_, _| async { Ok(ToolOutput::text("ran")) },
        )
        .api(ApiDefinition::new("boom", "Panics."), |_, _| async {
            let items: Vec<u8> = Vec::new();
            if items.is_empty() {
                panic!("index out of range in tool");
            }
            Ok(ToolOutput::text("unreachable"))
        })
        .api(
            ApiDefinition::new("sleep", "Sleeps for `ms`.").with_default_timeout_ms(2_000),
            |args: Value, ctx: ToolContext| async move {
                let ms = args["ms"].as_u64().unwrap_or(60_000);
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_millis(ms)) => Ok(ToolOutput::text("slept")),
                    () = ctx.cancellation().cancelled() => Err(ToolError::execution_failed("woken")),
                }
            },
        )
        .api(ApiDefinition::new("fail", "Fails."), |_, _| async {
            Err(ToolError::new(
                tool_core::ErrorCode::new("quota_exceeded"),
                "The quota is used up; try tomorrow.",
            ))
        })
        .api(ApiDefinition::new("big", "Big output."), |args: Value, _| async move {
            let n = args["n"].as_u64().unwrap_or(100_000) as usize;
            Ok(ToolOutput::text("x".repeat(n / 2) + &"y".repeat(n - n / 2)))
        })
        .build()
        .unwrap();
    let mut registry = ToolRegistry::new();
    registry.register(tool).unwrap();
    Fixture {
        offered: registry.offer(&ToolContext::new()),
        runs,
    }
}

async fn call(fx: &Fixture, name: &str, args: &str) -> ToolOutput {
    Invoker::default()
        .invoke(&fx.offered, &ToolCall::new(name, args), &ToolContext::new())
        .await
}

fn code(output: &ToolOutput) -> &str {
    output.error_code().map_or("", |c| c.as_str())
}

#[tokio::test]
async fn empty_arguments_mean_an_empty_object() {
    let fx = fixture();
    for raw in ["", "   ", "\n", "null"] {
        let out = call(&fx, "test____echo", raw).await;
        assert!(out.success, "{raw:?}: {out:?}");
        assert_eq!(out.state, Some(json!({})));
    }
}

#[tokio::test]
async fn arguments_cut_at_any_point_are_diagnosed_as_truncated_and_not_run() {
    let fx = fixture();
    let full = r#"{"text": "hello \"world\" {[", "i": 12}"#;
    let mut checked = 0;
    for cut in 1..full.len() - 1 {
        let prefix = &full[..cut];
        let out = call(&fx, "test____echo", prefix).await;
        assert!(!out.success, "{prefix:?} should fail");
        assert_eq!(
            code(&out),
            "truncated_arguments",
            "{prefix:?}: {}",
            out.content
        );
        assert!(out.content.contains(prefix), "raw text is echoed");
        assert_eq!(
            out.error.as_ref().unwrap().details.as_ref().unwrap()["raw"],
            prefix
        );
        checked += 1;
    }
    assert!(checked > 30);
    assert_eq!(fx.runs.load(Ordering::SeqCst), 0, "the tool never ran");
}

#[tokio::test]
async fn garbage_is_invalid_json_not_truncated() {
    let fx = fixture();
    for raw in [
        "hello",
        "{\"a\": 1}}",
        "{'a': 1}",
        "{\"a\": [1}",
        "[1, 2]",
        "42",
        "\"text\"",
    ] {
        let out = call(&fx, "test____echo", raw).await;
        assert_eq!(
            code(&out),
            "invalid_arguments_json",
            "{raw:?}: {}",
            out.content
        );
    }
    assert_eq!(fx.runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn every_schema_violation_is_reported_with_its_pointer() {
    let fx = fixture();
    let out = call(
        &fx,
        "test____nested",
        r#"{"user": {"name": "", "tags": ["a", 3]}, "count": -1, "extra": true}"#,
    )
    .await;
    assert_eq!(code(&out), "invalid_arguments");
    let violations = &out.error.as_ref().unwrap().details.as_ref().unwrap()["violations"];
    let pointers: Vec<&str> = violations
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["pointer"].as_str().unwrap())
        .collect();
    for expected in ["/user/name", "/user/tags/1", "/count", ""] {
        assert!(
            pointers.contains(&expected),
            "{expected:?} missing from {pointers:?}"
        );
    }
    assert!(out.content.contains("/user/tags/1"));
    assert!(out.content.contains("4 problems"), "{}", out.content);

    let missing = call(&fx, "test____nested", r#"{"user": {}}"#).await;
    assert_eq!(code(&missing), "invalid_arguments");
    assert!(missing.content.contains("at /user"), "{}", missing.content);
}

#[tokio::test]
async fn a_panicking_tool_becomes_executor_panic() {
    let fx = fixture();
    let out = call(&fx, "test____boom", "{}").await;
    assert!(!out.success);
    assert_eq!(code(&out), "executor_panic");
    assert!(out.content.contains("index out of range in tool"));
}

#[tokio::test(start_paused = true)]
async fn a_tool_sleeping_past_its_budget_times_out() {
    let fx = fixture();
    let out = call(&fx, "test____sleep", r#"{"ms": 5000}"#).await;
    assert_eq!(code(&out), "timeout", "{out:?}");
    assert_eq!(out.error.unwrap().details.unwrap()["timeoutMs"], 2000);
    let fine = call(&fx, "test____sleep", r#"{"ms": 1500}"#).await;
    assert!(fine.success);
    let own = call(&fx, "test____sleep", r#"{"ms": 2500, "timeout": 3000}"#).await;
    assert!(own.success, "the call's own timeout wins: {own:?}");
}

#[tokio::test(start_paused = true)]
async fn cancelling_mid_run_yields_cancelled() {
    let fx = fixture();
    let token = CancellationToken::new();
    let ctx = ToolContext::new().with_cancellation(token.clone());
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        token.cancel();
    });
    let out = Invoker::default()
        .invoke(
            &fx.offered,
            &ToolCall::new("test____sleep", r#"{"ms": 1800}"#),
            &ctx,
        )
        .await;
    canceller.await.unwrap();
    assert_eq!(code(&out), "cancelled", "{out:?}");
}

#[tokio::test]
async fn tool_errors_keep_their_own_code() {
    let fx = fixture();
    let out = call(&fx, "test____fail", "").await;
    assert_eq!(code(&out), "quota_exceeded");
    assert_eq!(out.content, "The quota is used up; try tomorrow.");
}

#[tokio::test]
async fn name_errors_are_outputs_too() {
    let fx = fixture();
    assert_eq!(code(&call(&fx, "nope____x", "{}").await), "tool_not_found");
    assert_eq!(code(&call(&fx, "test____nope", "{}").await), "unknown_api");
    assert!(call(&fx, "echo", r#"{"text":"bare"}"#).await.success);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_calls_yield_a_thousand_outputs_in_order() {
    let fx = fixture();
    let calls: Vec<ToolCall> = (0..1000)
        .map(|i| match i % 5 {
            0 => ToolCall::new("test____boom", "{}"),
            1 => ToolCall::new("test____echo", r#"{"i": "#),
            _ => ToolCall::new("test____echo", format!(r#"{{"i": {i}}}"#)).with_id(format!("c{i}")),
        })
        .collect();
    let outputs = Invoker::default()
        .invoke_batch(&fx.offered, &calls, &ToolContext::new())
        .await;
    assert_eq!(outputs.len(), 1000);
    for (i, out) in outputs.iter().enumerate() {
        match i % 5 {
            0 => assert_eq!(code(out), "executor_panic"),
            1 => assert_eq!(code(out), "truncated_arguments"),
            _ => assert_eq!(out.state, Some(json!({"i": i})), "output {i} out of order"),
        }
    }
    assert_eq!(fx.runs.load(Ordering::SeqCst), 600);
}

#[tokio::test]
async fn long_content_is_capped_keeping_head_tail_and_full_state() {
    let fx = fixture();
    let out = call(&fx, "test____big", r#"{"n": 100000}"#).await;
    assert!(out.success);
    assert!(out.content.chars().count() <= 25_000);
    assert!(out.content.starts_with("xxx") && out.content.ends_with("yyy"));
    assert!(out.content.contains("characters omitted"));
    let full = out.state.unwrap()["fullContent"].as_str().unwrap().len();
    assert_eq!(full, 100_000);

    let small = Invoker::new(InvokeConfig {
        max_content_chars: 500,
        ..InvokeConfig::default()
    })
    .invoke(
        &fx.offered,
        &ToolCall::new("test____big", r#"{"n": 1000}"#),
        &ToolContext::new(),
    )
    .await;
    assert!(
        small.content.chars().count() <= 500,
        "{}",
        small.content.len()
    );
}

#[test]
fn capping_keeps_existing_state_and_respects_char_boundaries() {
    let output = ToolOutput::with_state("é".repeat(1000), json!({"rows": 3}));
    let capped = cap_content(output, 300);
    assert!(capped.content.chars().count() <= 300);
    assert_eq!(capped.state, Some(json!({"rows": 3})));
    let short = cap_content(ToolOutput::text("ok"), 300);
    assert_eq!(short, ToolOutput::text("ok"));
}

#[test]
fn timeout_resolution_follows_call_then_api_then_global_and_clamps() {
    let config = InvokeConfig::default();
    let plain = ApiDefinition::new("a", "");
    let with_default = ApiDefinition::new("a", "").with_default_timeout_ms(30_000);
    let ms = |api: &ApiDefinition, args: Value| config.resolve_timeout(api, &args).as_millis();
    assert_eq!(ms(&plain, json!({})), 120_000);
    assert_eq!(ms(&with_default, json!({})), 30_000);
    assert_eq!(ms(&with_default, json!({"timeout": 5000})), 5_000);
    assert_eq!(
        ms(&with_default, json!({"timeout": 5000.9})),
        5_000,
        "truncated"
    );
    assert_eq!(
        ms(&with_default, json!({"timeout": 10})),
        1_000,
        "clamped up"
    );
    assert_eq!(
        ms(&with_default, json!({"timeout": 1e12})),
        800_000,
        "clamped down"
    );
    assert_eq!(
        ms(&with_default, json!({"timeout": 0})),
        30_000,
        "not positive"
    );
    assert_eq!(ms(&with_default, json!({"timeout": -5})), 30_000);
    assert_eq!(
        ms(&with_default, json!({"timeout": "9000"})),
        30_000,
        "not a number"
    );
    assert_eq!(ms(&plain, json!({"timeout": 0.5})), 1_000);
    let huge = ApiDefinition::new("a", "").with_default_timeout_ms(10_000_000);
    assert_eq!(ms(&huge, json!({})), 800_000);
}

#[tokio::test]
async fn prepare_stops_before_running_so_a_host_can_ask_for_approval() {
    let fx = fixture();
    let invoker = Invoker::default();
    let prepared = invoker
        .prepare(
            &fx.offered,
            &ToolCall::new("test____echo", r#"{"text": "hi"}"#).with_id("7"),
        )
        .unwrap();
    assert_eq!(prepared.identifier, "test");
    assert_eq!(prepared.api, "echo");
    assert_eq!(prepared.call_id.as_deref(), Some("7"));
    assert_eq!(prepared.arguments, json!({"text": "hi"}));
    assert_eq!(fx.runs.load(Ordering::SeqCst), 0);
    let out = invoker.execute(prepared, &ToolContext::new()).await;
    assert!(out.success);
    assert_eq!(fx.runs.load(Ordering::SeqCst), 1);
}

#[test]
fn outputs_serialise_with_their_error_code() {
    let failed = ToolOutput::failure(ToolError::new(tool_core::ErrorCode::TIMEOUT, "too slow"));
    assert_eq!(
        serde_json::to_value(&failed).unwrap(),
        json!({"content": "too slow", "state": null, "success": false,
               "error": {"code": "timeout", "message": "too slow"}})
    );
    let back: ToolOutput = serde_json::from_value(serde_json::to_value(&failed).unwrap()).unwrap();
    assert_eq!(back, failed);
}

#[tokio::test]
async fn a_value_outside_an_enum_names_the_nearest_candidates() {
    let tool = ToolBuilder::new("export")
        .api(
            ApiDefinition::new("save", "Saves a document.").with_parameters(json!({
                "type": "object",
                "properties": {"format": {"type": "string", "enum": ["pdf", "png", "html"]}},
                "required": ["format"]
            })),
            |_, _| async { Ok(ToolOutput::text("saved")) },
        )
        .build()
        .unwrap();
    let mut registry = ToolRegistry::new();
    registry.register(tool).unwrap();
    let ctx = ToolContext::new();
    let offered = registry.offer(&ctx);
    for (given, want) in [("PDF", "`pdf`"), ("pfd", "`pdf`"), ("htm", "`html`")] {
        let args = json!({ "format": given }).to_string();
        let out = Invoker::default()
            .invoke(&offered, &ToolCall::new("export____save", args), &ctx)
            .await;
        assert_eq!(out.error_code().unwrap(), "invalid_arguments");
        assert!(
            out.content.contains(&format!("did you mean {want}?")),
            "{}",
            out.content
        );
    }
    let args = json!({ "format": "spreadsheet" }).to_string();
    let out = Invoker::default()
        .invoke(&offered, &ToolCall::new("export____save", args), &ctx)
        .await;
    assert!(!out.content.contains("did you mean"), "{}", out.content);
}
