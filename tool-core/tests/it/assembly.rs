//! Assembly: stored references become runtime tools through providers.

use std::sync::Arc;

use serde_json::json;
use tool_core::{
    ApiDefinition, Error, Invoker, Tool, ToolBuilder, ToolCall, ToolContext, ToolKind, ToolOutput,
    assembly::{Assembler, BuiltinProvider, ProvideError, ToolReference},
};

#[derive(schemars::JsonSchema, serde::Deserialize)]
struct ImageParams {
    /// Model name.
    model: String,
    /// Output size, `W*H`.
    #[serde(default = "default_size")]
    size: String,
}

fn default_size() -> String {
    "1024*1024".into()
}

fn builtin() -> BuiltinProvider {
    let mut provider = BuiltinProvider::new();
    provider
        .typed_factory("images", "generate", |params: ImageParams| {
            let label = format!("{} at {}", params.model, params.size);
            let tool = ToolBuilder::new("images-generate")
                .api(
                    ApiDefinition::new("generate", "Makes an image."),
                    move |_, _| {
                        let label = label.clone();
                        async move { Ok(ToolOutput::text(label)) }
                    },
                )
                .build()
                .map_err(|e| ProvideError::Failed(e.to_string()))?;
            Ok(Arc::new(tool) as Arc<dyn Tool>)
        })
        .unwrap();
    provider
        .factory(
            "clock",
            "now",
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
            |_| {
                let tool = ToolBuilder::new("clock")
                    .api(ApiDefinition::new("now", "Now."), |_, _| async {
                        Ok(ToolOutput::text("noon"))
                    })
                    .build()
                    .map_err(|e| ProvideError::Failed(e.to_string()))?;
                Ok(Arc::new(tool) as Arc<dyn Tool>)
            },
        )
        .unwrap();
    provider
}

#[test]
fn references_deserialise_from_the_stored_shape() {
    let stored = json!({"type": "builtin_tool", "provider_id": "images", "tool_id": "generate",
                        "params": {"model": "m1"}});
    let reference: ToolReference = serde_json::from_value(stored.clone()).unwrap();
    assert_eq!(reference.to_string(), "builtin_tool/images/generate");
    assert_eq!(serde_json::to_value(&reference).unwrap(), stored);
    let typo: Result<ToolReference, _> =
        serde_json::from_value(json!({"type": "x", "provider": "p", "tool_id": "t"}));
    assert!(typo.is_err());
    assert_eq!(reference.tool_kind(), Some(ToolKind::Builtin));
    let own = ToolReference::new("crm_record", "acme", "contact");
    assert_eq!(own.tool_kind(), None, "a host's own kind is not a ToolKind");
    let written = ToolReference::of_kind(ToolKind::Mcp, "srv", "echo");
    assert_eq!(serde_json::to_value(&written).unwrap()["type"], "mcp");
}

#[tokio::test]
async fn instance_params_configure_the_built_tool() {
    let assembler = Assembler::new().with_provider(builtin());
    let refs = [ToolReference::new("builtin_tool", "images", "generate")
        .with_params(json!({"model": "qwen", "size": "1664*928"}))];
    let (registry, failures) = assembler.assemble(&refs).await.into_registry();
    assert!(failures.is_empty(), "{failures:?}");
    let ctx = ToolContext::new();
    let out = Invoker::default()
        .invoke_in(
            &registry,
            &ToolCall::new("images-generate____generate", ""),
            &ctx,
        )
        .await;
    assert_eq!(out.content, "qwen at 1664*928");
}

#[tokio::test]
async fn failures_are_collected_per_reference_and_the_rest_still_loads() {
    let assembler = Assembler::new().with_provider(builtin());
    let refs = vec![
        ToolReference::new("builtin_tool", "clock", "now"),
        ToolReference::new("mcp_tool", "srv", "x"),
        ToolReference::new("builtin_tool", "nope", "x"),
        ToolReference::new("builtin_tool", "images", "nope"),
        ToolReference::new("builtin_tool", "images", "generate").with_params(json!({"size": 3})),
        ToolReference::new("builtin_tool", "clock", "now").with_params(json!({"extra": 1})),
    ];
    let assembly = assembler.assemble(&refs).await;
    assert_eq!(assembly.tools.len(), 1);
    assert_eq!(assembly.tools[0].0, 0);
    assert_eq!(assembly.failures.len(), 5);
    assert!(matches!(&assembly.failures[0],
        Error::MissingProvider { index: 1, kind, .. } if kind == "mcp_tool"));
    assert!(matches!(&assembly.failures[1],
        Error::MissingTool { index: 2, message, .. } if message.contains("no builtin provider `nope`")));
    assert!(matches!(&assembly.failures[2],
        Error::MissingTool { index: 3, message, .. } if message.contains("has no tool `nope`")));
    match &assembly.failures[3] {
        Error::InvalidParams {
            index: 4,
            reference,
            violations,
        } => {
            assert_eq!(reference, "builtin_tool/images/generate");
            let pointers: Vec<&str> = violations.iter().map(|v| v.pointer.as_str()).collect();
            assert!(pointers.contains(&"/size"), "{pointers:?}");
            assert!(
                violations.iter().any(|v| v.message.contains("model")),
                "{violations:?}"
            );
        }
        other => panic!("expected invalid params, got {other:?}"),
    }
    assert!(assembly.failures[4].to_string().contains("reference #5"));
}

#[tokio::test]
async fn strict_assembly_stops_at_the_first_failure() {
    let assembler = Assembler::new().with_provider(builtin());
    let refs = vec![
        ToolReference::new("builtin_tool", "clock", "now"),
        ToolReference::new("builtin_tool", "images", "generate"),
    ];
    let error = assembler.assemble_strict(&refs).await.err().unwrap();
    assert!(matches!(error, Error::InvalidParams { index: 1, .. }));
}

#[tokio::test]
async fn duplicate_tools_from_two_references_are_reported_not_dropped() {
    let assembler = Assembler::new().with_provider(builtin());
    let refs = vec![
        ToolReference::new("builtin_tool", "clock", "now"),
        ToolReference::new("builtin_tool", "clock", "now"),
    ];
    let (registry, failures) = assembler.assemble(&refs).await.into_registry();
    assert_eq!(registry.len(), 1);
    assert!(
        matches!(failures.as_slice(), [Error::DuplicateTool { identifier }] if identifier == "clock")
    );
}

#[test]
fn factory_params_schema_is_exposed_for_configuration_forms() {
    let provider = builtin();
    let schema = provider.params_schema("images", "generate").unwrap();
    assert_eq!(schema["properties"]["model"]["description"], "Model name.");
    assert!(provider.params_schema("images", "missing").is_none());
    let mut bad = BuiltinProvider::new();
    let error = bad
        .factory("p", "t", json!({"type": 7}), |_| {
            Err(ProvideError::Failed("x".into()))
        })
        .err()
        .unwrap();
    assert!(error.is_invalid_manifest());
}

/// A provider whose server is down: the error says so, carries the cause, and is retryable.
struct DownServer;

#[async_trait::async_trait]
impl tool_core::assembly::ToolProvider for DownServer {
    fn kind(&self) -> &str {
        "mcp"
    }

    async fn provide(&self, reference: &ToolReference) -> Result<Arc<dyn Tool>, ProvideError> {
        if reference.provider_id == "broken" {
            return Err(ProvideError::permanent(
                "the server's tool list is not JSON",
            ));
        }
        let cause =
            std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connection refused");
        Err(ProvideError::transient(format!(
            "server `{}` is not reachable",
            reference.provider_id
        ))
        .with_source(cause))
    }
}

#[tokio::test]
async fn provider_errors_keep_their_cause_and_say_whether_to_retry() {
    use std::error::Error as _;
    let assembler = Assembler::new().with_provider(DownServer);
    let assembled = assembler
        .assemble(&[
            ToolReference::new("mcp", "files", "read"),
            ToolReference::new("mcp", "broken", "read"),
        ])
        .await;
    assert_eq!(assembled.failures.len(), 2);
    let down = &assembled.failures[0];
    assert!(down.is_retryable());
    assert_eq!(
        down.to_string(),
        "reference #0 (mcp/files/read): server `files` is not reachable"
    );
    let provide = down.source().unwrap();
    assert_eq!(provide.source().unwrap().to_string(), "connection refused");
    match down {
        Error::Provider {
            index: 0, source, ..
        } => assert!(source.is_retryable()),
        other => panic!("{other:?}"),
    }
    assert!(!assembled.failures[1].is_retryable());
    assert!(!Error::UnknownToolName { name: "x".into() }.is_retryable());
}

#[test]
fn failed_with_a_source_becomes_a_permanent_failure_with_that_cause() {
    use std::error::Error as _;
    let error = ProvideError::Failed("bad spec".into()).with_source(std::fmt::Error);
    assert!(!error.is_retryable());
    assert!(error.source().is_some());
    assert_eq!(error.to_string(), "bad spec");
    assert_eq!(
        ProvideError::NotFound("x".into()).with_source(std::fmt::Error),
        ProvideError::NotFound("x".into())
    );
}

#[tokio::test]
async fn an_assembly_becomes_the_one_batch_shape_with_each_failure_at_its_reference() {
    let mut builtin = BuiltinProvider::new();
    builtin
        .factory("core", "clock", json!({"type": "object"}), |_| {
            let clock = ToolBuilder::new("clock")
                .api(ApiDefinition::new("now", "Time."), |_, _| async {
                    Ok(ToolOutput::text("noon"))
                })
                .build()
                .unwrap();
            Ok(Arc::new(clock) as Arc<dyn Tool>)
        })
        .unwrap();
    let references = [
        ToolReference::new("teleporter", "acme", "beam"),
        ToolReference::new("builtin", "core", "clock"),
        ToolReference::new("builtin", "core", "sundial"),
    ];
    let assembly = Assembler::new()
        .with_provider(builtin)
        .assemble(&references)
        .await;
    let loaded = assembly.into_partial();
    assert_eq!(loaded.loaded().len(), 1);
    let sources: Vec<&str> = loaded.failed().iter().map(|f| f.source.as_str()).collect();
    assert_eq!(sources, ["references[0]", "references[2]"]);
    let Err(error) = loaded.into_complete() else {
        panic!("two references failed");
    };
    assert!(
        error.to_string().starts_with("2 of 3 failed to load"),
        "{error}"
    );
}
