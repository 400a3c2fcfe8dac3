//! Argument schemas converted once per distinct source schema: Microsoft
//! Graph's operations take the same `$select`, `$expand` or `$ref`'d
//! parameter schema again and again, and converting one allocates all of
//! it (an enum of a hundred property names) only for the copy to be
//! dropped as equal to one already held (see the interned module).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use serde_json::Value;

use super::node::Node;
use super::schema::SchemaConverter;
use crate::fingerprint::seeded;

/// Converted argument schemas by their source (held as a value to compare
/// with: the source may live in a path item's arena, dropped with it).
#[derive(Default)]
pub(crate) struct Arguments {
    by_hash: HashMap<u64, Vec<(Value, Arc<Value>)>>,
}

impl Arguments {
    /// [`SchemaConverter::argument`] of `source`, converted once: a
    /// conversion that found a problem or cut nesting is not kept (each
    /// operation reports those).
    pub(crate) fn argument(
        &mut self,
        converter: &mut SchemaConverter<'_, '_>,
        source: &Node<'_>,
    ) -> Arc<Value> {
        let mut hasher = seeded();
        hash_node(&mut hasher, source);
        let hash = hasher.finish();
        if let Some((_, found)) = self
            .by_hash
            .get(&hash)
            .and_then(|held| held.iter().find(|(held, _)| same(source, held)))
        {
            return Arc::clone(found);
        }
        let marks = converter.marks();
        let converted = Arc::new(converter.argument(source));
        if converter.marks() == marks {
            self.by_hash
                .entry(hash)
                .or_default()
                .push((source.to_value(), Arc::clone(&converted)));
        }
        converted
    }
}

/// Hashes `node` so that nodes [`same`] as one value hash alike.
fn hash_node(hasher: &mut impl Hasher, node: &Node<'_>) {
    match node {
        Node::Null => hasher.write_u8(0),
        Node::Bool(b) => {
            hasher.write_u8(1);
            b.hash(hasher);
        }
        Node::Number(n) => {
            hasher.write_u8(2);
            n.hash(hasher);
        }
        Node::String(s) => {
            hasher.write_u8(3);
            s.hash(hasher);
        }
        Node::Array(items) => {
            hasher.write_u8(4);
            hasher.write_usize(items.len());
            for item in *items {
                hash_node(hasher, item);
            }
        }
        Node::Object(object) => {
            hasher.write_u8(5);
            hasher.write_usize(object.len());
            for (key, item) in object.iter() {
                key.hash(hasher);
                hash_node(hasher, item);
            }
        }
        Node::Raw(text) => {
            hasher.write_u8(6);
            text.hash(hasher);
        }
    }
}

/// Whether `node` is `value`, objects compared in order (text not parsed
/// yet never is).
fn same(node: &Node<'_>, value: &Value) -> bool {
    match (node, value) {
        (Node::Null, Value::Null) => true,
        (Node::Bool(a), Value::Bool(b)) => a == b,
        (Node::Number(a), Value::Number(b)) => a == b,
        (Node::String(a), Value::String(b)) => *a == b,
        (Node::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same(a, b))
        }
        (Node::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((ka, va), (kb, vb))| ka == kb && same(va, vb))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::refs::Refs;
    use crate::import::schema::shared::SharedDefs;
    use serde_json::json;

    #[test]
    fn an_equal_source_is_converted_once_and_another_is_not() {
        let arena = bumpalo::Bump::new();
        let doc = json!({});
        let doc = Node::from_value(&doc, &arena);
        let mut defs = SharedDefs::new(Refs::new(&doc, None), true);
        let mut converter = SchemaConverter::new(&mut defs);
        let mut arguments = Arguments::default();
        let a = json!({"type": "integer", "nullable": true, "example": 3});
        let b = json!({"type": "integer", "nullable": true, "example": 3});
        let reordered = json!({"nullable": true, "type": "integer", "example": 3});
        let (a, b, reordered) = (
            Node::from_value(&a, &arena),
            Node::from_value(&b, &arena),
            Node::from_value(&reordered, &arena),
        );
        let first = arguments.argument(&mut converter, &a);
        assert_eq!(*first, json!({"type": ["integer", "null"]}));
        assert!(Arc::ptr_eq(&first, &arguments.argument(&mut converter, &b)));
        let other = arguments.argument(&mut converter, &reordered);
        assert!(!Arc::ptr_eq(&first, &other), "another source");
        assert_eq!(*other, *first);
    }
}
