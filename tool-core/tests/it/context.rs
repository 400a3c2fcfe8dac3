//! What the Invoker puts in the context a tool sees: call id, deadlines, extensions.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;
use tool_core::{
    ApiDefinition, Invoker, OfferedTools, ToolBuilder, ToolCall, ToolContext, ToolOutput,
    ToolRegistry,
};

#[derive(Debug)]
struct Credentials {
    token: String,
}

/// A tool reporting what its context carried, as state.
fn offered() -> OfferedTools {
    let tool = ToolBuilder::new("probe")
        .api(
            ApiDefinition::new("look", "Reports its context.")
                .with_default_timeout_ms(5_000)
                .with_parameters(
                    json!({"type":"object","properties":{"timeout":{"type":"number"}}}),
                ),
            |_, ctx: ToolContext| async move {
                let now = Instant::now();
                let ms = |d: Option<Instant>| {
                    d.map(|d| d.saturating_duration_since(now).as_millis() as u64)
                };
                Ok(ToolOutput::with_state(
                    "looked",
                    json!({
                        "callId": ctx.call_id(),
                        "deadlineInMs": ms(ctx.deadline()),
                        "batchDeadlineInMs": ms(ctx.batch_deadline()),
                        "token": ctx.extension::<Credentials>().map(|c| c.token.clone()),
                        "user": ctx.user_id(),
                    }),
                ))
            },
        )
        .api(
            ApiDefinition::new("wait", "Waits past any deadline."),
            |_, _| async {
                tokio::time::sleep(Duration::from_secs(3_600)).await;
                Ok(ToolOutput::text("woke"))
            },
        )
        .build()
        .unwrap();
    let mut registry = ToolRegistry::new();
    registry.register(tool).unwrap();
    registry.offer(&ToolContext::new())
}

fn state(output: &ToolOutput) -> &Value {
    assert!(output.success, "{output:?}");
    output.state.as_ref().unwrap()
}

#[tokio::test(start_paused = true)]
async fn a_provider_call_id_reaches_the_tool_unchanged() {
    let out = Invoker::default()
        .invoke(
            &offered(),
            &ToolCall::new("probe____look", "{}").with_id("call_abc"),
            &ToolContext::new(),
        )
        .await;
    assert_eq!(state(&out)["callId"], "call_abc");
}

#[tokio::test(start_paused = true)]
async fn a_missing_or_empty_call_id_is_minted_and_unique() {
    let offered = offered();
    let invoker = Invoker::default();
    let ctx = ToolContext::new();
    let a = invoker
        .invoke(&offered, &ToolCall::new("probe____look", "{}"), &ctx)
        .await;
    let b = invoker
        .invoke(
            &offered,
            &ToolCall::new("probe____look", "{}").with_id(""),
            &ctx,
        )
        .await;
    let (a, b) = (
        state(&a)["callId"].as_str().unwrap(),
        state(&b)["callId"].as_str().unwrap(),
    );
    assert!(a.starts_with("call_") && b.starts_with("call_"), "{a} {b}");
    assert_ne!(a, b);
}

#[tokio::test]
async fn prepare_mints_the_id_that_the_tool_then_sees() {
    let offered = offered();
    let invoker = Invoker::default();
    let prepared = invoker
        .prepare(&offered, &ToolCall::new("probe____look", "{}"))
        .unwrap();
    let id = prepared.call_id.clone().unwrap();
    let out = invoker.execute(prepared, &ToolContext::new()).await;
    assert_eq!(state(&out)["callId"], id.as_str());

    let mut call = ToolCall::new("probe____look", "{}");
    let ensured = call.ensure_id().to_owned();
    assert_eq!(call.ensure_id(), ensured, "ensure_id is stable");
}

#[tokio::test(start_paused = true)]
async fn the_deadline_is_the_resolved_budget_of_the_call() {
    let offered = offered();
    let out = Invoker::default()
        .invoke(
            &offered,
            &ToolCall::new("probe____look", "{}"),
            &ToolContext::new(),
        )
        .await;
    assert_eq!(state(&out)["deadlineInMs"], 5_000, "the API's default");
    let out = Invoker::default()
        .invoke(
            &offered,
            &ToolCall::new("probe____look", r#"{"timeout": 2500}"#),
            &ToolContext::new(),
        )
        .await;
    assert_eq!(state(&out)["deadlineInMs"], 2_500, "the call's own timeout");
    assert_eq!(
        state(&out)["batchDeadlineInMs"],
        2_500,
        "a lone call is its own batch"
    );
}

#[tokio::test(start_paused = true)]
async fn a_host_deadline_bounds_the_call_and_times_it_out() {
    let offered = offered();
    let ctx = ToolContext::new().with_timeout(Duration::from_millis(1_500));
    let out = Invoker::default()
        .invoke(&offered, &ToolCall::new("probe____look", "{}"), &ctx)
        .await;
    assert_eq!(state(&out)["deadlineInMs"], 1_500);

    let started = Instant::now();
    let out = Invoker::default()
        .invoke(&offered, &ToolCall::new("probe____wait", "{}"), &ctx)
        .await;
    assert_eq!(out.error_code().unwrap(), "timeout");
    assert_eq!(started.elapsed(), Duration::from_millis(1_500));
    assert_eq!(out.error.unwrap().details.unwrap()["timeoutMs"], 1_500);
}

#[tokio::test(start_paused = true)]
async fn every_call_of_a_batch_sees_the_latest_deadline_of_the_batch() {
    let offered = offered();
    let calls = [
        ToolCall::new("probe____look", r#"{"timeout": 1000}"#).with_id("a"),
        ToolCall::new("probe____look", r#"{"timeout": 9000}"#).with_id("b"),
        ToolCall::new("probe____nope", "{}").with_id("c"),
    ];
    let outs = Invoker::default()
        .invoke_batch(&offered, &calls, &ToolContext::new())
        .await;
    assert_eq!(outs.len(), 3);
    assert_eq!(state(&outs[0])["deadlineInMs"], 1_000);
    assert_eq!(state(&outs[0])["batchDeadlineInMs"], 9_000);
    assert_eq!(state(&outs[1])["batchDeadlineInMs"], 9_000);
    assert_eq!(state(&outs[0])["callId"], "a");
    assert_eq!(outs[2].error_code().unwrap(), "unknown_api");
}

#[tokio::test(start_paused = true)]
async fn typed_extensions_and_host_fields_pass_through() {
    let ctx = ToolContext::new()
        .with_user_id("u-7")
        .with_extension(Credentials {
            token: "secret-1".into(),
        });
    let out = Invoker::default()
        .invoke(&offered(), &ToolCall::new("probe____look", "{}"), &ctx)
        .await;
    assert_eq!(state(&out)["token"], "secret-1");
    assert_eq!(state(&out)["user"], "u-7");
    assert_eq!(ctx.call_id(), None, "the host's context is not changed");
}

#[test]
fn the_deadline_can_travel_as_wall_clock_time() {
    let ctx = ToolContext::new().with_timeout(Duration::from_secs(60));
    let at = ctx.deadline_system_time().unwrap();
    let left = at.duration_since(std::time::SystemTime::now()).unwrap();
    assert!(
        left <= Duration::from_secs(60) && left > Duration::from_secs(50),
        "{left:?}"
    );
    assert!(ToolContext::new().deadline_system_time().is_none());
}
