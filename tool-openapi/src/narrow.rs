//! The narrow protocol: a small OpenAPI-like JSON text compiled into tools.
//!
//! ```json
//! {
//!   "server": "https://api.example.com/v1",
//!   "description": "Weather lookups.",
//!   "paths": {
//!     "/weather/{city}": {
//!       "get": {
//!         "description": "Current weather of a city.",
//!         "operationId": "getWeather",
//!         "parameters": [
//!           {"name": "city", "in": "path", "required": true, "type": "str"},
//!           {"name": "units", "in": "query", "type": "str", "description": "metric or imperial"}
//!         ]
//!       }
//!     }
//!   }
//! }
//! ```
//!
//! [`validate_narrow`] reports every problem at once, each with a JSON
//! pointer, and normalises a valid text into an [`ApiDocument`]; unknown
//! fields are dropped with a warning. Methods: `get`, `post`, and `put`,
//! `patch`, `delete` as an extension. `in`: `path`, `query`, `header`,
//! `cookie`, `request_body`. `type`: `str`, `int`, `float`, `bool`.
//! `required` defaults to `false`; path parameters must be required.

use std::collections::HashMap;

use serde_json::{Map, Value, json};
use tool_core::manifest::json_kind as kind;
use tool_core::pipeline::Violation;

use crate::document::{ApiDocument, Location, Operation, Parameter};
use crate::error::Error;
use crate::method::Method;
use crate::pointer;
use crate::server::check_server;

/// The outcome of validating a narrow document: the normalised document
/// when there were no errors, every error, and the warnings (dropped
/// unknown fields, missing descriptions).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Validation {
    /// The normalised document; `None` when `errors` is not empty.
    pub document: Option<ApiDocument>,
    /// Every problem, each with its JSON pointer.
    pub errors: Vec<Violation>,
    /// Things dropped or defaulted, each with its JSON pointer.
    pub warnings: Vec<Violation>,
}

impl Validation {
    /// Whether the document is valid.
    pub fn is_ok(&self) -> bool {
        self.errors.is_empty() && self.document.is_some()
    }

    /// The document, or [`Error::Invalid`] with every problem.
    pub fn into_result(self) -> Result<(ApiDocument, Vec<Violation>), Error> {
        match self.document {
            Some(document) if self.errors.is_empty() => Ok((document, self.warnings)),
            _ => Err(Error::Invalid {
                problems: self.errors,
            }),
        }
    }
}

/// Validates and normalises a narrow-protocol JSON text.
pub fn validate_narrow(text: &str) -> Validation {
    match serde_json::from_str::<Value>(text) {
        Ok(value) => validate_narrow_value(&value),
        Err(error) => Validation {
            document: None,
            errors: vec![problem(
                "",
                format!(
                    "not JSON: {} (line {}, column {})",
                    strip_position(&error.to_string()),
                    error.line(),
                    error.column()
                ),
            )],
            warnings: Vec::new(),
        },
    }
}

/// [`validate_narrow`] followed by [`Validation::into_result`].
pub fn parse_narrow(text: &str) -> Result<(ApiDocument, Vec<Violation>), Error> {
    validate_narrow(text).into_result()
}

/// Validates an already parsed narrow document.
pub fn validate_narrow_value(value: &Value) -> Validation {
    let mut v = Validator::default();
    let document = v.document(value);
    Validation {
        document: if v.errors.is_empty() { document } else { None },
        errors: v.errors,
        warnings: v.warnings,
    }
}

/// The narrow `type` names and the JSON Schema type each compiles to.
const TYPES: [(&str, &str); 4] = [
    ("str", "string"),
    ("int", "integer"),
    ("float", "number"),
    ("bool", "boolean"),
];

const LOCATIONS: [(&str, Location); 5] = [
    ("path", Location::Path),
    ("query", Location::Query),
    ("header", Location::Header),
    ("cookie", Location::Cookie),
    ("request_body", Location::RequestBody),
];

fn problem(pointer: impl Into<String>, message: impl Into<String>) -> Violation {
    Violation {
        pointer: pointer.into(),
        message: message.into(),
    }
}

fn strip_position(message: &str) -> &str {
    message
        .rfind(" at line ")
        .map_or(message, |at| &message[..at])
}

#[derive(Default)]
struct Validator {
    errors: Vec<Violation>,
    warnings: Vec<Violation>,
}

impl Validator {
    fn error(&mut self, pointer: impl Into<String>, message: impl Into<String>) {
        self.errors.push(problem(pointer, message));
    }

    fn warn(&mut self, pointer: impl Into<String>, message: impl Into<String>) {
        self.warnings.push(problem(pointer, message));
    }

    fn unknown_fields(&mut self, base: &str, object: &Map<String, Value>, known: &[&str]) {
        for key in object.keys() {
            if !known.contains(&key.as_str()) {
                self.warn(
                    pointer::join(base, key),
                    format!("unknown field `{key}` dropped"),
                );
            }
        }
    }

    /// A required non-empty string field.
    fn required_string(
        &mut self,
        object: &Map<String, Value>,
        base: &str,
        field: &str,
    ) -> Option<String> {
        let at = pointer::join(base, field);
        match object.get(field) {
            None => {
                self.error(at, format!("missing `{field}`"));
                None
            }
            Some(Value::String(s)) if s.trim().is_empty() => {
                self.error(at, format!("`{field}` is empty"));
                None
            }
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                self.error(
                    at,
                    format!("`{field}` must be a string, got {}", kind(other)),
                );
                None
            }
        }
    }

    fn optional_string(
        &mut self,
        object: &Map<String, Value>,
        base: &str,
        field: &str,
    ) -> Option<String> {
        match object.get(field) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                self.error(
                    pointer::join(base, field),
                    format!("`{field}` must be a string, got {}", kind(other)),
                );
                None
            }
        }
    }

    fn document(&mut self, value: &Value) -> Option<ApiDocument> {
        let Value::Object(root) = value else {
            self.error(
                "",
                format!("the document must be a JSON object, got {}", kind(value)),
            );
            return None;
        };
        self.unknown_fields("", root, &["server", "description", "paths"]);
        let server = self.required_string(root, "", "server");
        if let Some(server) = &server
            && let Err(message) = check_server(server)
        {
            self.error("/server", message);
        }
        let description = self.required_string(root, "", "description");
        let operations = match root.get("paths") {
            None => {
                self.error("/paths", "missing `paths`");
                Vec::new()
            }
            Some(Value::Object(paths)) if paths.is_empty() => {
                self.error("/paths", "`paths` is empty: there is nothing to call");
                Vec::new()
            }
            Some(Value::Object(paths)) => self.paths(paths),
            Some(other) => {
                self.error(
                    "/paths",
                    format!(
                        "`paths` must be an object of path → method → operation, got {}",
                        kind(other)
                    ),
                );
                Vec::new()
            }
        };
        Some(ApiDocument {
            server: server?,
            description: description?,
            title: None,
            operations,
            security_schemes: Vec::new(),
            server_template: None,
        })
    }

    fn paths(&mut self, paths: &Map<String, Value>) -> Vec<Operation> {
        let mut operations = Vec::new();
        let mut ids: HashMap<String, String> = HashMap::new();
        for (path, item) in paths {
            let at = pointer::join("/paths", path);
            if !path.starts_with('/') {
                self.error(
                    at.clone(),
                    format!("a path must start with `/`, got `{path}`"),
                );
            }
            let placeholders = match pointer::placeholders(path) {
                Ok(names) => Some(names),
                Err(message) => {
                    self.error(at.clone(), format!("malformed path template: {message}"));
                    None
                }
            };
            let Value::Object(methods) = item else {
                self.error(
                    at,
                    format!("a path must map methods to operations, got {}", kind(item)),
                );
                continue;
            };
            if methods.is_empty() {
                self.error(at.clone(), "no method under this path");
            }
            for (method_name, operation) in methods {
                let op_at = pointer::join(&at, method_name);
                let method = Method::parse(&method_name.to_ascii_lowercase())
                    .filter(|m| Method::NARROW.contains(m) && method_name == m.as_str());
                let Some(method) = method else {
                    self.error(
                        op_at,
                        format!(
                            "unsupported method `{method_name}`: supported are get, post, and put, patch, delete as an extension (lowercase)"
                        ),
                    );
                    continue;
                };
                if let Some(op) =
                    self.operation(path, method, operation, &op_at, placeholders.as_deref())
                {
                    let id_at = pointer::join(&op_at, "operationId");
                    if let Some(first) = ids.get(&op.operation_id) {
                        self.error(
                            id_at,
                            format!(
                                "duplicate operationId `{}` (first at {first})",
                                op.operation_id
                            ),
                        );
                    } else {
                        ids.insert(op.operation_id.clone(), id_at);
                        operations.push(op);
                    }
                }
            }
        }
        operations
    }

    fn operation(
        &mut self,
        path: &str,
        method: Method,
        value: &Value,
        at: &str,
        placeholders: Option<&[&str]>,
    ) -> Option<Operation> {
        let Value::Object(op) = value else {
            self.error(
                at,
                format!("an operation must be an object, got {}", kind(value)),
            );
            return None;
        };
        self.unknown_fields(at, op, &["description", "operationId", "parameters"]);
        let id = self.required_string(op, at, "operationId");
        if let Some(id) = &id
            && (id.chars().any(char::is_control) || id.chars().count() > 256)
        {
            self.error(
                pointer::join(at, "operationId"),
                "`operationId` must be at most 256 characters without control characters",
            );
        }
        let description = match self.optional_string(op, at, "description") {
            Some(d) if !d.trim().is_empty() => d,
            _ => {
                self.warn(
                    pointer::join(at, "description"),
                    "no description: the model sees only the operation's name",
                );
                String::new()
            }
        };
        let params_at = pointer::join(at, "parameters");
        let mut parameters = Vec::new();
        match op.get("parameters") {
            None => {}
            Some(Value::Null) => self.error(
                params_at.clone(),
                "`parameters` must be a list (leave it out when there are none), got null",
            ),
            Some(Value::Array(items)) => {
                let mut seen: HashMap<&str, usize> = HashMap::new();
                for (index, item) in items.iter().enumerate() {
                    let item_at = format!("{params_at}/{index}");
                    let Some(param) = self.parameter(item, &item_at, method) else {
                        continue;
                    };
                    if let Some(first) = seen.get(param.name.as_str()) {
                        self.error(
                            format!("{item_at}/name"),
                            format!(
                                "duplicate parameter `{}` in this operation (first at {params_at}/{first})",
                                param.name
                            ),
                        );
                        continue;
                    }
                    if let Value::Object(o) = item
                        && let Some(Value::String(name)) = o.get("name")
                    {
                        seen.insert(name.as_str(), index);
                    }
                    if param.location == Location::Path
                        && let Some(names) = placeholders
                        && !names.contains(&param.name.as_str())
                    {
                        self.error(
                            format!("{item_at}/name"),
                            format!(
                                "path parameter `{}` does not appear in the path `{path}`",
                                param.name
                            ),
                        );
                    }
                    parameters.push((index, param));
                }
            }
            Some(other) => {
                self.error(
                    params_at.clone(),
                    format!("`parameters` must be a list, got {}", kind(other)),
                );
            }
        }
        if let Some(names) = placeholders {
            for name in names {
                let declared = parameters
                    .iter()
                    .any(|(_, p)| p.location == Location::Path && p.name == *name);
                if !declared {
                    self.error(
                        params_at.clone(),
                        format!(
                            "the path placeholder `{{{name}}}` has no parameter with `in: path`"
                        ),
                    );
                }
            }
        }
        Some(Operation {
            operation_id: id?,
            method,
            path: path.to_owned(),
            description,
            parameters: parameters.into_iter().map(|(_, p)| p).collect(),
            human_intervention: None,
            security: Vec::new(),
            security_requirements: Vec::new(),
            body_format: None,
            body_required: false,
            definitions: Map::new(),
            shared_definitions: Default::default(),
            compiled: Default::default(),
        })
    }

    fn parameter(&mut self, value: &Value, at: &str, method: Method) -> Option<Parameter> {
        let Value::Object(p) = value else {
            self.error(
                at,
                format!("a parameter must be an object, got {}", kind(value)),
            );
            return None;
        };
        self.unknown_fields(at, p, &["name", "in", "description", "required", "type"]);
        let name = self.required_string(p, at, "name");
        let location = match p.get("in") {
            None => {
                self.error(format!("{at}/in"), "missing `in`");
                None
            }
            Some(Value::String(s)) => match LOCATIONS.iter().find(|(n, _)| n == s) {
                Some((_, location)) => Some(*location),
                None => {
                    self.error(
                        format!("{at}/in"),
                        format!(
                            "`in` must be one of path, query, header, cookie, request_body, got `{s}`"
                        ),
                    );
                    None
                }
            },
            Some(other) => {
                self.error(
                    format!("{at}/in"),
                    format!(
                        "`in` must be one of path, query, header, cookie, request_body, got {}",
                        kind(other)
                    ),
                );
                None
            }
        };
        let schema_type = match p.get("type") {
            None => {
                self.error(format!("{at}/type"), "missing `type`");
                None
            }
            Some(Value::String(s)) => match TYPES.iter().find(|(n, _)| n == s) {
                Some((_, json_type)) => Some(*json_type),
                None => {
                    self.error(
                        format!("{at}/type"),
                        format!("`type` must be one of str, int, float, bool, got `{s}`"),
                    );
                    None
                }
            },
            Some(other) => {
                self.error(
                    format!("{at}/type"),
                    format!(
                        "`type` must be one of str, int, float, bool, got {}",
                        kind(other)
                    ),
                );
                None
            }
        };
        let required = match p.get("required") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(other) => {
                self.error(
                    format!("{at}/required"),
                    format!("`required` must be true or false, got {}", kind(other)),
                );
                None
            }
        };
        let description = self.optional_string(p, at, "description");
        let location = location?;
        if location == Location::Path && required == Some(false) {
            self.error(
                format!("{at}/required"),
                "a path parameter must be required (it is part of the URL)",
            );
        }
        if location == Location::RequestBody && !method.allows_body() {
            self.error(
                format!("{at}/in"),
                format!(
                    "a {} operation sends no body: `request_body` parameters are not allowed",
                    method.as_str().to_ascii_uppercase()
                ),
            );
        }
        let name = name?;
        if location == Location::Header && http::HeaderName::from_bytes(name.as_bytes()).is_err() {
            self.error(
                format!("{at}/name"),
                format!("`{name}` is not a valid HTTP header name"),
            );
        }
        Some(Parameter {
            name,
            argument: None,
            location,
            description,
            required: required.unwrap_or(location == Location::Path),
            schema: std::sync::Arc::new(crate::sendable::sendable(
                location,
                json!({ "type": schema_type? }),
            )),
            file: false,
            style: None,
            explode: None,
            allow_reserved: false,
            required_with_body: false,
            allow_empty_value: false,
            content_type: None,
        })
    }
}
