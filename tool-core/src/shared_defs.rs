//! Schema definitions held once for many APIs.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{Map, Value};

/// The prefix of a reference into a schema's definitions.
const DEFS_REF: &str = "#/$defs/";

/// JSON Schema definitions (`$defs`) shared by the parameter schemas of many
/// APIs, held once.
///
/// An importer that turns one document into thousands of APIs (an OpenAPI
/// description whose operations all reach the same component schemas) would
/// otherwise copy every definition an operation reaches into that
/// operation's schema: the Microsoft Graph description reaches 27 MB of
/// definitions that way. With shared definitions an API's
/// [`parameters`](crate::ApiDefinition::parameters) keeps its
/// `{"$ref": "#/$defs/NAME"}` references and only the definitions it holds
/// itself; [`ApiDefinition::parameters_schema`](crate::ApiDefinition::parameters_schema)
/// adds the shared definitions it reaches (directly or through other
/// definitions) whenever the schema leaves the process: provider exports,
/// serialisation, MCP, validation. What a model receives is the same
/// self-contained schema either way.
///
/// Cloning is cheap (an `Arc`); two values are equal when they hold equal
/// definitions.
///
/// ```
/// use serde_json::json;
/// use tool_core::{ApiDefinition, manifest::SharedDefs};
///
/// let defs = SharedDefs::new(
///     json!({
///         "User": {"type": "object", "properties": {"team": {"$ref": "#/$defs/Team"}}},
///         "Team": {"type": "object", "properties": {"name": {"type": "string"}}},
///         "Unrelated": {"type": "integer"}
///     })
///     .as_object()
///     .cloned()
///     .unwrap_or_default(),
/// );
/// let api = ApiDefinition::new("create_user", "Creates a user.")
///     .with_parameters(json!({
///         "type": "object",
///         "properties": {"body": {"$ref": "#/$defs/User"}}
///     }))
///     .with_shared_defs(defs);
/// let schema = api.parameters_schema();
/// let included: Vec<&String> = schema["$defs"].as_object().unwrap().keys().collect();
/// assert_eq!(included, ["Team", "User"]);
/// assert!(api.parameters.get("$defs").is_none(), "held once, outside the API");
/// ```
#[derive(Clone, Debug, Default)]
pub struct SharedDefs(Arc<Map<String, Value>>);

impl SharedDefs {
    /// Definitions by name, as they would appear under `$defs`.
    pub fn new(defs: Map<String, Value>) -> Self {
        Self(Arc::new(defs))
    }

    /// The definition called `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name)
    }

    /// How many definitions there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every definition by name.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.0.iter()
    }

    /// The names of the shared definitions `schema` reaches through
    /// `#/$defs/NAME` references, directly or through other shared
    /// definitions, in name order. A name the schema defines under its own
    /// `$defs` is its own and not followed into the shared set; a reference
    /// to a name defined nowhere is left for the schema's compiler to report.
    pub fn reached_by(&self, schema: &Value) -> BTreeSet<&str> {
        let own = schema.get("$defs").and_then(Value::as_object);
        let mut reached = BTreeSet::new();
        let mut pending: Vec<&Value> = vec![schema];
        while let Some(next) = pending.pop() {
            visit_refs(next, &mut |name| {
                if own.is_some_and(|own| own.contains_key(name.as_ref())) {
                    return;
                }
                if let Some((key, definition)) = self.0.get_key_value(name.as_ref())
                    && reached.insert(key.as_str())
                {
                    pending.push(definition);
                }
            });
        }
        reached
    }

    /// `schema` with the shared definitions it reaches added to its own
    /// `$defs` (its own entries win): a self-contained schema. Borrowed when
    /// it reaches none. The added definitions come in name order; when the
    /// schema has `$defs` of its own, the whole `$defs` is put in name
    /// order (an importer that writes a few definitions of its own, `{}`
    /// where it cut a deep one, gets the order it would have written).
    pub fn complete<'a>(&self, schema: &'a Value) -> Cow<'a, Value> {
        let reached = self.reached_by(schema);
        if reached.is_empty() {
            return Cow::Borrowed(schema);
        }
        let mut complete = schema.clone();
        if let Value::Object(root) = &mut complete {
            let defs = root
                .entry("$defs")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(defs) = defs {
                let own = !defs.is_empty();
                for name in reached {
                    if let Some(definition) = self.0.get(name) {
                        defs.entry(name.to_owned())
                            .or_insert_with(|| definition.clone());
                    }
                }
                if own {
                    defs.sort_keys();
                }
            }
        }
        Cow::Owned(complete)
    }

    /// Whether both are the same allocation (a cheap equality test).
    pub fn same_as(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl PartialEq for SharedDefs {
    fn eq(&self, other: &Self) -> bool {
        self.same_as(other) || self.0 == other.0
    }
}

impl From<Map<String, Value>> for SharedDefs {
    fn from(defs: Map<String, Value>) -> Self {
        Self::new(defs)
    }
}

/// Calls `found` with the definition name of every `#/$defs/NAME` reference
/// in `value` (JSON-pointer escapes and percent-encoding decoded).
fn visit_refs(value: &Value, found: &mut dyn FnMut(Cow<'_, str>)) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                if key == "$ref"
                    && let Some(name) = item.as_str().and_then(|r| r.strip_prefix(DEFS_REF))
                {
                    let segment = name.split('/').next().unwrap_or(name);
                    found(decode_segment(segment));
                } else {
                    // Literal values (`const`, `enum`, `default`) are
                    // walked too: a name they mention only adds an unused
                    // definition, while skipping them by key would also
                    // skip properties that happen to be called `default`.
                    visit_refs(item, found);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                visit_refs(item, found);
            }
        }
        _ => {}
    }
}

/// A JSON-pointer segment of a URI fragment: `%XX` and then `~1`, `~0`
/// decoded.
fn decode_segment(segment: &str) -> Cow<'_, str> {
    if !segment.contains(['%', '~']) {
        return Cow::Borrowed(segment);
    }
    let mut bytes = Vec::with_capacity(segment.len());
    let raw = segment.as_bytes();
    let mut at = 0;
    while at < raw.len() {
        let hex = |i: usize| raw.get(i).and_then(|b| (*b as char).to_digit(16));
        match (raw[at], hex(at + 1), hex(at + 2)) {
            (b'%', Some(high), Some(low)) => {
                bytes.push((high * 16 + low) as u8);
                at += 3;
            }
            (byte, _, _) => {
                bytes.push(byte);
                at += 1;
            }
        }
    }
    let text = String::from_utf8_lossy(&bytes);
    Cow::Owned(text.replace("~1", "/").replace("~0", "~"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn defs(value: Value) -> SharedDefs {
        SharedDefs::new(value.as_object().cloned().unwrap_or_default())
    }

    #[test]
    fn follows_references_through_definitions_and_cycles() {
        let shared = defs(json!({
            "A": {"properties": {"b": {"$ref": "#/$defs/B"}}},
            "B": {"items": {"$ref": "#/$defs/A"}},
            "C": {"type": "string"}
        }));
        let schema = json!({"properties": {"a": {"$ref": "#/$defs/A"}}});
        let reached: Vec<&str> = shared.reached_by(&schema).into_iter().collect();
        assert_eq!(reached, ["A", "B"]);
    }

    #[test]
    fn own_definitions_win_and_are_not_followed() {
        let shared = defs(json!({"A": {"$ref": "#/$defs/B"}, "B": {"type": "string"}}));
        let schema = json!({"$defs": {"A": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/A"}}});
        assert!(shared.reached_by(&schema).is_empty());
        assert!(matches!(shared.complete(&schema), Cow::Borrowed(_)));
    }

    #[test]
    fn escaped_names_and_sub_pointers_are_decoded() {
        let shared = defs(json!({"a/b": {"type": "string"}, "c~d": {}, "e f": {}}));
        let schema = json!({"anyOf": [
            {"$ref": "#/$defs/a~1b"},
            {"$ref": "#/$defs/c~0d/properties/x"},
            {"$ref": "#/$defs/e%20f"}
        ]});
        let reached: Vec<&str> = shared.reached_by(&schema).into_iter().collect();
        assert_eq!(reached, ["a/b", "c~d", "e f"]);
    }

    #[test]
    fn properties_named_like_keywords_are_followed() {
        let shared = defs(json!({"A": {}, "B": {}}));
        let schema = json!({"properties": {
            "default": {"$ref": "#/$defs/A"},
            "enum": {"items": {"$ref": "#/$defs/B"}}
        }});
        let reached: Vec<&str> = shared.reached_by(&schema).into_iter().collect();
        assert_eq!(reached, ["A", "B"]);
    }

    #[test]
    fn missing_names_are_left_to_the_compiler() {
        let shared = defs(json!({}));
        let schema = json!({"$ref": "#/$defs/Nowhere"});
        assert_eq!(shared.complete(&schema).as_ref(), &schema);
    }
}
