//! Property test (run in CI): importing an OpenAPI JSON text gives exactly
//! what importing its parsed `serde_json::Value` gives (the importer reads
//! JSON text into its own arena tree), on generated documents whose
//! schemas repeat keys, use escapes, `$ref`s and OpenAPI 3.0 dialect.

use proptest::prelude::*;
use tool_openapi::{
    ImportOptions, import_openapi, import_value, load_document, load_value, parse_text,
};

/// JSON text of a schema-like value; object keys may repeat.
fn json_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        Just("false".to_owned()),
        Just("1".to_owned()),
        Just("-2.5e1".to_owned()),
        Just("\"string\"".to_owned()),
        Just("\"integer\"".to_owned()),
        Just("\"object\"".to_owned()),
        Just("\"caf\\u00e9 \\\"q\\\"\"".to_owned()),
        Just("{\"$ref\": \"#/components/schemas/X\"}".to_owned()),
        Just("{\"$ref\": \"#/components/schemas/Y\"}".to_owned()),
        Just("{\"$ref\": \"#/components/schemas/Nope\"}".to_owned()),
    ];
    leaf.prop_recursive(4, 40, 5, |inner| {
        let key = prop_oneof![
            Just("type"),
            Just("properties"),
            Just("items"),
            Just("nullable"),
            Just("required"),
            Just("description"),
            Just("minimum"),
            Just("exclusiveMinimum"),
            Just("allOf"),
            Just("enum"),
            Just("a"),
            Just("b\\u0041"),
            Just("x-extra"),
        ];
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4)
                .prop_map(|items| format!("[{}]", items.join(", "))),
            prop::collection::vec((key, inner), 0..6).prop_map(|entries| {
                let body: Vec<String> = entries
                    .into_iter()
                    .map(|(k, v)| format!("\"{k}\": {v}"))
                    .collect();
                format!("{{{}}}", body.join(", "))
            }),
        ]
    })
}

fn document(param: &str, body: &str, x: &str, y: &str, version: &str) -> String {
    format!(
        r#"{{"openapi": "{version}", "info": {{"title": "t", "title": "T"}},
  "servers": [{{"url": "https://api.example.com"}}],
  "paths": {{
    "/a/{{id}}": {{
      "get": {{"operationId": "getA", "parameters": [
        {{"name": "id", "in": "path", "schema": {param}}},
        {{"name": "q", "in": "query", "description": "d", "schema": {y}}}]}},
      "post": {{"parameters": [{{"name": "id", "in": "path", "schema": {{"type": "string"}}}}],
        "requestBody": {{"required": true, "content": {{"application/json": {{"schema": {body}}}}}}}}}
    }}
  }},
  "components": {{"schemas": {{"X": {x}, "Y": {y}}}}}}}"#
    )
}

proptest! {
    // Seeds beside this file (`import_properties.proptest-regressions`):
    // the default would look beside the binary's `main.rs`.
    #![proptest_config(ProptestConfig {
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
        )),
        ..ProptestConfig::with_cases(256)
    })]

    #[test]
    fn a_text_imports_as_its_value_does(
        param in json_text(),
        body in json_text(),
        x in json_text(),
        y in json_text(),
        v30 in any::<bool>(),
    ) {
        let text = document(&param, &body, &x, &y, if v30 { "3.0.3" } else { "3.1.0" });
        let options = ImportOptions::new();
        let value = parse_text(&text, usize::MAX).unwrap();
        prop_assert_eq!(import_openapi(&text, &options), import_value(&value, &options));
        prop_assert_eq!(load_document(&text, &options), load_value(&value, &options));
    }

    #[test]
    fn broken_text_fails_as_serde_json_does(text in json_text(), cut in 0usize..64) {
        let cut = text.char_indices().map(|(i, _)| i).nth(cut).unwrap_or(text.len());
        let text = format!("{{\"openapi\": \"3.1.0\", \"paths\": {}", &text[..cut]);
        let ours = import_openapi(&text, &ImportOptions::new());
        let theirs = parse_text(&text, usize::MAX).and_then(|v| import_value(&v, &ImportOptions::new()));
        prop_assert_eq!(ours, theirs);
    }
}
