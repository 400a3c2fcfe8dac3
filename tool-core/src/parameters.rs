//! The arguments schema of an API, whole or composed of shared parts.

use std::borrow::Cow;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// The JSON Schema of an API's arguments
/// ([`ApiDefinition::parameters`](crate::ApiDefinition::parameters)).
///
/// Most APIs hold one [`Value`] (`From<Value>`, what
/// [`with_parameters`](crate::ApiDefinition::with_parameters) takes). An
/// importer that writes thousands of APIs from one document composes them
/// instead ([`from_properties`](Self::from_properties)): an object schema
/// whose property schemas are `Arc`s, so a schema that many APIs take (the
/// same query parameter on every operation of an API description) is held
/// once. Microsoft Graph's 11 422 operations have 75 000 arguments with
/// under 5 000 distinct schemas.
///
/// Either way it reads as the whole schema: it dereferences to a
/// [`Value`] (a composed schema is written out on first use and kept, so
/// only the APIs actually read pay for it), serialises as that value and
/// compares by it. [`to_value`](Self::to_value) and
/// [`ApiDefinition::parameters_schema`](crate::ApiDefinition::parameters_schema)
/// give it without keeping a copy, which is how provider exports and
/// validation read it.
///
/// ```
/// use std::sync::Arc;
/// use serde_json::json;
/// use tool_core::{ApiDefinition, manifest::Parameters};
///
/// let top = Arc::new(json!({"type": "integer", "minimum": 0}));
/// let list = Parameters::from_properties(
///     [("top".to_owned(), Arc::clone(&top), false), ("q".to_owned(), Arc::new(json!({"type": "string"})), true)],
///     Default::default(),
/// );
/// let count = Parameters::from_properties([("top".to_owned(), top, false)], Default::default());
/// assert_eq!(
///     list,
///     json!({"type": "object", "properties": {"top": {"type": "integer", "minimum": 0}, "q": {"type": "string"}}, "required": ["q"]})
/// );
/// let api = ApiDefinition::new("count", "Counts.").with_parameters(count);
/// assert_eq!(api.parameters["properties"]["top"]["minimum"], 0); // reads as a `Value`
/// assert_eq!(
///     serde_json::to_string(&api.parameters)?,
///     r#"{"type":"object","properties":{"top":{"type":"integer","minimum":0}}}"#
/// );
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone)]
pub struct Parameters {
    repr: Repr,
    /// A composed schema written out, once read through `Deref`.
    whole: OnceLock<Value>,
}

#[derive(Clone)]
enum Repr {
    Whole(Value),
    Composed(Box<Composed>),
}

/// `{"type": "object", "properties": …, "required": …, "$defs": …}`.
#[derive(Clone)]
struct Composed {
    properties: Box<[Property]>,
    definitions: Map<String, Value>,
}

#[derive(Clone)]
struct Property {
    name: Arc<str>,
    schema: Arc<Value>,
    required: bool,
}

impl Parameters {
    /// The object schema `{"type": "object", "properties": {NAME: SCHEMA…},
    /// "required": [NAME…], "$defs": DEFINITIONS}` of `properties` (name,
    /// schema, whether required), in their order; `required` is left out
    /// when no property is, `$defs` when `definitions` is empty. Property
    /// schemas stay shared with every other holder of their `Arc`.
    ///
    /// Names may be shared too (`Arc<str>`; a `String` or `&str` is
    /// copied into one). A name given twice is written as a JSON object
    /// would hold it (the last schema in the first one's place, listed
    /// twice in `required` when required twice).
    pub fn from_properties<N: Into<Arc<str>>>(
        properties: impl IntoIterator<Item = (N, Arc<Value>, bool)>,
        definitions: Map<String, Value>,
    ) -> Self {
        let properties: Box<[Property]> = properties
            .into_iter()
            .map(|(name, schema, required)| Property {
                name: name.into(),
                schema,
                required,
            })
            .collect();
        let composed = Composed {
            properties,
            definitions,
        };
        let distinct = {
            let mut names: Vec<&str> = composed.properties.iter().map(|p| &*p.name).collect();
            names.sort_unstable();
            names.windows(2).all(|pair| pair[0] != pair[1])
        };
        if distinct {
            Self {
                repr: Repr::Composed(Box::new(composed)),
                whole: OnceLock::new(),
            }
        } else {
            Self::from(composed.to_value())
        }
    }

    /// The whole schema, without keeping a copy of a composed one.
    pub fn to_value(&self) -> Value {
        self.to_cow().into_owned()
    }

    /// The whole schema: borrowed when it is held whole (or was already
    /// written out), built when it is composed.
    pub fn to_cow(&self) -> Cow<'_, Value> {
        match &self.repr {
            Repr::Whole(value) => Cow::Borrowed(value),
            Repr::Composed(composed) => match self.whole.get() {
                Some(value) => Cow::Borrowed(value),
                None => Cow::Owned(composed.to_value()),
            },
        }
    }

    /// The whole schema as a value.
    pub fn into_value(self) -> Value {
        match self.repr {
            Repr::Whole(value) => value,
            Repr::Composed(composed) => match self.whole.into_inner() {
                Some(value) => value,
                None => composed.to_value(),
            },
        }
    }

    /// Whether it is composed of shared property schemas
    /// ([`from_properties`](Self::from_properties)).
    pub fn is_composed(&self) -> bool {
        matches!(self.repr, Repr::Composed(_))
    }
}

impl Composed {
    fn to_value(&self) -> Value {
        let mut properties = Map::with_capacity(self.properties.len());
        let mut required = Vec::new();
        for property in &self.properties {
            if property.required {
                required.push(Value::String(property.name.to_string()));
            }
            properties.insert(property.name.to_string(), Value::clone(&property.schema));
        }
        let mut schema = Map::with_capacity(4);
        schema.insert("type".into(), Value::String("object".into()));
        schema.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            schema.insert("required".into(), Value::Array(required));
        }
        if !self.definitions.is_empty() {
            schema.insert("$defs".into(), Value::Object(self.definitions.clone()));
        }
        Value::Object(schema)
    }
}

impl Deref for Parameters {
    type Target = Value;

    fn deref(&self) -> &Value {
        match &self.repr {
            Repr::Whole(value) => value,
            Repr::Composed(composed) => self.whole.get_or_init(|| composed.to_value()),
        }
    }
}

impl Default for Parameters {
    /// `{"type": "object", "properties": {}}` (composed of no properties:
    /// nothing is built until it is read).
    fn default() -> Self {
        Self::from_properties::<&str>([], Map::new())
    }
}

impl From<Value> for Parameters {
    fn from(value: Value) -> Self {
        Self {
            repr: Repr::Whole(value),
            whole: OnceLock::new(),
        }
    }
}

impl From<Parameters> for Value {
    fn from(parameters: Parameters) -> Self {
        parameters.into_value()
    }
}

impl PartialEq for Parameters {
    fn eq(&self, other: &Self) -> bool {
        if let (Repr::Composed(a), Repr::Composed(b)) = (&self.repr, &other.repr)
            && a.definitions == b.definitions
            && a.properties.len() == b.properties.len()
            && a.properties.iter().zip(b.properties.iter()).all(|(a, b)| {
                a.name == b.name
                    && a.required == b.required
                    && (Arc::ptr_eq(&a.schema, &b.schema) || a.schema == b.schema)
            })
        {
            return true;
        }
        *self.to_cow() == *other.to_cow()
    }
}

impl PartialEq<Value> for Parameters {
    fn eq(&self, other: &Value) -> bool {
        *self.to_cow() == *other
    }
}

impl PartialEq<Parameters> for Value {
    fn eq(&self, other: &Parameters) -> bool {
        other == self
    }
}

impl std::fmt::Debug for Parameters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.to_cow(), f)
    }
}

impl Serialize for Parameters {
    /// As the whole schema; a composed one is written from its parts.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let composed = match (&self.repr, self.whole.get()) {
            (Repr::Composed(composed), None) => composed,
            _ => return self.to_cow().serialize(serializer),
        };
        struct Properties<'a>(&'a [Property]);
        impl Serialize for Properties<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(Some(self.0.len()))?;
                for property in self.0 {
                    map.serialize_entry(&*property.name, &*property.schema)?;
                }
                map.end()
            }
        }
        struct Required<'a>(&'a [Property]);
        impl Serialize for Required<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut seq = serializer.serialize_seq(None)?;
                for property in self.0.iter().filter(|p| p.required) {
                    seq.serialize_element(&*property.name)?;
                }
                seq.end()
            }
        }
        let any_required = composed.properties.iter().any(|p| p.required);
        let with_defs = !composed.definitions.is_empty();
        let mut map =
            serializer.serialize_map(Some(2 + any_required as usize + with_defs as usize))?;
        map.serialize_entry("type", "object")?;
        map.serialize_entry("properties", &Properties(&composed.properties))?;
        if any_required {
            map.serialize_entry("required", &Required(&composed.properties))?;
        }
        if with_defs {
            map.serialize_entry("$defs", &composed.definitions)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Parameters {
    /// Any JSON value, held whole.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn composed() -> (Arc<Value>, Parameters) {
        let shared = Arc::new(json!({"type": "array", "items": {"enum": ["a", "b"]}}));
        let mut defs = Map::new();
        defs.insert("D".into(), json!({"type": "string"}));
        let parameters = Parameters::from_properties(
            [
                ("select".to_owned(), Arc::clone(&shared), false),
                (
                    "id".to_owned(),
                    Arc::new(json!({"$ref": "#/$defs/D"})),
                    true,
                ),
            ],
            defs,
        );
        (shared, parameters)
    }

    #[test]
    fn a_composed_schema_reads_serialises_and_compares_as_the_whole_one() {
        let (shared, parameters) = composed();
        let whole = json!({"type": "object",
            "properties": {"select": {"type": "array", "items": {"enum": ["a", "b"]}}, "id": {"$ref": "#/$defs/D"}},
            "required": ["id"], "$defs": {"D": {"type": "string"}}});
        assert!(parameters.is_composed());
        assert_eq!(
            serde_json::to_string(&parameters).unwrap(),
            serde_json::to_string(&whole).unwrap()
        );
        assert_eq!(parameters.to_value(), whole);
        assert_eq!(parameters, Parameters::from(whole.clone()));
        assert_eq!(parameters, composed().1);
        assert_eq!(Arc::strong_count(&shared), 2, "held, not copied");
        assert_eq!(parameters["required"][0], "id");
        // Read once through `Deref`, it serialises from the kept copy alike.
        assert_eq!(
            serde_json::to_string(&parameters).unwrap(),
            serde_json::to_string(&whole).unwrap()
        );
        assert_eq!(parameters.into_value(), whole);
    }

    #[test]
    fn without_required_or_definitions_neither_key_is_written() {
        let parameters =
            Parameters::from_properties([("q".to_owned(), Arc::new(json!({})), false)], Map::new());
        assert_eq!(
            serde_json::to_string(&parameters).unwrap(),
            r#"{"type":"object","properties":{"q":{}}}"#
        );
        let empty = Parameters::from_properties::<&str>([], Map::new());
        assert_eq!(empty, json!({"type": "object", "properties": {}}));
        assert_eq!(
            serde_json::to_string(&Parameters::default()).unwrap(),
            r#"{"type":"object","properties":{}}"#
        );
    }

    #[test]
    fn a_name_given_twice_is_held_as_json_holds_it() {
        let parameters = Parameters::from_properties(
            [
                ("a".to_owned(), Arc::new(json!(1)), true),
                ("b".to_owned(), Arc::new(json!(2)), false),
                ("a".to_owned(), Arc::new(json!(3)), true),
            ],
            Map::new(),
        );
        assert!(!parameters.is_composed());
        assert_eq!(
            serde_json::to_string(&parameters).unwrap(),
            r#"{"type":"object","properties":{"a":3,"b":2},"required":["a","a"]}"#
        );
    }

    #[test]
    fn deserialises_any_value_whole() {
        let parameters: Parameters = serde_json::from_str(r#"{"type":"object"}"#).unwrap();
        assert!(!parameters.is_composed());
        assert_eq!(parameters, json!({"type": "object"}));
    }
}
