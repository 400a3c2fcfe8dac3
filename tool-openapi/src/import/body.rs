//! `requestBody` → arguments and a [`BodyFormat`].
//!
//! One media type is chosen, in this order: JSON (`application/json`,
//! `*+json`), `application/x-www-form-urlencoded`, `multipart/form-data`,
//! text (`text/*`, XML, YAML, JWT…), any other named type as binary, and
//! last `*/*`, read as JSON.
//!
//! - **JSON, form, multipart** with an object schema: one argument per
//!   property (a name already taken becomes `body_<name>`; a `readOnly`
//!   property is left out, required or not: the server writes it); form
//!   and multipart keep the media type's `encoding` per field. Any other JSON
//!   body is one `body` argument.
//! - **Files**: a multipart property that is binary (`format: binary`, or a
//!   3.1 `contentMediaType` without `contentEncoding`), or a list of them,
//!   becomes a *workspace path* argument (its role [`ArgRole::Path`],
//!   `"x-role": "path"`, so the approval layer audits it as a path); the
//!   call reads the file from the workspace and uploads its bytes. Base64 text (`format: byte`,
//!   `contentEncoding: base64`) stays a string sent as given. Paths, not
//!   base64 content, because a model cannot be trusted to copy megabytes
//!   of base64 faithfully, and a path is something a person approving the
//!   call can read.
//! - **Text** (and form or multipart without an object schema): one `body`
//!   string, sent as it is with the media type.
//! - **Binary** (`application/octet-stream`, images, PDF…): one `body`
//!   workspace path whose bytes are the body.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use tool_core::approval::ArgRole;

use crate::document::{BodyFormat, BodyKind, FieldEncoding, Location, Parameter};
use crate::method::Method;

use super::description::short;
use super::node::Node;
use super::schema::{SchemaConverter, object_properties};

/// Object bodies already split into arguments, by the schema they refer to
/// (a body schema that is only a `$ref`) and their encoding: Microsoft
/// Graph's 2 526 such bodies name 460 schemas, each split (its properties
/// converted, their schemas shared) once per document.
#[derive(Default)]
pub(crate) struct Splits(HashMap<(String, BodyKind), Vec<Split>>);

/// One argument of a split body, as every operation sending it takes it
/// (its argument name and whether it is required are the operation's).
struct Split {
    name: String,
    schema: Arc<Value>,
    description: Option<String>,
    file: bool,
    /// Listed in the body schema's `required`.
    listed: bool,
}

/// Adds the body's arguments to `parameters`; the body's format (`None`
/// for JSON, the narrow protocol's default).
pub(crate) fn request_body<'b>(
    converter: &mut SchemaConverter<'_, '_>,
    splits: &mut Splits,
    body: &'b Node<'b>,
    at: &str,
    method: Method,
    parameters: &mut Vec<Parameter>,
    warn: &mut impl FnMut(String, String),
) -> Result<Option<BodyFormat>, String> {
    let required = body
        .get("required")
        .and_then(Node::as_bool)
        .unwrap_or(false);
    // A body with no media type has nothing to send: the operation
    // imports without one (OpenAPI requires `content`; these documents
    // describe a body-less call).
    let Some(Node::Object(content)) = body.get("content") else {
        warn(
            at.to_owned(),
            "a request body without `content` (no media type): no body is sent".to_owned(),
        );
        return Ok(None);
    };
    // Form and multipart are left out once they turn out unable to carry
    // the body (a schema that is not an object) and another type can.
    let mut excluded: Vec<BodyKind> = Vec::new();
    loop {
        let chosen = [
            BodyKind::Json,
            BodyKind::Form,
            BodyKind::Multipart,
            BodyKind::Text,
            BodyKind::Binary,
        ]
        .into_iter()
        .filter(|kind| !excluded.contains(kind))
        .find_map(|kind| {
            // `*/*` (read as JSON) only when no type is named.
            content
                .iter()
                .find(|(media, _)| kind_of(media) == kind && media.trim() != "*/*")
                .map(|found| (kind, found))
        })
        .or_else(|| {
            content
                .iter()
                .find(|(media, _)| media.trim() == "*/*")
                .map(|found| (BodyKind::Json, found))
        });
        let Some((mut kind, (media_type, media))) = chosen else {
            warn(
                crate::pointer::join(at, "content"),
                "a request body with an empty `content` (no media type): no body is sent"
                    .to_owned(),
            );
            return Ok(None);
        };
        if !method.allows_body() {
            warn(
                at.to_owned(),
                format!(
                    "a {} request sends no body; the body is left out",
                    method.as_str().to_ascii_uppercase()
                ),
            );
            return Ok(None);
        }
        // A body schema that is only a `$ref` splits as every other body
        // referring there did.
        let reference = match media.get("schema") {
            Some(Node::Object(schema)) if schema.len() == 1 => {
                schema.get("$ref").and_then(Node::as_str)
            }
            _ => None,
        }
        .filter(|_| !matches!(kind, BodyKind::Text | BodyKind::Binary))
        .map(|reference| (reference.to_owned(), kind));
        if let Some(split) = reference.as_ref().and_then(|key| splits.0.get(key)) {
            for argument in split {
                parameters.push(Parameter {
                    required: required && argument.listed,
                    argument: free_name(&argument.name, parameters),
                    name: argument.name.clone(),
                    location: Location::RequestBody,
                    description: argument.description.clone(),
                    schema: Arc::clone(&argument.schema),
                    file: argument.file,
                    style: None,
                    explode: None,
                    allow_reserved: false,
                    required_with_body: !required && argument.listed,
                    allow_empty_value: false,
                    content_type: None,
                });
            }
            return Ok(kept(kind, media_type, media, at, warn));
        }
        let marks = converter.marks();
        let media_at = crate::pointer::join(&crate::pointer::join(at, "content"), media_type);
        let schema = match media.get("schema") {
            Some(schema) => converter.argument(schema),
            None => json!({}),
        };
        let description = body.get("description").and_then(Node::as_str).map(short);
        if matches!(kind, BodyKind::Text | BodyKind::Binary) {
            parameters.push(whole_body(
                kind,
                media_type,
                schema,
                description,
                required,
                parameters,
            ));
            return Ok(kept(kind, media_type, media, at, warn));
        }
        let schema = match object_properties(schema) {
            Ok((properties, required_props)) => {
                let first = parameters.len();
                for (name, property) in properties {
                    let property = converter.top(property);
                    // A read-only property is the server's to write: never
                    // sent in a request, and its `required` holds for
                    // responses only (OpenAPI 3.0 `readOnly`).
                    if property.get("readOnly") == Some(&Value::Bool(true)) {
                        continue;
                    }
                    let argument = free_name(&name, parameters);
                    let file = kind == BodyKind::Multipart && is_file(&property);
                    let property = if file {
                        file_schema(property)
                    } else {
                        property
                    };
                    let description = property
                        .get("description")
                        .and_then(Value::as_str)
                        .map(short);
                    let listed = required_props.contains(&name);
                    parameters.push(Parameter {
                        required: required && listed,
                        name,
                        argument,
                        location: Location::RequestBody,
                        description,
                        schema: Arc::new(property),
                        file,
                        style: None,
                        explode: None,
                        allow_reserved: false,
                        required_with_body: !required && listed,
                        allow_empty_value: false,
                        content_type: None,
                    });
                }
                // Kept for the next body referring there, unless converting
                // it found a problem or cut nesting (each operation reports
                // those).
                if let Some(key) = reference
                    && converter.marks() == marks
                {
                    let split = parameters[first..]
                        .iter()
                        .map(|p| Split {
                            name: p.name.clone(),
                            schema: Arc::clone(&p.schema),
                            description: p.description.clone(),
                            file: p.file,
                            listed: required_props.contains(&p.name),
                        })
                        .collect();
                    splits.0.insert(key, split);
                }
                return Ok(kept(kind, media_type, media, at, warn));
            }
            Err(schema) => schema,
        };
        if matches!(kind, BodyKind::Form | BodyKind::Multipart) {
            let carriers = [BodyKind::Binary, BodyKind::Text, BodyKind::Json];
            if content
                .iter()
                .any(|(other, _)| carriers.contains(&kind_of(other)))
            {
                warn(
                    media_at,
                    format!(
                        "the {media_type} body has no object schema: another offered media type carries it"
                    ),
                );
                excluded.extend([BodyKind::Form, BodyKind::Multipart]);
                continue;
            }
        }
        if kind != BodyKind::Json {
            warn(
                media_at,
                format!(
                    "the {media_type} body has no object schema: it is one `body` string sent as it is"
                ),
            );
            kind = BodyKind::Text;
        }
        parameters.push(whole_body(
            kind,
            media_type,
            schema,
            description,
            required,
            parameters,
        ));
        return Ok(kept(kind, media_type, media, at, warn));
    }
}

/// The body format an operation keeps: every kind but JSON sent as
/// `application/json` (the default), so a vendor type
/// (`application/vnd.api+json`, `application/problem+json`) is the
/// `Content-Type` sent.
fn kept(
    kind: BodyKind,
    media_type: &str,
    media: &Node<'_>,
    at: &str,
    warn: &mut impl FnMut(String, String),
) -> Option<BodyFormat> {
    let plain_json = kind == BodyKind::Json && {
        let essence = media_type.split(';').next().unwrap_or("").trim();
        essence.eq_ignore_ascii_case("application/json")
            || essence == "*/*"
            || essence.contains('*')
    };
    (!plain_json).then(|| format(kind, media_type, media, at, warn))
}

/// The one argument of a whole body: JSON as its schema says, text as a
/// string, binary as a workspace path.
fn whole_body(
    kind: BodyKind,
    media_type: &str,
    schema: Value,
    description: Option<String>,
    required: bool,
    parameters: &[Parameter],
) -> Parameter {
    let (schema, file) = match kind {
        BodyKind::Binary => {
            let mut schema = path_schema();
            schema.insert(
                "description".into(),
                Value::String(format!(
                    "A path to a file in the workspace; its bytes are the request body ({media_type})."
                )),
            );
            (Value::Object(schema), true)
        }
        BodyKind::Text => {
            let keep = schema.get("type").and_then(Value::as_str) == Some("string");
            let mut schema = if keep {
                schema
            } else {
                json!({"type": "string"})
            };
            if let Value::Object(object) = &mut schema {
                object.remove("format");
                object.entry("description").or_insert_with(|| {
                    Value::String(format!("The request body as {media_type} text."))
                });
            }
            (schema, false)
        }
        _ => (schema, false),
    };
    Parameter {
        name: "body".into(),
        argument: parameters
            .iter()
            .any(|p| p.argument_name() == "body")
            .then(|| "request_body".to_owned()),
        location: Location::Body,
        description,
        required,
        schema: Arc::new(schema),
        file,
        style: None,
        explode: None,
        allow_reserved: false,
        required_with_body: false,
        allow_empty_value: false,
        content_type: None,
    }
}

fn format(
    kind: BodyKind,
    media_type: &str,
    media: &Node<'_>,
    at: &str,
    warn: &mut impl FnMut(String, String),
) -> BodyFormat {
    let mut encoding = std::collections::BTreeMap::new();
    if let Some(Node::Object(fields)) = media.get("encoding") {
        let encoding_at = || {
            let content = crate::pointer::join(at, "content");
            crate::pointer::join(&crate::pointer::join(&content, media_type), "encoding")
        };
        for (name, field) in fields.iter() {
            let text = |key: &str| field.get(key).and_then(Node::as_str).map(str::to_owned);
            let headers = match (kind, field.get("headers")) {
                (BodyKind::Multipart, Some(Node::Object(headers))) => part_headers(
                    headers,
                    &crate::pointer::join(&crate::pointer::join(&encoding_at(), name), "headers"),
                    warn,
                ),
                _ => std::collections::BTreeMap::new(),
            };
            encoding.insert(
                name.to_owned(),
                FieldEncoding {
                    content_type: text("contentType"),
                    style: text("style"),
                    explode: field.get("explode").and_then(Node::as_bool),
                    headers,
                },
            );
        }
    }
    BodyFormat {
        kind,
        media_type: media_type.to_owned(),
        encoding,
    }
}

/// The part headers of one multipart field's `encoding.headers` that are
/// sent: each whose schema fixes its value (`const`, a one-value `enum`,
/// else `default`; a string, number or boolean). `Content-Type` is the
/// field's `contentType` and `Content-Disposition` the part's own, so
/// both are ignored (OpenAPI says so of the first); any other header left
/// out (no fixed value, a `$ref`, not a valid header) is a warning at `at`.
fn part_headers(
    headers: &super::node::Object<'_>,
    at: &str,
    warn: &mut impl FnMut(String, String),
) -> std::collections::BTreeMap<String, String> {
    let mut sent = std::collections::BTreeMap::new();
    for (name, header) in headers.iter() {
        let header_at = crate::pointer::join(at, name);
        let lower = name.to_ascii_lowercase();
        if lower == "content-type" || lower == "content-disposition" {
            warn(
                header_at,
                format!("part header `{name}` is ignored (the part writes its own)"),
            );
            continue;
        }
        let schema = header.get("schema");
        let fixed = schema.and_then(|schema| {
            schema
                .get("const")
                .or_else(|| match schema.get("enum").and_then(Node::as_array) {
                    Some([only]) => Some(only),
                    _ => None,
                })
                .or_else(|| schema.get("default"))
        });
        let value = match fixed.map(Node::to_value) {
            Some(Value::String(text)) => Some(text),
            Some(value @ (Value::Number(_) | Value::Bool(_))) => Some(value.to_string()),
            _ => None,
        };
        let Some(value) = value else {
            warn(
                header_at,
                format!(
                    "part header `{name}` has no value the document fixes (a `const`, a one-value `enum` or a `default` in its schema): not sent"
                ),
            );
            continue;
        };
        if http::HeaderName::from_bytes(name.as_bytes()).is_err()
            || http::HeaderValue::from_str(&value).is_err()
        {
            warn(
                header_at,
                format!("part header `{name}: {value}` is not a valid header: not sent"),
            );
            continue;
        }
        sent.insert(name.to_owned(), value);
    }
    sent
}

/// `name`, or `body_<name>` (then `body_<name>_2`, …) when an argument
/// already has it.
fn free_name(name: &str, parameters: &[Parameter]) -> Option<String> {
    let taken = |candidate: &str| parameters.iter().any(|p| p.argument_name() == candidate);
    if !taken(name) {
        return None;
    }
    let base = format!("body_{name}");
    let mut candidate = base.clone();
    let mut n = 2;
    while taken(&candidate) {
        candidate = format!("{base}_{n}");
        n += 1;
    }
    Some(candidate)
}

/// How a media type is sent.
pub(crate) fn kind_of(media: &str) -> BodyKind {
    let essence = media
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    match essence.as_str() {
        "application/json" | "*/*" => BodyKind::Json,
        e if e.ends_with("+json") => BodyKind::Json,
        "application/x-www-form-urlencoded" => BodyKind::Form,
        "multipart/form-data" | "multipart/mixed" => BodyKind::Multipart,
        "application/xml"
        | "application/yaml"
        | "application/x-yaml"
        | "application/jwt"
        | "application/javascript"
        | "application/graphql"
        | "application/sql"
        | "application/x-ndjson"
        | "application/csv" => BodyKind::Text,
        e if e.starts_with("text/") || e.ends_with("+xml") || e.ends_with("+yaml") => {
            BodyKind::Text
        }
        _ => BodyKind::Binary,
    }
}

/// Whether a (converted) property schema is a file: binary content, or a
/// list of it.
fn is_file(schema: &Value) -> bool {
    let Some(object) = schema.as_object() else {
        return false;
    };
    if object.get("type").and_then(Value::as_str) == Some("array") {
        return object.get("items").is_some_and(is_file);
    }
    object.get("format").and_then(Value::as_str) == Some("binary")
        || (object.contains_key("contentMediaType") && !object.contains_key("contentEncoding"))
}

/// A workspace path argument: a string whose role is [`ArgRole::Path`]
/// (`"x-role": "path"`), so the approval layer audits it as a path.
fn path_schema() -> Map<String, Value> {
    let mut schema = json!({"type": "string"});
    ArgRole::Path.annotate(&mut schema);
    match schema {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// A file property's schema as the model sees it: a workspace path (or a
/// list of them), its description kept.
fn file_schema(schema: Value) -> Value {
    let Value::Object(mut object) = schema else {
        return schema;
    };
    if object.get("type").and_then(Value::as_str) == Some("array") {
        let items = object.remove("items").unwrap_or(Value::Null);
        object.insert("items".into(), file_schema(items));
        return Value::Object(object);
    }
    let mut path = path_schema();
    let note = "A path to a file in the workspace; its bytes are uploaded.";
    let description = match object.get("description").and_then(Value::as_str) {
        Some(text) if !text.trim().is_empty() => format!("{} ({note})", text.trim()),
        _ => note.to_owned(),
    };
    path.insert("description".into(), Value::String(description));
    Value::Object(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_types_map_to_body_kinds() {
        for (media, kind) in [
            ("application/json; charset=utf-8", BodyKind::Json),
            ("application/vnd.api+json", BodyKind::Json),
            ("*/*", BodyKind::Json),
            ("application/x-www-form-urlencoded", BodyKind::Form),
            ("multipart/form-data", BodyKind::Multipart),
            ("text/plain", BodyKind::Text),
            ("application/xml", BodyKind::Text),
            ("application/atom+xml", BodyKind::Text),
            ("application/jwt", BodyKind::Text),
            ("application/octet-stream", BodyKind::Binary),
            ("image/png", BodyKind::Binary),
        ] {
            assert_eq!(kind_of(media), kind, "{media}");
        }
    }

    #[test]
    fn binary_properties_and_lists_of_them_are_files() {
        assert!(is_file(&json!({"type": "string", "format": "binary"})));
        assert!(is_file(
            &json!({"type": "array", "items": {"format": "binary"}})
        ));
        assert!(is_file(
            &json!({"type": "string", "contentMediaType": "image/png"})
        ));
        assert!(!is_file(
            &json!({"type": "string", "contentEncoding": "base64", "contentMediaType": "image/png"})
        ));
        assert!(!is_file(&json!({"type": "string", "format": "byte"})));
        let list =
            file_schema(json!({"type": "array", "items": {"type": "string", "format": "binary"}}));
        assert_eq!(ArgRole::of(&list["items"]), Some(ArgRole::Path));
        assert!(list["items"].get("format").is_none());
    }
}
