//! Outputs cannot contradict themselves once they leave the pipeline.

use tool_core::{
    ApiDefinition, Invoker, ToolBuilder, ToolCall, ToolContext, ToolError, ToolOutput, ToolRegistry,
};

async fn invoke(name: &str, arguments: &str) -> ToolOutput {
    let tool = ToolBuilder::new("t")
        .api(
            ApiDefinition::new("both", "Says success and error."),
            |_, _| async {
                let mut out = ToolOutput::text("all good");
                out.error = Some(ToolError::execution_failed("but the disk is full"));
                Ok(out)
            },
        )
        .api(
            ApiDefinition::new("silent", "Fails without an error."),
            |_, _| async {
                let mut out = ToolOutput::text("");
                out.success = false;
                Ok(out)
            },
        )
        .build()
        .unwrap();
    let mut registry = ToolRegistry::new();
    registry.register(tool).unwrap();
    let ctx = ToolContext::new();
    Invoker::default()
        .invoke(&registry.offer(&ctx), &ToolCall::new(name, arguments), &ctx)
        .await
}

#[tokio::test]
async fn an_error_beside_success_makes_the_call_failed() {
    let out = invoke("t____both", "{}").await;
    assert!(!out.success);
    assert!(out.is_consistent());
    assert_eq!(out.error().unwrap().message, "but the disk is full");
}

#[tokio::test]
async fn a_failure_without_an_error_gets_one_and_a_text() {
    let out = invoke("t____silent", "{}").await;
    assert_eq!(out.error_code().unwrap(), "execution_failed");
    assert!(!out.content.is_empty());
    assert!(out.is_consistent() && !out.is_success());
}

#[tokio::test]
async fn raw_arguments_echoed_into_error_details_are_capped() {
    let huge = format!("{{\"text\": \"{}", "x".repeat(50_000));
    let out = invoke("t____both", &huge).await;
    assert_eq!(out.error_code().unwrap(), "truncated_arguments");
    let details = out.error().unwrap().details.clone().unwrap();
    assert_eq!(details["raw"].as_str().unwrap().chars().count(), 2_000);
    assert_eq!(details["rawChars"], 50_010);
    assert_eq!(details["rawTruncated"], true);
    assert!(out.content.len() < 3_000, "the message is capped too");

    let out = invoke("t____both", "[1]").await;
    let details = out.error().unwrap().details.clone().unwrap();
    assert_eq!(details["raw"], "[1]");
    assert_eq!(details["rawTruncated"], false);
}

#[tokio::test]
async fn a_batch_gives_one_output_per_call_in_order_with_failures_marked() {
    let tool = ToolBuilder::new("t")
        .api(ApiDefinition::new("ok", "Works."), |_, _| async {
            Ok(ToolOutput::text("fine"))
        })
        .build()
        .unwrap();
    let mut registry = ToolRegistry::new();
    registry.register(tool).unwrap();
    let ctx = ToolContext::new();
    let calls = [
        ToolCall::new("t____ok", "{}"),
        ToolCall::new("t____nope", "{}"),
        ToolCall::new("t____ok", "{"),
    ];
    let outputs = Invoker::default()
        .invoke_batch(&registry.offer(&ctx), &calls, &ctx)
        .await;
    let failed: Vec<usize> = (0..outputs.len())
        .filter(|&i| !outputs[i].is_success())
        .collect();
    assert_eq!(outputs.len(), 3);
    assert_eq!(failed, [1, 2]);
    assert_eq!(outputs[0].content, "fine");
}
