//! How an argument value is written as text in a URL, a header, a cookie
//! or a form field.

use serde_json::Value;

/// The text of a value in a URL, header or cookie: strings as they are,
/// numbers and booleans in JSON spelling, arrays joined with `sep`,
/// objects as compact JSON.
pub(crate) fn scalar_text(value: &Value, sep: &str) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|item| scalar_text(item, sep))
            .collect::<Vec<_>>()
            .join(sep),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}
