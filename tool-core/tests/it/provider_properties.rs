//! Properties of provider messages: any JSON is parsed or refused without a
//! panic, and every call read from a well-formed answer carries its id and name.

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use tool_core::{ProviderFormat, ToolOutput, export::strict_schema};

/// JSON values that often use the providers' own keys.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        prop_oneof![
            Just("function_call".to_owned()),
            Just("tool_use".to_owned()),
            Just("function".to_owned()),
            "\\PC{0,8}"
        ]
        .prop_map(Value::String),
    ];
    let key = prop_oneof![
        Just("type"),
        Just("id"),
        Just("call_id"),
        Just("name"),
        Just("arguments"),
        Just("input"),
        Just("function"),
        Just("tool_calls"),
        Just("choices"),
        Just("message"),
        Just("content"),
        Just("output"),
        Just("properties"),
        Just("required"),
        Just("items"),
        Just("anyOf"),
        Just("additionalProperties"),
    ]
    .prop_map(str::to_owned);
    leaf.prop_recursive(5, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(key.clone(), inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

proptest! {
    #[test]
    fn any_json_is_parsed_or_refused_without_panicking(value in json_value()) {
        for format in ProviderFormat::ALL {
            if let Ok(calls) = format.tool_calls(&value) {
                for call in &calls {
                    prop_assert!(call.id.as_deref().is_some_and(|id| !id.is_empty()));
                    prop_assert!(!call.name.is_empty());
                }
                let outputs: Vec<ToolOutput> = calls.iter().map(|_| ToolOutput::text("ok")).collect();
                prop_assert!(format.tool_results(&calls, &outputs).is_ok());
            }
        }
    }

    #[test]
    fn strict_rewriting_never_panics_and_closes_the_root(value in json_value()) {
        let mut schema = json!({"type": "object"});
        if let Value::Object(extra) = &value {
            for (k, v) in extra {
                schema[k] = v.clone();
            }
            schema["type"] = json!("object");
        }
        let (strict, _problems) = strict_schema(&schema);
        prop_assert_eq!(&strict["additionalProperties"], &json!(false));
    }
}
