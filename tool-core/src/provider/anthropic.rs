//! Anthropic Messages: `tool_use` blocks in, `tool_result` blocks out.

use serde_json::{Value, json};

use super::{ProviderFormat, call_from, list_at};
use crate::content::ContentPart;
use crate::error::Error;
use crate::invoke::ToolCall;
use crate::output::ToolOutput;

const FORMAT: ProviderFormat = ProviderFormat::Anthropic;

/// Image types Anthropic accepts in an `image` block.
const IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

pub(super) fn tool_calls(message: &Value) -> Result<Vec<ToolCall>, Error> {
    let (blocks, at) = list_at(FORMAT, message, "content")?;
    let mut calls = Vec::new();
    for (index, block) in blocks.iter().enumerate() {
        if block.get("type").and_then(Value::as_str) != Some("tool_use") {
            continue;
        }
        let pointer = format!("{at}/{index}");
        calls.push(call_from(FORMAT, block, &pointer, ["id", "name", "input"])?);
    }
    Ok(calls)
}

pub(super) fn tool_results(pairs: &[(&str, &ToolOutput)]) -> Vec<Value> {
    if pairs.is_empty() {
        return Vec::new();
    }
    let blocks: Vec<Value> = pairs
        .iter()
        .map(|(id, output)| {
            let parts = output.parts();
            let extra: Vec<Value> = parts.iter().filter_map(block).collect();
            let content = if extra.is_empty() {
                Value::String(output.content.clone())
            } else {
                let mut list = Vec::with_capacity(extra.len() + 1);
                if !output.content.is_empty() {
                    list.push(json!({"type": "text", "text": output.content}));
                }
                list.extend(extra);
                Value::Array(list)
            };
            let mut result = json!({"type": "tool_result", "tool_use_id": id, "content": content});
            if !output.success {
                result["is_error"] = Value::Bool(true);
            }
            result
        })
        .collect();
    vec![json!({"role": "user", "content": blocks})]
}

fn block(part: &ContentPart) -> Option<Value> {
    if let Some(text) = part.as_text() {
        return Some(json!({"type": "text", "text": text}));
    }
    let image = |mime_type: &str, data: &str| json!({"type": "image", "source": {"type": "base64", "media_type": mime_type, "data": data}});
    match part {
        ContentPart::Image {
            mime_type,
            data,
            url,
        } => match (data, url) {
            (Some(data), _) if IMAGE_TYPES.contains(&mime_type.as_str()) => {
                Some(image(mime_type, data))
            }
            (None, Some(url)) => {
                Some(json!({"type": "image", "source": {"type": "url", "url": url}}))
            }
            _ => None,
        },
        ContentPart::File {
            mime_type,
            data,
            url,
            ..
        } if mime_type == "application/pdf" => match (data, url) {
            (Some(data), _) => Some(json!({
                "type": "document",
                "source": {"type": "base64", "media_type": "application/pdf", "data": data}
            })),
            (None, Some(url)) => {
                Some(json!({"type": "document", "source": {"type": "url", "url": url}}))
            }
            (None, None) => None,
        },
        ContentPart::Resource {
            mime_type: Some(mime_type),
            blob: Some(blob),
            ..
        } if IMAGE_TYPES.contains(&mime_type.as_str()) => Some(image(mime_type, blob)),
        _ => None,
    }
}
