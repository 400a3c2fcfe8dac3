//! `toolhost mcp serve --conformance-fixtures`: the tools the official MCP
//! conformance suite's server scenarios call by name (`test_simple_text`,
//! `test_image_content`, `test_elicitation`, …), written on tool-core's
//! `ToolContext` like any tool: content parts for images, audio and
//! resources, `ctx.log` / `ctx.progress` for the logging and progress
//! scenarios, `ctx.elicit` for the elicitation ones. Served with
//! `--bare-names` the suite finds them under the names it expects. The
//! resources and prompts of the `resources-*` / `prompts-*` scenarios are
//! [`FixtureLibrary`], served through tool-mcp's resource and prompt sources.

use std::time::Duration;

use serde_json::{Map, Value, json};
use tool_core::{
    ApiDefinition, ContentPart, Elicitation, Elicited, HumanIntervention, InterventionPolicy,
    LogLevel, Progress, Tool, ToolBuilder, ToolContext, ToolError, ToolOutput,
};
use tool_mcp::rmcp::model::{
    ContentBlock, GetPromptResult, Prompt, PromptArgument, PromptMessage, Resource,
    ResourceContents, ResourceTemplate, Role,
};
use tool_mcp::{ClientLine, PromptSource, ResourceSource, SourceError};

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

/// The resources and prompts of the suite's `resources-*` and `prompts-*`
/// server scenarios, served with `--conformance-fixtures`.
pub struct FixtureLibrary;

/// One listed fixture resource: URI, name, MIME type, text or base64 blob.
struct FixtureResource {
    uri: &'static str,
    name: &'static str,
    mime_type: &'static str,
    text: Option<&'static str>,
    blob: Option<&'static str>,
}

const FIXTURE_RESOURCES: &[FixtureResource] = &[
    FixtureResource {
        uri: "test://static-text",
        name: "static-text",
        mime_type: "text/plain",
        text: Some("This is the content of the static text resource."),
        blob: None,
    },
    FixtureResource {
        uri: "test://static-binary",
        name: "static-binary",
        mime_type: "image/png",
        text: None,
        blob: Some(IMAGE_PNG),
    },
];

/// The fixture template: `test://template/{id}/data`.
const TEMPLATE_PREFIX: &str = "test://template/";
const TEMPLATE_SUFFIX: &str = "/data";

/// One fixture prompt: name, description, its (required) arguments.
struct FixturePrompt {
    name: &'static str,
    description: &'static str,
    arguments: &'static [(&'static str, &'static str)],
}

const FIXTURE_PROMPTS: &[FixturePrompt] = &[
    FixturePrompt {
        name: "test_simple_prompt",
        description: "A simple prompt without arguments",
        arguments: &[],
    },
    FixturePrompt {
        name: "test_prompt_with_arguments",
        description: "A prompt with two required arguments",
        arguments: &[
            ("arg1", "First test argument"),
            ("arg2", "Second test argument"),
        ],
    },
    FixturePrompt {
        name: "test_prompt_with_embedded_resource",
        description: "A prompt that embeds a resource",
        arguments: &[("resourceUri", "URI of the resource to embed")],
    },
    FixturePrompt {
        name: "test_prompt_with_image",
        description: "A prompt with an image",
        arguments: &[],
    },
    FixturePrompt {
        name: super::conformance_rounds::ASKING_PROMPT,
        description: "A prompt that asks the user for its context",
        arguments: &[],
    },
];

#[async_trait::async_trait]
impl ResourceSource for FixtureLibrary {
    async fn list(&self) -> Result<Vec<Resource>, SourceError> {
        Ok(FIXTURE_RESOURCES
            .iter()
            .map(|r| {
                Resource::new(r.uri, r.name)
                    .with_description(format!("Conformance fixture {}", r.name))
                    .with_mime_type(r.mime_type)
            })
            .collect())
    }

    async fn read(&self, uri: &str) -> Result<Vec<ResourceContents>, SourceError> {
        if let Some(r) = FIXTURE_RESOURCES.iter().find(|r| r.uri == uri) {
            let contents = match (r.text, r.blob) {
                (Some(text), _) => ResourceContents::TextResourceContents {
                    uri: uri.to_owned(),
                    mime_type: Some(r.mime_type.into()),
                    text: text.into(),
                    meta: None,
                },
                (None, blob) => ResourceContents::BlobResourceContents {
                    uri: uri.to_owned(),
                    mime_type: Some(r.mime_type.into()),
                    blob: blob.unwrap_or_default().into(),
                    meta: None,
                },
            };
            return Ok(vec![contents]);
        }
        let id = uri
            .strip_prefix(TEMPLATE_PREFIX)
            .and_then(|rest| rest.strip_suffix(TEMPLATE_SUFFIX))
            .filter(|id| !id.is_empty() && !id.contains('/'))
            .ok_or_else(|| SourceError::no_resource(uri))?;
        Ok(vec![ResourceContents::TextResourceContents {
            uri: uri.to_owned(),
            mime_type: Some("application/json".into()),
            text: json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")})
                .to_string(),
            meta: None,
        }])
    }

    async fn templates(&self) -> Result<Vec<ResourceTemplate>, SourceError> {
        Ok(vec![
            ResourceTemplate::new(
                format!("{TEMPLATE_PREFIX}{{id}}{TEMPLATE_SUFFIX}"),
                "template-data",
            )
            .with_description("Data for an id")
            .with_mime_type("application/json"),
        ])
    }
}

#[async_trait::async_trait]
impl PromptSource for FixtureLibrary {
    async fn list(&self) -> Result<Vec<Prompt>, SourceError> {
        Ok(FIXTURE_PROMPTS
            .iter()
            .map(|p| {
                let arguments = p
                    .arguments
                    .iter()
                    .map(|(name, description)| {
                        PromptArgument::new(*name)
                            .with_description(*description)
                            .with_required(true)
                    })
                    .collect();
                Prompt::new(p.name, Some(p.description), Some(arguments))
            })
            .collect())
    }

    async fn get(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
    ) -> Result<GetPromptResult, SourceError> {
        let prompt = FIXTURE_PROMPTS
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| SourceError::no_prompt(name))?;
        let mut values = Vec::new();
        for (argument, _) in prompt.arguments {
            let value = arguments
                .get(*argument)
                .and_then(Value::as_str)
                .ok_or_else(|| SourceError::InvalidArguments {
                    prompt: name.to_owned(),
                    message: format!("`{argument}` (a string) is required"),
                })?;
            values.push(value.to_owned());
        }
        let user = |content: ContentBlock| PromptMessage::new(Role::User, content);
        if name == super::conformance_rounds::ASKING_PROMPT {
            return Err(SourceError::Failed(format!(
                "prompt `{name}` asks the client: it is rendered only over MCP"
            )));
        }
        let messages = match (name, values.as_slice()) {
            ("test_prompt_with_arguments", [arg1, arg2]) => vec![user(ContentBlock::text(
                format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"),
            ))],
            ("test_prompt_with_embedded_resource", [uri]) => vec![
                user(ContentBlock::resource(
                    ResourceContents::TextResourceContents {
                        uri: uri.clone(),
                        mime_type: Some("text/plain".into()),
                        text: "Embedded resource content for testing.".into(),
                        meta: None,
                    },
                )),
                user(ContentBlock::text(
                    "Please process the embedded resource above.",
                )),
            ],
            ("test_prompt_with_image", []) => vec![
                user(ContentBlock::image(IMAGE_PNG, "image/png")),
                user(ContentBlock::text("Please analyze the image above.")),
            ],
            _ => vec![user(ContentBlock::text(
                "This is a simple prompt for testing.",
            ))],
        };
        Ok(GetPromptResult::new(messages))
    }

    async fn get_asking(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
        client: &ClientLine,
        ctx: &ToolContext,
    ) -> Result<GetPromptResult, SourceError> {
        if name != super::conformance_rounds::ASKING_PROMPT {
            return self.get(name, arguments).await;
        }
        let text = super::conformance_rounds::asking_prompt(client, ctx)
            .await
            .map_err(|e| SourceError::Failed(e.to_string()))?;
        Ok(GetPromptResult::new(vec![PromptMessage::new(
            Role::User,
            ContentBlock::text(text),
        )]))
    }

    async fn complete(
        &self,
        prompt: &str,
        argument: &str,
        value: &str,
        _resolved: &Map<String, Value>,
    ) -> Result<Vec<String>, SourceError> {
        let prompt = FIXTURE_PROMPTS
            .iter()
            .find(|p| p.name == prompt)
            .ok_or_else(|| SourceError::no_prompt(prompt))?;
        if !prompt.arguments.iter().any(|(name, _)| *name == argument) {
            return Err(SourceError::InvalidArguments {
                prompt: prompt.name.to_owned(),
                message: format!("it has no argument `{argument}`"),
            });
        }
        Ok(COMPLETIONS
            .iter()
            .filter(|candidate| candidate.starts_with(value))
            .map(|candidate| (*candidate).to_owned())
            .collect())
    }
}

/// What the fixture prompts' arguments complete to (by prefix).
const COMPLETIONS: &[&str] = &["paris", "park", "party", "test", "testing"];

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

    #[tokio::test]
    async fn fixture_resources_are_read_by_uri_and_template() {
        let text = ResourceSource::read(&FixtureLibrary, "test://template/123/data")
            .await
            .unwrap();
        let ResourceContents::TextResourceContents { text, .. } = &text[0] else {
            panic!("{text:?}");
        };
        assert_eq!(
            serde_json::from_str::<Value>(text).unwrap(),
            json!({"id": "123", "templateTest": true, "data": "Data for ID: 123"})
        );
        for uri in [
            "test://template//data",
            "test://template/1/2/data",
            "test://nothing",
        ] {
            assert_eq!(
                ResourceSource::read(&FixtureLibrary, uri)
                    .await
                    .unwrap_err(),
                SourceError::no_resource(uri)
            );
        }
        let missing = PromptSource::get(&FixtureLibrary, "test_prompt_with_arguments", &Map::new())
            .await
            .unwrap_err();
        assert!(missing.to_string().contains("`arg1`"), "{missing}");
    }

    #[test]
    fn elicitation_answers_read_as_the_suite_expects() {
        assert_eq!(
            elicited_text("User response", &Elicited::Accept(json!({"username": "u"}))),
            r#"User response: action=accept, content={"username":"u"}"#
        );
    }
}
