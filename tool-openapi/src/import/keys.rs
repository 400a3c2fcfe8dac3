//! Unknown keys: a key the OpenAPI version does not define, in an object
//! the import reads, is a warning with its JSON pointer (extensions, keys
//! starting with `x-`, are not). The key is ignored; a peer validator
//! (`@apidevtools/swagger-parser`) rejects such a document, so a host
//! learns why a document it wrote may not travel.
//!
//! The objects checked, one table each: the document's top level, the
//! path items and operations that are imported (after the operation
//! filter), their inline parameters, request bodies and responses, the
//! `components` object, and the parameters, request bodies and responses
//! under `components` (checked once there, not at each `$ref`).

use crate::pointer;

use super::node::{Node, Object};

/// The kinds of object checked, each with its keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Document,
    PathItem,
    Operation,
    Parameter,
    RequestBody,
    Response,
    Components,
}

/// The keys of a 3.1 `components` object; 3.0's are all but the last.
const COMPONENTS: [&str; 10] = [
    "schemas",
    "responses",
    "parameters",
    "examples",
    "requestBodies",
    "headers",
    "securitySchemes",
    "links",
    "callbacks",
    "pathItems",
];

impl Kind {
    /// The keys OpenAPI 3.0 (`openapi30`) or 3.1 defines for this object.
    fn known(self, openapi30: bool) -> &'static [&'static str] {
        match (self, openapi30) {
            (Self::Document, true) => &[
                "openapi",
                "info",
                "servers",
                "paths",
                "components",
                "security",
                "tags",
                "externalDocs",
            ],
            (Self::Document, false) => &[
                "openapi",
                "info",
                "jsonSchemaDialect",
                "servers",
                "paths",
                "webhooks",
                "components",
                "security",
                "tags",
                "externalDocs",
            ],
            (Self::PathItem, _) => &[
                "$ref",
                "summary",
                "description",
                "get",
                "put",
                "post",
                "delete",
                "options",
                "head",
                "patch",
                "trace",
                "servers",
                "parameters",
            ],
            (Self::Operation, _) => &[
                "tags",
                "summary",
                "description",
                "externalDocs",
                "operationId",
                "parameters",
                "requestBody",
                "responses",
                "callbacks",
                "deprecated",
                "security",
                "servers",
            ],
            (Self::Parameter, _) => &[
                "name",
                "in",
                "description",
                "required",
                "deprecated",
                "allowEmptyValue",
                "style",
                "explode",
                "allowReserved",
                "schema",
                "example",
                "examples",
                "content",
            ],
            (Self::RequestBody, _) => &["description", "content", "required"],
            (Self::Response, _) => &["description", "headers", "content", "links"],
            // 3.1 adds `pathItems` (last) to 3.0's list.
            (Self::Components, true) => &COMPONENTS[..COMPONENTS.len() - 1],
            (Self::Components, false) => &COMPONENTS,
        }
    }

    /// How the warning names the object.
    fn name(self) -> &'static str {
        match self {
            Self::Document => "top-level",
            Self::PathItem => "path item",
            Self::Operation => "operation",
            Self::Parameter => "parameter",
            Self::RequestBody => "request body",
            Self::Response => "response",
            Self::Components => "components",
        }
    }
}

/// Warns about each unknown key of `object` (at `at`), in document order.
/// A reference object (`$ref`, with 3.1's `summary` and `description`
/// beside it) is not checked: its target is, where it is defined.
pub(crate) fn check(
    object: &Object<'_>,
    kind: Kind,
    at: &str,
    version: &str,
    warn: &mut impl FnMut(String, String),
) {
    check_lazily(object, kind, &|| at.to_owned(), version, warn);
}

/// [`check`] with the object's pointer written only for a warning.
pub(crate) fn check_lazily(
    object: &Object<'_>,
    kind: Kind,
    at: &dyn Fn() -> String,
    version: &str,
    warn: &mut impl FnMut(String, String),
) {
    if kind != Kind::PathItem && object.contains_key("$ref") {
        return;
    }
    let known = kind.known(version.starts_with("3.0"));
    let mut base = None;
    for key in object.keys() {
        if !known.contains(&key) && !key.starts_with("x-") {
            let at = base.get_or_insert_with(at);
            warn(
                pointer::join(at, key),
                format!(
                    "unknown {} key `{key}` in OpenAPI {version} (ignored; extensions start with `x-`)",
                    kind.name()
                ),
            );
        }
    }
}

/// [`check`] for `node` when it is an object.
pub(crate) fn check_node(
    node: &Node<'_>,
    kind: Kind,
    at: &str,
    version: &str,
    warn: &mut impl FnMut(String, String),
) {
    if let Some(object) = node.as_object() {
        check(object, kind, at, version, warn);
    }
}

/// The `components` object and the parameters, request bodies and
/// responses defined in it.
pub(crate) fn components(root: &Object<'_>, version: &str, warn: &mut impl FnMut(String, String)) {
    let Some(components) = root.get("components").and_then(Node::as_object) else {
        return;
    };
    check(components, Kind::Components, "/components", version, warn);
    for (section, kind) in [
        ("parameters", Kind::Parameter),
        ("requestBodies", Kind::RequestBody),
        ("responses", Kind::Response),
    ] {
        let Some(entries) = components.get(section).and_then(Node::as_object) else {
            continue;
        };
        let at = pointer::join("/components", section);
        for (name, entry) in entries.iter() {
            check_node(entry, kind, &pointer::join(&at, name), version, warn);
        }
    }
}
