//! Lenient coercion of argument values, only where the meaning is unambiguous.
//!
//! The pipeline validates arguments against the schema first, so through
//! an [`Invoker`](tool_core::Invoker) most values already have their type.
//! Hosts that call a tool directly (a form that sends every field as text,
//! a workflow) get the same leniency: `"5"` for an integer, `"2.5"` for a
//! number, `"true"`/`"false"` for a boolean, `5.0` for an integer, a number
//! or a boolean for a string. Anything else (`"5.5"` or `" 5"` for an
//! integer, `"yes"` for a boolean) is refused with the argument's name.

use serde_json::{Number, Value};

/// `value` coerced to what `schema`'s `type` asks for, or why not.
pub fn coerce(value: Value, schema: &Value) -> Result<Value, String> {
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => return Ok(value),
    };
    if types.iter().any(|t| matches_type(&value, t)) {
        return Ok(value);
    }
    for t in &types {
        if let Some(coerced) = convert(&value, t) {
            return Ok(coerced);
        }
    }
    Err(format!(
        "expected {}, got {}",
        types.join(" or "),
        describe(&value)
    ))
}

fn matches_type(value: &Value, t: &str) -> bool {
    match (t, value) {
        ("string", Value::String(_))
        | ("boolean", Value::Bool(_))
        | ("number", Value::Number(_))
        | ("array", Value::Array(_))
        | ("object", Value::Object(_))
        | ("null", Value::Null) => true,
        ("integer", Value::Number(n)) => n.is_i64() || n.is_u64(),
        _ => false,
    }
}

fn convert(value: &Value, t: &str) -> Option<Value> {
    match (t, value) {
        ("integer", Value::String(s)) => {
            if let Ok(i) = s.parse::<i64>() {
                Some(Value::from(i))
            } else {
                s.parse::<u64>().ok().map(Value::from)
            }
        }
        ("integer", Value::Number(n)) => n
            .as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
            .map(|f| Value::from(f as i64)),
        ("number", Value::String(s)) => s
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite() && !s.starts_with(['+', ' ']) && !s.ends_with(' '))
            .and_then(Number::from_f64)
            .map(Value::Number),
        ("boolean", Value::String(s)) => match s.as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        ("string", Value::Number(n)) => Some(Value::String(n.to_string())),
        ("string", Value::Bool(b)) => Some(Value::String(b.to_string())),
        _ => None,
    }
}

fn describe(value: &Value) -> String {
    match value {
        Value::String(s) => format!("the string {}", Value::String(s.clone())),
        Value::Number(n) => format!("the number {n}"),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Null => "null".into(),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unambiguous_values_are_coerced() {
        let int = json!({"type": "integer"});
        assert_eq!(coerce(json!("5"), &int).unwrap(), json!(5));
        assert_eq!(coerce(json!(-7), &int).unwrap(), json!(-7));
        assert_eq!(coerce(json!(5.0), &int).unwrap(), json!(5));
        let num = json!({"type": "number"});
        assert_eq!(coerce(json!("2.5"), &num).unwrap(), json!(2.5));
        let boolean = json!({"type": "boolean"});
        assert_eq!(coerce(json!("false"), &boolean).unwrap(), json!(false));
        let string = json!({"type": "string"});
        assert_eq!(coerce(json!(12), &string).unwrap(), json!("12"));
        assert_eq!(coerce(json!("x"), &json!({})).unwrap(), json!("x"));
    }

    #[test]
    fn ambiguous_values_are_refused() {
        let int = json!({"type": "integer"});
        for bad in [
            json!("5.5"),
            json!(" 5"),
            json!("five"),
            json!(5.5),
            json!(true),
            json!([5]),
        ] {
            assert!(coerce(bad.clone(), &int).is_err(), "{bad}");
        }
        let boolean = json!({"type": "boolean"});
        for bad in [json!("yes"), json!("True"), json!(1), json!("1")] {
            assert!(coerce(bad.clone(), &boolean).is_err(), "{bad}");
        }
        assert!(coerce(json!("NaN"), &json!({"type": "number"})).is_err());
        assert!(coerce(json!({"a": 1}), &json!({"type": "string"})).is_err());
    }
}
