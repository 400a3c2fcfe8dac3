//! The gated pipeline: decisions, asks, answers and confinement through
//! `Invoker::with_gate` / `with_asker`, one output per call in order.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::json;
use tool_core::{
    Answer, ApiDefinition, Ask, Asker, Confinement, Gate, GateDecision, Invoker, OfferedTools,
    ToolBuilder, ToolCall, ToolContext, ToolOutput, ToolRegistry, approval::ApproveAll,
    pipeline::PreparedCall,
};

/// A gate that decides by API name: `run`, `ask`, `block`, `confined`
/// (runs under workspace_write), `lose` (the gate forgets to decide it).
#[derive(Default)]
struct ByName {
    remembered: Mutex<Vec<String>>,
    batches: AtomicUsize,
}

#[async_trait]
impl Gate for ByName {
    async fn decide(
        &self,
        calls: &[PreparedCall],
        _: &OfferedTools,
        _: &ToolContext,
    ) -> Vec<GateDecision> {
        self.batches.fetch_add(1, Ordering::SeqCst);
        calls
            .iter()
            .take_while(|c| c.api != "lose")
            .map(|c| match c.api.as_str() {
                "ask" => GateDecision::ask("asking is the rule").with_rule("rules[0]"),
                "block" => GateDecision::block("never this").with_rule("rules[1]"),
                "confined" => GateDecision::run().with_confinement(Confinement::workspace_write()),
                "ask_confined" => GateDecision::ask("ask, then confined")
                    .with_confinement(Confinement::read_only()),
                _ => GateDecision::run(),
            })
            .collect()
    }

    fn remember(&self, call: &PreparedCall, _: &GateDecision) {
        self.remembered.lock().unwrap().push(call.api.clone());
    }
}

/// Answers from a script, recording how many asks came per batch.
struct Scripted {
    answers: Vec<Answer>,
    seen: Mutex<Vec<usize>>,
}

#[async_trait]
impl Asker for Scripted {
    async fn ask(&self, asks: &[Ask<'_>], _: &ToolContext) -> Vec<Answer> {
        self.seen.lock().unwrap().push(asks.len());
        self.answers.iter().take(asks.len()).cloned().collect()
    }
}

/// An asker that never answers.
struct Silent;

#[async_trait]
impl Asker for Silent {
    async fn ask(&self, _: &[Ask<'_>], _: &ToolContext) -> Vec<Answer> {
        futures::future::pending::<()>().await;
        Vec::new()
    }
}

/// Every API reports the confinement it saw in its context.
fn offered() -> OfferedTools {
    let mut builder = ToolBuilder::new("t");
    for api in ["run", "ask", "block", "confined", "ask_confined", "lose"] {
        builder = builder.api(
            ApiDefinition::new(api, "Reports its confinement."),
            |_, ctx| async move {
                let seen = ctx.extension::<Confinement>().map(|c| c.name().to_owned());
                Ok(ToolOutput::with_state(
                    seen.clone().unwrap_or_else(|| "none".into()),
                    json!({ "confinement": seen }),
                ))
            },
        );
    }
    let mut registry = ToolRegistry::new();
    registry.register(builder.build().unwrap()).unwrap();
    registry.offer(&ToolContext::new())
}

fn calls(apis: &[&str]) -> Vec<ToolCall> {
    apis.iter()
        .map(|a| ToolCall::new(format!("t____{a}"), ""))
        .collect()
}

#[tokio::test]
async fn a_batch_gets_one_output_per_call_in_order_whatever_each_decision() {
    let gate = Arc::new(ByName::default());
    let asker = Arc::new(Scripted {
        answers: vec![Answer::decline_because("not now")],
        seen: Mutex::new(Vec::new()),
    });
    let invoker = Invoker::default()
        .with_gate(gate.clone())
        .with_asker(asker.clone());
    let mut batch = calls(&["run", "ask", "block", "confined"]);
    batch.insert(1, ToolCall::new("t____nope", ""));
    let out = invoker
        .invoke_batch(&offered(), &batch, &ToolContext::new())
        .await;
    assert_eq!(out.len(), 5);
    assert_eq!(out[0].content, "none");
    assert_eq!(out[1].error_code().unwrap(), "unknown_api");
    assert_eq!(out[2].error_code().unwrap(), "declined_by_user");
    assert!(out[2].content.contains("not now"));
    assert_eq!(out[2].state.as_ref().unwrap()["type"], "declined");
    assert_eq!(out[3].error_code().unwrap(), "blocked_by_security_privacy");
    assert_eq!(out[3].content, "Blocked by security/privacy.");
    assert_eq!(out[3].state.as_ref().unwrap()["reason"]["rule"], "rules[1]");
    assert_eq!(out[3].error().unwrap().message, "never this");
    assert_eq!(out[4].content, "workspace_write");
    // One gate call for the batch, one ask round with the one ask.
    assert_eq!(gate.batches.load(Ordering::SeqCst), 1);
    assert_eq!(*asker.seen.lock().unwrap(), vec![1]);
}

#[tokio::test]
async fn asks_of_one_batch_are_put_together_and_approvals_run() {
    let gate = Arc::new(ByName::default());
    let asker = Arc::new(Scripted {
        answers: vec![Answer::approve(), Answer::approve_always()],
        seen: Mutex::new(Vec::new()),
    });
    let invoker = Invoker::default()
        .with_gate(gate.clone())
        .with_asker(asker.clone());
    let out = invoker
        .invoke_batch(
            &offered(),
            &calls(&["ask", "ask_confined"]),
            &ToolContext::new(),
        )
        .await;
    assert_eq!(*asker.seen.lock().unwrap(), vec![2]);
    assert_eq!(out[0].content, "none");
    // An approved ask runs under the confinement its decision named.
    assert_eq!(out[1].content, "read_only");
    // Only the "always" answer is reported back to the gate.
    assert_eq!(
        *gate.remembered.lock().unwrap(),
        vec!["ask_confined".to_owned()]
    );
}

#[tokio::test]
async fn only_a_persons_answer_widens_the_confinement() {
    let asker = Arc::new(Scripted {
        answers: vec![Answer::approve().with_confinement(Confinement::FullAccess)],
        seen: Mutex::new(Vec::new()),
    });
    let invoker = Invoker::default()
        .with_gate(Arc::new(ByName::default()))
        .with_asker(asker);
    let out = invoker
        .invoke_batch(
            &offered(),
            &calls(&["ask_confined", "confined"]),
            &ToolContext::new(),
        )
        .await;
    assert_eq!(out[0].content, "full_access");
    assert_eq!(out[1].content, "workspace_write");
}

#[tokio::test]
async fn an_ask_without_an_asker_does_not_run() {
    let invoker = Invoker::default().with_gate(Arc::new(ByName::default()));
    let out = invoker
        .invoke(
            &offered(),
            &ToolCall::new("t____ask", ""),
            &ToolContext::new(),
        )
        .await;
    assert_eq!(out.error_code().unwrap(), "approval_required");
    assert_eq!(out.state.unwrap()["type"], "approval_required");
}

#[tokio::test]
async fn missing_answers_count_as_declined() {
    let asker = Arc::new(Scripted {
        answers: Vec::new(),
        seen: Mutex::new(Vec::new()),
    });
    let invoker = Invoker::default()
        .with_gate(Arc::new(ByName::default()))
        .with_asker(asker);
    let out = invoker
        .invoke(
            &offered(),
            &ToolCall::new("t____ask", ""),
            &ToolContext::new(),
        )
        .await;
    assert_eq!(out.error_code().unwrap(), "declined_by_user");
}

#[tokio::test]
async fn a_call_the_gate_forgets_is_blocked_never_run() {
    let invoker = Invoker::default()
        .with_gate(Arc::new(ByName::default()))
        .with_asker(Arc::new(ApproveAll));
    let out = invoker
        .invoke_batch(
            &offered(),
            &calls(&["run", "lose", "run"]),
            &ToolContext::new(),
        )
        .await;
    assert_eq!(out.len(), 3);
    assert_eq!(out[0].content, "none");
    assert_eq!(out[1].error_code().unwrap(), "blocked_by_security_privacy");
    assert_eq!(out[2].error_code().unwrap(), "blocked_by_security_privacy");
}

#[tokio::test(start_paused = true)]
async fn an_unanswered_ask_ends_at_the_contexts_deadline() {
    let invoker = Invoker::default()
        .with_gate(Arc::new(ByName::default()))
        .with_asker(Arc::new(Silent));
    let ctx = ToolContext::new().with_timeout(Duration::from_secs(5));
    let out = invoker
        .invoke_batch(&offered(), &calls(&["ask", "run"]), &ctx)
        .await;
    assert_eq!(out[0].error_code().unwrap(), "declined_by_user");
    assert!(out[0].content.contains("deadline"));
    assert_eq!(out[1].content, "none");
}

#[tokio::test]
async fn without_a_gate_everything_prepared_runs_as_before() {
    let out = Invoker::default()
        .invoke_batch(&offered(), &calls(&["block", "ask"]), &ToolContext::new())
        .await;
    assert!(out.iter().all(ToolOutput::is_success));
    assert!(out.iter().all(|o| o.content == "none"));
}

#[tokio::test]
async fn blocked_and_declined_outputs_reach_each_provider_as_failures() {
    let invoker = Invoker::default()
        .with_gate(Arc::new(ByName::default()))
        .with_asker(Arc::new(tool_core::approval::DeclineAll));
    let batch: Vec<ToolCall> = calls(&["block", "ask"])
        .into_iter()
        .enumerate()
        .map(|(i, c)| c.with_id(format!("call_{i}")))
        .collect();
    let out = invoker
        .invoke_batch(&offered(), &batch, &ToolContext::new())
        .await;
    let anthropic = tool_core::ProviderFormat::Anthropic
        .tool_results(&batch, &out)
        .unwrap();
    let blocks = anthropic[0]["content"].as_array().unwrap();
    assert!(blocks.iter().all(|b| b["is_error"] == true));
    let chat = tool_core::ProviderFormat::OpenAiChat
        .tool_results(&batch, &out)
        .unwrap();
    assert_eq!(chat[0]["content"], "Blocked by security/privacy.");
    assert!(chat[1]["content"].as_str().unwrap().contains("declined"));
}
