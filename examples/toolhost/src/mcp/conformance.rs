//! `toolhost mcp serve --conformance-fixtures`: the tools the official MCP
//! conformance suite's server scenarios call by name (`test_simple_text`,
//! `test_image_content`, `test_elicitation`, …), written on tool-core's
//! `ToolContext` like any tool: content parts for images, audio and
//! resources, `ctx.log` / `ctx.progress` for the logging and progress
//! scenarios, `ctx.elicit` for the elicitation ones. Served with
//! `--bare-names` the suite finds them under the names it expects.

use std::time::Duration;

use serde_json::{Value, json};
use tool_core::{
    ApiDefinition, ContentPart, Elicitation, Elicited, HumanIntervention, InterventionPolicy,
    LogLevel, Progress, Tool, ToolBuilder, ToolContext, ToolError, ToolOutput,
};

/// The fixture tool's identifier.
pub const IDENTIFIER: &str = "conformance";

/// A 1x1 red PNG.
const IMAGE_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A minimal WAV file.
const AUDIO_WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// The pause between the log lines and progress steps the scenarios expect.
const STEP: Duration = Duration::from_millis(50);

fn no_arguments() -> Value {
    json!({"type": "object", "properties": {}})
}

fn api(name: &str, description: &str) -> ApiDefinition {
    ApiDefinition::new(name, description)
        .with_parameters(no_arguments())
        .with_intervention(HumanIntervention::Policy(InterventionPolicy::Never))
}

fn resource(uri: &str, mime_type: &str, text: &str) -> ContentPart {
    ContentPart::Resource {
        uri: uri.into(),
        mime_type: Some(mime_type.into()),
        text: Some(text.into()),
        blob: None,
    }
}

/// The text the elicitation scenarios expect back.
fn elicited_text(prefix: &str, answer: &Elicited) -> String {
    let (action, content) = match answer {
        Elicited::Accept(content) => ("accept", content.clone()),
        Elicited::Decline => ("decline", json!({})),
        Elicited::Cancel => ("cancel", json!({})),
        _ => ("unsupported", json!({})),
    };
    format!("{prefix}: action={action}, content={content}")
}

async fn ask(ctx: &ToolContext, message: &str, schema: Value, prefix: &str) -> ToolOutput {
    let answer = ctx.elicit(Elicitation::new(message, schema)).await;
    ToolOutput::text(elicited_text(prefix, &answer))
}

/// The SEP-1034 form: a default for every primitive type.
fn defaults_schema() -> Value {
    json!({"type": "object", "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {"type": "string", "description": "User status",
                   "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "description": "Verification status", "default": true}
    }, "required": []})
}

/// The SEP-1330 forms: untitled, titled and legacy single-select,
/// untitled and titled multi-select.
fn enums_schema() -> Value {
    json!({"type": "object", "properties": {
        "untitledSingle": {"type": "string", "description": "Select one option",
                           "enum": ["option1", "option2", "option3"]},
        "titledSingle": {"type": "string", "description": "Select one option with titles",
                         "oneOf": [{"const": "value1", "title": "First Option"},
                                   {"const": "value2", "title": "Second Option"},
                                   {"const": "value3", "title": "Third Option"}]},
        "legacyEnum": {"type": "string", "description": "Select one option (legacy)",
                       "enum": ["opt1", "opt2", "opt3"],
                       "enumNames": ["Option One", "Option Two", "Option Three"]},
        "untitledMulti": {"type": "array", "description": "Select multiple options",
                          "minItems": 1, "maxItems": 3,
                          "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
        "titledMulti": {"type": "array", "description": "Select multiple options with titles",
                        "minItems": 1, "maxItems": 3,
                        "items": {"anyOf": [{"const": "value1", "title": "First Choice"},
                                            {"const": "value2", "title": "Second Choice"},
                                            {"const": "value3", "title": "Third Choice"}]}}
    }, "required": []})
}

/// The conformance fixture tool: one API per tool the suite calls.
pub fn fixture_tool() -> Result<std::sync::Arc<dyn Tool>, tool_core::Error> {
    let tool = ToolBuilder::new(IDENTIFIER)
        .api(api("test_simple_text", "Returns simple text."), |_, _| async {
            Ok(ToolOutput::text("This is a simple text response for testing."))
        })
        .api(api("test_image_content", "Returns an image."), |_, _| async {
            Ok(ToolOutput::text("A 1x1 red PNG.")
                .with_parts([ContentPart::image_base64("image/png", IMAGE_PNG)]))
        })
        .api(api("test_audio_content", "Returns audio."), |_, _| async {
            Ok(ToolOutput::text("A short WAV.")
                .with_parts([ContentPart::audio_base64("audio/wav", AUDIO_WAV)]))
        })
        .api(api("test_embedded_resource", "Returns an embedded resource."), |_, _| async {
            Ok(ToolOutput::text("An embedded resource.").with_parts([resource(
                "test://embedded-resource",
                "text/plain",
                "This is an embedded resource content.",
            )]))
        })
        .api(
            api("test_multiple_content_types", "Returns text, an image and a resource."),
            |_, _| async {
                Ok(ToolOutput::text("Multiple content types test:").with_parts([
                    ContentPart::image_base64("image/png", IMAGE_PNG),
                    resource(
                        "test://mixed-content-resource",
                        "application/json",
                        r#"{"test":"data","value":123}"#,
                    ),
                ]))
            },
        )
        .api(api("test_tool_with_logging", "Logs three lines while it runs."), |_, ctx| async move {
            ctx.log(LogLevel::Info, "Tool execution started");
            tokio::time::sleep(STEP).await;
            ctx.log(LogLevel::Info, "Tool processing data");
            tokio::time::sleep(STEP).await;
            ctx.log(LogLevel::Info, "Tool execution completed");
            Ok(ToolOutput::text("Tool with logging executed successfully"))
        })
        .api(api("test_tool_with_progress", "Reports progress 0, 50, 100 of 100."), |_, ctx| async move {
            for (i, step) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                if i > 0 {
                    tokio::time::sleep(STEP).await;
                }
                ctx.progress(Progress::of(step, 100.0));
            }
            Ok(ToolOutput::text("Tool with progress executed successfully"))
        })
        .api(api("test_error_handling", "Always fails."), |_, _| async {
            Err::<ToolOutput, _>(ToolError::execution_failed(
                "This tool intentionally returns an error for testing",
            ))
        })
        .api(
            api("test_elicitation", "Asks the user for a username and an email.").with_parameters(json!({
                "type": "object",
                "properties": {"message": {"type": "string", "description": "The message to show the user"}},
                "required": ["message"]
            })),
            |args, ctx| async move {
                let message = args
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("Please provide your information")
                    .to_owned();
                let schema = json!({"type": "object", "properties": {
                    "username": {"type": "string", "description": "User's response"},
                    "email": {"type": "string", "description": "User's email address"}
                }, "required": ["username", "email"]});
                Ok(ask(&ctx, &message, schema, "User response").await)
            },
        )
        .api(
            api("test_elicitation_sep1034_defaults", "Asks with a default for every primitive type (SEP-1034)."),
            |_, ctx| async move {
                Ok(ask(&ctx, "Please review and update the form fields with defaults", defaults_schema(), "Elicitation completed").await)
            },
        )
        .api(
            api("test_elicitation_sep1330_enums", "Asks with every enum form (SEP-1330)."),
            |_, ctx| async move {
                Ok(ask(&ctx, "Please select options from the enum fields", enums_schema(), "Elicitation completed").await)
            },
        )
        .api(
            api("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features (SEP-1613).").with_parameters(json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {"address": {"type": "object", "properties": {
                    "street": {"type": "string"}, "city": {"type": "string"}
                }}},
                "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
                "additionalProperties": false
            })),
            |args, _| async move {
                Ok(ToolOutput::text(format!("JSON Schema 2020-12 tool called with: {args}")))
            },
        )
        .build()?;
    Ok(std::sync::Arc::new(tool))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fixture_builds_with_every_scenario_tool() {
        let tool = fixture_tool().unwrap();
        for name in [
            "test_simple_text",
            "test_image_content",
            "test_tool_with_progress",
            "test_elicitation_sep1330_enums",
            "json_schema_2020_12_tool",
        ] {
            assert!(tool.manifest().api(name).is_some(), "{name}");
        }
    }

    #[test]
    fn elicitation_answers_read_as_the_suite_expects() {
        assert_eq!(
            elicited_text("User response", &Elicited::Accept(json!({"username": "u"}))),
            r#"User response: action=accept, content={"username":"u"}"#
        );
    }
}
