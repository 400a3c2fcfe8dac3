//! JSON lengths without writing the JSON: what the tool size budget and
//! the shared definitions count, for every schema of a document (Microsoft
//! Graph: half a million nodes), so counted by walking the value instead
//! of serialising it into a counter.
//!
//! Each length is exactly that of `serde_json::to_string` (compact), which
//! the tests compare.

use serde_json::{Map, Number, Value};

/// The length of `value` as compact JSON.
pub(crate) fn json_len(value: &Value) -> usize {
    match value {
        Value::Null => 4,
        Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => number_len(n),
        Value::String(s) => string_len(s),
        Value::Array(items) => 2 + items.iter().map(json_len).sum::<usize>() + commas(items.len()),
        Value::Object(object) => object_len(object),
    }
}

/// The length of `object` as compact JSON.
pub(crate) fn object_len(object: &Map<String, Value>) -> usize {
    2 + object
        .iter()
        .map(|(key, value)| string_len(key) + 1 + json_len(value))
        .sum::<usize>()
        + commas(object.len())
}

/// The length of `schema` as compact JSON once every string `description`
/// of it and of its subschemas is removed (what
/// [`strip_descriptions`](super::shared::strip_descriptions) leaves), and
/// how many that removes.
pub(crate) fn plain_len(schema: &Value) -> (usize, usize) {
    let Value::Object(object) = schema else {
        return (json_len(schema), 0);
    };
    let (mut len, mut entries, mut removed) = (2, 0, 0);
    for (key, child) in object {
        if key == "description" && child.is_string() {
            removed += 1;
            continue;
        }
        let child_len = match (key.as_str(), child) {
            (key, Value::Object(map)) if super::SCHEMA_MAP_KEYWORDS.contains(&key) => {
                let mut len = 2 + commas(map.len());
                for (name, schema) in map {
                    let (inner, count) = plain_len(schema);
                    len += string_len(name) + 1 + inner;
                    removed += count;
                }
                len
            }
            (key, child)
                if super::SUBSCHEMA_KEYWORDS.contains(&key)
                    || super::SCHEMA_LIST_KEYWORDS.contains(&key) =>
            {
                match child {
                    Value::Array(list) => {
                        let mut len = 2 + commas(list.len());
                        for schema in list {
                            let (inner, count) = plain_len(schema);
                            len += inner;
                            removed += count;
                        }
                        len
                    }
                    other => {
                        let (inner, count) = plain_len(other);
                        removed += count;
                        inner
                    }
                }
            }
            (_, child) => json_len(child),
        };
        len += string_len(key) + 1 + child_len;
        entries += 1;
    }
    (len + commas(entries), removed)
}

fn commas(items: usize) -> usize {
    items.saturating_sub(1)
}

/// A string with its quotes and escapes, as serde_json writes it: `"` and
/// `\` and the short control escapes take two bytes, other control bytes
/// six (`\u001f`), everything else itself.
fn string_len(text: &str) -> usize {
    // Almost no string has a byte to escape: one branch-free count first.
    let special = text.bytes().fold(0usize, |count, b| {
        count + usize::from((b < 0x20) | (b == b'"') | (b == b'\\'))
    });
    if special == 0 {
        return 2 + text.len();
    }
    2 + text
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | 0x08 | 0x09 | 0x0a | 0x0c | 0x0d => 2,
            0x00..=0x1f => 6,
            _ => 1,
        })
        .sum::<usize>()
}

fn number_len(n: &Number) -> usize {
    if let Some(u) = n.as_u64() {
        digits(u)
    } else if let Some(i) = n.as_i64() {
        1 + digits(i.unsigned_abs())
    } else {
        // Floats are rare in schemas: written as serde_json writes them.
        serde_json::to_string(n).map_or(0, |s| s.len())
    }
}

fn digits(mut u: u64) -> usize {
    let mut count = 1;
    while u >= 10 {
        u /= 10;
        count += 1;
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn samples() -> Vec<Value> {
        vec![
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(9),
            json!(10),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(-7),
            json!(1.5),
            json!(-0.000123),
            json!(1e300),
            json!(""),
            json!("plain ü 漢字 🦀"),
            json!(
                "quote \" back \\ slash / tab \t nl \n cr \r ff \u{c} bs \u{8} nul \u{0} us \u{1f} del \u{7f}"
            ),
            json!([]),
            json!({}),
            json!([1, "a", null, [2, {}]]),
            json!({"type": "object", "description": "top", "properties": {
                "description": {"type": "string", "description": "a property called description"},
                "n": {"type": ["integer", "null"], "minimum": -3, "description": "n"}},
                "items": [{"description": "in a list"}, true],
                "additionalProperties": {"description": "alone", "enum": [{"description": "data"}]},
                "allOf": [{"$ref": "#/$defs/A", "description": "ref"}],
                "example": {"description": "data too"},
                "x": {"description": 5}}),
        ]
    }

    #[test]
    fn lengths_are_those_serde_json_writes() {
        for value in samples() {
            let written = serde_json::to_string(&value).unwrap().len();
            assert_eq!(json_len(&value), written, "{value}");
            if let Value::Object(object) = &value {
                assert_eq!(object_len(object), written, "{value}");
            }
        }
    }

    #[test]
    fn plain_lengths_are_those_of_the_stripped_schema() {
        for value in samples() {
            let mut stripped = value.clone();
            let removed = super::super::shared::strip_descriptions(&mut stripped);
            let written = serde_json::to_string(&stripped).unwrap().len();
            assert_eq!(plain_len(&value), (written, removed), "{value}");
        }
    }
}
