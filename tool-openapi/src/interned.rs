//! Argument schemas held once per document: Microsoft Graph's 11 422
//! operations have 75 000 arguments but under 5 000 distinct schemas (the
//! same `$top`, `$select` or body property on operation after operation),
//! so each compiled API composes its arguments schema of shared ones
//! ([`tool_core::Parameters::from_properties`]).

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::fingerprint::{json_hash, same_json};

/// Schemas by content: equal JSON (in order, as it serialises) is one
/// `Arc`.
#[derive(Default)]
pub(crate) struct Interned {
    by_hash: HashMap<u64, Vec<Arc<Value>>>,
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
        schema
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
    }
}
