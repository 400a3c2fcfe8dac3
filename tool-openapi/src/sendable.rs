//! What sending accepts, said in an argument's schema: a path value
//! cannot be empty, a header string holds only what a header carries, a
//! required query string is not empty unless the document allows it
//! (`allowEmptyValue`). Read by the import and the narrow protocol when
//! they write arguments schemas; the execute module's style module
//! refuses the same values when a call is sent.

use serde_json::Value;

use crate::document::Location;

/// What a header value can hold: visible ASCII, space and tab (RFC 9110
/// field values; the client refuses anything else).
pub(crate) const HEADER_VALUE_PATTERN: &str = "^[\\t -~]*$";

/// `schema` as sending accepts it at `location`:
/// - a path value cannot be empty (`minLength: 1` on a string,
///   `minItems: 1` on an array, `minProperties: 1` on an object; a schema
///   of another or no type gets `minLength: 1`, which constrains only
///   strings);
/// - a header string holds only what a header carries
///   ([`HEADER_VALUE_PATTERN`]), unless its schema has a pattern already.
///
/// Other locations are returned unchanged.
pub(crate) fn sendable(location: Location, mut schema: Value) -> Value {
    if !matches!(location, Location::Path | Location::Header) {
        return schema;
    }
    let Value::Object(object) = &mut schema else {
        return schema;
    };
    if location == Location::Header {
        if object.get("type").and_then(Value::as_str) == Some("string")
            && !object.contains_key("pattern")
            && !object.contains_key("enum")
            && !object.contains_key("const")
        {
            object.insert("pattern".into(), Value::from(HEADER_VALUE_PATTERN));
        }
        return schema;
    }
    let types: Vec<&str> = match object.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let has = |name: &str| types.is_empty() || types.contains(&name);
    let mut floors = Vec::new();
    if has("string") {
        floors.push("minLength");
    }
    if types.contains(&"array") {
        floors.push("minItems");
    }
    if types.contains(&"object") {
        floors.push("minProperties");
    }
    for key in floors {
        let at_least_one = object
            .get(key)
            .and_then(Value::as_u64)
            .is_some_and(|n| n >= 1);
        if !at_least_one {
            object.insert(key.into(), Value::from(1));
        }
    }
    schema
}

/// The schema of a required query parameter without `allowEmptyValue`,
/// when it can hold a string: the same with `minLength: 1`, since an
/// empty value is not one the document allows (OpenAPI 3.0
/// `allowEmptyValue`, default `false`). `None` when nothing changes: a
/// schema of no string type, one with `minLength` of 1 or more already,
/// or one whose `enum` or `const` names its values (an `""` listed there
/// is the document's own).
pub(crate) fn non_empty_query(schema: &Value) -> Option<Value> {
    let object = schema.as_object()?;
    let string = match object.get("type") {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(list)) => list.iter().any(|t| t == "string"),
        Some(_) => false,
        None => !object.contains_key("$ref") && !object.contains_key("items"),
    };
    let floored = object
        .get("minLength")
        .and_then(Value::as_u64)
        .is_some_and(|n| n >= 1);
    if !string || floored || object.contains_key("enum") || object.contains_key("const") {
        return None;
    }
    let mut object = object.clone();
    object.insert("minLength".into(), Value::from(1));
    Some(Value::Object(object))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn path_schemas_refuse_what_sending_refuses() {
        assert_eq!(
            sendable(Location::Path, json!({"type": "string"})),
            json!({"type": "string", "minLength": 1})
        );
        assert_eq!(
            sendable(Location::Path, json!({"type": "array"})),
            json!({"type": "array", "minItems": 1})
        );
        assert_eq!(
            sendable(Location::Path, json!({"type": "integer"})),
            json!({"type": "integer"})
        );
        assert_eq!(
            sendable(Location::Path, json!({"type": "string", "minLength": 3})),
            json!({"type": "string", "minLength": 3})
        );
        assert_eq!(
            sendable(Location::Query, json!({"type": "string"})),
            json!({"type": "string"})
        );
        assert_eq!(
            sendable(Location::Header, json!({"type": "string"})),
            json!({"type": "string", "pattern": HEADER_VALUE_PATTERN})
        );
        assert_eq!(
            sendable(
                Location::Header,
                json!({"type": "string", "pattern": "^a+$"})
            ),
            json!({"type": "string", "pattern": "^a+$"})
        );
    }

    #[test]
    fn required_query_strings_without_allow_empty_value_refuse_empty() {
        assert_eq!(
            non_empty_query(&json!({"type": "string"})),
            Some(json!({"type": "string", "minLength": 1}))
        );
        assert_eq!(
            non_empty_query(&json!({"type": ["string", "null"]})),
            Some(json!({"type": ["string", "null"], "minLength": 1}))
        );
        assert_eq!(non_empty_query(&json!({"type": "integer"})), None);
        assert_eq!(
            non_empty_query(&json!({"type": "array", "items": {}})),
            None
        );
        assert_eq!(
            non_empty_query(&json!({"type": "string", "enum": ["", "a"]})),
            None
        );
        assert_eq!(
            non_empty_query(&json!({"type": "string", "minLength": 2})),
            None
        );
    }
}
