//! Non-text results: typed content parts beside the text (the rule is
//! documented on [`ContentPart`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::output::ToolOutput;

/// The key in [`ToolOutput::state`] under which content parts travel.
pub const CONTENT_PARTS_KEY: &str = "contentParts";

/// One typed piece of a tool's result beside its text.
///
/// # The rule
///
/// 1. [`ToolOutput::content`] is always the complete answer *as text*: what
///    every provider can take and what a model reads first. A tool that
///    produces an image also says so in words (`"Screenshot of the login
///    page (PNG, 1280×800)."`).
/// 2. What text cannot carry (images, audio, files, MCP embedded resources)
///    travels as a list of [`ContentPart`]s in the output's state, under the
///    key [`CONTENT_PARTS_KEY`] (`"contentParts"`), set with
///    [`ToolOutput::with_parts`] and read with [`ToolOutput::parts`]. Keeping
///    them in `state` keeps the serialised `ToolOutput` shape unchanged for
///    every host and UI that already reads it; a UI finds them there.
/// 3. Each provider export sends the parts the provider accepts in a tool
///    result, and nothing is silently dropped from the text:
///    - Anthropic `tool_result`: a text block, then `image` blocks (base64 or
///      URL) and `document` blocks for PDFs; audio and other
///      files stay in state (the text already describes them).
///    - OpenAI Responses `function_call_output`: `output` becomes a list of
///      `input_text`, `input_image` and `input_file` items; audio stays in
///      state.
///    - OpenAI Chat: a `tool` message takes text only, so the text goes
///      there, and images, audio and files follow in **one `user` message
///      after all the tool messages of the turn** (`image_url`,
///      `input_audio`, `file` parts), introduced by a text part naming the
///      call ids. [`ChatAttachments::Omit`] leaves them out.
/// 4. Text parts and resources that carry text are exported as text.
///
/// ```
/// use tool_core::{ContentPart, ToolOutput};
/// let out = ToolOutput::with_state("Rendered the chart (PNG).", serde_json::json!({"points": 12}))
///     .with_parts([ContentPart::image_base64("image/png", "iVBORw0KGgo=")]);
/// assert_eq!(out.parts().len(), 1);
/// assert_eq!(out.state.as_ref().unwrap()["points"], 12); // the tool's own state is kept
/// ```
///
/// Serialised with a `type` tag and camelCase fields:
/// `{"type":"image","mimeType":"image/png","data":"…"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[non_exhaustive]
pub enum ContentPart {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, as base64 `data` or a `url`.
    Image {
        /// `image/png`, `image/jpeg`, `image/gif`, `image/webp`…
        mime_type: String,
        /// Base64 bytes (no `data:` prefix).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        data: Option<String>,
        /// Where the image can be fetched instead.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        url: Option<String>,
    },
    /// Audio as base64 `data`.
    Audio {
        /// `audio/wav`, `audio/mpeg`…
        mime_type: String,
        /// Base64 bytes.
        data: String,
    },
    /// A file (a PDF, a CSV…), as base64 `data` or a `url`.
    File {
        /// The file's media type.
        mime_type: String,
        /// A file name to show.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// Base64 bytes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        data: Option<String>,
        /// Where the file can be fetched instead.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        url: Option<String>,
    },
    /// A resource named by URI (an MCP embedded resource or resource link),
    /// with its text or base64 blob when embedded.
    Resource {
        /// The resource's URI.
        uri: String,
        /// Its media type, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Embedded text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Embedded base64 bytes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        blob: Option<String>,
    },
}

impl ContentPart {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }

    /// An image from base64 bytes.
    pub fn image_base64(mime_type: impl Into<String>, data: impl Into<String>) -> Self {
        Self::Image {
            mime_type: mime_type.into(),
            data: Some(data.into()),
            url: None,
        }
    }

    /// An image at a URL.
    pub fn image_url(mime_type: impl Into<String>, url: impl Into<String>) -> Self {
        Self::Image {
            mime_type: mime_type.into(),
            data: None,
            url: Some(url.into()),
        }
    }

    /// Audio from base64 bytes.
    pub fn audio_base64(mime_type: impl Into<String>, data: impl Into<String>) -> Self {
        Self::Audio {
            mime_type: mime_type.into(),
            data: data.into(),
        }
    }

    /// A file from base64 bytes.
    pub fn file_base64(
        mime_type: impl Into<String>,
        name: Option<String>,
        data: impl Into<String>,
    ) -> Self {
        Self::File {
            mime_type: mime_type.into(),
            name,
            data: Some(data.into()),
            url: None,
        }
    }

    /// An embedded text resource.
    pub fn resource_text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        Self::Resource {
            uri: uri.into(),
            mime_type: None,
            text: Some(text.into()),
            blob: None,
        }
    }

    /// The part's `type` tag.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Text { .. } => "text",
            Self::Image { .. } => "image",
            Self::Audio { .. } => "audio",
            Self::File { .. } => "file",
            Self::Resource { .. } => "resource",
        }
    }

    /// The text this part carries, when it is text (a text part, or a
    /// resource with embedded text).
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text { text } => Some(text),
            Self::Resource {
                text: Some(text), ..
            } => Some(text),
            _ => None,
        }
    }
}

/// A `data:` URL for base64 bytes.
pub(crate) fn data_url(mime_type: &str, data: &str) -> String {
    format!("data:{mime_type};base64,{data}")
}

impl ToolOutput {
    /// Adds content parts beside the text, in `state[`[`CONTENT_PARTS_KEY`]`]`
    /// (appended to parts already there).
    ///
    /// A state that is an object keeps its other keys; no state becomes
    /// `{"contentParts": […]}`; a state that is not an object (an array, a
    /// string…) is kept as `{"value": <state>, "contentParts": […]}`.
    pub fn with_parts(mut self, parts: impl IntoIterator<Item = ContentPart>) -> Self {
        let new: Vec<Value> = parts
            .into_iter()
            .filter_map(|part| serde_json::to_value(part).ok())
            .collect();
        if new.is_empty() {
            return self;
        }
        let mut map = match self.state.take() {
            None => Map::new(),
            Some(Value::Object(map)) => map,
            Some(other) => {
                let mut map = Map::new();
                map.insert("value".into(), other);
                map
            }
        };
        match map.get_mut(CONTENT_PARTS_KEY) {
            Some(Value::Array(existing)) => existing.extend(new),
            _ => {
                map.insert(CONTENT_PARTS_KEY.into(), Value::Array(new));
            }
        }
        self.state = Some(Value::Object(map));
        self
    }

    /// The content parts beside the text (empty when there are none).
    /// Entries under [`CONTENT_PARTS_KEY`] that are not valid parts are
    /// skipped here (they stay in `state` for a UI).
    pub fn parts(&self) -> Vec<ContentPart> {
        self.state
            .as_ref()
            .and_then(|state| state.get(CONTENT_PARTS_KEY))
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|item| ContentPart::deserialize(item).ok())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether the output carries any content parts.
    pub fn has_parts(&self) -> bool {
        self.state
            .as_ref()
            .and_then(|state| state.get(CONTENT_PARTS_KEY))
            .and_then(Value::as_array)
            .is_some_and(|items| !items.is_empty())
    }
}

/// What the OpenAI Chat export does with parts a `tool` message cannot hold.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChatAttachments {
    /// One `user` message after the tool messages carries them (the default).
    #[default]
    FollowUpUserMessage,
    /// They stay in state only; the model gets the text.
    Omit,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parts_round_trip_through_state_and_append() {
        let out = ToolOutput::text("x")
            .with_parts([ContentPart::text("a")])
            .with_parts([ContentPart::audio_base64("audio/wav", "AAA=")]);
        assert_eq!(
            out.state.as_ref().unwrap()[CONTENT_PARTS_KEY],
            json!([{"type":"text","text":"a"},{"type":"audio","mimeType":"audio/wav","data":"AAA="}])
        );
        assert_eq!(out.parts().len(), 2);
        assert!(out.has_parts());
    }

    #[test]
    fn a_non_object_state_is_kept_under_value() {
        let out = ToolOutput::with_state("x", json!([1, 2])).with_parts([ContentPart::text("a")]);
        assert_eq!(out.state.as_ref().unwrap()["value"], json!([1, 2]));
        assert_eq!(out.parts(), vec![ContentPart::text("a")]);
    }

    #[test]
    fn invalid_entries_are_skipped_when_read() {
        let out = ToolOutput::with_state(
            "x",
            json!({CONTENT_PARTS_KEY: [{"type": "hologram"}, {"type": "text", "text": "ok"}]}),
        );
        assert_eq!(out.parts(), vec![ContentPart::text("ok")]);
    }
}
