//! Provider messages both ways: a provider's assistant turn → [`ToolCall`]s,
//! and [`ToolOutput`]s → that provider's tool-result messages.

mod anthropic;
mod openai_chat;
mod openai_responses;

use std::fmt;

use serde_json::Value;

use crate::content::ChatAttachments;
use crate::error::Error;
use crate::invoke::ToolCall;
use crate::offered::OfferedTools;
use crate::output::ToolOutput;

/// A provider's wire format for tools, tool calls and tool results.
///
/// One value answers the three questions a host has each turn: which tools to
/// send ([`tools`](Self::tools)), which calls the model made
/// ([`tool_calls`](Self::tool_calls)), and which messages carry the results
/// back ([`tool_results`](Self::tool_results)).
///
/// ```
/// use serde_json::json;
/// use tool_core::{ProviderFormat, ToolOutput};
///
/// let assistant = json!({
///     "role": "assistant",
///     "content": [
///         {"type": "text", "text": "Let me check."},
///         {"type": "tool_use", "id": "toolu_01", "name": "weather____current", "input": {"city": "Oslo"}}
///     ]
/// });
/// let calls = ProviderFormat::Anthropic.tool_calls(&assistant)?;
/// assert_eq!(calls[0].arguments, r#"{"city":"Oslo"}"#);
///
/// let outputs = vec![ToolOutput::text("4 °C, light rain")];
/// let messages = ProviderFormat::Anthropic.tool_results(&calls, &outputs)?;
/// assert_eq!(messages[0]["content"][0]["tool_use_id"], "toolu_01");
/// # Ok::<(), tool_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProviderFormat {
    /// OpenAI Chat Completions: `tool_calls` on the assistant message,
    /// `role: "tool"` messages back.
    OpenAiChat,
    /// OpenAI Responses: `function_call` output items, `function_call_output`
    /// input items back.
    OpenAiResponses,
    /// Anthropic Messages: `tool_use` content blocks, one `user` message of
    /// `tool_result` blocks back.
    Anthropic,
}

/// Options of [`ProviderFormat::tool_results_with`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResultOptions {
    /// What the OpenAI Chat export does with non-text parts.
    pub chat_attachments: ChatAttachments,
}

impl ResultOptions {
    /// Sets [`ResultOptions::chat_attachments`].
    pub fn with_chat_attachments(mut self, attachments: ChatAttachments) -> Self {
        self.chat_attachments = attachments;
        self
    }
}

impl ProviderFormat {
    /// Every format.
    pub const ALL: [Self; 3] = [Self::OpenAiChat, Self::OpenAiResponses, Self::Anthropic];

    /// `openai-chat`, `openai-responses` or `anthropic`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OpenAiChat => "openai-chat",
            Self::OpenAiResponses => "openai-responses",
            Self::Anthropic => "anthropic",
        }
    }

    /// The offered tools in this format's request shape.
    pub fn tools(self, offered: &OfferedTools) -> Vec<Value> {
        match self {
            Self::OpenAiChat => offered.openai_chat_tools(),
            Self::OpenAiResponses => offered.openai_responses_tools(),
            Self::Anthropic => offered.anthropic_tools(),
        }
    }

    /// The tool calls in a provider's answer, in order.
    ///
    /// Accepts what a host has at hand: for OpenAI Chat the assistant message
    /// or the whole completion (`choices[0].message`); for Responses the
    /// response (its `output`) or the list of output items; for Anthropic the
    /// message (its `content`) or the list of content blocks. Other items
    /// (text, reasoning, provider-run tools) are skipped; an answer without
    /// calls gives an empty list. Arguments are kept as the raw text the
    /// model sent, for [`Invoker`](crate::Invoker) to parse and diagnose.
    ///
    /// A call without an id or a name is an [`Error::ProviderMessage`] with
    /// the JSON pointer of the offending field.
    pub fn tool_calls(self, message: &Value) -> Result<Vec<ToolCall>, Error> {
        match self {
            Self::OpenAiChat => openai_chat::tool_calls(message),
            Self::OpenAiResponses => openai_responses::tool_calls(message),
            Self::Anthropic => anthropic::tool_calls(message),
        }
    }

    /// The messages that carry `outputs` back, `outputs[i]` answering
    /// `calls[i]`, with default [`ResultOptions`].
    ///
    /// OpenAI Chat: one `tool` message per call (plus, when outputs carry
    /// images, audio or files, one `user` message after them); Responses: one
    /// `function_call_output` item per call; Anthropic: one `user` message
    /// holding every `tool_result` block (`is_error` set on failures). See
    /// [`ContentPart`](crate::ContentPart) for how non-text parts travel.
    pub fn tool_results(
        self,
        calls: &[ToolCall],
        outputs: &[ToolOutput],
    ) -> Result<Vec<Value>, Error> {
        self.tool_results_with(calls, outputs, ResultOptions::default())
    }

    /// [`tool_results`](Self::tool_results) with options.
    ///
    /// Fails when the lists differ in length or a call has no id (use
    /// [`ToolCall::ensure_id`] on calls that came without one).
    pub fn tool_results_with(
        self,
        calls: &[ToolCall],
        outputs: &[ToolOutput],
        options: ResultOptions,
    ) -> Result<Vec<Value>, Error> {
        if calls.len() != outputs.len() {
            return Err(self.problem(
                "",
                format!(
                    "{} calls but {} outputs: every call needs exactly one output",
                    calls.len(),
                    outputs.len()
                ),
            ));
        }
        let mut pairs = Vec::with_capacity(calls.len());
        for (index, (call, output)) in calls.iter().zip(outputs).enumerate() {
            let id = call
                .id
                .as_deref()
                .filter(|id| !id.is_empty())
                .ok_or_else(|| {
                    self.problem(
                        &format!("/{index}/id"),
                        "the call has no id to answer".into(),
                    )
                })?;
            pairs.push((id, output));
        }
        Ok(match self {
            Self::OpenAiChat => openai_chat::tool_results(&pairs, options.chat_attachments),
            Self::OpenAiResponses => openai_responses::tool_results(&pairs),
            Self::Anthropic => anthropic::tool_results(&pairs),
        })
    }

    pub(crate) fn problem(self, pointer: &str, message: String) -> Error {
        Error::ProviderMessage {
            format: self.as_str().to_owned(),
            pointer: pointer.to_owned(),
            message,
        }
    }
}

impl fmt::Display for ProviderFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A required string field of a call.
fn required_str<'a>(
    format: ProviderFormat,
    item: &'a Value,
    key: &str,
    pointer: &str,
) -> Result<&'a str, Error> {
    match item.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s),
        Some(Value::String(_)) => {
            Err(format.problem(&format!("{pointer}/{key}"), format!("`{key}` is empty")))
        }
        Some(other) => Err(format.problem(
            &format!("{pointer}/{key}"),
            format!(
                "`{key}` must be a string, got {}",
                crate::declare::json_kind(other)
            ),
        )),
        None => Err(format.problem(&format!("{pointer}/{key}"), format!("`{key}` is missing"))),
    }
}

/// The items of a list found either as the value itself or under `key`.
fn list_at<'a>(
    format: ProviderFormat,
    value: &'a Value,
    key: &str,
) -> Result<(&'a [Value], String), Error> {
    match value {
        Value::Array(items) => Ok((items, String::new())),
        Value::Object(map) => match map.get(key) {
            None | Some(Value::Null) => Ok((&[], String::new())),
            Some(Value::Array(items)) => Ok((items, format!("/{key}"))),
            Some(other) => Err(format.problem(
                &format!("/{key}"),
                format!(
                    "`{key}` must be an array, got {}",
                    crate::declare::json_kind(other)
                ),
            )),
        },
        other => Err(format.problem(
            "",
            format!(
                "expected an object or an array, got {}",
                crate::declare::json_kind(other)
            ),
        )),
    }
}

/// A [`ToolCall`] from an item: its id and name (required strings) and its
/// arguments (a string kept as the model's raw text, anything else as JSON).
fn call_from(
    format: ProviderFormat,
    item: &Value,
    pointer: &str,
    [id_key, name_key, arguments_key]: [&str; 3],
) -> Result<ToolCall, Error> {
    let id = required_str(format, item, id_key, pointer)?;
    let name = required_str(format, item, name_key, pointer)?;
    let arguments = match item.get(arguments_key) {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    };
    Ok(ToolCall {
        id: Some(id.to_owned()),
        name: name.to_owned(),
        arguments,
    })
}

/// A URL for media given as base64 `data` (a `data:` URL) or a `url`.
fn media_url(mime_type: &str, data: Option<&String>, url: Option<&String>) -> Option<String> {
    match (data, url) {
        (Some(data), _) => Some(crate::content::data_url(mime_type, data)),
        (None, Some(url)) => Some(url.clone()),
        (None, None) => None,
    }
}
