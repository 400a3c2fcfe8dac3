//! OpenAI strict-mode schemas: what can be made strict, and what could not.
//!
//! Strict function calling (`"strict": true`) makes the model's arguments
//! follow the schema exactly, but accepts only a subset of JSON Schema: every
//! object closed (`additionalProperties: false`) with every property
//! required. [`strict_schema`] rewrites a schema into that form, optional
//! properties becoming nullable, and lists what has no strict equivalent.
//! The pipeline reads a `null` for an optional property that does not itself
//! accept `null` as "absent" (see [`Invoker::prepare`](crate::Invoker::prepare)),
//! so the original schema keeps validating the model's strict answers.

use serde_json::{Map, Value, json};

use crate::offered::OfferedTools;
use crate::violation::Violation;

/// Keywords strict mode does not support.
const UNSUPPORTED: [&str; 17] = [
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "patternProperties",
    "unevaluatedProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "unevaluatedItems",
    "contains",
    "minContains",
    "maxContains",
    "uniqueItems",
];

/// The strict form of `schema`, and every problem that kept parts of it from
/// being strict (each at its JSON pointer into the original schema). Empty
/// problems mean the result can be sent with `"strict": true`.
///
/// ```
/// use serde_json::json;
/// let (strict, problems) = tool_core::export::strict_schema(&json!({
///     "type": "object",
///     "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
///     "required": ["path"]
/// }));
/// assert!(problems.is_empty());
/// assert_eq!(strict["required"], json!(["path", "limit"]));
/// assert_eq!(strict["properties"]["limit"]["type"], json!(["integer", "null"]));
/// assert_eq!(strict["additionalProperties"], false);
///
/// let (_, problems) = tool_core::export::strict_schema(&json!({
///     "type": "object", "properties": {"tags": {"type": "object", "additionalProperties": {"type": "string"}}}
/// }));
/// assert_eq!(problems[0].pointer, "/properties/tags/additionalProperties");
/// ```
pub fn strict_schema(schema: &Value) -> (Value, Vec<Violation>) {
    let mut problems = Vec::new();
    let mut out = schema.clone();
    if !is_object_schema(schema) {
        problems.push(Violation {
            pointer: String::new(),
            message: "the root of a strict schema must be an object".into(),
        });
    }
    rewrite(&mut out, "", &mut problems);
    (out, problems)
}

/// Offered tools exported for OpenAI with strict mode where possible.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct StrictExport {
    /// The tools, in the provider's shape; `"strict": true` on each tool
    /// whose schema could be made strict, `"strict": false` (and the
    /// original schema) on the others.
    pub tools: Vec<Value>,
    /// Why each non-strict tool is not strict: `(wire name, problem)`.
    pub problems: Vec<(String, Violation)>,
}

impl StrictExport {
    /// Whether every tool is strict.
    pub fn all_strict(&self) -> bool {
        self.problems.is_empty()
    }
}

impl OfferedTools {
    /// OpenAI Chat `tools` with strict schemas where possible (see [`strict_schema`]).
    pub fn openai_chat_tools_strict(&self) -> StrictExport {
        self.strict_export(
            |tool, strict, parameters| {
                let function = &mut tool["function"];
                function["strict"] = json!(strict);
                function["parameters"] = parameters;
            },
            self.openai_chat_tools(),
        )
    }

    /// OpenAI Responses `tools` with strict schemas where possible.
    pub fn openai_responses_tools_strict(&self) -> StrictExport {
        self.strict_export(
            |tool, strict, parameters| {
                tool["strict"] = json!(strict);
                tool["parameters"] = parameters;
            },
            self.openai_responses_tools(),
        )
    }

    fn strict_export(
        &self,
        set: impl Fn(&mut Value, bool, Value),
        mut tools: Vec<Value>,
    ) -> StrictExport {
        let mut export = StrictExport::default();
        for (tool, (_, name, api)) in tools.iter_mut().zip(self.all_apis()) {
            let whole = api.parameters_schema();
            let (strict, problems) = strict_schema(&whole);
            if problems.is_empty() {
                set(tool, true, strict);
            } else {
                set(tool, false, whole.into_owned());
                export
                    .problems
                    .extend(problems.into_iter().map(|p| (name.to_owned(), p)));
            }
        }
        export.tools = tools;
        export
    }
}

fn is_object_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
        || (schema.get("type").is_none() && schema.get("properties").is_some())
}

fn rewrite(schema: &mut Value, at: &str, problems: &mut Vec<Violation>) {
    let Value::Object(map) = schema else {
        return;
    };
    // The argument's role is for the gate, which reads the registered
    // schema; strict mode takes only the keywords it knows.
    map.remove(crate::approval::ROLE_KEY);
    for keyword in UNSUPPORTED {
        if map.contains_key(keyword) {
            problems.push(Violation {
                pointer: format!("{at}/{keyword}"),
                message: format!("`{keyword}` is not supported in strict mode"),
            });
        }
    }
    if let Some(one_of) = map.remove("oneOf") {
        // Strict mode knows `anyOf`; for alternatives of distinct shapes the
        // two accept the same arguments.
        map.insert("anyOf".into(), one_of);
    }
    let object =
        map.get("type").and_then(Value::as_str) == Some("object") || map.contains_key("properties");
    if object {
        match map.get("additionalProperties") {
            None | Some(Value::Bool(false)) => {}
            Some(_) => problems.push(Violation {
                pointer: format!("{at}/additionalProperties"),
                message: "an open-ended object (a map of arbitrary keys) cannot be strict".into(),
            }),
        }
        map.insert("additionalProperties".into(), Value::Bool(false));
        let required: Vec<String> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let mut names = Vec::new();
        if let Some(Value::Object(properties)) = map.get_mut("properties") {
            for (name, property) in properties.iter_mut() {
                rewrite(
                    property,
                    &format!("{at}/properties/{}", escape(name)),
                    problems,
                );
                if !required.contains(name) {
                    make_nullable(property);
                }
                names.push(Value::String(name.clone()));
            }
        } else {
            map.insert("properties".into(), Value::Object(Map::new()));
        }
        map.insert("required".into(), Value::Array(names));
    }
    if let Some(items) = map.get_mut("items") {
        rewrite(items, &format!("{at}/items"), problems);
    }
    for key in ["anyOf", "prefixItems"] {
        if let Some(Value::Array(list)) = map.get_mut(key) {
            for (i, item) in list.iter_mut().enumerate() {
                rewrite(item, &format!("{at}/{key}/{i}"), problems);
            }
        }
    }
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(defs)) = map.get_mut(key) {
            for (name, def) in defs.iter_mut() {
                rewrite(def, &format!("{at}/{key}/{}", escape(name)), problems);
            }
        }
    }
}

/// Lets a schema also accept `null`.
fn make_nullable(schema: &mut Value) {
    if accepts_null(schema) {
        return;
    }
    let Value::Object(map) = schema else {
        return;
    };
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.push(Value::Null);
    }
    match map.get_mut("type") {
        Some(Value::String(t)) => {
            let t = std::mem::take(t);
            map.insert("type".into(), json!([t, "null"]));
        }
        Some(Value::Array(types)) => types.push(json!("null")),
        _ => {
            if let Some(Value::Array(any)) = map.get_mut("anyOf") {
                any.push(json!({"type": "null"}));
            } else {
                let inner = std::mem::take(schema);
                *schema = json!({"anyOf": [inner, {"type": "null"}]});
            }
        }
    }
}

/// Whether a schema accepts `null` (as far as its `type`, `enum`, `const`
/// and `anyOf`/`oneOf` tell).
pub(crate) fn accepts_null(schema: &Value) -> bool {
    let Value::Object(map) = schema else {
        return schema == &Value::Bool(true);
    };
    if map.is_empty() {
        return true;
    }
    let by_type = match map.get("type") {
        Some(Value::String(t)) => Some(t == "null"),
        Some(Value::Array(types)) => Some(types.iter().any(|t| t == "null")),
        _ => None,
    };
    if let Some(accepts) = by_type {
        return accepts;
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        return values.contains(&Value::Null);
    }
    if let Some(value) = map.get("const") {
        return value.is_null();
    }
    ["anyOf", "oneOf"].iter().any(|key| {
        map.get(*key)
            .and_then(Value::as_array)
            .is_some_and(|list| list.iter().any(accepts_null))
    })
}

/// Removes `null` values of optional properties whose schema does not accept
/// `null` (what a strict-mode model sends for "absent"), recursively.
pub(crate) fn drop_strict_nulls(schema: &Value, value: &mut Value) {
    // Most calls hold no null at all: one scan without hashing answers them.
    if holds_null(value) {
        drop_nulls_in(schema, value);
    }
}

fn holds_null(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.iter().any(holds_null),
        Value::Object(map) => map.values().any(holds_null),
        _ => false,
    }
}

fn drop_nulls_in(schema: &Value, value: &mut Value) {
    let (Some(Value::Object(properties)), Value::Object(object)) =
        (schema.get("properties"), value)
    else {
        return;
    };
    let required = |name: &str| {
        schema
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|n| n == name))
    };
    object.retain(|name, v| {
        !(v.is_null() && !required(name) && properties.get(name).is_some_and(|p| !accepts_null(p)))
    });
    for (name, v) in object.iter_mut() {
        if let Some(property) = properties.get(name) {
            drop_nulls_in(property, v);
            if let (Some(items), Value::Array(list)) = (property.get("items"), v) {
                for item in list {
                    drop_nulls_in(items, item);
                }
            }
        }
    }
}

fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_objects_and_array_items_are_closed_and_complete() {
        let (strict, problems) = strict_schema(&json!({
            "type": "object",
            "properties": {
                "user": {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}, "required": ["name"]},
                "tags": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string"}}}},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]}
            },
            "required": ["user"]
        }));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            strict["properties"]["user"]["required"],
            json!(["name", "age"])
        );
        assert_eq!(strict["properties"]["user"]["additionalProperties"], false);
        assert_eq!(
            strict["properties"]["tags"]["items"]["additionalProperties"],
            false
        );
        assert_eq!(
            strict["properties"]["mode"]["enum"],
            json!(["a", "b", null])
        );
        assert_eq!(
            strict["properties"]["either"]["anyOf"][2],
            json!({"type": "null"})
        );
    }

    #[test]
    fn argument_roles_stay_out_of_strict_schemas() {
        let mut schema = json!({"type": "object", "properties": {
            "path": {"type": "string"},
            "paths": {"type": "array", "items": {"type": "string"}}
        }});
        crate::approval::ArgRole::Path.annotate(&mut schema["properties"]["path"]);
        crate::approval::ArgRole::Path.annotate(&mut schema["properties"]["paths"]["items"]);
        let (strict, problems) = strict_schema(&schema);
        assert!(problems.is_empty(), "{problems:?}");
        assert!(
            !strict.to_string().contains(crate::approval::ROLE_KEY),
            "{strict}"
        );
        assert_eq!(
            strict["properties"]["path"]["type"],
            json!(["string", "null"])
        );
    }

    #[test]
    fn unsupported_keywords_are_reported_where_they_are() {
        let (_, problems) = strict_schema(&json!({
            "type": "object",
            "properties": {"a/b": {"type": "array", "uniqueItems": true}, "c": {"allOf": [{}]}}
        }));
        let pointers: Vec<&str> = problems.iter().map(|p| p.pointer.as_str()).collect();
        assert_eq!(
            pointers,
            ["/properties/a~1b/uniqueItems", "/properties/c/allOf"]
        );
        let (_, problems) = strict_schema(&json!({"type": "string"}));
        assert_eq!(problems[0].pointer, "");
    }

    #[test]
    fn strict_nulls_are_dropped_only_where_the_schema_refuses_null() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "string"},
                "b": {"type": ["string", "null"]},
                "r": {"type": "string"},
                "o": {"type": "object", "properties": {"x": {"type": "integer"}}}
            },
            "required": ["r"]
        });
        let mut value = json!({"a": null, "b": null, "r": null, "o": {"x": null}});
        drop_strict_nulls(&schema, &mut value);
        assert_eq!(value, json!({"b": null, "r": null, "o": {}}));
    }
}
