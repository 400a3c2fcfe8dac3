//! Properties of raw-arguments parsing: never panics, and cut-off objects are
//! always diagnosed as truncated.

use proptest::prelude::*;
use serde_json::{Map, Value};
use tool_core::{ErrorCode, pipeline::parse_arguments};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("[a-z\"\\\\{}]{1,6}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn object() -> impl Strategy<Value = Value> {
    prop::collection::btree_map("[a-z\"\\\\{}\\[\\]]{1,6}", json_value(), 1..5)
        .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>()))
}

proptest! {
    #[test]
    fn any_text_is_parsed_or_refused_without_panicking(text in "\\PC{0,200}") {
        match parse_arguments(&text) {
            Ok(_) => {}
            Err(error) => prop_assert!(
                error.code == ErrorCode::TRUNCATED_ARGUMENTS
                    || error.code == ErrorCode::INVALID_ARGUMENTS_JSON
            ),
        }
    }

    #[test]
    fn complete_objects_parse_back_to_themselves(value in object()) {
        let text = serde_json::to_string(&value).unwrap();
        prop_assert_eq!(Value::Object(parse_arguments(&text).unwrap()), value);
    }

    #[test]
    fn every_proper_prefix_of_an_object_is_truncated(value in object(), cut in 0.0f64..1.0) {
        let text = serde_json::to_string_pretty(&value).unwrap();
        let boundaries: Vec<usize> = text.char_indices().map(|(i, _)| i).filter(|&i| i > 0).collect();
        let at = boundaries[((boundaries.len() as f64) * cut) as usize % boundaries.len()];
        let prefix = &text[..at];
        let error = parse_arguments(prefix).unwrap_err();
        prop_assert_eq!(error.code, ErrorCode::TRUNCATED_ARGUMENTS, "{:?}", prefix);
    }
}
