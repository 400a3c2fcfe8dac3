//! OpenAPI schema objects → JSON Schema the model sees.
//!
//! - Local `$ref`s are inlined, so the model reads one self-contained schema.
//! - A reference met again while it is being inlined (a recursive schema)
//!   becomes `{"$ref": "#/$defs/<Name>"}`, and `<Name>` is converted once
//!   into the operation's definitions: no stack overflow, no blow-up.
//! - Past a size budget, further references also go to `$defs` instead of
//!   being copied again, so a schema shared a thousand times is stored once.
//! - OpenAPI 3.0 dialect is rewritten to JSON Schema: `nullable: true` adds
//!   `"null"` to the type, boolean `exclusiveMinimum`/`exclusiveMaximum`
//!   become numbers; `discriminator`, `xml`, `externalDocs`, `example`,
//!   `examples` and `x-*` extensions are dropped (they tell the model nothing
//!   it can send).

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value};

use super::node::{Node, Object};
use super::refs::Refs;

/// Values copied before further references go to `$defs`.
const INLINE_BUDGET: usize = 4_000;
/// Nesting deeper than this is cut (with `{}`) and reported.
const MAX_DEPTH: usize = 64;

pub(crate) struct SchemaConverter<'a> {
    refs: Refs<'a>,
    openapi30: bool,
    stack: Vec<&'a str>,
    names: HashMap<&'a str, String>,
    taken: HashMap<String, &'a str>,
    pending: Vec<&'a str>,
    defs: BTreeMap<String, Value>,
    emitted: usize,
    depth: usize,
    pub(crate) problems: Vec<String>,
}

impl<'a> SchemaConverter<'a> {
    pub(crate) fn new(refs: Refs<'a>, openapi30: bool) -> Self {
        Self {
            refs,
            openapi30,
            stack: Vec::new(),
            names: HashMap::new(),
            taken: HashMap::new(),
            pending: Vec::new(),
            defs: BTreeMap::new(),
            emitted: 0,
            depth: 0,
            problems: Vec::new(),
        }
    }

    /// The definitions every converted schema may point into; call once,
    /// after the last [`convert`](Self::convert).
    pub(crate) fn finish(mut self) -> (Map<String, Value>, Vec<String>) {
        while let Some(target) = self.pending.pop() {
            let name = self.def_name(target);
            if self.defs.contains_key(&name) {
                continue;
            }
            self.defs.insert(name.clone(), Value::Bool(true));
            let converted = match self.refs.get(target) {
                Ok(node) => {
                    self.stack.push(target);
                    let converted = self.convert(node);
                    self.stack.pop();
                    converted
                }
                Err(message) => {
                    self.problems.push(message);
                    Value::Object(Map::new())
                }
            };
            self.defs.insert(name, converted);
        }
        (self.defs.into_iter().collect(), self.problems)
    }

    fn def_name(&mut self, target: &'a str) -> String {
        if let Some(name) = self.names.get(target) {
            return name.clone();
        }
        let last = target.rsplit('/').next().unwrap_or("def");
        let mut base: String = last
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if base.is_empty() {
            base.push_str("def");
        }
        let mut name = base.clone();
        let mut n = 2;
        while self.taken.get(&name).is_some_and(|t| *t != target) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.taken.insert(name.clone(), target);
        self.names.insert(target, name.clone());
        name
    }

    /// Converts one schema.
    pub(crate) fn convert(&mut self, schema: &'a Node<'a>) -> Value {
        self.emitted += 1;
        let Node::Object(object) = schema else {
            // `true`/`false` schemas and anything odd pass through.
            return schema.to_value();
        };
        if let Some(reference) = object.get("$ref").and_then(Node::as_str) {
            return self.reference(reference, object);
        }
        if self.depth >= MAX_DEPTH {
            self.problems.push(format!(
                "schema nested deeper than {MAX_DEPTH} levels was cut"
            ));
            return Value::Object(Map::new());
        }
        self.depth += 1;
        let mut out = Map::with_capacity(object.len());
        for (key, value) in object.iter() {
            match key {
                "discriminator" | "xml" | "externalDocs" | "example" | "examples" | "nullable" => {}
                k if k.starts_with("x-") => {}
                "properties" | "patternProperties" | "$defs" | "definitions"
                | "dependentSchemas" => {
                    if let Node::Object(props) = value {
                        let mut converted = Map::with_capacity(props.len());
                        for (name, s) in props.iter() {
                            let s = self.convert(s);
                            converted.insert(name.to_owned(), s);
                        }
                        out.insert(key.to_owned(), Value::Object(converted));
                    }
                }
                "items"
                | "additionalProperties"
                | "not"
                | "contains"
                | "propertyNames"
                | "if"
                | "then"
                | "else"
                | "unevaluatedProperties"
                | "unevaluatedItems"
                | "additionalItems" => {
                    let converted = match value {
                        Node::Array(list) => {
                            Value::Array(list.iter().map(|s| self.convert(s)).collect())
                        }
                        other => self.convert(other),
                    };
                    out.insert(key.to_owned(), converted);
                }
                "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                    if let Node::Array(list) = value {
                        let converted = list.iter().map(|s| self.convert(s)).collect();
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
                    self.emitted += 1;
                    out.insert(key.to_owned(), value.to_value());
                }
            }
        }
        if self.openapi30 && object.get("nullable").and_then(Node::as_bool) == Some(true) {
            add_null(&mut out);
        }
        self.depth -= 1;
        Value::Object(out)
    }

    fn reference(&mut self, reference: &'a str, object: &'a Object<'a>) -> Value {
        let mut siblings = Map::new();
        for key in ["description", "title", "default"] {
            if let Some(value) = object.get(key) {
                siblings.insert(key.to_owned(), value.to_value());
            }
        }
        let inline = !self.stack.contains(&reference) && self.emitted < INLINE_BUDGET;
        let mut converted = if inline {
            match self.refs.get(reference) {
                Ok(target) => {
                    self.stack.push(reference);
                    let converted = self.convert(target);
                    self.stack.pop();
                    converted
                }
                Err(message) => {
                    self.problems.push(message);
                    return Value::Object(Map::new());
                }
            }
        } else {
            if let Err(message) = self.refs.get(reference) {
                self.problems.push(message);
                return Value::Object(Map::new());
            }
            let name = self.def_name(reference);
            if !self.defs.contains_key(&name) && !self.pending.contains(&reference) {
                self.pending.push(reference);
            }
            let mut pointer = Map::new();
            pointer.insert("$ref".into(), Value::String(format!("#/$defs/{name}")));
            Value::Object(pointer)
        };
        if let Value::Object(out) = &mut converted {
            for (key, value) in siblings {
                out.insert(key, value);
            }
        }
        converted
    }
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
    use serde_json::json;

    #[test]
    fn recursive_schemas_become_defs() {
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
        let refs = Refs::new(&doc);
        let mut converter = SchemaConverter::new(refs, false);
        let node = json!({"$ref": "#/components/schemas/Node"});
        let a = json!({"$ref": "#/components/schemas/A"});
        let (node, a) = (
            Node::from_value(&node, &arena),
            Node::from_value(&a, &arena),
        );
        let node_out = converter.convert(&node);
        let a_out = converter.convert(&a);
        let (defs, problems) = converter.finish();
        assert!(problems.is_empty());
        assert_eq!(
            node_out["properties"]["children"]["items"],
            json!({"$ref": "#/$defs/Node"})
        );
        assert_eq!(
            defs["Node"]["properties"]["children"]["items"],
            json!({"$ref": "#/$defs/Node"})
        );
        assert_eq!(
            a_out["properties"]["b"]["properties"]["a"],
            json!({"$ref": "#/$defs/A"})
        );
        assert!(defs.contains_key("A"));
        // The whole thing compiles as a JSON Schema.
        let mut schema = json!({"type": "object", "properties": {"n": node_out, "a": a_out}});
        schema["$defs"] = Value::Object(defs);
        tool_core::CompiledSchema::compile(&schema).unwrap();
    }

    #[test]
    fn openapi30_dialect_is_rewritten() {
        let arena = bumpalo::Bump::new();
        let doc = Node::from_value(&Value::Null, &arena);
        let mut c = SchemaConverter::new(Refs::new(&doc), true);
        let schema = json!({"type": "integer", "nullable": true, "minimum": 0,
            "exclusiveMinimum": true, "example": 3, "x-internal": 1});
        let schema = Node::from_value(&schema, &arena);
        assert_eq!(
            c.convert(&schema),
            json!({"type": ["integer", "null"], "exclusiveMinimum": 0})
        );
    }

    #[test]
    fn missing_and_external_refs_are_reported() {
        let arena = bumpalo::Bump::new();
        let doc = json!({});
        let doc = Node::from_value(&doc, &arena);
        let missing = json!({"$ref": "#/components/schemas/Nope"});
        let external = json!({"$ref": "other.yaml#/Pet"});
        let (missing, external) = (
            Node::from_value(&missing, &arena),
            Node::from_value(&external, &arena),
        );
        let mut c = SchemaConverter::new(Refs::new(&doc), false);
        c.convert(&missing);
        c.convert(&external);
        let (_, problems) = c.finish();
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[1].contains("outside this document"));
    }
}
