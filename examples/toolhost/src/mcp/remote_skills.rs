//! `toolhost mcp skills` and `toolhost mcp skill`: the skills connected
//! servers serve through the skills extension (SEP-2640), listed without
//! reading a file, and one skill loaded (its files read, `SKILL.md` first,
//! each checked against the server's entry by tool-mcp).
//! `toolhost mcp skill-catalog`: those servers as sources of one skills
//! registry behind the `--skills` folders (tool-mcp's `McpSkillSource`).

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Value, json};
use tool_core::Tool as _;
use tool_mcp::{McpManager, McpSkillSource};
use tool_skills::{LoadOptions, SkillRegistry, SkillSource, SkillsTool};

use crate::Failure;

/// `mcp skills`: `{"servers": [{"id", "skills"} | {"id", "code", "error"}]}`.
pub async fn list(manager: &McpManager) -> Value {
    let mut servers = Vec::new();
    for id in manager.ids() {
        if !manager.config(&id).is_some_and(|c| c.enabled) {
            servers.push(json!({"id": id, "status": "disabled"}));
            continue;
        }
        servers.push(match manager.list_skills(&id).await {
            Ok(skills) => json!({"id": id, "skills": skills}),
            Err(error) => json!({"id": id, "code": error.code(), "error": error.to_string()}),
        });
    }
    json!({ "servers": servers })
}

/// `mcp skill SERVER NAME`: `{"skill": entry, "files": [{"uri", "size",
/// "text"}]}` (`"text"` absent for a file that is not UTF-8); a skill that
/// fails its checks is a source failure naming the code and the file.
pub async fn load(manager: &McpManager, server: &str, name: &str) -> Result<Value, Failure> {
    let loaded = manager
        .load_skill(server, name)
        .await
        .map_err(|e| Failure::Source(format!("{}: {e}", e.code())))?;
    let files: Vec<Value> = loaded
        .files
        .iter()
        .map(|file| {
            let mut out = json!({"uri": file.uri, "size": file.bytes.len()});
            if let Ok(text) = std::str::from_utf8(&file.bytes) {
                out["text"] = json!(text);
            }
            out
        })
        .collect();
    Ok(json!({"skill": loaded.entry, "files": files}))
}

/// `mcp skill-catalog`: the `--skills` folders (`skills[i]`), then each
/// enabled server's skills (`mcp:ID`), loaded into one registry (listed,
/// nothing fetched), its catalog, what loaded and what was shadowed or
/// failed; with `activate`, that skill activated through the tool.
pub async fn catalog(
    manager: Arc<McpManager>,
    folders: &[PathBuf],
    activate: Option<&str>,
) -> Value {
    let mut sources: Vec<SkillSource> = folders
        .iter()
        .enumerate()
        .map(|(index, dir)| SkillSource::dir(format!("skills[{index}]"), dir))
        .collect();
    for id in manager.ids() {
        if manager.config(&id).is_some_and(|c| c.enabled) {
            let label = format!("mcp:{id}");
            sources.push(McpSkillSource::new(Arc::clone(&manager), id).into_source(label));
        }
    }
    let registry = SkillRegistry::load_listed(sources, LoadOptions::default()).await;
    let skills: Vec<Value> = registry
        .skills()
        .map(|s| json!({"name": s.name(), "source": s.source, "location": s.location()}))
        .collect();
    let mut out = json!({
        "skills": skills,
        "shadowed": registry.shadowed(),
        "findings": registry.findings(),
    });
    let tool = SkillsTool::new(registry);
    out["catalog"] = json!(tool.system_role());
    if let Some(name) = activate {
        let activated = tool
            .call(
                "activateSkill",
                json!({ "name": name }),
                &tool_core::ToolContext::new(),
            )
            .await;
        out["activated"] = match activated {
            Ok(output) => {
                let mut shown = json!({"success": output.success, "content": output.content});
                if let Some(code) = output.error_code() {
                    shown["code"] = json!(code.as_str());
                }
                shown
            }
            Err(error) => {
                json!({"success": false, "code": error.code.as_str(), "content": error.message})
            }
        };
    }
    out
}
