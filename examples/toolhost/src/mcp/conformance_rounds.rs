//! The conformance fixtures that ask the client: the suite's
//! `input-required-result-*` tools and prompt (2026-07-28 multi-round-trip,
//! SEP-2322), `test_missing_capability` (a call needing a capability the
//! client did not declare) and `test_sampling` (2025-11-25 sampling), all
//! written on tool-mcp's [`ClientLine`]: the same tool asks by
//! `input_required` on 2026-07-28 and by a request on a 2025-11-25
//! session. The keys are the ones the suite expects.
#![allow(deprecated)] // Sampling and roots: current in both revisions served (see tool-mcp).

use serde_json::{Value, json};
use tool_core::{
    ApiDefinition, Elicitation, Elicited, HumanIntervention, InterventionPolicy, LogLevel,
    ToolBuilder, ToolContext, ToolError, ToolOutput,
};
use tool_mcp::rmcp::model::{CreateMessageRequestParams, CreateMessageResult, SamplingMessage};
use tool_mcp::{ClientAsk, ClientCapability, ClientLine, ClientReply};

fn api(name: &str, description: &str) -> ApiDefinition {
    ApiDefinition::new(name, description)
        .with_parameters(json!({"type": "object", "properties": {}}))
        .with_intervention(HumanIntervention::Policy(InterventionPolicy::Never))
}

fn line(ctx: &ToolContext) -> Result<ClientLine, ToolError> {
    ClientLine::of(ctx).ok_or_else(|| {
        ToolError::execution_failed("this tool asks an MCP client: serve it over MCP")
    })
}

fn failed(e: tool_mcp::Error) -> ToolError {
    ToolError::execution_failed(e.to_string())
}

/// A form question with one required property of `kind`.
fn question(message: &str, property: &str, kind: &str) -> ClientAsk {
    ClientAsk::Elicit(Elicitation::new(
        message,
        json!({"type": "object", "properties": {property: {"type": kind}}, "required": [property]}),
    ))
}

fn sample(prompt: &str, max_tokens: u32) -> ClientAsk {
    ClientAsk::Sample(Box::new(CreateMessageRequestParams::new(
        vec![SamplingMessage::user_text(prompt)],
        max_tokens,
    )))
}

/// The text of a reply, as the tool reports it.
fn shown(reply: &ClientReply) -> String {
    match reply {
        ClientReply::Elicited(Elicited::Accept(content)) => content.to_string(),
        ClientReply::Elicited(other) => format!("{other:?}"),
        ClientReply::Sampled(result) => sampled_text(result),
        ClientReply::Roots(roots) => {
            let uris: Vec<&str> = roots.roots.iter().map(|r| r.uri.as_str()).collect();
            format!("roots: {}", uris.join(", "))
        }
        _ => "an answer of another kind".into(),
    }
}

fn sampled_text(result: &CreateMessageResult) -> String {
    result
        .message
        .content
        .clone()
        .into_vec()
        .iter()
        .filter_map(|block| block.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn accepted_field(reply: &ClientReply, field: &str) -> String {
    match reply {
        ClientReply::Elicited(Elicited::Accept(content)) => content
            .get(field)
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
            .unwrap_or_default(),
        other => shown(other),
    }
}

/// The fixture tool of the asking scenarios.
pub fn rounds_tool() -> Result<std::sync::Arc<dyn tool_core::Tool>, tool_core::Error> {
    let tool = ToolBuilder::new("conformance_rounds")
        .api(
            api("test_input_required_result_elicitation", "Asks the user's name, then greets them."),
            |_, ctx| async move {
                let reply = line(&ctx)?
                    .ask("user_name", question("What is your name?", "name", "string"), &ctx)
                    .await
                    .map_err(failed)?;
                Ok(ToolOutput::text(format!("Hello, {}!", accepted_field(&reply, "name"))))
            },
        )
        .api(
            api("test_input_required_result_sampling", "Asks the client's model a question."),
            |_, ctx| async move {
                let reply = line(&ctx)?
                    .ask("capital_question", sample("What is the capital of France?", 100), &ctx)
                    .await
                    .map_err(failed)?;
                Ok(ToolOutput::text(format!("The model said: {}", shown(&reply))))
            },
        )
        .api(
            api("test_input_required_result_list_roots", "Lists the client's roots."),
            |_, ctx| async move {
                let reply = line(&ctx)?
                    .ask("client_roots", ClientAsk::ListRoots, &ctx)
                    .await
                    .map_err(failed)?;
                Ok(ToolOutput::text(shown(&reply)))
            },
        )
        .api(
            api("test_input_required_result_request_state", "Asks for a confirmation."),
            |_, ctx| async move {
                let reply = line(&ctx)?
                    .ask("confirm", question("Please confirm", "ok", "boolean"), &ctx)
                    .await
                    .map_err(failed)?;
                Ok(ToolOutput::text(format!("confirmed: {}", accepted_field(&reply, "ok"))))
            },
        )
        .api(
            api("test_input_required_result_tampered_state", "Asks for a confirmation (sealed state)."),
            |_, ctx| async move {
                let reply = line(&ctx)?
                    .ask("confirm", question("Please confirm", "ok", "boolean"), &ctx)
                    .await
                    .map_err(failed)?;
                Ok(ToolOutput::text(format!("confirmed: {}", accepted_field(&reply, "ok"))))
            },
        )
        .api(
            api("test_input_required_result_multiple_inputs", "Asks three things at once."),
            |_, ctx| async move {
                let line = line(&ctx)?;
                let (name, greeting, roots) = tokio::join!(
                    line.ask("user_name", question("What is your name?", "name", "string"), &ctx),
                    line.ask("greeting", sample("Generate a greeting", 50), &ctx),
                    line.ask("client_roots", ClientAsk::ListRoots, &ctx),
                );
                let (name, greeting, roots) = (
                    name.map_err(failed)?,
                    greeting.map_err(failed)?,
                    roots.map_err(failed)?,
                );
                Ok(ToolOutput::text(format!(
                    "name: {}; greeting: {}; {}",
                    accepted_field(&name, "name"),
                    shown(&greeting),
                    shown(&roots)
                )))
            },
        )
        .api(
            api("test_input_required_result_multi_round", "Asks two questions, one after the other."),
            |_, ctx| async move {
                let line = line(&ctx)?;
                let name = line
                    .ask("step1", question("Step 1: What is your name?", "name", "string"), &ctx)
                    .await
                    .map_err(failed)?;
                let color = line
                    .ask("step2", question("Step 2: What is your favorite color?", "color", "string"), &ctx)
                    .await
                    .map_err(failed)?;
                Ok(ToolOutput::text(format!(
                    "{} likes {}",
                    accepted_field(&name, "name"),
                    accepted_field(&color, "color")
                )))
            },
        )
        .api(
            api("test_input_required_result_capabilities", "Asks only what the client declared it can answer."),
            |_, ctx| async move {
                let line = line(&ctx)?;
                let mut said = Vec::new();
                let elicit = line.declares(ClientCapability::Elicitation);
                let sampling = line.declares(ClientCapability::Sampling);
                let (name, answer) = tokio::join!(
                    async {
                        if elicit {
                            Some(line.ask("user_name", question("What is your name?", "name", "string"), &ctx).await)
                        } else {
                            None
                        }
                    },
                    async {
                        if sampling {
                            Some(line.ask("capital_question", sample("What is the capital of France?", 100), &ctx).await)
                        } else {
                            None
                        }
                    },
                );
                for reply in [name, answer].into_iter().flatten() {
                    said.push(shown(&reply.map_err(failed)?));
                }
                if said.is_empty() {
                    said.push("the client declared neither elicitation nor sampling".into());
                }
                Ok(ToolOutput::text(said.join("; ")))
            },
        )
        .api(
            api("test_missing_capability", "Needs the client's model (sampling)."),
            |_, ctx| async move {
                let reply = line(&ctx)?
                    .ask("completion", sample("Say hello.", 20), &ctx)
                    .await
                    .map_err(failed)?;
                Ok(ToolOutput::text(shown(&reply)))
            },
        )
        .api(
            api("test_streaming_elicitation", "Asks the user a question while it runs."),
            |_, ctx| async move {
                let answer = ctx
                    .elicit(Elicitation::new(
                        "Continue?",
                        json!({"type": "object", "properties": {"ok": {"type": "boolean"}}}),
                    ))
                    .await;
                Ok(ToolOutput::text(format!("answered: {answer:?}")))
            },
        )
        .api(
            api("test_logging_tool", "Logs a line while it runs."),
            |_, ctx| async move {
                ctx.log(LogLevel::Info, "the logging tool ran");
                Ok(ToolOutput::text("logged"))
            },
        )
        .api(
            api("test_sampling", "Asks the client's model to answer a prompt.").with_parameters(json!({
                "type": "object",
                "properties": {"prompt": {"type": "string", "description": "The prompt to send to the LLM"}},
                "required": ["prompt"]
            })),
            |args: Value, ctx| async move {
                let prompt = args.get("prompt").and_then(Value::as_str).unwrap_or_default().to_owned();
                let reply = line(&ctx)?
                    .ask("sampling", sample(&prompt, 100), &ctx)
                    .await
                    .map_err(failed)?;
                Ok(ToolOutput::text(format!("LLM response: {}", shown(&reply))))
            },
        )
        .build()?;
    Ok(std::sync::Arc::new(tool))
}

/// The prompt of `input-required-result-non-tool-request`: asks the user
/// for its context while it is rendered.
pub const ASKING_PROMPT: &str = "test_input_required_result_prompt";

/// Renders [`ASKING_PROMPT`], asking the client for the context.
pub async fn asking_prompt(
    client: &ClientLine,
    ctx: &ToolContext,
) -> Result<String, tool_mcp::Error> {
    let reply = client
        .ask(
            "user_context",
            question("What context should the prompt use?", "context", "string"),
            ctx,
        )
        .await?;
    Ok(format!(
        "Use this context: {}",
        accepted_field(&reply, "context")
    ))
}
