//! Argument schemas converted once per distinct source schema: Microsoft
//! Graph's operations take the same `$select`, `$expand` or `$ref`'d
//! parameter schema again and again, and converting one allocates all of
//! it (an enum of a hundred property names) only for the copy to be
//! dropped as equal to one already held (see the interned module).

use std::collections::HashMap;
use std::io::Write as _;
use std::sync::Arc;

use serde_json::Value;

use super::node::Node;
use super::schema::SchemaConverter;

/// Converted argument schemas by their source, written as [`key`] bytes
/// (the source may live in a path item's arena, dropped with it; the
/// bytes are about as long as its JSON, in one allocation).
#[derive(Default)]
pub(crate) struct Arguments {
    by_source: HashMap<Box<[u8]>, Arc<Value>>,
    /// [`key`] of the source looked up last.
    scratch: Vec<u8>,
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
        self.scratch.clear();
        key(&mut self.scratch, source);
        if let Some(found) = self.by_source.get(self.scratch.as_slice()) {
            return Arc::clone(found);
        }
        let marks = converter.marks();
        let converted = Arc::new(converter.argument(source));
        if converter.marks() == marks {
            self.by_source
                .insert(self.scratch.as_slice().into(), Arc::clone(&converted));
        }
        converted
    }
}

/// Writes `node` as bytes equal for nodes that are one value (objects in
/// order) and different otherwise: a tag per node, lengths before
/// strings and lists.
fn key(out: &mut Vec<u8>, node: &Node<'_>) {
    let text = |out: &mut Vec<u8>, text: &str| {
        out.extend_from_slice(&text.len().to_le_bytes());
        out.extend_from_slice(text.as_bytes());
    };
    match node {
        Node::Null => out.push(0),
        Node::Bool(b) => out.extend_from_slice(&[1, u8::from(*b)]),
        Node::Number(n) => {
            out.push(2);
            // Its JSON text, ended by a byte no number has.
            let _ = write!(out, "{n};");
        }
        Node::String(s) => {
            out.push(3);
            text(out, s);
        }
        Node::Array(items) => {
            out.push(4);
            out.extend_from_slice(&items.len().to_le_bytes());
            for item in *items {
                key(out, item);
            }
        }
        Node::Object(object) => {
            out.push(5);
            out.extend_from_slice(&object.len().to_le_bytes());
            for (name, item) in object.iter() {
                text(out, name);
                key(out, item);
            }
        }
        Node::Raw(raw) => {
            out.push(6);
            text(out, raw);
        }
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
