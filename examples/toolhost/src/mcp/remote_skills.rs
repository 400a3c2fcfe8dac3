//! `toolhost mcp skills` and `toolhost mcp skill`: the skills connected
//! servers serve through the skills extension (SEP-2640), listed without
//! reading a file, and one skill loaded (its files read, `SKILL.md` first,
//! each checked against the server's entry by tool-mcp).

use serde_json::{Value, json};
use tool_mcp::McpManager;

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
