//! A user's own action recorded as a tool call: the same content and state
//! as the real tool, a local id, every provider's shape.

use serde_json::json;
use tool_core::{
    ApiDefinition, Invoker, ProviderFormat, ToolBuilder, ToolCall, ToolContext, ToolOutput,
    ToolRegistry,
};

fn offered() -> tool_core::OfferedTools {
    let tool = ToolBuilder::new("files")
        .api(
            ApiDefinition::new("read", "Reads a file.").with_parameters(json!({
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"]
            })),
            |args, _| async move {
                let path = args["path"].as_str().unwrap_or_default().to_owned();
                Ok(ToolOutput::with_state(
                    format!("contents of {path}"),
                    json!({"path": path}),
                ))
            },
        )
        .build()
        .unwrap();
    let mut registry = ToolRegistry::new();
    registry.register(tool).unwrap();
    registry.offer(&ToolContext::new())
}

#[tokio::test]
async fn a_synthetic_call_has_what_the_model_would_have_seen() {
    let offered = offered();
    let ctx = ToolContext::new();
    let invoker = Invoker::default();
    let synthetic = invoker
        .synthesize(&offered, "files____read", json!({"path": "notes.md"}), &ctx)
        .await;
    let real = invoker
        .invoke(
            &offered,
            &ToolCall::new("files____read", r#"{"path":"notes.md"}"#),
            &ctx,
        )
        .await;
    assert_eq!(synthetic.output, real);
    assert!(synthetic.call.id.as_deref().unwrap().starts_with("call_"));

    let chat = synthetic.messages(ProviderFormat::OpenAiChat).unwrap();
    assert_eq!(chat[0]["role"], "assistant");
    assert_eq!(chat[1]["role"], "tool");
    let responses = synthetic.messages(ProviderFormat::OpenAiResponses).unwrap();
    assert_eq!(responses[0]["type"], "function_call");
    assert_eq!(responses[1]["type"], "function_call_output");
    assert_eq!(responses[0]["call_id"], responses[1]["call_id"]);
    let anthropic = synthetic.messages(ProviderFormat::Anthropic).unwrap();
    assert_eq!(anthropic[0]["content"][0]["input"]["path"], "notes.md");
    assert_eq!(
        anthropic[0]["content"][0]["id"],
        anthropic[1]["content"][0]["tool_use_id"]
    );
    // What the exports produce reads back as the same calls.
    for (format, messages) in [
        (ProviderFormat::OpenAiChat, &chat[0]),
        (ProviderFormat::Anthropic, &anthropic[0]),
    ] {
        let calls = format.tool_calls(messages).unwrap();
        assert_eq!(calls[0].id, synthetic.call.id);
        assert_eq!(calls[0].name, "files____read");
    }
}

#[tokio::test]
async fn a_synthetic_call_the_pipeline_refuses_keeps_its_refusal() {
    let synthetic = Invoker::default()
        .synthesize(&offered(), "files____read", json!({}), &ToolContext::new())
        .await;
    assert_eq!(synthetic.output.error_code().unwrap(), "invalid_arguments");
    let anthropic = synthetic.messages(ProviderFormat::Anthropic).unwrap();
    assert_eq!(anthropic[1]["content"][0]["is_error"], true);
}

#[test]
fn assistant_calls_need_ids_and_object_arguments_for_anthropic() {
    let no_id = [ToolCall::new("files____read", "{}")];
    assert!(ProviderFormat::OpenAiChat.assistant_calls(&no_id).is_err());
    let list = [ToolCall::new("files____read", "[1]").with_id("c1")];
    let err = ProviderFormat::Anthropic
        .assistant_calls(&list)
        .unwrap_err();
    assert!(err.to_string().contains("/0/arguments"), "{err}");
    assert!(ProviderFormat::OpenAiChat.assistant_calls(&list).is_ok());
}
