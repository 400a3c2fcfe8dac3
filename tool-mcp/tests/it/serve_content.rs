//! `mcp serve` sends every kind of content as MCP blocks: our tools' content
//! parts, and the images and resources of a real server
//! (server-everything over stdio) re-served through its proxy tool. The
//! served registry listens on 127.0.0.1.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::{Map, json};
use tokio_util::sync::CancellationToken;
use tool_core::manifest::{ApiHints, TaskSupport};
use tool_core::{ApiDefinition, ContentPart, ToolBuilder, ToolOutput, ToolRegistry};
use tool_mcp::McpManager;

/// Serves `registry` over streamable HTTP; a manager connected to it as `served`.
async fn serve(registry: ToolRegistry) -> (McpManager, CancellationToken) {
    let server = crate::common::served(registry);
    let stop = CancellationToken::new();
    let url = crate::common::serve_http_until(server, &stop).await;
    let client = crate::common::http_manager("served", &url);
    (client, stop)
}

async fn raw_call(client: &McpManager, tool: &str, args: serde_json::Value) -> CallToolResult {
    let args: Map<String, serde_json::Value> = serde_json::from_value(args).unwrap();
    client.call_tool("served", tool, args).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_content_parts_are_served_as_mcp_blocks_and_the_state_as_structured_content() {
    let mut registry = ToolRegistry::new();
    registry
        .register(
            ToolBuilder::new("report")
                .api(ApiDefinition::new("render", "Renders."), |_, _| async {
                    Ok(
                        ToolOutput::with_state("Rendered (PNG, PDF, WAV).", json!({"pages": 2}))
                            .with_parts([
                                ContentPart::image_base64("image/png", "iVBORw0KGgo="),
                                ContentPart::file_base64(
                                    "application/pdf",
                                    Some("report.pdf".into()),
                                    "JVBERi0=",
                                ),
                                ContentPart::audio_base64("audio/wav", "UklGRiQAAABXQVZFZm10IA=="),
                                ContentPart::image_url("image/jpeg", "https://example.org/a.jpg"),
                            ]),
                    )
                })
                .build()
                .unwrap(),
        )
        .unwrap();
    let (client, stop) = serve(registry).await;
    let result = raw_call(&client, "report____render", json!({})).await;
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.structured_content, Some(json!({"pages": 2})));
    let blocks = &result.content;
    assert_eq!(blocks.len(), 5, "{blocks:?}");
    assert!(matches!(&blocks[0], ContentBlock::Text(t) if t.text == "Rendered (PNG, PDF, WAV)."));
    assert!(
        matches!(&blocks[1], ContentBlock::Image(i) if i.mime_type == "image/png" && i.data == "iVBORw0KGgo=")
    );
    let ContentBlock::Resource(pdf) = &blocks[2] else {
        panic!("{:?}", blocks[2]);
    };
    assert!(matches!(
        &pdf.resource,
        ResourceContents::BlobResourceContents { mime_type: Some(m), blob, .. }
            if m == "application/pdf" && blob == "JVBERi0="
    ));
    assert!(matches!(&blocks[3], ContentBlock::Audio(a) if a.mime_type == "audio/wav"));
    assert!(
        matches!(&blocks[4], ContentBlock::ResourceLink(l) if l.uri == "https://example.org/a.jpg")
    );

    // Through tool-mcp's client, the parts come back as the same parts.
    let back = tool_mcp::map_call_result("served", "report____render", result);
    let parts = back.parts();
    assert_eq!(
        parts[0],
        ContentPart::image_base64("image/png", "iVBORw0KGgo=")
    );
    assert_eq!(
        parts[1],
        ContentPart::file_base64("application/pdf", Some("report.pdf".into()), "JVBERi0=")
    );
    assert_eq!(back.state.unwrap()["structuredContent"]["pages"], 2);
    client.shutdown().await;
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_servers_images_and_resources_are_re_served_as_mcp_blocks() {
    let upstream = Arc::new(McpManager::default());
    upstream
        .upsert(crate::common::everything_stdio("everything"))
        .unwrap();
    let registry = crate::common::registry_of(&upstream).await;
    // What the server states about each tool is the API's: hints,
    // task support, output schema.
    let manifest = registry.get("everything").unwrap().manifest().clone();
    let api = |name: &str| manifest.api(name).unwrap().clone();
    assert_eq!(
        api("echo").hints,
        ApiHints::default()
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    );
    assert_eq!(api("gzip-file-as-resource").hints.open_world, Some(true));
    assert_eq!(
        api("simulate-research-query").task_support,
        Some(TaskSupport::Required)
    );
    assert_eq!(api("echo").task_support, Some(TaskSupport::Forbidden));
    assert!(api("get-structured-content").output_schema.is_some());
    let (client, stop) = serve(registry).await;

    // Served over HTTP, each tool reaches our client as the server listed it.
    let ours = client.catalog("served").await.unwrap();
    let theirs = upstream.catalog("everything").await.unwrap();
    for name in [
        "echo",
        "get-structured-content",
        "gzip-file-as-resource",
        "simulate-research-query",
    ] {
        let (ours, theirs) = (
            ours.tool(&format!("everything____{name}")).unwrap(),
            theirs.tool(name).unwrap(),
        );
        assert!(theirs.execution.is_some() && theirs.annotations.is_some());
        assert_eq!(ours.annotations, theirs.annotations, "{name}");
        assert_eq!(ours.execution, theirs.execution, "{name}");
        assert_eq!(ours.output_schema, theirs.output_schema, "{name}");
    }

    let image = raw_call(&client, "everything____get-tiny-image", json!({})).await;
    let direct = upstream
        .call_tool("everything", "get-tiny-image", Map::new())
        .await
        .unwrap();
    let images = |r: &CallToolResult| -> Vec<String> {
        r.content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Image(i) => Some(format!("{}:{}", i.mime_type, i.data)),
                _ => None,
            })
            .collect()
    };
    assert!(!images(&direct).is_empty());
    assert_eq!(
        images(&image),
        images(&direct),
        "the image reaches our client as the server sent it"
    );
    // text, image, text: in the server's order, each block as sent.
    assert_eq!(
        serde_json::to_value(&image.content).unwrap(),
        serde_json::to_value(&direct.content).unwrap()
    );
    assert_eq!(image.content.len(), 3);

    let reference = raw_call(
        &client,
        "everything____get-resource-reference",
        json!({"resourceId": 2}),
    )
    .await;
    assert!(
        reference.content.iter().any(|b| matches!(
            b,
            ContentBlock::Resource(r) if matches!(&r.resource, ResourceContents::TextResourceContents { uri, .. } if uri.contains('2'))
        )),
        "{:?}",
        reference.content
    );
    let links = raw_call(
        &client,
        "everything____get-resource-links",
        json!({"count": 2}),
    )
    .await;
    let served_links = links
        .content
        .iter()
        .filter(|b| matches!(b, ContentBlock::ResourceLink(_)))
        .count();
    assert!(served_links >= 2, "{:?}", links.content);

    let structured = raw_call(
        &client,
        "everything____get-structured-content",
        json!({"location": "Chicago"}),
    )
    .await;
    let value = structured.structured_content.unwrap();
    assert!(
        value["temperature"].is_number(),
        "the remote structuredContent is served as ours: {value}"
    );
    client.shutdown().await;
    upstream.shutdown().await;
    stop.cancel();
}
