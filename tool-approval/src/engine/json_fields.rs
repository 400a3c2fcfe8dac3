//! Reading a policy file's JSON: a field of the expected type, or an error
//! naming its JSON pointer; unknown keys as problems.

use serde_json::{Map, Value};

use crate::error::{Error, push_pointer};

pub(super) fn object<'v>(value: &'v Value, at: &str) -> Result<&'v Map<String, Value>, Error> {
    value
        .as_object()
        .ok_or_else(|| Error::invalid(at, value, "expected an object"))
}

pub(super) fn array<'v>(value: &'v Value, at: &str) -> Result<&'v Vec<Value>, Error> {
    value
        .as_array()
        .ok_or_else(|| Error::invalid(at, value, "expected an array"))
}

pub(super) fn string<'v>(value: &'v Value, at: &str) -> Result<&'v str, Error> {
    value
        .as_str()
        .ok_or_else(|| Error::invalid(at, value, "expected a string"))
}

pub(super) fn known_keys(
    map: &Map<String, Value>,
    at: &str,
    known: &[&str],
    problems: &mut Vec<Error>,
) {
    for (key, value) in map {
        if !known.contains(&key.as_str()) {
            problems.push(Error::invalid(
                &push_pointer(at, key),
                value,
                format!(
                    "unknown field `{key}`, expected one of {}",
                    known.join(", ")
                ),
            ));
        }
    }
}
