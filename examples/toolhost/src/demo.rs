//! `toolhost demo`: a guided walk, offline, no setup.

use serde_json::{Value, json};
use tool_core::{
    ApiDefinition, Invoker, NameRules, ToolBuilder, ToolCall, ToolContext, ToolOutput,
    ToolRegistry, wire_name,
};

use crate::{Failure, builtin};

struct Walk {
    steps: Vec<Value>,
}

impl Walk {
    fn step(&mut self, title: &str, explanation: &str, result: Value) {
        self.steps
            .push(json!({"step": title, "explanation": explanation, "result": result}));
    }
}

/// Runs the demo; `text` renders prose instead of JSON.
pub async fn run(text: bool) -> Result<Value, Failure> {
    let internal = |e: tool_core::Error| Failure::Source(format!("demo setup: {e}"));
    let mut registry = ToolRegistry::new();
    registry
        .register(builtin::calculator::tool().map_err(internal)?)
        .map_err(internal)?;
    registry
        .register(builtin::clock::tool().map_err(internal)?)
        .map_err(internal)?;
    let slow = ToolBuilder::new("slow")
        .api(
            ApiDefinition::new("wait", "Waits longer than its budget.")
                .with_default_timeout_ms(1_000),
            |_, ctx: ToolContext| async move {
                ctx.cancellation().cancelled().await;
                Ok(ToolOutput::text("never reached"))
            },
        )
        .build()
        .map_err(internal)?;
    registry.register(slow).map_err(internal)?;

    let ctx = ToolContext::new();
    let offered = registry.offer(&ctx);
    let invoker = Invoker::default();
    let mut walk = Walk { steps: Vec::new() };

    walk.step(
        "Offer tools to a model",
        "The registry exports the offered tools in each provider's shape; names are `identifier____apiName`.",
        json!(offered.openai_chat_tools().iter().map(|t| t["function"]["name"].clone()).collect::<Vec<_>>()),
    );
    let long = "a-very-long-mcp-server-name.example/with/slashes";
    let foreign_api = "读取文件";
    let mut foreign = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    let tool = ToolBuilder::new(long)
        .name_rules(NameRules::Foreign)
        .api(ApiDefinition::new(foreign_api, "Reads."), |_, _| async {
            Ok(ToolOutput::text(""))
        })
        .build()
        .map_err(internal)?;
    foreign.register(tool).map_err(internal)?;
    let foreign_name = wire_name(long, foreign_api);
    let round_trips = foreign
        .offer(&ctx)
        .resolve(&foreign_name)
        .map(|r| r.identifier() == long && r.api.name == foreign_api)
        .unwrap_or(false);
    walk.step(
        "Names that providers would reject",
        "Dots, slashes, non-ASCII and overlong names are shortened with a stable hash and resolved back through the registry.",
        json!({"identifier": long, "api": foreign_api, "wireName": foreign_name, "roundTrips": round_trips}),
    );
    let calls = [
        (
            "A successful call",
            "Content is compact text for the model; state is the structured value for a UI.",
            ToolCall::new(
                "calculator____evaluate",
                r#"{"expression": "2 * (3 + 4) ^ 2"}"#,
            ),
        ),
        (
            "Arguments cut off by the model",
            "Cut-off JSON is diagnosed as truncated and the tool is not run.",
            ToolCall::new("calculator____evaluate", r#"{"expression": "2 * (3"#),
        ),
        (
            "Arguments that break the schema",
            "Every violation is reported with its JSON pointer.",
            ToolCall::new(
                "calculator____evaluate",
                r#"{"expression": 42, "extra": true}"#,
            ),
        ),
        (
            "A tool error",
            "A tool's own failure keeps its specific code and tells the model what went wrong.",
            ToolCall::new("calculator____evaluate", r#"{"expression": "1 / (2 - 2)"}"#),
        ),
        (
            "A call past its time budget",
            "Budgets come from the call, the API default or 120 s, clamped to [1 s, 800 s].",
            ToolCall::new("slow____wait", "{}"),
        ),
        (
            "A name nobody offered",
            "Unknown names are typed errors, never guesses.",
            ToolCall::new("evaluat", "{}"),
        ),
    ];
    let batch: Vec<ToolCall> = calls.iter().map(|(_, _, call)| call.clone()).collect();
    let outputs = invoker.invoke_batch(&offered, &batch, &ctx).await;
    for ((title, explanation, call), output) in calls.iter().zip(outputs) {
        walk.step(title, explanation, json!({"call": call, "output": output}));
    }

    if text {
        let mut prose = String::new();
        for (index, step) in walk.steps.iter().enumerate() {
            prose.push_str(&format!(
                "{}. {}\n   {}\n   {}\n\n",
                index + 1,
                step["step"].as_str().unwrap_or_default(),
                step["explanation"].as_str().unwrap_or_default(),
                step["result"]
            ));
        }
        return Ok(Value::String(prose));
    }
    Ok(json!({ "demo": walk.steps }))
}
