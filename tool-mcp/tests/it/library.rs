//! Resources and prompts, both ways.
//!
//! Client side, against server-everything (stdio): its static documents
//! and dynamic templates are listed and read through `McpManager`, its
//! prompts listed and rendered with arguments; unknown URIs, unknown
//! prompts and missing arguments are typed errors naming the server.
//!
//! Serving side, an rmcp client and `McpManager` against `RegistryServer`
//! on 127.0.0.1 with a host's `ResourceSource` and `PromptSource`:
//! listed in pages, read, rendered; a server without them declares
//! neither and the manager says so (`mcp_not_offered`).

use std::sync::Arc;

use async_trait::async_trait;
use rmcp::ServiceExt;
use rmcp::model::{
    ContentBlock, GetPromptRequestParams, GetPromptResult, Prompt, PromptArgument, PromptMessage,
    ReadResourceRequestParams, Resource, ResourceContents, ResourceTemplate, Role,
};
use serde_json::{Map, Value, json};
use tool_core::ToolRegistry;
use tool_mcp::{
    Error, McpManager, McpServerConfig, McpTransport, PromptSource, RESOURCE_NOT_FOUND,
    RegistryServer, ResourceSource, SourceError,
};

fn args(value: Value) -> Map<String, Value> {
    serde_json::from_value(value).unwrap()
}

fn text_of(contents: &ResourceContents) -> &str {
    match contents {
        ResourceContents::TextResourceContents { text, .. } => text,
        other => panic!("not text: {other:?}"),
    }
}

fn prompt_text(result: &GetPromptResult) -> String {
    result
        .messages
        .iter()
        .map(|m| match &m.content {
            ContentBlock::Text(t) => t.text.clone(),
            other => format!("{other:?}"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_servers_resources_are_listed_and_read() {
    let manager = McpManager::default();
    manager
        .upsert(crate::common::everything_stdio("everything"))
        .unwrap();

    let resources = manager.list_resources("everything").await.unwrap();
    let features = resources
        .iter()
        .find(|r| r.uri == "demo://resource/static/document/features.md")
        .unwrap_or_else(|| panic!("{resources:?}"));
    assert_eq!(features.mime_type.as_deref(), Some("text/markdown"));

    // The text is the server's file, whole.
    let on_disk = std::fs::read_to_string(
        crate::common::everything_js()
            .parent()
            .unwrap()
            .join("docs/features.md"),
    )
    .unwrap();
    let read = manager
        .read_resource("everything", &features.uri)
        .await
        .unwrap();
    assert_eq!(read.contents.len(), 1);
    assert_eq!(text_of(&read.contents[0]), on_disk);

    let templates = manager.list_resource_templates("everything").await.unwrap();
    assert!(
        templates
            .iter()
            .any(|t| t.uri_template == "demo://resource/dynamic/blob/{resourceId}"),
        "{templates:?}"
    );
    let blob = manager
        .read_resource("everything", "demo://resource/dynamic/blob/7")
        .await
        .unwrap();
    let ResourceContents::BlobResourceContents { blob, uri, .. } = &blob.contents[0] else {
        panic!("{blob:?}");
    };
    assert_eq!(uri, "demo://resource/dynamic/blob/7");
    assert!(!blob.is_empty());

    let unknown = manager
        .read_resource("everything", "demo://resource/nowhere")
        .await
        .unwrap_err();
    assert!(
        matches!(&unknown, Error::Request { server, operation, .. }
            if server == "everything" && operation.contains("demo://resource/nowhere")),
        "{unknown:?}"
    );
    assert_eq!(
        manager
            .read_resource("nobody", "demo://x")
            .await
            .unwrap_err()
            .code(),
        "mcp_unknown_server"
    );
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_servers_prompts_are_listed_and_rendered() {
    let manager = McpManager::default();
    manager
        .upsert(crate::common::everything_stdio("everything"))
        .unwrap();

    let prompts = manager.list_prompts("everything").await.unwrap();
    let with_args = prompts
        .iter()
        .find(|p| p.name == "args-prompt")
        .unwrap_or_else(|| panic!("{prompts:?}"));
    let arguments = with_args.arguments.as_deref().unwrap();
    let city = arguments.iter().find(|a| a.name == "city").unwrap();
    assert_eq!(city.required, Some(true));
    assert!(prompts.iter().any(|p| p.name == "simple-prompt"));

    let simple = manager
        .get_prompt("everything", "simple-prompt", Map::new())
        .await
        .unwrap();
    assert_eq!(
        prompt_text(&simple),
        "This is a simple prompt without arguments."
    );
    assert_eq!(simple.messages[0].role, Role::User);

    let rendered = manager
        .get_prompt(
            "everything",
            "args-prompt",
            args(json!({"city": "Paris", "state": "Texas"})),
        )
        .await
        .unwrap();
    assert_eq!(prompt_text(&rendered), "What's weather in Paris, Texas?");

    for (name, arguments) in [("args-prompt", json!({})), ("no-such-prompt", json!({}))] {
        let error = manager
            .get_prompt("everything", name, args(arguments))
            .await
            .unwrap_err();
        assert!(
            matches!(&error, Error::Request { server, operation, .. }
                if server == "everything" && operation.contains(name)),
            "{name}: {error:?}"
        );
        assert_eq!(error.code(), "mcp_request_failed");
    }
    manager.shutdown().await;
}

/// A host's documents: `doc://N` for N in 0..count, text "document N".
struct Documents {
    count: usize,
}

#[async_trait]
impl ResourceSource for Documents {
    async fn list(&self) -> Result<Vec<Resource>, SourceError> {
        Ok((0..self.count)
            .map(|n| {
                Resource::new(format!("doc://{n}"), format!("document-{n}"))
                    .with_mime_type("text/markdown")
                    .with_description(format!("Document number {n}"))
            })
            .collect())
    }

    async fn read(&self, uri: &str) -> Result<Vec<ResourceContents>, SourceError> {
        let n: usize = uri
            .strip_prefix("doc://")
            .and_then(|n| n.parse().ok())
            .filter(|n| *n < self.count)
            .ok_or_else(|| SourceError::no_resource(uri))?;
        Ok(vec![ResourceContents::TextResourceContents {
            uri: uri.to_owned(),
            mime_type: Some("text/markdown".into()),
            text: format!("# document {n}"),
            meta: None,
        }])
    }

    async fn templates(&self) -> Result<Vec<ResourceTemplate>, SourceError> {
        Ok(vec![
            ResourceTemplate::new("doc://{n}", "document").with_mime_type("text/markdown"),
        ])
    }
}

/// A host's one prompt, `greet`, with a required `who`.
struct Greeter;

#[async_trait]
impl PromptSource for Greeter {
    async fn list(&self) -> Result<Vec<Prompt>, SourceError> {
        Ok(vec![Prompt::new(
            "greet",
            Some("Greets someone"),
            Some(vec![
                PromptArgument::new("who")
                    .with_description("Whom to greet")
                    .with_required(true),
            ]),
        )])
    }

    async fn get(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
    ) -> Result<GetPromptResult, SourceError> {
        if name != "greet" {
            return Err(SourceError::no_prompt(name));
        }
        let who = arguments
            .get("who")
            .and_then(Value::as_str)
            .ok_or_else(|| SourceError::InvalidArguments {
                prompt: name.into(),
                message: "`who` is required".into(),
            })?;
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            format!("Say hello to {who}."),
        )]))
    }
}

fn bare_server() -> RegistryServer {
    crate::common::served(ToolRegistry::new())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hosts_resources_and_prompts_are_served_over_mcp() {
    let server = bare_server()
        .with_resources(Arc::new(Documents { count: 5 }))
        .with_prompts(Arc::new(Greeter))
        .with_page_size(2);
    let (url, stop) = crate::common::serve_http(server).await;

    // A plain rmcp client: capabilities, pages, reads, errors.
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url.clone());
    let client = ().serve(transport).await.unwrap();
    let capabilities = client.peer().peer_info().unwrap().capabilities.clone();
    assert!(capabilities.resources.is_some() && capabilities.prompts.is_some());
    let first = client.peer().list_resources(None).await.unwrap();
    assert_eq!(first.resources.len(), 2, "one page of two");
    assert_eq!(first.next_cursor.as_deref(), Some("2"));
    let all = client.peer().list_all_resources().await.unwrap();
    let uris: Vec<&str> = all.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(
        uris,
        ["doc://0", "doc://1", "doc://2", "doc://3", "doc://4"]
    );
    let read = client
        .peer()
        .read_resource(ReadResourceRequestParams::new("doc://3"))
        .await
        .unwrap();
    assert_eq!(text_of(&read.contents[0]), "# document 3");
    let missing = client
        .peer()
        .read_resource(ReadResourceRequestParams::new("doc://9"))
        .await
        .unwrap_err();
    let rmcp::ServiceError::McpError(missing) = missing else {
        panic!("{missing:?}");
    };
    assert_eq!(missing.code.0, RESOURCE_NOT_FOUND);
    assert_eq!(missing.data, Some(json!({"uri": "doc://9"})));
    let greeting = client
        .peer()
        .get_prompt(
            GetPromptRequestParams::new("greet").with_arguments(args(json!({"who": "Ada"}))),
        )
        .await
        .unwrap();
    assert_eq!(prompt_text(&greeting), "Say hello to Ada.");
    let _ = client.cancel().await;

    // Through the manager, the same.
    let manager = McpManager::default();
    manager
        .upsert(McpServerConfig::new("served", McpTransport::http(url)))
        .unwrap();
    assert_eq!(manager.list_resources("served").await.unwrap().len(), 5);
    let templates = manager.list_resource_templates("served").await.unwrap();
    assert_eq!(templates[0].uri_template, "doc://{n}");
    let prompts = manager.list_prompts("served").await.unwrap();
    assert_eq!(prompts[0].name, "greet");
    let error = manager
        .get_prompt("served", "greet", Map::new())
        .await
        .unwrap_err();
    assert!(
        matches!(&error, Error::Request { server, message, .. }
            if server == "served" && message.contains("`who` is required")),
        "{error:?}"
    );
    let error = manager
        .read_resource("served", "doc://5")
        .await
        .unwrap_err();
    assert!(error.to_string().contains("doc://5"), "{error}");
    manager.shutdown().await;
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_resources_or_prompts_says_so() {
    let (url, stop) = crate::common::serve_http(bare_server()).await;
    let manager = McpManager::default();
    manager
        .upsert(McpServerConfig::new("tools-only", McpTransport::http(url)))
        .unwrap();
    for error in [
        manager.list_resources("tools-only").await.unwrap_err(),
        manager
            .read_resource("tools-only", "doc://0")
            .await
            .unwrap_err(),
    ] {
        assert_eq!(
            error,
            Error::NotOffered {
                server: "tools-only".into(),
                feature: "resources".into()
            }
        );
        assert_eq!(error.code(), "mcp_not_offered");
    }
    let error = manager.list_prompts("tools-only").await.unwrap_err();
    assert!(
        matches!(&error, Error::NotOffered { feature, .. } if feature == "prompts"),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "MCP server `tools-only` does not offer prompts (not declared in its capabilities)"
    );
    manager.shutdown().await;
    stop.cancel();
}

/// Two skills whose files are `Documents`' (`doc://…`, nothing to read
/// here: the test checks the listing).
struct Shelf;

#[async_trait]
impl tool_mcp::SkillSource for Shelf {
    async fn list(&self) -> Result<Vec<rmcp::model::Skill>, SourceError> {
        use rmcp::model::{Skill, SkillFrontmatter, SkillResource, SkillResources};
        let digest = format!("sha256:{}", "0".repeat(64));
        Ok(["alpha", "beta"]
            .iter()
            .map(|name| {
                let uri = format!("skill://{name}/SKILL.md");
                Skill::new(
                    uri.clone(),
                    SkillFrontmatter::new(*name, format!("The {name} skill.")),
                    SkillResources::Files(vec![SkillResource::new(uri, digest.clone(), 10)]),
                )
            })
            .collect())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hosts_skills_are_served_through_the_skills_extension() {
    // Without resources the extension is not declared (its files could
    // not be read).
    let (url, stop) = crate::common::serve_http(bare_server().with_skills(Arc::new(Shelf))).await;
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url.clone());
    let client = ().serve(transport).await.unwrap();
    let capabilities = client.peer().peer_info().unwrap().capabilities.clone();
    assert!(!capabilities.supports_skills());
    drop(client);
    stop.cancel();

    let server = bare_server()
        .with_resources(Arc::new(Documents { count: 1 }))
        .with_skills(Arc::new(Shelf))
        .with_page_size(1);
    let (url, stop) = crate::common::serve_http(server).await;
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url.clone());
    let client = ().serve(transport).await.unwrap();
    let capabilities = client.peer().peer_info().unwrap().capabilities.clone();
    assert!(capabilities.supports_skills());
    let first = client.peer().list_skills(None).await.unwrap();
    assert_eq!(first.skills.len(), 1, "one page of one");
    assert_eq!(first.skills[0].uri, "skill://alpha/SKILL.md");
    let got = client
        .peer()
        .get_skill(rmcp::model::GetSkillRequestParams::new(
            "skill://beta/SKILL.md",
        ))
        .await
        .unwrap();
    assert_eq!(got.skill.frontmatter.description, "The beta skill.");
    for unknown in ["skill://gamma/SKILL.md", "skill://alpha/../beta/SKILL.md"] {
        let error = client
            .peer()
            .get_skill(rmcp::model::GetSkillRequestParams::new(unknown))
            .await
            .unwrap_err();
        let rmcp::ServiceError::McpError(error) = error else {
            panic!("{error:?}");
        };
        assert_eq!(error.code.0, -32602, "{unknown}: {error:?}");
    }
    drop(client);
    stop.cancel();
}
