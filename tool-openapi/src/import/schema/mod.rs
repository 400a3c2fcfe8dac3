//! OpenAPI schema objects → JSON Schema the model sees.
//!
//! - Each argument's own schema is written out (its `$ref` followed, and the
//!   `$ref`s of its top `allOf` parts, so object bodies split into
//!   arguments); deeper local `$ref`s become `{"$ref": "#/$defs/<Name>"}`
//!   into definitions converted once per document and shared by every
//!   operation reaching them (see the shared module). Small leaf schemas
//!   (no references of their own) are copied in place instead.
//! - Recursion is therefore safe by construction: a reference is never
//!   followed while converting, only named.
//! - Nesting deeper than [`MAX_DEPTH`] is cut (to `{}`, which accepts
//!   anything there) and reported as a finding naming the schema: never a
//!   silent loss, never a failed operation.
//! - OpenAPI 3.0 dialect is rewritten to JSON Schema: `nullable: true` adds
//!   `"null"` to the type, boolean `exclusiveMinimum`/`exclusiveMaximum`
//!   become numbers; `discriminator`, `xml`, `externalDocs`, `example`,
//!   `examples` and `x-*` extensions are dropped (they tell the model nothing
//!   it can send).

use serde_json::{Map, Value};

use super::node::{Node, Object};
mod json_len;
pub(crate) mod shared;

use self::shared::SharedDefs;

/// Nesting deeper than this (inside one schema object) is cut (with `{}`)
/// and reported.
pub(crate) const MAX_DEPTH: usize = 64;

/// Keywords whose value is one schema (or, in older drafts, a list of them).
pub(crate) const SUBSCHEMA_KEYWORDS: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "contains",
    "propertyNames",
    "if",
    "then",
    "else",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
];

/// Keywords whose value is a list of schemas.
pub(crate) const SCHEMA_LIST_KEYWORDS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

/// Keywords whose value maps names to schemas: the names are data (a
/// property may be called `default` or `enum`), every value a schema.
pub(crate) const SCHEMA_MAP_KEYWORDS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Keywords whose value is data, not a schema (never searched for `$ref`s
/// or patterns).
pub(crate) const DATA_KEYWORDS: &[&str] = &["enum", "const", "default", "examples", "example"];

/// Converts one schema into pointer form: every local `$ref` becomes a
/// `#/$defs/<Name>` pointer registered in `defs` (converted later, once).
/// `cut` is set when nesting went past [`MAX_DEPTH`].
pub(crate) fn convert<'b>(
    defs: &mut SharedDefs<'_>,
    schema: &'b Node<'b>,
    cut: &mut bool,
) -> Value {
    convert_at(defs, schema, 0, cut)
}

fn convert_at<'b>(
    defs: &mut SharedDefs<'_>,
    schema: &'b Node<'b>,
    depth: usize,
    cut: &mut bool,
) -> Value {
    let Node::Object(object) = schema else {
        // `true`/`false` schemas and anything odd pass through.
        return schema.to_value();
    };
    if let Some(reference) = object.get("$ref").and_then(Node::as_str) {
        return self::reference(defs, reference, object);
    }
    if depth >= MAX_DEPTH {
        *cut = true;
        return Value::Object(Map::new());
    }
    let depth = depth + 1;
    let mut out = Map::with_capacity(object.len());
    for (key, value) in object.iter() {
        match key {
            "discriminator" | "xml" | "externalDocs" | "example" | "examples" | "nullable" => {}
            k if k.starts_with("x-") => {}
            key if SCHEMA_MAP_KEYWORDS.contains(&key) => {
                if let Node::Object(props) = value {
                    let mut converted = Map::with_capacity(props.len());
                    for (name, s) in props.iter() {
                        let s = convert_at(defs, s, depth, cut);
                        converted.insert(name.to_owned(), s);
                    }
                    out.insert(key.to_owned(), Value::Object(converted));
                }
            }
            key if SUBSCHEMA_KEYWORDS.contains(&key) => {
                let converted = match value {
                    Node::Array(list) => Value::Array(
                        list.iter()
                            .map(|s| convert_at(defs, s, depth, cut))
                            .collect(),
                    ),
                    other => convert_at(defs, other, depth, cut),
                };
                out.insert(key.to_owned(), converted);
            }
            key if SCHEMA_LIST_KEYWORDS.contains(&key) => {
                if let Node::Array(list) = value {
                    let converted = list
                        .iter()
                        .map(|s| convert_at(defs, s, depth, cut))
                        .collect();
                    out.insert(key.to_owned(), Value::Array(converted));
                }
            }
            "exclusiveMinimum" | "exclusiveMaximum" if value.is_boolean() => {
                let bound = if key == "exclusiveMinimum" {
                    "minimum"
                } else {
                    "maximum"
                };
                if value.as_bool() == Some(true)
                    && let Some(limit) = object.get(bound)
                {
                    out.insert(key.to_owned(), limit.to_value());
                }
            }
            "minimum" | "maximum"
                if object
                    .get(if key == "minimum" {
                        "exclusiveMinimum"
                    } else {
                        "exclusiveMaximum"
                    })
                    .and_then(Node::as_bool)
                    == Some(true) => {}
            _ => {
                out.insert(key.to_owned(), value.to_value());
            }
        }
    }
    if defs.openapi30() && object.get("nullable").and_then(Node::as_bool) == Some(true) {
        add_null(&mut out);
    }
    Value::Object(out)
}

/// A `$ref` as a pointer into the shared definitions, with the siblings a
/// model reads (`description`, `title`, `default`).
fn reference(defs: &mut SharedDefs<'_>, reference: &str, object: &Object<'_>) -> Value {
    let mut out = Map::new();
    out.insert(
        "$ref".into(),
        Value::String(format!("#/$defs/{}", defs.name(reference))),
    );
    for key in ["description", "title", "default"] {
        if let Some(value) = object.get(key) {
            out.insert(key.to_owned(), value.to_value());
        }
    }
    Value::Object(out)
}

fn add_null(schema: &mut Map<String, Value>) {
    match schema.get_mut("type") {
        Some(Value::String(t)) => {
            let t = std::mem::take(t);
            schema.insert(
                "type".into(),
                Value::Array(vec![Value::String(t), Value::String("null".into())]),
            );
        }
        Some(Value::Array(types)) if !types.iter().any(|t| t == "null") => {
            types.push(Value::String("null".into()));
        }
        _ => {}
    }
    if let Some(Value::Array(values)) = schema.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
}

/// What [`SchemaConverter::finish`] gives: the reached definitions with
/// their distance, whether nesting was cut, the shared definitions.
pub(crate) type Finished<'s, 'a> = (Vec<(usize, usize)>, bool, &'s mut SharedDefs<'a>);

/// Converts one operation's schemas against the document's shared
/// definitions, collecting what fails it.
pub(crate) struct SchemaConverter<'s, 'a> {
    defs: &'s mut SharedDefs<'a>,
    problems: Vec<String>,
    cut: bool,
}

impl<'s, 'a> SchemaConverter<'s, 'a> {
    pub(crate) fn new(defs: &'s mut SharedDefs<'a>) -> Self {
        Self {
            defs,
            problems: Vec::new(),
            cut: false,
        }
    }

    /// How many problems were found and whether nesting was cut so far:
    /// equal before and after a conversion when it found neither.
    pub(crate) fn marks(&self) -> (usize, bool) {
        (self.problems.len(), self.cut)
    }

    /// One argument's schema: converted, its own `$ref`s written out.
    pub(crate) fn argument(&mut self, node: &Node<'_>) -> Value {
        let value = convert(self.defs, node, &mut self.cut);
        self.top(value)
    }

    /// A converted schema that becomes an argument (a body property):
    /// its own `$ref`s written out.
    pub(crate) fn top(&mut self, value: Value) -> Value {
        self.defs.inline_top(value, &mut self.problems)
    }

    /// The definitions the argument schemas reach (with their distance,
    /// see [`SharedDefs::reach`]), whether nesting was cut in the
    /// operation's own schemas, and the shared definitions; `Err` names the
    /// first problem.
    pub(crate) fn finish<'v>(
        self,
        schemas: impl IntoIterator<Item = &'v Value>,
    ) -> Result<Finished<'s, 'a>, String> {
        if let Some(problem) = self.problems.first() {
            return Err(problem.clone());
        }
        let reached = self.defs.reach(schemas)?;
        Ok((reached, self.cut, self.defs))
    }
}

/// The object properties of a (converted) body schema, merging `allOf`
/// parts that are objects, taken out of it; the schema back when the body
/// is not a plain object.
pub(crate) fn object_properties(schema: Value) -> Result<(Map<String, Value>, Vec<String>), Value> {
    if mergeable(&schema) {
        Ok(take_properties(schema))
    } else {
        Err(schema)
    }
}

/// Whether `schema` is an object schema (no `oneOf`/`anyOf`) whose `allOf`
/// parts all are, with at least one property in all.
fn mergeable(schema: &Value) -> bool {
    let Some(object) = schema.as_object() else {
        return false;
    };
    let is_object = match object.get("type") {
        Some(Value::String(t)) => t == "object",
        None => object.contains_key("properties") || object.contains_key("allOf"),
        _ => false,
    };
    if !is_object || object.contains_key("oneOf") || object.contains_key("anyOf") {
        return false;
    }
    let mut any = false;
    if let Some(Value::Array(parts)) = object.get("allOf") {
        for part in parts {
            if !mergeable(part) {
                return false;
            }
            any = true;
        }
    }
    if let Some(Value::Object(own)) = object.get("properties") {
        any |= !own.is_empty();
    }
    any
}

/// The properties and required names of a [`mergeable`] schema: `allOf`
/// parts first, in order, then its own (a later one replacing an earlier
/// one of the same name in its place).
fn take_properties(schema: Value) -> (Map<String, Value>, Vec<String>) {
    let mut properties = Map::new();
    let mut required = Vec::new();
    let Value::Object(mut object) = schema else {
        return (properties, required);
    };
    if let Some(Value::Array(parts)) = object.get_mut("allOf") {
        for part in std::mem::take(parts) {
            let (p, r) = take_properties(part);
            properties.extend(p);
            required.extend(r);
        }
    }
    if let Some(Value::Object(own)) = object.get_mut("properties") {
        properties.extend(std::mem::take(own));
    }
    if let Some(Value::Array(list)) = object.get("required") {
        required.extend(list.iter().filter_map(Value::as_str).map(str::to_owned));
    }
    (properties, required)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::refs::Refs;
    use serde_json::json;

    /// Every reachable definition, uncut.
    fn all_defs<'v>(
        c: SchemaConverter<'_, '_>,
        schemas: impl IntoIterator<Item = &'v Value>,
    ) -> Result<(Map<String, Value>, bool), String> {
        let (reached, cut, defs) = c.finish(schemas)?;
        Ok((defs.materialize(&reached, usize::MAX, false), cut))
    }

    #[test]
    fn recursive_schemas_become_shared_defs() {
        let arena = bumpalo::Bump::new();
        let doc = json!({"components": {"schemas": {
            "Node": {"type": "object", "properties": {
                "value": {"type": "integer"},
                "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}
            }},
            "A": {"type": "object", "properties": {"b": {"$ref": "#/components/schemas/B"}}},
            "B": {"type": "object", "properties": {"a": {"$ref": "#/components/schemas/A"}}}
        }}});
        let doc = Node::from_value(&doc, &arena);
        let mut defs = SharedDefs::new(Refs::new(&doc, None), false);
        let mut converter = SchemaConverter::new(&mut defs);
        let node = json!({"$ref": "#/components/schemas/Node"});
        let a = json!({"$ref": "#/components/schemas/A"});
        let (node, a) = (
            Node::from_value(&node, &arena),
            Node::from_value(&a, &arena),
        );
        let node_out = converter.argument(&node);
        let a_out = converter.argument(&a);
        let (defs, cut) = all_defs(converter, [&node_out, &a_out]).unwrap();
        assert!(!cut);
        assert_eq!(
            node_out["properties"]["children"]["items"],
            json!({"$ref": "#/$defs/Node"})
        );
        assert_eq!(
            defs["Node"]["properties"]["children"]["items"],
            json!({"$ref": "#/$defs/Node"})
        );
        assert_eq!(a_out["properties"]["b"], json!({"$ref": "#/$defs/B"}));
        assert_eq!(defs["B"]["properties"]["a"], json!({"$ref": "#/$defs/A"}));
        assert!(defs.contains_key("A"));
        // The whole thing compiles as a JSON Schema.
        let mut schema = json!({"type": "object", "properties": {"n": node_out, "a": a_out}});
        schema["$defs"] = Value::Object(defs);
        tool_core::pipeline::CompiledSchema::compile(&schema).unwrap();
    }

    #[test]
    fn small_leaves_are_copied_in_place_and_big_ones_shared() {
        let arena = bumpalo::Bump::new();
        let long = "x".repeat(crate::import::schema::shared::INLINE_LEAF_CHARS);
        let doc = json!({"components": {"schemas": {
            "Colour": {"type": "string", "enum": ["red", "green"]},
            "Long": {"type": "string", "description": long},
            "Body": {"type": "object", "properties": {
                "colour": {"$ref": "#/components/schemas/Colour", "description": "Which."},
                "long": {"$ref": "#/components/schemas/Long"}}}
        }}});
        let doc = Node::from_value(&doc, &arena);
        let mut defs = SharedDefs::new(Refs::new(&doc, None), false);
        let mut converter = SchemaConverter::new(&mut defs);
        let body = json!({"type": "object", "properties": {"inner": {"$ref": "#/components/schemas/Body"}}});
        let body = Node::from_value(&body, &arena);
        let out = converter.argument(&body);
        let (defs, _) = all_defs(converter, [&out]).unwrap();
        assert_eq!(
            defs["Body"]["properties"]["colour"],
            json!({"type": "string", "enum": ["red", "green"], "description": "Which."})
        );
        assert_eq!(
            defs["Body"]["properties"]["long"],
            json!({"$ref": "#/$defs/Long"})
        );
        let names: Vec<&String> = defs.keys().collect();
        assert_eq!(names, ["Body", "Long"]);
    }

    #[test]
    fn openapi30_dialect_is_rewritten() {
        let arena = bumpalo::Bump::new();
        let doc = Node::from_value(&Value::Null, &arena);
        let mut defs = SharedDefs::new(Refs::new(&doc, None), true);
        let schema = json!({"type": "integer", "nullable": true, "minimum": 0,
            "exclusiveMinimum": true, "example": 3, "x-internal": 1});
        let schema = Node::from_value(&schema, &arena);
        assert_eq!(
            convert(&mut defs, &schema, &mut false),
            json!({"type": ["integer", "null"], "exclusiveMinimum": 0})
        );
    }

    #[test]
    fn missing_and_external_refs_are_reported() {
        let arena = bumpalo::Bump::new();
        let doc = json!({});
        let doc = Node::from_value(&doc, &arena);
        let missing =
            json!({"type": "object", "properties": {"a": {"$ref": "#/components/schemas/Nope"}}});
        let external = json!({"$ref": "other.yaml#/Pet"});
        let (missing, external) = (
            Node::from_value(&missing, &arena),
            Node::from_value(&external, &arena),
        );
        let mut defs = SharedDefs::new(Refs::new(&doc, None), false);
        let mut c = SchemaConverter::new(&mut defs);
        let out = c.argument(&missing);
        let problem = all_defs(c, [&out]).unwrap_err();
        assert!(problem.contains("points at nothing"), "{problem}");
        let mut c = SchemaConverter::new(&mut defs);
        let out = c.argument(&external);
        let problem = all_defs(c, [&out]).unwrap_err();
        assert!(problem.contains("outside this document"), "{problem}");
    }

    #[test]
    fn nesting_past_the_limit_is_cut_and_reported() {
        let arena = bumpalo::Bump::new();
        let mut deep = json!({"type": "string"});
        for _ in 0..(MAX_DEPTH + 5) {
            deep = json!({"type": "object", "properties": {"next": deep}});
        }
        let doc = json!({"components": {"schemas": {"Deep": deep.clone()}}});
        let doc = Node::from_value(&doc, &arena);
        let mut defs = SharedDefs::new(Refs::new(&doc, None), false);
        // In an operation's own schema: the converter says so.
        let own = Node::from_value(&deep, &arena);
        let mut c = SchemaConverter::new(&mut defs);
        let out = c.argument(&own);
        let (_, cut) = all_defs(c, [&out]).unwrap();
        assert!(cut);
        // In a shared definition: one finding at the component.
        let shared =
            json!({"type": "object", "properties": {"d": {"$ref": "#/components/schemas/Deep"}}});
        let shared = Node::from_value(&shared, &arena);
        let mut c = SchemaConverter::new(&mut defs);
        let out = c.argument(&shared);
        let (found, cut) = all_defs(c, [&out]).unwrap();
        assert!(!cut);
        assert!(found.contains_key("Deep"));
        assert_eq!(defs.findings.len(), 1);
        assert_eq!(defs.findings[0].pointer, "/components/schemas/Deep");
        assert!(defs.findings[0].message.contains("was cut"));
    }
}
