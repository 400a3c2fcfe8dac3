//! The conformance fixtures of the tasks extension's scenarios (SEP-2663):
//! `greet` (called at once), `slow_compute` (a task when the client
//! declared the extension, `seconds` long), `failing_job` (only as a
//! task; its tool reports a failure after a second),
//! `protocol_error_job` (a task whose tool panics), `confirm_delete` (a
//! task that asks the user once), `multi_input` (a task that asks two
//! questions at once) and `test_tool_with_task` (only as a task; on
//! 2026-07-28 it asks the user's name by `input_required` first and
//! becomes a task once answered). Their task support is [`TASK_TOOLS`],
//! given to tool-mcp's `RegistryServer::with_task_tools`; the tools that
//! ask before they become a task are [`ASK_FIRST`].

use std::time::Duration;

use serde_json::{Value, json};
use tool_core::{
    ApiDefinition, Elicitation, Elicited, HumanIntervention, InterventionPolicy, ToolBuilder,
    ToolContext, ToolError, ToolOutput,
};
use tool_mcp::{ClientAsk, ClientLine, ClientReply, TaskSupport};

/// The task support of the fixtures, by the bare names the suite calls.
pub const TASK_TOOLS: [(&str, TaskSupport); 6] = [
    ("slow_compute", TaskSupport::Optional),
    ("test_tool_with_task", TaskSupport::Required),
    ("failing_job", TaskSupport::Required),
    ("protocol_error_job", TaskSupport::Optional),
    ("confirm_delete", TaskSupport::Optional),
    ("multi_input", TaskSupport::Optional),
];

/// The task tools that ask before they become a task
/// (`RegistryServer::with_questions_before_task`).
pub const ASK_FIRST: [&str; 1] = ["test_tool_with_task"];

/// What `protocol_error_job` does: panic (tool-core catches it).
#[allow(clippy::panic)]
fn panics() -> ToolError {
    panic!("protocol_error_job panics by design")
}

/// Asks the client `message` under `key`, in a form of `fields`; the
/// accepted answer's text, or what the user did instead.
async fn ask(
    ctx: &ToolContext,
    key: &str,
    message: &str,
    fields: Value,
) -> Result<String, ToolError> {
    let line = ClientLine::of(ctx).ok_or_else(|| {
        ToolError::execution_failed("this tool asks an MCP client: serve it over MCP")
    })?;
    let question = Elicitation::new(message, json!({"type": "object", "properties": fields}));
    match line.ask(key, ClientAsk::Elicit(question), ctx).await {
        Ok(ClientReply::Elicited(Elicited::Accept(content))) => Ok(content.to_string()),
        Ok(other) => Ok(format!("{other:?}")),
        Err(error) => Err(ToolError::execution_failed(error.to_string())),
    }
}

/// The longest `slow_compute` (a suite asking for more gets this).
const MAX_SECONDS: f64 = 60.0;

fn api(name: &str, description: &str, parameters: serde_json::Value) -> ApiDefinition {
    ApiDefinition::new(name, description)
        .with_parameters(parameters)
        .with_intervention(HumanIntervention::Policy(InterventionPolicy::Never))
}

/// The fixture tool of the tasks scenarios.
pub fn tasks_tool() -> Result<std::sync::Arc<dyn tool_core::Tool>, tool_core::Error> {
    let tool = ToolBuilder::new("conformance_tasks")
        .api(
            api(
                "greet",
                "Greets by name, at once.",
                json!({"type": "object", "properties": {"name": {"type": "string"}}}),
            ),
            |args, _| async move {
                let name = args["name"].as_str().unwrap_or("world");
                Ok(ToolOutput::text(format!("Hello, {name}!")))
            },
        )
        .api(
            api(
                "slow_compute",
                "Sleeps `seconds`, then answers (a task when the client takes tasks).",
                json!({"type": "object", "properties": {
                    "seconds": {"type": "number", "minimum": 0},
                    "label": {"type": "string"}
                }}),
            ),
            |args, _| async move {
                let seconds = args["seconds"]
                    .as_f64()
                    .unwrap_or(1.0)
                    .clamp(0.0, MAX_SECONDS);
                tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
                let label = args["label"].as_str().unwrap_or("compute");
                Ok(ToolOutput::text(format!("{label}: done after {seconds} s")))
            },
        )
        .api(
            api(
                "failing_job",
                "Fails after a second (only as a task).",
                json!({"type": "object", "properties": {}}),
            ),
            |_, _| async {
                tokio::time::sleep(Duration::from_secs(1)).await;
                Err::<ToolOutput, _>(ToolError::execution_failed(
                    "the job failed, as it always does",
                ))
            },
        )
        .api(
            api(
                "protocol_error_job",
                "Panics (a task).",
                json!({"type": "object", "properties": {}}),
            ),
            |_, _| async { Err::<ToolOutput, _>(panics()) },
        )
        .api(
            api(
                "confirm_delete",
                "Asks before deleting `filename` (deletes nothing).",
                json!({"type": "object", "properties": {"filename": {"type": "string"}}}),
            ),
            |args, ctx| async move {
                let file = args["filename"].as_str().unwrap_or("the file").to_owned();
                let fields = json!({"confirm": {"type": "boolean"}});
                let answer = ask(&ctx, "confirm", &format!("Delete {file}?"), fields).await?;
                Ok(ToolOutput::text(format!("{file}: {answer}")))
            },
        )
        .api(
            api(
                "multi_input",
                "Asks two questions at once.",
                json!({"type": "object", "properties": {}}),
            ),
            |_, ctx| async move {
                let fields = || json!({"name": {"type": "string"}, "confirm": {"type": "boolean"}});
                let (first, second) = tokio::join!(
                    ask(&ctx, "first", "First name?", fields()),
                    ask(&ctx, "second", "Second name?", fields()),
                );
                Ok(ToolOutput::text(format!("{}; {}", first?, second?)))
            },
        )
        .api(
            api(
                "test_tool_with_task",
                "Asks the user's name, then works on it as a task (only as a task).",
                json!({"type": "object", "properties": {}}),
            ),
            |_, ctx| async move {
                let fields = json!({"name": {"type": "string"}});
                let answer = ask(&ctx, "user_name", "What is your name?", fields).await?;
                let name = serde_json::from_str::<Value>(&answer)
                    .ok()
                    .and_then(|v| v["name"].as_str().map(str::to_owned))
                    .unwrap_or(answer);
                // The long part: from here on a task.
                if let Some(line) = ClientLine::of(&ctx) {
                    line.start_task().await;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
                Ok(ToolOutput::text(format!("Worked for {name}.")))
            },
        )
        .build()?;
    Ok(std::sync::Arc::new(tool))
}
