//! Request bodies other than JSON: form pairs, multipart parts and
//! workspace files.
//!
//! - **Form** fields follow their OpenAPI `encoding`: style `form`
//!   (default; arrays repeat the key when exploded, the default, else join
//!   with `,`; exploded objects send each property as its own pair),
//!   `spaceDelimited` / `pipeDelimited` (arrays joined with ` ` / `|`),
//!   `deepObject` (`name[key]=value`); a field whose `contentType` is JSON
//!   is sent as JSON text.
//! - **Multipart** fields are one part each (text for scalars, JSON for
//!   objects, or the field's `contentType`), a list one part per item, a
//!   file field one part per file with its base name as `filename`; each
//!   part carries its field's `encoding.headers` whose value the document
//!   fixes (see [`FieldEncoding::headers`](crate::FieldEncoding::headers)).
//!   A `contentType` listing several types (`image/png, image/jpeg`) or a
//!   wildcard sends a scalar part untyped and a file as
//!   `application/octet-stream`.
//! - **Files** are read from the workspace (the tool's
//!   [`workspace`](crate::OpenApiToolBuilder::workspace), else the call's
//!   `cwd`): a relative path is taken from its root, and a path that
//!   resolves (symbolic links included) outside it, is not a regular file,
//!   or is larger than the upload cap is refused before anything is sent.

use std::hash::{BuildHasher, Hasher, RandomState};
use std::path::{Path, PathBuf};

use serde_json::Value;
use tool_core::approval::{PathClass, PathRole};

use super::scalar::scalar_text;
use crate::document::FieldEncoding;

/// One multipart part, before files are read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PartPlan {
    pub name: String,
    pub content_type: Option<String>,
    /// The field's part headers (its encoding's), in name order.
    pub headers: Vec<(String, String)>,
    pub source: PartSource,
}

/// Where a part's bytes come from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PartSource {
    Text(String),
    /// A workspace path, as the model gave it.
    File(String),
}

/// The `(key, value)` pairs of one form field.
pub(crate) fn form_pairs(
    name: &str,
    value: &Value,
    encoding: Option<&FieldEncoding>,
    out: &mut Vec<(String, String)>,
) {
    let style = encoding.and_then(|e| e.style.as_deref()).unwrap_or("form");
    let explode = encoding.and_then(|e| e.explode).unwrap_or(style == "form");
    if let (Some(content_type), Value::Array(_) | Value::Object(_)) =
        (encoding.and_then(|e| e.content_type.as_deref()), value)
        && is_json_type(content_type)
    {
        out.push((name.to_owned(), value.to_string()));
        return;
    }
    match value {
        Value::Array(items) => {
            let sep = match style {
                "spaceDelimited" => " ",
                "pipeDelimited" => "|",
                _ => ",",
            };
            if explode && style == "form" {
                out.extend(items.iter().map(|i| (name.to_owned(), scalar_text(i, ","))));
            } else {
                out.push((name.to_owned(), scalar_text(value, sep)));
            }
        }
        Value::Object(map) => match (style, explode) {
            ("deepObject", _) => out.extend(
                map.iter()
                    .map(|(k, v)| (format!("{name}[{k}]"), scalar_text(v, ","))),
            ),
            (_, true) => out.extend(map.iter().map(|(k, v)| (k.clone(), scalar_text(v, ",")))),
            (_, false) => {
                let joined = map
                    .iter()
                    .flat_map(|(k, v)| [k.clone(), scalar_text(v, ",")])
                    .collect::<Vec<_>>()
                    .join(",");
                out.push((name.to_owned(), joined));
            }
        },
        other => out.push((name.to_owned(), scalar_text(other, ","))),
    }
}

/// `application/x-www-form-urlencoded` text of `pairs`.
pub(crate) fn form_text(pairs: &[(String, String)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

/// The parts of one multipart field.
pub(crate) fn multipart_parts(
    name: &str,
    value: &Value,
    file: bool,
    encoding: Option<&FieldEncoding>,
    out: &mut Vec<PartPlan>,
) {
    let declared = encoding.and_then(|e| e.content_type.clone());
    let headers: Vec<(String, String)> = encoding
        .map(|e| {
            e.headers
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default();
    if file {
        let content_type = declared
            .filter(|t| !t.contains([',', '*']))
            .unwrap_or_else(|| "application/octet-stream".to_owned());
        let paths: Vec<&Value> = match value {
            Value::Array(items) => items.iter().collect(),
            other => vec![other],
        };
        for path in paths {
            out.push(PartPlan {
                name: name.to_owned(),
                content_type: Some(content_type.clone()),
                headers: headers.clone(),
                source: PartSource::File(scalar_text(path, ",")),
            });
        }
        return;
    }
    let json_declared = declared.as_deref().is_some_and(is_json_type);
    match value {
        Value::Array(items) if !json_declared => {
            for item in items {
                multipart_parts(name, item, false, encoding, out);
            }
        }
        Value::Array(_) | Value::Object(_) => out.push(PartPlan {
            name: name.to_owned(),
            content_type: Some(declared.unwrap_or_else(|| "application/json".to_owned())),
            headers,
            source: PartSource::Text(value.to_string()),
        }),
        other => out.push(PartPlan {
            name: name.to_owned(),
            content_type: declared
                .filter(|t| !t.starts_with("text/plain") && !t.contains([',', '*'])),
            headers,
            source: PartSource::Text(scalar_text(other, ",")),
        }),
    }
}

fn is_json_type(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or("").trim();
    essence.eq_ignore_ascii_case("application/json") || essence.ends_with("+json")
}

/// A part with its bytes.
#[derive(Debug)]
pub(crate) struct Part {
    pub name: String,
    pub filename: Option<String>,
    pub content_type: Option<String>,
    /// Further part headers, written after `Content-Type`.
    pub headers: Vec<(String, String)>,
    pub bytes: Vec<u8>,
}

/// The `multipart/form-data` body of `parts` and its boundary (chosen
/// at random, and again should a part contain it).
pub(crate) fn multipart_body(parts: &[Part]) -> (String, Vec<u8>) {
    let keys = RandomState::new();
    let mut boundary;
    let mut round = 0u64;
    loop {
        let mut hasher = keys.build_hasher();
        hasher.write_u64(round);
        let a = hasher.finish();
        hasher.write_u64(a);
        boundary = format!("tool-openapi-{a:016x}{:016x}", hasher.finish());
        round += 1;
        if !parts
            .iter()
            .any(|p| contains(&p.bytes, boundary.as_bytes()))
        {
            break;
        }
    }
    let mut body = Vec::with_capacity(parts.iter().map(|p| p.bytes.len() + 160).sum());
    for part in parts {
        body.extend_from_slice(b"--");
        body.extend_from_slice(boundary.as_bytes());
        body.extend_from_slice(b"\r\nContent-Disposition: form-data; name=\"");
        body.extend_from_slice(quoted(&part.name).as_bytes());
        body.push(b'"');
        if let Some(filename) = &part.filename {
            body.extend_from_slice(b"; filename=\"");
            body.extend_from_slice(quoted(filename).as_bytes());
            body.push(b'"');
        }
        if let Some(content_type) = &part.content_type {
            body.extend_from_slice(b"\r\nContent-Type: ");
            body.extend_from_slice(quoted(content_type).as_bytes());
        }
        for (name, value) in &part.headers {
            body.extend_from_slice(b"\r\n");
            body.extend_from_slice(quoted(name).as_bytes());
            body.extend_from_slice(b": ");
            body.extend_from_slice(quoted(value).as_bytes());
        }
        body.extend_from_slice(b"\r\n\r\n");
        body.extend_from_slice(&part.bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(b"--");
    body.extend_from_slice(boundary.as_bytes());
    body.extend_from_slice(b"--\r\n");
    (boundary, body)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// A header parameter value as the HTML form encoder writes it: `"`, CR
/// and LF percent-encoded, so a name cannot end the header.
fn quoted(text: &str) -> String {
    text.replace('"', "%22")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Why a workspace file cannot be sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FileProblem {
    /// No workspace to read from, or the path leaves it.
    Refused(String),
    /// Missing, not a regular file, too large, or unreadable.
    Unreadable(String),
    /// A secret path (a [`PathRole::Secret`] class) while the call runs
    /// confined.
    Secret(String),
}

/// Reads the workspace file `given` (relative to `root`, or absolute
/// inside it), at most `limit` bytes. With `secrets` (the call runs
/// confined; the home directory secret classes anchor at), a path in a
/// secret class, as given or as reached through links, is refused.
pub(crate) fn read_workspace_file(
    root: &Path,
    given: &str,
    limit: u64,
    secrets: Option<Option<&Path>>,
) -> Result<(String, Vec<u8>), FileProblem> {
    let root = std::fs::canonicalize(root).map_err(|e| {
        FileProblem::Refused(format!(
            "the workspace `{}` cannot be opened: {e}",
            root.display()
        ))
    })?;
    if given.trim().is_empty() {
        return Err(FileProblem::Unreadable("the path is empty".into()));
    }
    let candidate: PathBuf = if Path::new(given).is_absolute() {
        PathBuf::from(given)
    } else {
        root.join(given)
    };
    let real = std::fs::canonicalize(&candidate)
        .map_err(|e| FileProblem::Unreadable(format!("`{given}` cannot be opened: {e}")))?;
    if !real.starts_with(&root) {
        return Err(FileProblem::Refused(format!(
            "`{given}` is outside the workspace"
        )));
    }
    if let Some(home) = secrets {
        let found = PathClass::find(PathRole::Secret, &candidate, home)
            .or_else(|| PathClass::find(PathRole::Secret, &real, home));
        if let Some(class) = found {
            return Err(FileProblem::Secret(format!(
                "`{given}` is a secret ({}: {}), not read by a confined call",
                class.name, class.description
            )));
        }
    }
    let metadata =
        std::fs::metadata(&real).map_err(|e| FileProblem::Unreadable(format!("`{given}`: {e}")))?;
    if !metadata.is_file() {
        return Err(FileProblem::Unreadable(format!(
            "`{given}` is not a regular file"
        )));
    }
    if metadata.len() > limit {
        return Err(FileProblem::Unreadable(format!(
            "`{given}` has {} bytes, more than the upload limit of {limit}",
            metadata.len()
        )));
    }
    let bytes = std::fs::read(&real)
        .map_err(|e| FileProblem::Unreadable(format!("`{given}` cannot be read: {e}")))?;
    if bytes.len() as u64 > limit {
        return Err(FileProblem::Unreadable(format!(
            "`{given}` grew past the upload limit of {limit} bytes"
        )));
    }
    let filename = real
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".to_owned());
    Ok((filename, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn enc(style: &str, explode: Option<bool>) -> FieldEncoding {
        FieldEncoding {
            content_type: None,
            style: Some(style.into()),
            explode,
            headers: Default::default(),
        }
    }

    #[test]
    fn form_fields_follow_their_encoding_style() {
        let mut out = Vec::new();
        form_pairs("tags", &json!(["a", "b"]), None, &mut out);
        form_pairs(
            "ids",
            &json!([1, 2]),
            Some(&enc("form", Some(false))),
            &mut out,
        );
        form_pairs(
            "p",
            &json!(["x", "y"]),
            Some(&enc("pipeDelimited", None)),
            &mut out,
        );
        form_pairs(
            "meta",
            &json!({"k": "v", "n": 1}),
            Some(&enc("deepObject", None)),
            &mut out,
        );
        form_pairs("flat", &json!({"r": 1}), None, &mut out);
        let json_enc = FieldEncoding {
            content_type: Some("application/json".into()),
            ..Default::default()
        };
        form_pairs("j", &json!({"a": [1]}), Some(&json_enc), &mut out);
        assert_eq!(
            form_text(&out),
            "tags=a&tags=b&ids=1%2C2&p=x%7Cy&meta%5Bk%5D=v&meta%5Bn%5D=1&r=1&j=%7B%22a%22%3A%5B1%5D%7D"
        );
    }

    #[test]
    fn multipart_body_frames_every_part() {
        let parts = [
            Part {
                name: "note".into(),
                filename: None,
                content_type: None,
                headers: Vec::new(),
                bytes: b"hi".to_vec(),
            },
            Part {
                name: "file\"x".into(),
                filename: Some("a\r\nb.txt".into()),
                content_type: Some("text/csv".into()),
                // A part header cannot end its line: CR and LF are encoded.
                headers: vec![("X-Sum".into(), "a\r\nInjected: 1".into())],
                bytes: b"1,2".to_vec(),
            },
        ];
        let (boundary, body) = multipart_body(&parts);
        let text = String::from_utf8(body).unwrap();
        assert_eq!(
            text,
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhi\r\n\
                 --{boundary}\r\nContent-Disposition: form-data; name=\"file%22x\"; filename=\"a%0D%0Ab.txt\"\r\nContent-Type: text/csv\r\nX-Sum: a%0D%0AInjected: 1\r\n\r\n1,2\r\n\
                 --{boundary}--\r\n"
            )
        );
    }

    #[test]
    fn workspace_files_stay_inside_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let inside = dir.path().join("ws");
        std::fs::create_dir(&inside).unwrap();
        std::fs::write(inside.join("a.txt"), b"abc").unwrap();
        std::fs::write(dir.path().join("secret"), b"s").unwrap();
        assert_eq!(
            read_workspace_file(&inside, "a.txt", 10, None).unwrap(),
            ("a.txt".into(), b"abc".to_vec())
        );
        assert!(matches!(
            read_workspace_file(&inside, "../secret", 10, None),
            Err(FileProblem::Refused(_))
        ));
        let absolute = dir.path().join("secret");
        assert!(matches!(
            read_workspace_file(&inside, &absolute.to_string_lossy(), 10, None),
            Err(FileProblem::Refused(_))
        ));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&absolute, inside.join("link")).unwrap();
            assert!(matches!(
                read_workspace_file(&inside, "link", 10, None),
                Err(FileProblem::Refused(_))
            ));
        }
        assert!(matches!(
            read_workspace_file(&inside, "a.txt", 2, None),
            Err(FileProblem::Unreadable(m)) if m.contains("upload limit")
        ));
        assert!(matches!(
            read_workspace_file(&inside, "nope", 10, None),
            Err(FileProblem::Unreadable(_))
        ));
        assert!(matches!(
            read_workspace_file(&inside, ".", 10, None),
            Err(FileProblem::Unreadable(m)) if m.contains("regular file")
        ));
    }
}
