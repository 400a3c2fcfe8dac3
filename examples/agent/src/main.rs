//! An agent loop over every kind of tool, against local fixtures: a typed
//! tool, `local-system`, an OpenAPI tool (its server runs here on 127.0.0.1),
//! server-everything over stdio and a skill folder; approval by tool-approval's
//! `PolicyEngine` with a person who answers; OpenAI Chat and Anthropic formats.
//!
//! THE MODEL IS A STAND-IN: [`SCRIPT`], a fixed list of tool calls, becomes
//! each provider's assistant message as a real model would send it. A real
//! host sends `system` and `tools` to its provider and reads its answer here.
//!
//! Run: `bash .ci/setup.d/30-mcp.sh && cargo run -p agent [SERVER_EVERYTHING_JS]`.
//! stdout: each provider's request body (system, tools, messages); stderr narrates.

mod fixtures;

use std::sync::Arc;

use anyhow::Context as _;
use serde_json::json;
use tool_approval::{ApprovalMode, PolicyEngine};
use tool_core::prelude::*;
use tool_mcp::{McpManager, McpProvider, McpServerConfig, McpTransport};
use tool_openapi::{ImportOptions, OpenApiTool, SsrfGuard, SsrfPolicy, load_document};
use tool_runtime::{LocalComputer, LocalConfig};
use tool_skills::{LoadOptions, SkillSource, SkillsTool};

/// The stand-in model: one line per call (`wire_name arguments`), one list per turn.
const SCRIPT: &[&[&str]] = &[
    &[r#"units____convert {"value": 10, "from": "KM", "to": "mi"}"#], // outside the enum
    &[
        r#"units____convert {"value": 10, "from": "km", "to": "mi"}"#, // corrected
        r#"skills____activateSkill {"name": "unit-conversion"}"#,
    ],
    &[
        r#"local-system____readFile {"path": "notes.txt"}"#,
        r#"local-system____writeFile {"path": "../outside.txt", "content": "x"}"#, // asks
        r#"weather____forecast {"city": "Oslo"}"#,
    ],
    &[
        r#"everything____echo {"message": "hello from the agent"}"#,
        r#"everything____get-tiny-image {}"#, // an image, for the model to see
        r#"local-system____readFile {"path": "../outside.txt"}"#, // the write never ran
    ],
];

#[derive(schemars::JsonSchema, serde::Deserialize)]
struct Convert {
    /// The amount to convert.
    value: f64,
    /// Its unit.
    from: Unit,
    /// The unit wanted.
    to: Unit,
}

#[derive(schemars::JsonSchema, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Km,
    Mi,
}

/// The person at the keyboard, scripted too: says yes to everything but writes.
struct Person;

#[async_trait::async_trait]
impl Asker for Person {
    async fn ask(&self, asks: &[Ask<'_>], _ctx: &ToolContext) -> Vec<Answer> {
        let answer = |ask: &Ask<'_>| match ask.call.api_key().api() {
            "writeFile" => Answer::decline_because("not outside the project"),
            _ => Answer::approve(),
        };
        asks.iter().map(answer).collect()
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let (_scratch, project) = fixtures::scratch()?;

    let mut registry = ToolRegistry::new();
    let convert = ApiDefinition::new("convert", "Converts a length between km and mi.");
    let units = ToolBuilder::new("units").typed(convert, |args: Convert, _| async move {
        let factor = match (args.from, args.to) {
            (Unit::Km, Unit::Mi) => 0.621_371,
            (Unit::Mi, Unit::Km) => 1.609_344,
            _ => 1.0,
        };
        Ok(ToolOutput::text(format!("{:.2}", args.value * factor)))
    });
    registry.register(units.build()?)?;
    let computer = LocalComputer::new(LocalConfig::default());
    registry.register(tool_runtime::local_system_tool(computer))?;

    let options = ImportOptions::new().server(fixtures::serve_weather().await?);
    let loaded = load_document(fixtures::WEATHER_API, &options)?;
    let guard = SsrfGuard::new(SsrfPolicy::default().allow("127.0.0.1")?);
    let weather = OpenApiTool::builder(loaded.into_document(), "weather").guard(guard);
    weather.register(&mut registry)?;

    let skills_dir = SkillSource::dir("examples", fixtures::SKILLS);
    let skills = SkillsTool::load([skills_dir], LoadOptions::default());
    let loaded = registry.register_all(skills.into_tools());
    anyhow::ensure!(loaded.is_complete(), "{:?}", loaded.failed());

    let manager = Arc::new(McpManager::default());
    let stdio = McpTransport::stdio("node", [fixtures::everything_js(), "stdio".into()]);
    manager.upsert(McpServerConfig::new("everything", stdio))?;
    let servers = McpProvider::new(manager).load_all().await.into_partial();
    let servers = servers.into_complete().context("run 30-mcp.sh")?;
    let loaded = registry.register_all(servers);
    anyhow::ensure!(loaded.is_complete(), "{:?}", loaded.failed());

    // One invoker: the engine decides each call, the person answers its asks.
    let engine = PolicyEngine::builder().mode(ApprovalMode::Manual).build()?;
    let invoker = Invoker::default()
        .with_gate(Arc::new(engine))
        .with_asker(Arc::new(Person));
    let ctx = ToolContext::new().with_cwd(&project);
    let offered = registry.offer(&ctx);

    let mut conversations = serde_json::Map::new();
    for format in [ProviderFormat::OpenAiChat, ProviderFormat::Anthropic] {
        eprintln!("== {}", format.as_str());
        let mut messages = Vec::new();
        for turn in SCRIPT {
            let planned: Vec<ToolCall> = turn.iter().map(|line| stand_in(line)).collect();
            let answer = format.assistant_calls(&planned)?; // what the provider sends
            let calls = format.tool_calls(&answer[0])?; // what the host reads from it
            let outputs = invoker.invoke_batch(&offered, &calls, &ctx).await;
            for (call, out) in calls.iter().zip(&outputs) {
                let first_line = out.content.lines().next().unwrap_or("");
                eprintln!("{} -> {first_line}", call.name);
            }
            messages.extend(answer);
            messages.extend(format.tool_results(&calls, &outputs)?);
        }
        let tools = format.tools(&offered); // a request's body: system, tools, messages
        let body = json!({"system": offered.system_prompt(), "tools": tools, "messages": messages});
        conversations.insert(format.as_str().into(), body);
    }
    let text = serde_json::to_string_pretty(&conversations)? + "\n";
    std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes())?; // an error, not a panic, for `| head`
    Ok(())
}

/// One line of [`SCRIPT`] as a call with an id, as a provider would make it.
fn stand_in(line: &str) -> ToolCall {
    let (name, arguments) = line.split_once(' ').unwrap_or((line, "{}"));
    ToolCall::new(name, arguments).with_id(tool_core::pipeline::mint_call_id())
}
