//! The host both processes build the same way: the tools, the gate, the
//! key, the scope. A turn made by `console call` resumes in `console serve`
//! because both hold the same of each.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, bail};
use async_trait::async_trait;
use serde_json::json;
use tool_core::durable::{Durable, KeyRing, MacKey, Scope};
use tool_core::{
    ApiDefinition, Gate, GateDecision, Invoker, OfferedTools, ToolBuilder, ToolContext, ToolError,
    ToolOutput, ToolRegistry, pipeline::PreparedCall,
};

/// Reads run; appends ask a person.
struct AskBeforeWriting;

#[async_trait]
impl Gate for AskBeforeWriting {
    async fn decide(
        &self,
        calls: &[PreparedCall],
        _: &OfferedTools,
        _: &ToolContext,
    ) -> Vec<GateDecision> {
        calls
            .iter()
            .map(|call| match call.api.as_str() {
                "append" => GateDecision::ask("appending changes the notes file")
                    .with_rule("notes/append: ask"),
                _ => GateDecision::run(),
            })
            .collect()
    }

    fn fingerprint(&self) -> Option<String> {
        Some("console-policy-1".to_owned())
    }
}

/// What a command needs: the offered tools, the gated invoker, the
/// durable settings and the context carrying the scope.
pub struct Host {
    pub offered: OfferedTools,
    pub invoker: Invoker,
    pub durable: Durable,
    pub ctx: ToolContext,
}

fn notes_file(workspace: &Path) -> PathBuf {
    workspace.join("notes.txt")
}

/// The `notes` tool over `workspace/notes.txt`.
fn notes(workspace: &Path) -> anyhow::Result<Arc<dyn tool_core::Tool>> {
    let file = notes_file(workspace);
    let read_file = file.clone();
    let tool = ToolBuilder::new("notes")
        .api(
            ApiDefinition::new("read", "Reads the notes."),
            move |_, _| {
                let file = read_file.clone();
                async move {
                    let text = tokio::fs::read_to_string(&file).await.unwrap_or_default();
                    Ok(ToolOutput::text(text))
                }
            },
        )
        .api(
            ApiDefinition::new("append", "Appends a line to the notes.").with_parameters(json!({
                "type": "object",
                "properties": {"line": {"type": "string", "maxLength": 200}},
                "required": ["line"],
                "additionalProperties": false
            })),
            move |args, _| {
                let file = file.clone();
                async move {
                    let line = args["line"].as_str().unwrap_or_default().replace('\n', " ");
                    let mut text = tokio::fs::read_to_string(&file).await.unwrap_or_default();
                    text.push_str(&line);
                    text.push('\n');
                    tokio::fs::write(&file, text).await.map_err(|e| {
                        ToolError::execution_failed(format!("cannot write the notes: {e}"))
                    })?;
                    Ok(ToolOutput::text(format!("appended: {line}")))
                }
            },
        )
        .build()?;
    Ok(Arc::new(tool))
}

/// Reads a hex key of at least 32 bytes.
fn key(path: &Path) -> anyhow::Result<MacKey> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("key file {}", path.display()))?;
    let text = text.trim();
    if !text.len().is_multiple_of(2) || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        bail!("key file {}: not hex", path.display());
    }
    let secret: Vec<u8> = (0..text.len())
        .step_by(2)
        .filter_map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect();
    Ok(MacKey::new("console", secret)?)
}

impl Host {
    /// The host over `workspace`, signing with the key in `key_file`.
    pub fn new(workspace: &Path, key_file: &Path) -> anyhow::Result<Self> {
        let workspace = std::fs::canonicalize(workspace)
            .with_context(|| format!("workspace {}", workspace.display()))?;
        let mut registry = ToolRegistry::new();
        registry.register_arc(notes(&workspace)?)?;
        let ctx = ToolContext::new()
            .with_cwd(&workspace)
            .with_extension(Scope::new().with(Scope::WORKSPACE, workspace.display().to_string()));
        Ok(Self {
            offered: registry.offer(&ctx),
            invoker: Invoker::default().with_gate(Arc::new(AskBeforeWriting)),
            durable: Durable::new(KeyRing::new(key(key_file)?))
                .with_remember_scope([Scope::WORKSPACE]),
            ctx,
        })
    }
}
