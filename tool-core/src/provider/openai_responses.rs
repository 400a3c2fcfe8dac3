//! OpenAI Responses: `function_call` items in, `function_call_output` items out.

use serde_json::{Value, json};

use super::{ProviderFormat, call_from, list_at, media_url};
use crate::content::{ContentPart, data_url};
use crate::error::Error;
use crate::invoke::ToolCall;
use crate::output::ToolOutput;

const FORMAT: ProviderFormat = ProviderFormat::OpenAiResponses;

pub(super) fn tool_calls(response: &Value) -> Result<Vec<ToolCall>, Error> {
    let (items, at) = list_at(FORMAT, response, "output")?;
    let mut calls = Vec::new();
    for (index, item) in items.iter().enumerate() {
        if item.get("type").and_then(Value::as_str) != Some("function_call") {
            continue;
        }
        let pointer = format!("{at}/{index}");
        let mut call = call_from(FORMAT, item, &pointer, ["call_id", "name", "arguments"])?;
        // A function of a `namespace` tool (deferred tool search exports
        // one namespace per tool): the call names the namespace apart.
        match item.get("namespace") {
            None | Some(Value::Null) => {}
            Some(Value::String(namespace)) if !namespace.is_empty() => {
                call.name = format!("{namespace}{}{}", crate::export::WIRE_SEPARATOR, call.name);
            }
            Some(_) => {
                return Err(FORMAT.problem(
                    &format!("{pointer}/namespace"),
                    "`namespace` must be a non-empty string".into(),
                ));
            }
        }
        calls.push(call);
    }
    Ok(calls)
}

pub(super) fn tool_results(pairs: &[(&str, &ToolOutput)]) -> Vec<Value> {
    pairs
        .iter()
        .map(|(id, output)| {
            let parts = output.parts();
            let extra: Vec<Value> = parts.iter().filter_map(input_item).collect();
            let output_value = if extra.is_empty() {
                Value::String(output.content.clone())
            } else {
                let mut list = vec![json!({"type": "input_text", "text": output.content})];
                list.extend(extra);
                Value::Array(list)
            };
            json!({"type": "function_call_output", "call_id": id, "output": output_value})
        })
        .collect()
}

fn input_item(part: &ContentPart) -> Option<Value> {
    if let Some(text) = part.as_text() {
        return Some(json!({"type": "input_text", "text": text}));
    }
    match part {
        ContentPart::Image {
            mime_type,
            data,
            url,
        } => media_url(mime_type, data.as_ref(), url.as_ref())
            .map(|url| json!({"type": "input_image", "image_url": url})),
        ContentPart::File {
            mime_type,
            name,
            data,
            url,
        } => {
            let mut item = json!({"type": "input_file"});
            match (data, url) {
                (Some(data), _) => item["file_data"] = json!(data_url(mime_type, data)),
                (None, Some(url)) => item["file_url"] = json!(url),
                (None, None) => return None,
            }
            if let Some(name) = name {
                item["filename"] = json!(name);
            }
            Some(item)
        }
        ContentPart::Resource {
            mime_type: Some(mime_type),
            blob: Some(blob),
            ..
        } if mime_type.starts_with("image/") => {
            Some(json!({"type": "input_image", "image_url": data_url(mime_type, blob)}))
        }
        _ => None,
    }
}
