//! Each call runs inside an `execute_tool` span in the OpenTelemetry GenAI
//! conventions (it replaced the `tool_call` span and kept its fields), with
//! the gate's decision, the answer and the run as events on it, and metric
//! events a host can turn into counters. No argument value is recorded.

use std::sync::Arc;

use async_trait::async_trait;
use test_support::{Collected, Seen};
use tool_core::{
    Answer, ApiDefinition, Ask, Asker, Gate, GateDecision, Invoker, OfferedTools, ToolBuilder,
    ToolCall, ToolContext, ToolOutput, ToolRegistry, pipeline::PreparedCall,
};

const SECRET: &str = "hunter2-do-not-trace";

fn registry() -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry
        .register(
            ToolBuilder::new("clock")
                .api(ApiDefinition::new("now", "Now."), |_, _| async {
                    Ok(ToolOutput::text("noon"))
                })
                .build()
                .unwrap(),
        )
        .unwrap();
    registry
        .register(
            ToolBuilder::new("vault")
                .api(
                    ApiDefinition::new("store", "Stores a value.").with_parameters(
                        serde_json::json!({
                            "type": "object",
                            "properties": {"value": {"type": "string"}},
                            "required": ["value"]
                        }),
                    ),
                    |_, _| async { Ok(ToolOutput::text("stored")) },
                )
                .api(ApiDefinition::new("wipe", "Wipes it."), |_, _| async {
                    Ok(ToolOutput::text("wiped"))
                })
                .build()
                .unwrap(),
        )
        .unwrap();
    registry
}

/// Asks before `store` (naming a rule), blocks `wipe`, runs the rest.
struct Policy;

#[async_trait]
impl Gate for Policy {
    async fn decide(
        &self,
        calls: &[PreparedCall],
        _: &OfferedTools,
        _: &ToolContext,
    ) -> Vec<GateDecision> {
        calls
            .iter()
            .map(|c| match c.api.as_str() {
                "store" => GateDecision::ask("storing needs a yes")
                    .with_rule("rules[0]")
                    .with_details(serde_json::json!({"reason": {"level": "host_policy"}})),
                "wipe" => GateDecision::block("never").with_rule("blacklist/wipe"),
                _ => GateDecision::run(),
            })
            .collect()
    }
}

struct Yes;

#[async_trait]
impl Asker for Yes {
    async fn ask(&self, asks: &[Ask<'_>], _: &ToolContext) -> Vec<Answer> {
        asks.iter().map(|_| Answer::approve()).collect()
    }
}

fn recording() -> (Collected, tracing::subscriber::DefaultGuard) {
    Collected::install()
}

#[tokio::test]
async fn a_call_records_the_genai_attributes_and_the_earlier_fields() {
    let (recorded, _guard) = recording();
    let out = Invoker::default()
        .invoke_in(
            &registry(),
            &ToolCall::new("clock____now", "{}").with_id("call-1"),
            &ToolContext::new(),
        )
        .await;
    assert!(out.success);

    let spans = recorded.spans("execute_tool");
    assert_eq!(spans.len(), 1, "{spans:?}");
    let span = &spans[0];
    assert_eq!(span.get("otel.name"), Some("execute_tool clock____now"));
    assert_eq!(span.get("otel.kind"), Some("internal"));
    assert_eq!(span.get("gen_ai.operation.name"), Some("execute_tool"));
    assert_eq!(span.get("gen_ai.tool.name"), Some("clock____now"));
    assert_eq!(span.get("gen_ai.tool.call.id"), Some("call-1"));
    assert_eq!(span.get("gen_ai.tool.type"), Some("function"));
    assert_eq!(span.get("gen_ai.tool.description"), Some("Now."));
    assert_eq!(span.get("error.type"), None);
    // The fields of the earlier `tool_call` span.
    assert_eq!(span.get("tool"), Some("clock"));
    assert_eq!(span.get("api"), Some("now"));
    assert_eq!(span.get("call_id"), Some("call-1"));
    assert_eq!(span.get("outcome"), Some("success"));
    assert!(span.get("duration_ms").is_some());
    assert!(span.get("timeout_ms").is_some());

    let durations: Vec<Seen> =
        recorded.events_where(|e| e.get("histogram.gen_ai.execute_tool.duration").is_some());
    assert_eq!(durations.len(), 1, "{durations:?}");
    assert_eq!(durations[0].target, tool_core::telemetry::METRICS_TARGET);
    assert_eq!(durations[0].get("gen_ai.tool.name"), Some("clock____now"));
    assert_eq!(durations[0].get("error.type"), Some(""));
}

#[tokio::test]
async fn a_gated_batch_puts_decision_answer_and_run_on_each_calls_span() {
    let (recorded, _guard) = recording();
    let invoker = Invoker::default()
        .with_gate(Arc::new(Policy))
        .with_asker(Arc::new(Yes));
    let registry = registry();
    let ctx = ToolContext::new();
    let offered = registry.offer(&ctx);
    let args = format!(r#"{{"value": "{SECRET}"}}"#);
    let calls = [
        ToolCall::new("vault____store", args.as_str()).with_id("c-store"),
        ToolCall::new("vault____wipe", "{}").with_id("c-wipe"),
        ToolCall::new(
            "vault____store",
            format!(r#"{{"value": 7, "x": "{SECRET}"}}"#),
        )
        .with_id("c-bad"),
    ];
    let outputs = invoker.invoke_batch(&offered, &calls, &ctx).await;
    assert_eq!(outputs[0].content, "stored");
    assert_eq!(
        outputs[1].error_code().unwrap().as_str(),
        "blocked_by_security_privacy"
    );
    assert_eq!(
        outputs[2].error_code().unwrap().as_str(),
        "invalid_arguments"
    );

    let spans = recorded.spans("execute_tool");
    assert_eq!(spans.len(), 3, "{spans:?}");
    let by_id = |id: &str| {
        spans
            .iter()
            .find(|s| s.get("gen_ai.tool.call.id") == Some(id))
            .unwrap_or_else(|| panic!("no span for {id}: {spans:?}"))
            .clone()
    };
    assert_eq!(by_id("c-store").get("outcome"), Some("success"));
    let wipe = by_id("c-wipe");
    assert_eq!(wipe.get("error.type"), Some("blocked_by_security_privacy"));
    assert_eq!(wipe.get("otel.status_code"), Some("ERROR"));
    assert_eq!(by_id("c-bad").get("error.type"), Some("invalid_arguments"));

    let decisions = recorded.events("gate.decision");
    assert_eq!(decisions.len(), 2, "{decisions:?}");
    assert!(
        decisions
            .iter()
            .all(|d| d.parent.as_deref() == Some("execute_tool"))
    );
    let ask = decisions
        .iter()
        .find(|d| d.get("action") == Some("ask"))
        .unwrap();
    assert_eq!(ask.get("rule"), Some("rules[0]"));
    assert_eq!(ask.get("level"), Some("host_policy"));
    assert_eq!(ask.get("confinement"), Some("none"));
    let block = decisions
        .iter()
        .find(|d| d.get("action") == Some("block"))
        .unwrap();
    assert_eq!(block.get("rule"), Some("blacklist/wipe"));
    let answers = recorded.events("gate.answer");
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(answers[0].get("answer"), Some("approved"));
    assert_eq!(recorded.events("tool.run").len(), 1);

    let counters: Vec<Seen> =
        recorded.events_where(|e| e.get("monotonic_counter.tool.gate.decisions").is_some());
    assert_eq!(counters.len(), 2, "{counters:?}");
    assert!(
        counters
            .iter()
            .any(|c| c.get("action") == Some("block") && c.get("rule") == Some("blacklist/wipe"))
    );

    let text = recorded.all_text();
    assert!(
        !text.contains(SECRET),
        "an argument value was traced: {text}"
    );
    assert!(
        !text.contains("storing needs a yes"),
        "the gate's message was traced"
    );
}

#[tokio::test]
async fn a_redacted_output_is_an_event_naming_the_rule_never_the_secret() {
    let (recorded, _guard) = recording();
    let secret = "correct-horse-battery-staple";
    let redactor = tool_core::taint::Redactor::builtin()
        .unwrap()
        .with_host_secret("vault", secret)
        .unwrap();
    let session = Arc::new(tool_core::taint::Session::new().with_redactor(redactor));
    let mut registry = ToolRegistry::new();
    registry
        .register(
            ToolBuilder::new("leaky")
                .api(
                    ApiDefinition::new("read", "Reads."),
                    move |_, _| async move { Ok(ToolOutput::text(format!("the key is {secret}"))) },
                )
                .build()
                .unwrap(),
        )
        .unwrap();
    let out = Invoker::default()
        .with_session(session)
        .invoke_in(
            &registry,
            &ToolCall::new("leaky____read", "{}"),
            &ToolContext::new(),
        )
        .await;
    assert!(!out.content.contains(secret), "{}", out.content);
    let redacted = recorded.events("tool.redacted");
    assert_eq!(redacted.len(), 1, "{redacted:?}");
    assert_eq!(redacted[0].parent.as_deref(), Some("execute_tool"));
    assert!(
        redacted[0].get("rules").unwrap().contains("vault"),
        "{redacted:?}"
    );
    assert_eq!(redacted[0].get("count"), Some("1"));
    assert!(!recorded.all_text().contains(secret));
}
