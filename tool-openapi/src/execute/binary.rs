//! Responses that are not text: what the model gets, what the state keeps.
//!
//! | response `Content-Type` | content (the model reads) | content part | `state.body` |
//! |---|---|---|---|
//! | `image/png`, `image/jpeg`, `image/gif`, `image/webp` | `[image: image/png, 12 KiB]` | [`ContentPart::Image`] (base64) | `{kind: "image", contentType, bytes}` |
//! | `application/pdf` | `[file: report.pdf, application/pdf, 80 KiB]` | [`ContentPart::File`] (base64, named from `Content-Disposition`) | `{kind: "file", contentType, bytes, name?}` |
//! | any other binary type (`application/zip`, `image/tiff`, `application/octet-stream`…) | `binary_response: 2.0 MiB of application/zip …` | none | `{kind: "binary", code: "binary_response", contentType, bytes, base64}` |
//!
//! Images and PDFs are what the providers' tool results take (see
//! [`ContentPart`]), so they reach the model as themselves. Any other
//! binary body is not shown to a model: its content is one line that
//! starts with the stable code [`BINARY_RESPONSE`](crate::codes::BINARY_RESPONSE)
//! (`binary_response`), names the type and size and says where the bytes
//! are; the state keeps them as base64 for the host (a download in a UI).
//! The call still succeeded (a 2xx status): the request was sent and
//! answered, so it is a summary, not a failure a model would retry.

use serde_json::{Value, json};
use tool_core::ContentPart;

use crate::codes;
use crate::credentials::base64;

/// The image types every provider export takes as an image.
const IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// A binary body as the output carries it.
pub(crate) struct Binary {
    /// `state.body`.
    pub value: Value,
    /// The content line.
    pub summary: String,
    /// The content part beside the text, when the type has one.
    pub part: Option<ContentPart>,
}

/// `bytes` of type `essence` (lowercase, without parameters; `""` when the
/// response named none); `disposition` is the `Content-Disposition` header.
pub(crate) fn binary(bytes: &[u8], essence: &str, disposition: Option<&str>) -> Binary {
    let shown = if essence.is_empty() {
        "application/octet-stream"
    } else {
        essence
    };
    let size = human_bytes(bytes.len());
    if IMAGE_TYPES.contains(&shown) {
        return Binary {
            value: json!({"kind": "image", "contentType": shown, "bytes": bytes.len()}),
            summary: format!("[image: {shown}, {size}]"),
            part: Some(ContentPart::image_base64(shown, base64(bytes))),
        };
    }
    if shown == "application/pdf" {
        let name = disposition.and_then(file_name);
        let mut value = json!({"kind": "file", "contentType": shown, "bytes": bytes.len()});
        if let Some(name) = &name {
            value["name"] = json!(name);
        }
        let named = name
            .as_deref()
            .map(|n| format!("{n}, "))
            .unwrap_or_default();
        return Binary {
            value,
            summary: format!("[file: {named}{shown}, {size}]"),
            part: Some(ContentPart::file_base64(shown, name, base64(bytes))),
        };
    }
    Binary {
        value: json!({
            "kind": "binary",
            "code": codes::BINARY_RESPONSE.as_str(),
            "contentType": shown,
            "bytes": bytes.len(),
            "base64": base64(bytes),
        }),
        summary: format!(
            "{}: {size} of {shown} (binary, not shown to the model; the host has the bytes in the state as base64)",
            codes::BINARY_RESPONSE.as_str()
        ),
        part: None,
    }
}

/// The file name a `Content-Disposition` header gives (`filename="a.pdf"`
/// or `filename=a.pdf`), without any directory part.
fn file_name(disposition: &str) -> Option<String> {
    let value = disposition.split(';').find_map(|part| {
        let (key, value) = part.split_once('=')?;
        (key.trim().eq_ignore_ascii_case("filename")).then_some(value.trim())
    })?;
    let value = value.trim_matches('"');
    let base = value.rsplit(['/', '\\']).next().unwrap_or(value).trim();
    (!base.is_empty() && !base.chars().any(char::is_control)).then(|| base.to_owned())
}

/// `512 bytes`, `12.0 KiB`, `3.4 MiB`.
fn human_bytes(bytes: usize) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if bytes < 1024 {
        format!("{bytes} bytes")
    } else if b < KIB * KIB {
        format!("{:.1} KiB", b / KIB)
    } else {
        format!("{:.1} MiB", b / (KIB * KIB))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_become_image_parts_and_keep_no_second_copy_in_state() {
        let out = binary(&[0x89, b'P', b'N', b'G', 0], "image/png", None);
        assert_eq!(out.summary, "[image: image/png, 5 bytes]");
        assert_eq!(
            out.part,
            Some(ContentPart::image_base64("image/png", "iVBORwA="))
        );
        assert_eq!(out.value["kind"], "image");
        assert!(out.value.get("base64").is_none());
    }

    #[test]
    fn pdfs_become_file_parts_named_by_their_disposition() {
        let out = binary(
            b"%PDF-1.7\0",
            "application/pdf",
            Some("attachment; filename=\"../x/report.pdf\""),
        );
        assert_eq!(out.summary, "[file: report.pdf, application/pdf, 9 bytes]");
        assert!(matches!(
            out.part,
            Some(ContentPart::File { name: Some(ref n), .. }) if n == "report.pdf"
        ));
    }

    #[test]
    fn other_binary_types_are_a_summary_with_the_stable_code() {
        let out = binary(&vec![0u8; 3 * 1024], "", None);
        assert!(out.part.is_none());
        assert!(
            out.summary
                .starts_with("binary_response: 3.0 KiB of application/octet-stream"),
            "{}",
            out.summary
        );
        assert_eq!(out.value["code"], "binary_response");
        assert_eq!(out.value["kind"], "binary");
        assert_eq!(out.value["bytes"], 3 * 1024);
        let tiff = binary(&[0, 1], "image/tiff", None);
        assert!(tiff.part.is_none(), "providers take no TIFF image");
    }

    #[test]
    fn file_names_come_from_the_filename_parameter_only() {
        assert_eq!(file_name("inline; filename=a.pdf"), Some("a.pdf".into()));
        assert_eq!(file_name("attachment; filename=\"\""), None);
        assert_eq!(file_name("attachment"), None);
        assert_eq!(
            file_name("attachment; filename=\"C:\\t\\b.pdf\""),
            Some("b.pdf".into())
        );
    }
}
