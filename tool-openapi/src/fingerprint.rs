//! Fingerprints of what an operation's arguments schema is built from, so
//! that a check made while importing is reused only for an operation that
//! has not changed since.
//!
//! The hash is a fast one (a multiply-rotate per 8 bytes, seeded at random
//! per process), not a cryptographic one: all of Microsoft Graph's
//! parameter schemas are hashed twice per import into a registry, which
//! with SipHash was a tenth of the time. A collision cannot make a tool
//! validate against a schema other than its own (the validator is always
//! built from the manifest's schema); at worst an operation changed after
//! its import keeps the import's verdict, and a schema that does not
//! compile is then refused on first call (`schema_unusable`) instead of at
//! registration.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher, RandomState};
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::document::Operation;

/// [`schema_fingerprint_with`] hashing every argument schema afresh.
#[cfg(test)]
pub(crate) fn schema_fingerprint(operation: &Operation) -> u64 {
    schema_fingerprint_with(operation, &mut SchemaHashes::default())
}

/// A fingerprint of everything [`parameters_schema`](crate::parameters_schema)
/// reads from an operation (seeded at random per process; what a collision
/// can do is in the module docs), each argument schema hashed once per
/// address in `hashes` (an import's operations share their argument
/// schemas).
pub(crate) fn schema_fingerprint_with(operation: &Operation, hashes: &mut SchemaHashes) -> u64 {
    let mut hasher = Fingerprinter(seed());
    hasher.write_usize(operation.parameters.len());
    for parameter in &operation.parameters {
        parameter.argument_name().hash(&mut hasher);
        parameter.required.hash(&mut hasher);
        parameter.required_with_body.hash(&mut hasher);
        parameter.description.hash(&mut hasher);
        hasher.write_u64(hashes.of(&parameter.schema, json_hash));
    }
    // The shared definitions are immutable and the parameters name those
    // they reach: whether there are any is what changes the schema.
    hasher.write_usize(operation.shared_definitions.len());
    hasher.write_usize(operation.definitions.len());
    for (name, schema) in &operation.definitions {
        name.hash(&mut hasher);
        hash_json(&mut hasher, schema);
    }
    hasher.finish()
}

/// A figure computed once per argument schema, found by the schema's
/// address. Each schema is held here so that its address stays its own
/// while the figure is kept (a schema held elsewhere too is never changed
/// in place: `Arc::make_mut` copies it). An import's operations share their
/// argument schemas, so most lookups find one.
pub(crate) struct ByAddress<T>(HashMap<usize, (Arc<Value>, T)>);

impl<T> Default for ByAddress<T> {
    fn default() -> Self {
        Self(HashMap::new())
    }
}

impl<T: Copy> ByAddress<T> {
    /// The figure of `schema`, computed by `compute` the first time.
    pub(crate) fn of(&mut self, schema: &Arc<Value>, compute: impl FnOnce(&Value) -> T) -> T {
        let address = Arc::as_ptr(schema) as usize;
        if let Some((_, figure)) = self.0.get(&address) {
            return *figure;
        }
        let figure = compute(schema);
        self.0.insert(address, (Arc::clone(schema), figure));
        figure
    }
}

/// [`json_hash`]es of argument schemas, once per schema.
pub(crate) type SchemaHashes = ByAddress<u64>;

/// A hash of `value` (seeded per process) for which JSON equal in order
/// ([`same_json`]) hashes alike.
pub(crate) fn json_hash(value: &Value) -> u64 {
    let mut hasher = Fingerprinter(seed());
    hash_json(&mut hasher, value);
    hasher.finish()
}

/// `a == b` for JSON, objects compared entry by entry in order (equal
/// objects in another order serialise differently, so they differ here).
pub(crate) fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((ka, va), (kb, vb))| ka == kb && same_json(va, vb))
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_json(a, b))
        }
        (a, b) => a == b,
    }
}

fn seed() -> u64 {
    static SEED: OnceLock<u64> = OnceLock::new();
    *SEED.get_or_init(|| RandomState::new().build_hasher().finish())
}

/// Hashes JSON so that values unequal as [`Value`]s (or equal objects in
/// another order) hash apart, but for collisions.
fn hash_json(hasher: &mut impl Hasher, value: &Value) {
    match value {
        Value::Null => hasher.write_u8(0),
        Value::Bool(b) => {
            hasher.write_u8(1);
            b.hash(hasher);
        }
        Value::Number(n) => {
            hasher.write_u8(2);
            if let Some(u) = n.as_u64() {
                hasher.write_u8(0);
                hasher.write_u64(u);
            } else if let Some(i) = n.as_i64() {
                hasher.write_u8(1);
                hasher.write_i64(i);
            } else {
                hasher.write_u8(2);
                hasher.write_u64(n.as_f64().unwrap_or_default().to_bits());
            }
        }
        Value::String(s) => {
            hasher.write_u8(3);
            s.hash(hasher);
        }
        Value::Array(items) => {
            hasher.write_u8(4);
            hasher.write_usize(items.len());
            for item in items {
                hash_json(hasher, item);
            }
        }
        Value::Object(map) => {
            hasher.write_u8(5);
            hasher.write_usize(map.len());
            for (key, item) in map {
                key.hash(hasher);
                hash_json(hasher, item);
            }
        }
    }
}

/// The hasher of [`schema_fingerprint_with`] (see the module docs).
struct Fingerprinter(u64);

impl Fingerprinter {
    /// The multiplier of rustc-hash 2.
    const K: u64 = 0xf135_7aea_2e62_a9c5;

    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(Self::K);
    }
}

impl Hasher for Fingerprinter {
    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let mut array = [0u8; 8];
            array.copy_from_slice(word);
            self.add(u64::from_le_bytes(array));
        }
        let rest = words.remainder();
        let mut array = [0u8; 8];
        array[..rest.len()].copy_from_slice(rest);
        // The length tells `ab` + `` from `a` + `b`.
        self.add(u64::from_le_bytes(array) ^ ((bytes.len() as u64) << 56));
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::narrow::parse_narrow;

    #[test]
    fn a_changed_schema_changes_the_fingerprint_and_an_equal_one_does_not() {
        let (doc, _) = parse_narrow(
            r#"{"server":"http://x.test","description":"d","paths":{"/a":{"get":{
                "operationId":"op","description":"o","parameters":[
                {"name":"q","in":"query","type":"str","description":"query"},
                {"name":"n","in":"query","type":"int"}]}}}}"#,
        )
        .unwrap();
        let op = &doc.operations[0];
        let same = op.clone();
        assert_eq!(schema_fingerprint(op), schema_fingerprint(&same));
        let changes: [fn(&mut Operation); 5] = [
            |op| std::sync::Arc::make_mut(&mut op.parameters[0].schema)["type"] = "integer".into(),
            |op| op.parameters[1].required = true,
            |op| op.parameters[0].description = Some("queries".into()),
            |op| op.parameters[0].name = "r".into(),
            |op| {
                op.definitions
                    .insert("D".into(), serde_json::json!({"type": "string"}));
            },
        ];
        for change in changes {
            let mut changed = op.clone();
            change(&mut changed);
            assert_ne!(schema_fingerprint(op), schema_fingerprint(&changed));
        }
        // Strings split differently hash apart.
        let mut a = Fingerprinter(1);
        a.write(b"ab");
        a.write(b"");
        let mut b = Fingerprinter(1);
        b.write(b"a");
        b.write(b"b");
        assert_ne!(a.finish(), b.finish());
    }
}
