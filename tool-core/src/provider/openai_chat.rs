//! OpenAI Chat Completions: `tool_calls` in, `role: "tool"` messages out.

use serde_json::{Value, json};

use super::{ProviderFormat, call_from, list_at, media_url, required_str};
use crate::content::{ChatAttachments, ContentPart, data_url};
use crate::error::Error;
use crate::invoke::ToolCall;
use crate::output::ToolOutput;

const FORMAT: ProviderFormat = ProviderFormat::OpenAiChat;

pub(super) fn tool_calls(message: &Value) -> Result<Vec<ToolCall>, Error> {
    // A whole completion: take the first choice's message.
    let (message, base) = match message.get("choices") {
        Some(Value::Array(choices)) => match choices.first() {
            Some(choice) => (
                choice.get("message").unwrap_or(&Value::Null),
                "/choices/0/message".to_owned(),
            ),
            None => return Ok(Vec::new()),
        },
        _ => (message, String::new()),
    };
    if message.is_null() {
        return Err(FORMAT.problem(&base, "the choice has no `message`".into()));
    }
    let (items, at) = list_at(FORMAT, message, "tool_calls")?;
    let mut calls = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let pointer = format!("{base}{at}/{index}");
        let id = required_str(FORMAT, item, "id", &pointer)?;
        match item.get("type").and_then(Value::as_str) {
            None | Some("function") => {}
            Some(other) => {
                return Err(FORMAT.problem(
                    &format!("{pointer}/type"),
                    format!("tool call type `{other}` is not a function call"),
                ));
            }
        }
        let function = item.get("function").ok_or_else(|| {
            FORMAT.problem(
                &format!("{pointer}/function"),
                "`function` is missing".into(),
            )
        })?;
        let mut call = call_from(
            FORMAT,
            function,
            &format!("{pointer}/function"),
            ["name", "name", "arguments"],
        )?;
        call.id = Some(id.to_owned());
        calls.push(call);
    }
    Ok(calls)
}

pub(super) fn tool_results(
    pairs: &[(&str, &ToolOutput)],
    attachments: ChatAttachments,
) -> Vec<Value> {
    let mut messages = Vec::with_capacity(pairs.len() + 1);
    let mut attached: Vec<Value> = Vec::new();
    for (id, output) in pairs {
        let parts = output.parts();
        let texts: Vec<&str> = parts.iter().filter_map(ContentPart::as_text).collect();
        let content = if texts.is_empty() {
            Value::String(output.content.clone())
        } else {
            let mut list = vec![json!({"type": "text", "text": output.content})];
            list.extend(
                texts
                    .iter()
                    .map(|text| json!({"type": "text", "text": text})),
            );
            Value::Array(list)
        };
        messages.push(json!({"role": "tool", "tool_call_id": id, "content": content}));
        if attachments == ChatAttachments::FollowUpUserMessage {
            let media: Vec<Value> = parts.iter().filter_map(user_part).collect();
            if !media.is_empty() {
                attached.push(
                    json!({"type": "text", "text": format!("Attachments of tool call {id}:")}),
                );
                attached.extend(media);
            }
        }
    }
    if !attached.is_empty() {
        messages.push(json!({"role": "user", "content": attached}));
    }
    messages
}

/// The user-message part for a non-text content part, when Chat has one.
fn user_part(part: &ContentPart) -> Option<Value> {
    match part {
        ContentPart::Image {
            mime_type,
            data,
            url,
        } => media_url(mime_type, data.as_ref(), url.as_ref())
            .map(|url| json!({"type": "image_url", "image_url": {"url": url}})),
        ContentPart::Audio { mime_type, data } => {
            let format = match mime_type.as_str() {
                "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
                "audio/mpeg" | "audio/mp3" => "mp3",
                _ => return None,
            };
            Some(json!({"type": "input_audio", "input_audio": {"data": data, "format": format}}))
        }
        ContentPart::File {
            mime_type,
            name,
            data: Some(data),
            ..
        } => {
            let mut file = json!({"file_data": data_url(mime_type, data)});
            if let Some(name) = name {
                file["filename"] = json!(name);
            }
            Some(json!({"type": "file", "file": file}))
        }
        ContentPart::Resource {
            mime_type: Some(mime_type),
            blob: Some(blob),
            text: None,
            ..
        } if mime_type.starts_with("image/") => {
            Some(json!({"type": "image_url", "image_url": {"url": data_url(mime_type, blob)}}))
        }
        _ => None,
    }
}
