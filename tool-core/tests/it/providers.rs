//! Provider messages both ways, on fixtures shaped like the providers' documented examples.

use serde_json::{Value, json};
use tool_core::{
    ApiDefinition, ContentPart, Error, Invoker, OfferedTools, ProviderFormat, ResultOptions,
    ToolBuilder, ToolCall, ToolContext, ToolError, ToolOutput, ToolRegistry,
    content::ChatAttachments,
};

fn fixture(name: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/providers")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn offered() -> OfferedTools {
    let weather = ToolBuilder::new("weather")
        .api(
            ApiDefinition::new("get_current_weather", "Current weather of a place.")
                .with_parameters(json!({
                    "type": "object",
                    "properties": {
                        "location": {"type": "string"},
                        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}
                    },
                    "required": ["location"]
                })),
            |args: Value, _| async move {
                let unit = args["unit"].as_str().unwrap_or("fahrenheit");
                Ok(ToolOutput::text(format!(
                    "{}: 22 degrees {unit}",
                    args["location"].as_str().unwrap_or_default()
                )))
            },
        )
        .build()
        .unwrap();
    let mut registry = ToolRegistry::new();
    registry.register(weather).unwrap();
    registry.offer(&ToolContext::new())
}

/// Provider answer → calls → Invoker → result messages, compared with the expected fixture.
async fn round_trip(format: ProviderFormat, answer: &str, expected: &str) -> Vec<ToolCall> {
    let offered = offered();
    let calls = format.tool_calls(&fixture(answer)).unwrap();
    let outputs = Invoker::default()
        .invoke_batch(&offered, &calls, &ToolContext::new())
        .await;
    let messages = format.tool_results(&calls, &outputs).unwrap();
    assert_eq!(Value::Array(messages), fixture(expected), "{format}");
    calls
}

#[tokio::test]
async fn openai_chat_round_trip_matches_the_documented_shapes() {
    let calls = round_trip(
        ProviderFormat::OpenAiChat,
        "openai_chat.completion.json",
        "openai_chat.tool_messages.json",
    )
    .await;
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].id.as_deref(), Some("call_abc123"));
    assert_eq!(
        calls[0].arguments, "{\n\"location\": \"Boston, MA\"\n}",
        "raw text kept"
    );
}

#[tokio::test]
async fn openai_responses_round_trip_matches_the_documented_shapes() {
    let calls = round_trip(
        ProviderFormat::OpenAiResponses,
        "openai_responses.response.json",
        "openai_responses.outputs.json",
    )
    .await;
    assert_eq!(
        calls[0].id.as_deref(),
        Some("call_unLAR8MvFNptuiZK6K6HCy5k"),
        "call_id, not id"
    );
}

#[tokio::test]
async fn anthropic_round_trip_matches_the_documented_shapes() {
    let calls = round_trip(
        ProviderFormat::Anthropic,
        "anthropic.message.json",
        "anthropic.tool_result.json",
    )
    .await;
    assert_eq!(calls.len(), 1, "the text block is skipped");
}

#[test]
fn the_message_alone_or_the_item_list_parse_like_the_whole_answer() {
    let completion = fixture("openai_chat.completion.json");
    let message = &completion["choices"][0]["message"];
    assert_eq!(
        ProviderFormat::OpenAiChat.tool_calls(message).unwrap(),
        ProviderFormat::OpenAiChat.tool_calls(&completion).unwrap()
    );
    let response = fixture("openai_responses.response.json");
    assert_eq!(
        ProviderFormat::OpenAiResponses
            .tool_calls(&response["output"])
            .unwrap(),
        ProviderFormat::OpenAiResponses
            .tool_calls(&response)
            .unwrap()
    );
    let anthropic = fixture("anthropic.message.json");
    assert_eq!(
        ProviderFormat::Anthropic
            .tool_calls(&anthropic["content"])
            .unwrap(),
        ProviderFormat::Anthropic.tool_calls(&anthropic).unwrap()
    );
}

#[test]
fn answers_without_calls_give_no_calls() {
    let text_only = json!({"role": "assistant", "content": "Hello!"});
    assert!(
        ProviderFormat::OpenAiChat
            .tool_calls(&text_only)
            .unwrap()
            .is_empty()
    );
    let items = json!([{"type": "message", "role": "assistant", "content": []}]);
    assert!(
        ProviderFormat::OpenAiResponses
            .tool_calls(&items)
            .unwrap()
            .is_empty()
    );
    let message = json!({"role": "assistant", "content": [{"type": "text", "text": "Hi"}]});
    assert!(
        ProviderFormat::Anthropic
            .tool_calls(&message)
            .unwrap()
            .is_empty()
    );
}

fn pointer_of(error: Error) -> String {
    match error {
        Error::ProviderMessage { pointer, .. } => pointer,
        other => panic!("expected a provider message error, got {other:?}"),
    }
}

#[test]
fn malformed_calls_name_the_offending_field_by_pointer() {
    let mut completion = fixture("openai_chat.completion.json");
    completion["choices"][0]["message"]["tool_calls"][1]["function"]
        .as_object_mut()
        .unwrap()
        .remove("name");
    let error = ProviderFormat::OpenAiChat
        .tool_calls(&completion)
        .unwrap_err();
    assert!(error.to_string().contains("`name` is missing"), "{error}");
    assert_eq!(
        pointer_of(error),
        "/choices/0/message/tool_calls/1/function/name"
    );

    let mut response = fixture("openai_responses.response.json");
    response["output"][0]["call_id"] = json!(7);
    let error = ProviderFormat::OpenAiResponses
        .tool_calls(&response)
        .unwrap_err();
    assert_eq!(pointer_of(error), "/output/0/call_id");

    let mut message = fixture("anthropic.message.json");
    message["content"][1]["id"] = json!("");
    let error = ProviderFormat::Anthropic.tool_calls(&message).unwrap_err();
    assert_eq!(pointer_of(error), "/content/1/id");

    let error = ProviderFormat::Anthropic
        .tool_calls(&json!({"content": "text"}))
        .unwrap_err();
    assert_eq!(pointer_of(error), "/content");
    let error = ProviderFormat::OpenAiChat
        .tool_calls(&json!("hi"))
        .unwrap_err();
    assert_eq!(pointer_of(error), "");
}

#[test]
fn results_need_one_output_per_call_and_an_id() {
    let calls = vec![
        ToolCall::new("a", "{}").with_id("1"),
        ToolCall::new("b", "{}"),
    ];
    let one = vec![ToolOutput::text("x")];
    for format in ProviderFormat::ALL {
        let error = format.tool_results(&calls, &one).unwrap_err();
        assert!(
            error.to_string().contains("2 calls but 1 outputs"),
            "{error}"
        );
        let two = vec![ToolOutput::text("x"), ToolOutput::text("y")];
        assert_eq!(
            pointer_of(format.tool_results(&calls, &two).unwrap_err()),
            "/1/id"
        );
    }
}

#[test]
fn anthropic_marks_failures_and_keeps_every_result_in_one_user_message() {
    let calls = vec![
        ToolCall::new("a", "{}").with_id("t1"),
        ToolCall::new("b", "{}").with_id("t2"),
    ];
    let outputs = vec![
        ToolOutput::text("fine"),
        ToolOutput::failure(ToolError::execution_failed("no such city")),
    ];
    let messages = ProviderFormat::Anthropic
        .tool_results(&calls, &outputs)
        .unwrap();
    assert_eq!(
        messages,
        vec![json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "fine"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "no such city", "is_error": true}
        ]})]
    );
}

fn with_image() -> (Vec<ToolCall>, Vec<ToolOutput>) {
    let calls = vec![ToolCall::new("shot", "{}").with_id("c1")];
    let outputs = vec![
        ToolOutput::text("Screenshot of the page (PNG).").with_parts([
            ContentPart::image_base64("image/png", "iVBORw0KGgo="),
            ContentPart::text("Title: Login"),
            ContentPart::file_base64("application/pdf", Some("report.pdf".into()), "JVBERi0="),
            ContentPart::audio_base64("audio/ogg", "T2dn"),
        ]),
    ];
    (calls, outputs)
}

#[test]
fn parts_travel_as_anthropic_blocks() {
    let (calls, outputs) = with_image();
    let messages = ProviderFormat::Anthropic
        .tool_results(&calls, &outputs)
        .unwrap();
    assert_eq!(
        messages[0]["content"][0]["content"],
        json!([
            {"type": "text", "text": "Screenshot of the page (PNG)."},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
            {"type": "text", "text": "Title: Login"},
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}}
        ]),
        "ogg audio has no Anthropic block and stays in state"
    );
}

#[test]
fn parts_travel_as_responses_input_items() {
    let (calls, outputs) = with_image();
    let items = ProviderFormat::OpenAiResponses
        .tool_results(&calls, &outputs)
        .unwrap();
    assert_eq!(
        items[0]["output"],
        json!([
            {"type": "input_text", "text": "Screenshot of the page (PNG)."},
            {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="},
            {"type": "input_text", "text": "Title: Login"},
            {"type": "input_file", "file_data": "data:application/pdf;base64,JVBERi0=", "filename": "report.pdf"}
        ])
    );
}

#[test]
fn chat_tool_messages_hold_text_and_media_follow_in_one_user_message() {
    let (mut calls, mut outputs) = with_image();
    calls.push(ToolCall::new("plain", "{}").with_id("c2"));
    outputs.push(ToolOutput::text("plain text"));
    let messages = ProviderFormat::OpenAiChat
        .tool_results(&calls, &outputs)
        .unwrap();
    assert_eq!(
        messages.len(),
        3,
        "two tool messages, then one user message"
    );
    assert_eq!(
        messages[0],
        json!({"role": "tool", "tool_call_id": "c1", "content": [
            {"type": "text", "text": "Screenshot of the page (PNG)."},
            {"type": "text", "text": "Title: Login"}
        ]})
    );
    assert_eq!(
        messages[1],
        json!({"role": "tool", "tool_call_id": "c2", "content": "plain text"})
    );
    assert_eq!(
        messages[2],
        json!({"role": "user", "content": [
            {"type": "text", "text": "Attachments of tool call c1:"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
            {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERi0=", "filename": "report.pdf"}}
        ]})
    );

    let omitted = ProviderFormat::OpenAiChat
        .tool_results_with(
            &calls,
            &outputs,
            ResultOptions::default().with_chat_attachments(ChatAttachments::Omit),
        )
        .unwrap();
    assert_eq!(omitted.len(), 2);
}

#[test]
fn exported_tools_match_each_format() {
    let offered = offered();
    assert_eq!(
        ProviderFormat::OpenAiChat.tools(&offered)[0]["function"]["name"],
        "weather____get_current_weather"
    );
    assert_eq!(
        ProviderFormat::OpenAiResponses.tools(&offered)[0]["name"],
        "weather____get_current_weather"
    );
    assert!(ProviderFormat::Anthropic.tools(&offered)[0]["input_schema"].is_object());
}

#[tokio::test]
async fn strict_export_marks_what_can_be_strict_and_strict_answers_still_validate() {
    let tool = ToolBuilder::new("kv")
        .api(
            ApiDefinition::new("get", "Reads a key.").with_parameters(json!({
                "type": "object",
                "properties": {"key": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}},
                "required": ["key"]
            })),
            |args: Value, _| async move { Ok(ToolOutput::with_state("ok", args)) },
        )
        .api(
            ApiDefinition::new("put", "Writes entries.").with_parameters(json!({
                "type": "object",
                "properties": {"entries": {"type": "object", "additionalProperties": {"type": "string"}}}
            })),
            |_, _| async { Ok(ToolOutput::text("ok")) },
        )
        .build()
        .unwrap();
    let mut registry = ToolRegistry::new();
    registry.register(tool).unwrap();
    let offered = registry.offer(&ToolContext::new());

    let chat = offered.openai_chat_tools_strict();
    assert!(!chat.all_strict());
    assert_eq!(chat.tools[0]["function"]["strict"], true);
    assert_eq!(
        chat.tools[0]["function"]["parameters"]["required"],
        json!(["key", "limit"])
    );
    assert_eq!(chat.tools[1]["function"]["strict"], false);
    assert_eq!(
        chat.tools[1]["function"]["parameters"],
        offered.openai_chat_tools()[1]["function"]["parameters"],
        "a tool that cannot be strict is sent as it was"
    );
    assert_eq!(chat.problems.len(), 1);
    assert_eq!(chat.problems[0].0, "kv____put");
    assert_eq!(
        chat.problems[0].1.pointer,
        "/properties/entries/additionalProperties"
    );
    let responses = offered.openai_responses_tools_strict();
    assert_eq!(responses.tools[0]["strict"], true);
    assert_eq!(responses.problems, chat.problems);

    // What a strict-mode model sends for "no limit": null. It runs, as if absent.
    let out = Invoker::default()
        .invoke(
            &offered,
            &ToolCall::new("kv____get", r#"{"key": "a", "limit": null}"#),
            &ToolContext::new(),
        )
        .await;
    assert!(out.is_success(), "{out:?}");
    assert_eq!(out.state.unwrap(), json!({"key": "a"}));
    // A null for a required property is still refused.
    let out = Invoker::default()
        .invoke(
            &offered,
            &ToolCall::new("kv____get", r#"{"key": null}"#),
            &ToolContext::new(),
        )
        .await;
    assert_eq!(out.error_code().unwrap(), "invalid_arguments");
}
