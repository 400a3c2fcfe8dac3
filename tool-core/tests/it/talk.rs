//! Tools that talk while they run: progress and logs reach the host's
//! events, questions reach the invoker's asker, bounded by the deadline.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use tool_core::{
    Answer, ApiDefinition, Ask, Asker, CallEvents, Elicitation, Elicited, Invoker, LogLevel,
    Progress, ToolBuilder, ToolCall, ToolContext, ToolOutput, ToolRegistry,
};

#[derive(Default)]
struct Recorder {
    seen: Mutex<Vec<String>>,
}

impl CallEvents for Recorder {
    fn progress(&self, call_id: Option<&str>, progress: &Progress) {
        self.seen.lock().unwrap().push(format!(
            "{} progress {}/{}",
            call_id.unwrap_or("-"),
            progress.progress,
            progress.total.unwrap_or_default()
        ));
    }

    fn log(&self, call_id: Option<&str>, level: LogLevel, message: &str, _: Option<&Value>) {
        self.seen
            .lock()
            .unwrap()
            .push(format!("{} {level:?} {message}", call_id.unwrap_or("-")));
    }
}

/// Answers questions with the schema's defaults; approves asks.
struct Defaults;

#[async_trait]
impl Asker for Defaults {
    async fn ask(&self, asks: &[Ask<'_>], _: &ToolContext) -> Vec<Answer> {
        asks.iter().map(|_| Answer::approve()).collect()
    }

    async fn elicit(&self, question: &Elicitation, _: &ToolContext) -> Elicited {
        let mut answer = serde_json::Map::new();
        if let Some(props) = question.requested_schema["properties"].as_object() {
            for (name, schema) in props {
                if let Some(default) = schema.get("default") {
                    answer.insert(name.clone(), default.clone());
                }
            }
        }
        Elicited::Accept(Value::Object(answer))
    }
}

/// Never answers a question.
struct Slow;

#[async_trait]
impl Asker for Slow {
    async fn ask(&self, asks: &[Ask<'_>], _: &ToolContext) -> Vec<Answer> {
        asks.iter().map(|_| Answer::approve()).collect()
    }

    async fn elicit(&self, _: &Elicitation, _: &ToolContext) -> Elicited {
        futures::future::pending::<()>().await;
        Elicited::Decline
    }
}

fn registry() -> ToolRegistry {
    let tool = ToolBuilder::new("deploy")
        .api(
            ApiDefinition::new("run", "Deploys, asking which branch.")
                .with_default_timeout_ms(2_000),
            |_, ctx| async move {
                ctx.progress(Progress::of(1.0, 3.0));
                ctx.log(LogLevel::Info, "building");
                let answer = ctx
                    .elicit(Elicitation::new(
                        "Which branch?",
                        json!({"type": "object", "properties": {
                            "branch": {"type": "string", "enum": ["main", "dev"], "default": "main"}
                        }}),
                    ))
                    .await;
                ctx.progress(Progress::of(3.0, 3.0).with_message("done"));
                let text = match answer {
                    Elicited::Accept(v) => format!("deployed {}", v["branch"]),
                    other => format!("not deployed: {other:?}"),
                };
                Ok(ToolOutput::text(text))
            },
        )
        .build()
        .unwrap();
    let mut registry = ToolRegistry::new();
    registry.register(tool).unwrap();
    registry
}

#[tokio::test]
async fn progress_logs_and_questions_reach_the_host() {
    let events = Arc::new(Recorder::default());
    let ctx = ToolContext::new().with_events(events.clone());
    let registry = registry();
    let offered = registry.offer(&ctx);
    let invoker = Invoker::default().with_asker(Arc::new(Defaults));
    let call = ToolCall::new("deploy____run", "").with_id("c7");
    let out = invoker.invoke(&offered, &call, &ctx).await;
    assert_eq!(out.content, "deployed \"main\"");
    assert_eq!(
        *events.seen.lock().unwrap(),
        ["c7 progress 1/3", "c7 Info building", "c7 progress 3/3"]
    );
}

#[tokio::test]
async fn without_an_asker_a_question_is_unsupported() {
    let registry = registry();
    let ctx = ToolContext::new();
    let offered = registry.offer(&ctx);
    let out = Invoker::default()
        .invoke(&offered, &ToolCall::new("deploy____run", ""), &ctx)
        .await;
    assert_eq!(out.content, "not deployed: Unsupported");
}

#[tokio::test(start_paused = true)]
async fn an_unanswered_question_ends_at_the_calls_deadline() {
    let registry = registry();
    let ctx = ToolContext::new();
    let offered = registry.offer(&ctx);
    let call = ToolCall::new("deploy____run", "");
    let invoker = Invoker::default().with_asker(Arc::new(Slow));
    let out = tokio::time::timeout(
        Duration::from_secs(10),
        invoker.invoke(&offered, &call, &ctx),
    )
    .await
    .unwrap();
    // The question gave up at the deadline; the call itself then timed out
    // or finished with the cancelled answer, never hung.
    assert!(
        out.content == "not deployed: Cancel" || out.error_code().is_some_and(|c| c == "timeout"),
        "{out:?}"
    );
}
