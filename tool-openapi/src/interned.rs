//! Argument schemas held once per document: Microsoft Graph's 11 422
//! operations have 75 000 arguments but under 5 000 distinct schemas (the
//! same `$top`, `$select` or body property on operation after operation),
//! so each compiled API composes its arguments schema of shared ones
//! ([`tool_core::manifest::Parameters::from_properties`]).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::fingerprint::{json_hash, same_json};

/// Schemas by content: equal JSON (in order, as it serialises) is one
/// `Arc`.
#[derive(Default)]
pub(crate) struct Interned {
    by_hash: HashMap<u64, Vec<Arc<Value>>>,
    /// The addresses of the schemas in `by_hash` (held there, so no other
    /// schema has one of them).
    held: HashSet<usize>,
    /// `(schema, description)` → the schema with that description, for
    /// [`described`](Self::described). Keyed by the schema's address, so
    /// the schema is held here too (the address stays its own).
    described: HashMap<(usize, String), (Arc<Value>, Arc<Value>)>,
    /// Argument names, for [`name`](Self::name).
    names: HashSet<Arc<str>>,
}

impl Interned {
    /// The held schema equal to `schema`, or `schema` now held.
    pub(crate) fn share(&mut self, schema: Value) -> Arc<Value> {
        let held = self.by_hash.entry(json_hash(&schema)).or_default();
        if let Some(found) = held.iter().find(|h| same_json(h, &schema)) {
            return Arc::clone(found);
        }
        let schema = Arc::new(schema);
        held.push(Arc::clone(&schema));
        self.held.insert(Arc::as_ptr(&schema) as usize);
        schema
    }

    /// The argument name `name`, held once (`$top`, `id`… are the names of
    /// thousands of arguments).
    pub(crate) fn name(&mut self, name: &str) -> Arc<str> {
        if let Some(held) = self.names.get(name) {
            return Arc::clone(held);
        }
        let held: Arc<str> = Arc::from(name);
        self.names.insert(Arc::clone(&held));
        held
    }

    /// Replaces `schema` by the held one equal to it (or holds it).
    pub(crate) fn share_in_place(&mut self, schema: &mut Arc<Value>) {
        if self.held.contains(&(Arc::as_ptr(schema) as usize)) {
            return;
        }
        let held = self.by_hash.entry(json_hash(schema)).or_default();
        match held.iter().find(|h| same_json(h, schema)) {
            Some(found) => *schema = Arc::clone(found),
            None => {
                held.push(Arc::clone(schema));
                self.held.insert(Arc::as_ptr(schema) as usize);
            }
        }
    }

    /// The object schema `schema` with `"description": description` added
    /// last, held once: built once per distinct schema and description
    /// (by the schema's address; a schema no one else holds is changed in
    /// place), then shared by content like [`share`](Self::share).
    pub(crate) fn described(&mut self, schema: Arc<Value>, description: String) -> Arc<Value> {
        let schema = match Arc::try_unwrap(schema) {
            Ok(Value::Object(mut object)) => {
                // Moved into a map with room for one more: inserting into
                // a full one would double its room (see `compact_copy`).
                let mut roomy = Map::with_capacity(object.len() + 1);
                roomy.extend(std::mem::take(&mut object));
                roomy.insert("description".into(), Value::String(description));
                return self.share(Value::Object(roomy));
            }
            Ok(other) => return self.share(other),
            Err(shared) => shared,
        };
        let key = (Arc::as_ptr(&schema) as usize, description);
        if let Some((_, found)) = self.described.get(&key) {
            return Arc::clone(found);
        }
        let Value::Object(object) = &*schema else {
            return schema;
        };
        let mut with = Map::with_capacity(object.len() + 1);
        for (name, value) in object {
            with.insert(name.clone(), compact_copy(value));
        }
        with.insert("description".into(), Value::String(key.1.clone()));
        let described = self.share(Value::Object(with));
        self.described.insert(key, (schema, Arc::clone(&described)));
        described
    }
}

/// A deep copy of `value` whose objects have room for exactly their
/// entries. (`Value::clone` gives each object room for as many entries as
/// its hash index holds, three for one entry: a document's thousands of
/// copied definitions took about a third more memory.)
pub(crate) fn compact_copy(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(compact_copy).collect()),
        Value::Object(object) => {
            let mut copy = Map::with_capacity(object.len());
            for (key, child) in object {
                copy.insert(key.clone(), compact_copy(child));
            }
            Value::Object(copy)
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_schemas_are_one_and_reordered_ones_are_not() {
        let mut interned = Interned::default();
        let a = interned.share(json!({"type": "string", "enum": ["a", "b"]}));
        let b = interned.share(json!({"type": "string", "enum": ["a", "b"]}));
        assert!(Arc::ptr_eq(&a, &b));
        let reordered = interned.share(json!({"enum": ["a", "b"], "type": "string"}));
        assert!(!Arc::ptr_eq(&a, &reordered), "serialises differently");
        let other = interned.share(json!({"type": "string", "enum": ["b", "a"]}));
        assert!(!Arc::ptr_eq(&a, &other));
        let mut again = Arc::new(json!({"type": "string", "enum": ["a", "b"]}));
        interned.share_in_place(&mut again);
        assert!(Arc::ptr_eq(&a, &again));
    }

    #[test]
    fn a_description_is_added_once_per_schema_and_text() {
        let mut interned = Interned::default();
        let shared = interned.share(json!({"type": "integer"}));
        let one = interned.described(Arc::clone(&shared), "How many.".into());
        let two = interned.described(Arc::clone(&shared), "How many.".into());
        assert!(Arc::ptr_eq(&one, &two));
        assert_eq!(*one, json!({"type": "integer", "description": "How many."}));
        let other = interned.described(Arc::clone(&shared), "Other.".into());
        assert_eq!(other["description"], "Other.");
        assert_eq!(
            *shared,
            json!({"type": "integer"}),
            "the shared one unchanged"
        );
        // One no one else holds is changed in place, then shared.
        let own = interned.described(Arc::new(json!({"type": "integer"})), "How many.".into());
        assert!(Arc::ptr_eq(&own, &one));
    }
}
