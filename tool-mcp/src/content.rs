//! MCP content ⇄ tool-core content, both ways.
//!
//! # An MCP result as a [`ToolOutput`] ([`map_call_result`])
//!
//! - text blocks → `content` (joined by blank lines);
//! - image, audio, embedded resource and resource link blocks → tool-core
//!   [`ContentPart`]s in `state.contentParts` ([`CONTENT_PARTS_KEY`]), so
//!   every provider export sends them the way that provider takes them
//!   (see [`ContentPart`]), and a one-line summary of each in `content`
//!   (the text stays the complete answer as text);
//!
//!   | MCP block | content part |
//!   |---|---|
//!   | `image` | [`ContentPart::Image`] (base64) |
//!   | `audio` | [`ContentPart::Audio`] |
//!   | `resource` with a PDF blob | [`ContentPart::File`] (named after the URI) |
//!   | other `resource` | [`ContentPart::Resource`] with its text or blob |
//!   | `resource_link` | [`ContentPart::Resource`] with the URI only |
//!
//!   a block of a kind this crate does not know is kept whole in
//!   `state.otherContent`;
//! - `structuredContent` → `state.structuredContent`, and into `content`
//!   (compact JSON) only when the result has no content block at all: an
//!   image with its structured copy reaches the model as the image and its
//!   one-line summary, never as base64 text;
//! - an embedded text resource's text follows its summary line in
//!   `content` (the pipeline's content cap applies), so the model reads it;
//! - `isError: true` → a failed output, code [`MCP_TOOL_ERROR`], with the
//!   server's text as message (an error the serving side of this crate
//!   attached in `_meta` keeps its own code).
//!
//! `state` is `{"type": "mcp", "server", "tool", "contentParts"?,
//! "structuredContent"?, "otherContent"?, "blockOrder"?}`, present unless
//! the result was text only. `blockOrder` ([`BLOCK_ORDER_KEY`]), kept when
//! the result has a block that is not text, lists the blocks in the
//! server's order: `{"text": "…"}` for a text block as sent, `{"part": i}`
//! for `contentParts[i]`, `{"other": i}` for `otherContent[i]`. The model
//! reads `content` as above; an MCP proxy serves the blocks in this order.
//!
//! # A [`ToolOutput`] as an MCP result ([`to_result`])
//!
//! The blocks of a result this crate mapped from a server (a state with a
//! valid `blockOrder`) are served again in that order, each text block as
//! sent; otherwise `content` is the first text block and each content part
//! follows as the matching MCP block (the table above read right to left; an image or file
//! given by URL becomes a `resource_link`, a file given by bytes an
//! embedded blob resource under an `attachment:` URI). The state, without
//! its content parts, is `structuredContent`.

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::{Map, Value, json};
use tool_core::{ContentPart, ErrorCode, ToolError, ToolOutput, content::CONTENT_PARTS_KEY};

/// Error code of a result the server flagged with `isError: true`.
pub const MCP_TOOL_ERROR: &str = "mcp_tool_error";

/// The `_meta` key under which the serving side carries a pipeline error.
pub const ERROR_META_KEY: &str = "toolLayer/error";

/// The `_meta` key carrying a served output's `state` when it is not an object.
pub const STATE_META_KEY: &str = "toolLayer/state";

/// The state key listing a mapped result's blocks in the server's order
/// (see the module guide).
pub const BLOCK_ORDER_KEY: &str = "blockOrder";

/// The URI scheme of a served file given by bytes (`attachment:NAME`).
const ATTACHMENT_SCHEME: &str = "attachment:";

/// What one MCP block becomes.
enum Mapped {
    Text(String),
    Part(ContentPart, String),
    Other(Value, String),
}

/// Maps one result of `server`'s tool `tool`.
pub fn map_call_result(server: &str, tool: &str, result: CallToolResult) -> ToolOutput {
    let mut texts = Vec::with_capacity(result.content.len());
    let mut parts = Vec::new();
    let mut others = Vec::new();
    let mut order = Vec::with_capacity(result.content.len());
    let mut has_text = false;
    for block in &result.content {
        match map_block(block) {
            Mapped::Text(text) => {
                has_text = true;
                order.push(json!({"text": text}));
                texts.push(text);
            }
            Mapped::Part(part, summary) => {
                order.push(json!({"part": parts.len()}));
                parts.push(part);
                texts.push(summary);
            }
            Mapped::Other(raw, summary) => {
                order.push(json!({"other": others.len()}));
                others.push(raw);
                texts.push(summary);
            }
        }
    }
    let structured = result.structured_content;
    let mut content = texts.join("\n\n");
    if !has_text
        && parts.is_empty()
        && others.is_empty()
        && let Some(value) = &structured
    {
        content = value.to_string();
    }
    let state = if parts.is_empty() && others.is_empty() && structured.is_none() {
        None
    } else {
        let mut state = Map::new();
        state.insert("type".into(), json!("mcp"));
        state.insert("server".into(), json!(server));
        state.insert("tool".into(), json!(tool));
        if let Some(value) = structured {
            state.insert("structuredContent".into(), value);
        }
        if !others.is_empty() {
            state.insert("otherContent".into(), Value::Array(others));
        }
        if !parts.is_empty() || state.contains_key("otherContent") {
            state.insert(BLOCK_ORDER_KEY.into(), Value::Array(order));
        }
        Some(Value::Object(state))
    };
    let mut output = if result.is_error == Some(true) {
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
        output
    } else {
        ToolOutput {
            content,
            state,
            success: true,
            error: None,
        }
    };
    if !parts.is_empty() {
        output = output.with_parts(parts);
    }
    output
}

fn map_block(block: &ContentBlock) -> Mapped {
    match block {
        ContentBlock::Text(text) => Mapped::Text(text.text.clone()),
        ContentBlock::Image(image) => Mapped::Part(
            ContentPart::image_base64(&image.mime_type, &image.data),
            format!(
                "[image: {}, {}]",
                image.mime_type,
                size_of_base64(&image.data)
            ),
        ),
        ContentBlock::Audio(audio) => Mapped::Part(
            ContentPart::audio_base64(&audio.mime_type, &audio.data),
            format!(
                "[audio: {}, {}]",
                audio.mime_type,
                size_of_base64(&audio.data)
            ),
        ),
        ContentBlock::Resource(embedded) => resource_part(&embedded.resource),
        ContentBlock::ResourceLink(link) => {
            let description = link
                .description
                .as_deref()
                .map(|d| format!(" — {d}"))
                .unwrap_or_default();
            Mapped::Part(
                ContentPart::Resource {
                    uri: link.uri.clone(),
                    mime_type: link.mime_type.clone(),
                    text: None,
                    blob: None,
                },
                format!(
                    "[resource link {} <{}> ({}){description}]",
                    link.name,
                    link.uri,
                    link.mime_type.as_deref().unwrap_or("unknown type")
                ),
            )
        }
        other => {
            let raw = serde_json::to_value(other).unwrap_or(Value::Null);
            let kind = raw
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("unknown")
                .to_owned();
            Mapped::Other(raw, format!("[{kind} block; kept in state.otherContent]"))
        }
    }
}

fn resource_part(resource: &ResourceContents) -> Mapped {
    match resource {
        ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            ..
        } => Mapped::Part(
            ContentPart::Resource {
                uri: uri.clone(),
                mime_type: mime_type.clone(),
                text: Some(text.clone()),
                blob: None,
            },
            format!(
                "[resource {uri}: {}, {} characters of text]\n{text}",
                mime_type.as_deref().unwrap_or("unknown type"),
                text.chars().count()
            ),
        ),
        ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } => {
            let summary = format!(
                "[resource {uri}: {}, {}]",
                mime_type.as_deref().unwrap_or("unknown type"),
                size_of_base64(blob)
            );
            let part = match mime_type.as_deref() {
                Some("application/pdf") => {
                    let name = uri
                        .strip_prefix(ATTACHMENT_SCHEME)
                        .or_else(|| uri.rsplit('/').next())
                        .filter(|n| !n.is_empty())
                        .map(str::to_owned);
                    ContentPart::file_base64("application/pdf", name, blob)
                }
                _ => ContentPart::Resource {
                    uri: uri.clone(),
                    mime_type: mime_type.clone(),
                    text: None,
                    blob: Some(blob.clone()),
                },
            };
            Mapped::Part(part, summary)
        }
        other => {
            let raw = serde_json::to_value(other).unwrap_or(Value::Null);
            Mapped::Other(
                json!({"type": "resource", "resource": raw}),
                "[resource of an unknown kind; kept in state.otherContent]".into(),
            )
        }
    }
}

/// A [`ToolOutput`] as an MCP result: `content` as the first text block,
/// each content part as its MCP block (see the crate guide),
/// `isError` when it failed, `state` without its content parts as
/// `structuredContent` when it is an object (else under
/// `_meta["toolLayer/state"]`; an MCP proxy's state gives the remote
/// server's own `structuredContent`), the error under
/// `_meta["toolLayer/error"]`.
pub fn to_result(output: ToolOutput) -> CallToolResult {
    let parts = output.parts();
    let blocks = match output.state.as_ref().and_then(|s| in_order(s, &parts)) {
        Some(blocks) => blocks,
        None => {
            let mut blocks = Vec::with_capacity(parts.len() + 1);
            if !output.content.is_empty() || parts.is_empty() {
                blocks.push(ContentBlock::text(output.content));
            }
            blocks.extend(
                parts
                    .iter()
                    .enumerate()
                    .map(|(i, part)| part_block(i, part)),
            );
            blocks
        }
    };
    let mut result = if output.success {
        CallToolResult::success(blocks)
    } else {
        CallToolResult::error(blocks)
    };
    let mut meta = Map::new();
    match output.state {
        Some(Value::Object(mut state)) => {
            state.remove(CONTENT_PARTS_KEY);
            let structured = if state.get("type").and_then(Value::as_str) == Some("mcp") {
                state.remove("structuredContent")
            } else if state.is_empty() {
                None
            } else {
                Some(Value::Object(state))
            };
            result.structured_content = structured;
        }
        Some(other) => {
            meta.insert(STATE_META_KEY.into(), other);
        }
        None => {}
    }
    if let Some(error) = output.error
        && let Ok(value) = serde_json::to_value(&error)
    {
        meta.insert(ERROR_META_KEY.into(), value);
    }
    if !meta.is_empty() {
        result.meta = serde_json::from_value(Value::Object(meta)).ok();
    }
    result
}

/// The MCP block of the `index`th content part.
/// The blocks of a mapped MCP result in the server's order, from its
/// state's `blockOrder`; `None` when there is none or it does not fit the
/// state (an entry of another shape, an index past the parts or other
/// blocks, an other block that is not a content block), so the caller
/// serves the output the ordinary way.
fn in_order(state: &Value, parts: &[ContentPart]) -> Option<Vec<ContentBlock>> {
    if state.get("type").and_then(Value::as_str) != Some("mcp") {
        return None;
    }
    let order = state.get(BLOCK_ORDER_KEY)?.as_array()?;
    let others = state.get("otherContent").and_then(Value::as_array);
    let index = |value: &Value| usize::try_from(value.as_u64()?).ok();
    order
        .iter()
        .map(|entry| {
            let entry = entry.as_object().filter(|e| e.len() == 1)?;
            if let Some(text) = entry.get("text") {
                Some(ContentBlock::text(text.as_str()?.to_owned()))
            } else if let Some(i) = entry.get("part") {
                let i = index(i)?;
                Some(part_block(i, parts.get(i)?))
            } else {
                let raw = others?.get(index(entry.get("other")?)?)?;
                serde_json::from_value(raw.clone()).ok()
            }
        })
        .collect()
}

fn part_block(index: usize, part: &ContentPart) -> ContentBlock {
    let link = |uri: &str, name: &str, mime_type: &str| {
        let mut resource = rmcp::model::Resource::new(uri, name);
        resource.mime_type = Some(mime_type.to_owned());
        ContentBlock::resource_link(resource)
    };
    match part {
        ContentPart::Text { text } => ContentBlock::text(text.clone()),
        ContentPart::Image {
            mime_type,
            data: Some(data),
            ..
        } => ContentBlock::image(data.clone(), mime_type.clone()),
        ContentPart::Image {
            mime_type,
            url: Some(url),
            ..
        } => link(url, &format!("image-{index}"), mime_type),
        ContentPart::Audio { mime_type, data } => {
            ContentBlock::audio(data.clone(), mime_type.clone())
        }
        ContentPart::File {
            mime_type,
            name,
            data: Some(data),
            ..
        } => {
            let name = name.clone().unwrap_or_else(|| format!("file-{index}"));
            ContentBlock::resource(
                ResourceContents::blob(data.clone(), format!("{ATTACHMENT_SCHEME}{name}"))
                    .with_mime_type(mime_type.clone()),
            )
        }
        ContentPart::File {
            mime_type,
            name,
            url: Some(url),
            ..
        } => link(
            url,
            name.as_deref().unwrap_or(&format!("file-{index}")),
            mime_type,
        ),
        ContentPart::Resource {
            uri,
            mime_type,
            text,
            blob,
        } => {
            let contents = match (text, blob) {
                (Some(text), _) => ResourceContents::TextResourceContents {
                    uri: uri.clone(),
                    mime_type: mime_type.clone(),
                    text: text.clone(),
                    meta: None,
                },
                (None, Some(blob)) => ResourceContents::BlobResourceContents {
                    uri: uri.clone(),
                    mime_type: mime_type.clone(),
                    blob: blob.clone(),
                    meta: None,
                },
                (None, None) => {
                    let mut resource = rmcp::model::Resource::new(uri.clone(), uri.clone());
                    resource.mime_type = mime_type.clone();
                    return ContentBlock::resource_link(resource);
                }
            };
            ContentBlock::resource(contents)
        }
        // A part with neither bytes nor a URL, or a kind added to tool-core
        // later: say what it was rather than drop it.
        other => ContentBlock::text(format!("[{} part without content]", other.kind())),
    }
}

fn size_of_base64(data: &str) -> String {
    if data.is_empty() {
        return "empty".into();
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_with_its_structured_copy_reaches_the_model_as_the_image_not_as_text() {
        let base64 = "iVBORw0KGgo".repeat(2_000);
        let result: CallToolResult = serde_json::from_value(json!({
            "content": [{"type": "image", "data": base64, "mimeType": "image/png"}],
            "structuredContent": {"image": base64}
        }))
        .unwrap();
        let output = map_call_result("fs", "read_media_file", result);
        assert!(
            output.content.starts_with("[image: image/png"),
            "{}",
            output.content
        );
        assert!(
            output.content.len() < 100,
            "no base64 in the text: {}",
            output.content.len()
        );
        assert!(output.state.unwrap()["structuredContent"]["image"].is_string());
        // With no block at all, the structured content is the answer.
        let bare: CallToolResult =
            serde_json::from_value(json!({"content": [], "structuredContent": {"t": 21}})).unwrap();
        assert_eq!(map_call_result("w", "t", bare).content, r#"{"t":21}"#);
    }

    #[test]
    fn an_embedded_text_resource_reaches_the_model() {
        let result: CallToolResult = serde_json::from_value(json!({"content": [
            {"type": "text", "text": "Here it is:"},
            {"type": "resource", "resource": {"uri": "file:///notes.md", "mimeType": "text/markdown",
                                              "text": "# Notes\nbuy milk"}}
        ]}))
        .unwrap();
        let output = map_call_result("fs", "read", result);
        assert!(
            output.content.starts_with("Here it is:"),
            "{}",
            output.content
        );
        assert!(output.content.contains("[resource file:///notes.md: text/markdown, 16 characters of text]\n# Notes\nbuy milk"), "{}", output.content);
    }

    #[test]
    fn base64_sizes() {
        assert_eq!(size_of_base64("UklGRiQAAABXQVZFZm10IA=="), "16 bytes");
        assert_eq!(size_of_base64("YQ"), "1 bytes");
        assert_eq!(size_of_base64(""), "empty");
    }

    #[test]
    fn every_part_round_trips_through_mcp_blocks() {
        let parts = vec![
            ContentPart::image_base64("image/png", "iVBORw0KGgo="),
            ContentPart::audio_base64("audio/wav", "UklGRiQAAABXQVZFZm10IA=="),
            ContentPart::Resource {
                uri: "memo://1".into(),
                mime_type: Some("text/markdown".into()),
                text: Some("# One".into()),
                blob: None,
            },
            ContentPart::Resource {
                uri: "memo://2".into(),
                mime_type: Some("application/octet-stream".into()),
                text: None,
                blob: Some("AAEC".into()),
            },
            ContentPart::Resource {
                uri: "https://example.org/big.csv".into(),
                mime_type: Some("text/csv".into()),
                text: None,
                blob: None,
            },
            ContentPart::file_base64("application/pdf", Some("report.pdf".into()), "JVBERi0="),
        ];
        let out = ToolOutput::with_state("Here.", json!({"rows": 3})).with_parts(parts.clone());
        let result = to_result(out);
        assert_eq!(result.content.len(), 7);
        assert_eq!(result.structured_content, Some(json!({"rows": 3})));
        let back = map_call_result("s", "t", result);
        assert!(back.content.starts_with("Here.\n\n[image: image/png"));
        // A PDF travels as an embedded blob and comes back as the same file.
        assert_eq!(back.parts(), parts);
        assert_eq!(back.state.unwrap()["structuredContent"]["rows"], 3);
    }

    #[test]
    fn a_proxied_result_is_served_in_the_servers_block_order() {
        let sent = json!([
            {"type": "text", "text": "Here's the image you requested:"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "text", "text": "The image above is the MCP logo."},
            {"type": "hologram", "depth": 3}
        ]);
        let result: CallToolResult = serde_json::from_value(json!({"content": sent.clone()}))
            .unwrap_or_else(|_| {
                // rmcp may not take an unknown block kind: the test then
                // covers the three blocks it knows.
                serde_json::from_value(json!({"content": sent.as_array().unwrap()[..3]})).unwrap()
            });
        let blocks = result.content.len();
        let output = map_call_result("everything", "get-tiny-image", result);
        // The model reads the texts and the image's summary, in order.
        assert!(
            output.content.starts_with(
                "Here's the image you requested:\n\n[image: image/png, 8 bytes]\n\nThe image above"
            ),
            "{}",
            output.content
        );
        let served = serde_json::to_value(to_result(output).content).unwrap();
        assert_eq!(served, json!(sent.as_array().unwrap()[..blocks]));
    }

    #[test]
    fn a_block_order_that_does_not_fit_the_state_is_ignored() {
        let result: CallToolResult = serde_json::from_value(json!({"content": [
            {"type": "text", "text": "a"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "text", "text": "b"}
        ]}))
        .unwrap();
        let output = map_call_result("s", "t", result);
        for bad in [
            json!([{"part": 1}]),
            json!([{"part": -1}]),
            json!([{"text": 7}]),
            json!([{"other": 0}]),
            json!([{"text": "a", "part": 0}]),
            json!(["a"]),
            json!({"part": 0}),
        ] {
            let mut edited = output.clone();
            edited.state.as_mut().unwrap()[BLOCK_ORDER_KEY] = bad.clone();
            let served = to_result(edited).content;
            // The ordinary way: the text (with the summary), then the image.
            assert_eq!(served.len(), 2, "{bad}");
            assert!(served[0].as_text().unwrap().text.starts_with("a\n\n[image"));
        }
        // A local tool's state is never read for an order.
        let local = ToolOutput::with_state("x", json!({BLOCK_ORDER_KEY: [{"text": "y"}]}));
        let served = to_result(local).content;
        assert_eq!(served[0].as_text().unwrap().text, "x");
    }

    #[test]
    fn an_mcp_proxy_state_serves_the_remote_structured_content() {
        let out = ToolOutput::with_state(
            "22 °C",
            json!({"type": "mcp", "server": "w", "tool": "t", "structuredContent": {"c": 22}}),
        );
        assert_eq!(to_result(out).structured_content, Some(json!({"c": 22})));
        let plain = to_result(ToolOutput::text("x"));
        assert_eq!(plain.structured_content, None);
        assert_eq!(plain.content.len(), 1);
    }
}
