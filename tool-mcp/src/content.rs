//! MCP call results → [`ToolOutput`]: text for the model, everything whole in state.
//!
//! - text blocks → `content` (joined by blank lines);
//! - image, audio, embedded resource and resource link blocks → a one-line
//!   summary in `content`, the whole block in `state.content`;
//! - `structuredContent` → `state.structuredContent`, and into `content`
//!   (compact JSON) only when there is no text;
//! - `isError: true` → a failed output, code [`MCP_TOOL_ERROR`], with the
//!   server's text as message (an error the serving side of this crate
//!   attached in `_meta` keeps its own code).
//!
//! `state` is `{"type": "mcp", "server", "tool", "content": [blocks],
//! "structuredContent"?}`, present unless the result was text only.

use rmcp::model::CallToolResult;
use serde_json::{Map, Value, json};
use tool_core::{ErrorCode, ToolError, ToolOutput};

/// Error code of a result the server flagged with `isError: true`.
pub const MCP_TOOL_ERROR: &str = "mcp_tool_error";

/// The `_meta` key under which the serving side carries a pipeline error.
pub const ERROR_META_KEY: &str = "toolLayer/error";

/// Maps one result of `server`'s tool `tool`.
pub fn map_call_result(server: &str, tool: &str, result: CallToolResult) -> ToolOutput {
    let blocks: Vec<Value> = result
        .content
        .iter()
        .filter_map(|b| serde_json::to_value(b).ok())
        .collect();
    let mut texts = Vec::new();
    let mut only_text = true;
    for block in &blocks {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => texts.push(
                block
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
            ),
            _ => {
                only_text = false;
                texts.push(summarise(block));
            }
        }
    }
    let has_text = blocks
        .iter()
        .any(|b| b.get("type").and_then(Value::as_str) == Some("text"));
    let structured = result.structured_content.clone();
    let mut content = texts.join("\n\n");
    if !has_text && let Some(value) = &structured {
        let json = value.to_string();
        content = if content.is_empty() {
            json
        } else {
            format!("{json}\n\n{content}")
        };
    }
    let state = if only_text && structured.is_none() {
        None
    } else {
        let mut state = Map::new();
        state.insert("type".into(), json!("mcp"));
        state.insert("server".into(), json!(server));
        state.insert("tool".into(), json!(tool));
        state.insert("content".into(), Value::Array(blocks));
        if let Some(value) = structured {
            state.insert("structuredContent".into(), value);
        }
        Some(Value::Object(state))
    };
    if result.is_error == Some(true) {
        let carried: Option<ToolError> = result
            .meta
            .as_ref()
            .and_then(|m| serde_json::to_value(m).ok())
            .and_then(|m| m.get(ERROR_META_KEY).cloned())
            .and_then(|e| serde_json::from_value(e).ok());
        let error = carried.unwrap_or_else(|| {
            let message = if content.trim().is_empty() {
                format!("`{tool}` on MCP server `{server}` reported an error without a message.")
            } else {
                content.clone()
            };
            ToolError::new(ErrorCode::from_static(MCP_TOOL_ERROR), message)
                .with_details(json!({"server": server, "tool": tool}))
        });
        let mut output = ToolOutput::failure(error);
        if !content.is_empty() {
            output.content = content;
        }
        output.state = state;
        return output;
    }
    ToolOutput {
        content,
        state,
        success: true,
        error: None,
    }
}

fn size_of_base64(data: Option<&str>) -> String {
    let Some(data) = data else {
        return "empty".into();
    };
    let padding = data.bytes().rev().take_while(|b| *b == b'=').count();
    let bytes = (data.len() / 4) * 3
        + match data.len() % 4 {
            2 => 1,
            3 => 2,
            _ => 0,
        };
    human_bytes(bytes.saturating_sub(padding))
}

fn human_bytes(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes} bytes")
    } else if bytes < 1024 * 1024 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
    }
}

fn summarise(block: &Value) -> String {
    let field = |name: &str| block.get(name).and_then(Value::as_str);
    let mime = |v: Option<&str>| v.unwrap_or("unknown type").to_owned();
    match field("type") {
        Some("image") => format!(
            "[image: {}, {}; kept in state]",
            mime(field("mimeType")),
            size_of_base64(field("data"))
        ),
        Some("audio") => format!(
            "[audio: {}, {}; kept in state]",
            mime(field("mimeType")),
            size_of_base64(field("data"))
        ),
        Some("resource") => {
            let resource = block.get("resource").cloned().unwrap_or(Value::Null);
            let uri = resource.get("uri").and_then(Value::as_str).unwrap_or("?");
            let mime_type = resource.get("mimeType").and_then(Value::as_str);
            let size = match (
                resource.get("text").and_then(Value::as_str),
                resource.get("blob").and_then(Value::as_str),
            ) {
                (Some(text), _) => format!("{} characters of text", text.chars().count()),
                (None, Some(blob)) => size_of_base64(Some(blob)),
                (None, None) => "empty".into(),
            };
            format!(
                "[resource {uri}: {}, {size}; kept in state]",
                mime(mime_type)
            )
        }
        Some("resource_link") => {
            let name = field("name").unwrap_or("");
            let uri = field("uri").unwrap_or("?");
            let description = field("description")
                .map(|d| format!(" — {d}"))
                .unwrap_or_default();
            format!(
                "[resource link {name} <{uri}> ({}){description}]",
                mime(field("mimeType"))
            )
        }
        other => format!("[{} block; kept in state]", other.unwrap_or("unknown")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_sizes() {
        assert_eq!(size_of_base64(Some("UklGRiQAAABXQVZFZm10IA==")), "16 bytes");
        assert_eq!(size_of_base64(Some("YQ")), "1 bytes");
    }
}
