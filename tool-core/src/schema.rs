//! JSON Schemas generated from Rust types, shaped for a model's function-calling input.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

/// The JSON Schema the model sees for an argument type `T`.
///
/// Draft 2020-12 with every subschema inlined (providers reject `$ref`s in
/// tool parameters), without the `$schema` keyword, and always with
/// `"type": "object"` at the top. Doc comments become `description`s.
///
/// ```
/// #[derive(schemars::JsonSchema, serde::Deserialize)]
/// struct Args {
///     /// What to greet.
///     name: String,
/// }
/// let schema = tool_core::pipeline::schema_for_args::<Args>();
/// assert_eq!(schema["type"], "object");
/// assert_eq!(schema["properties"]["name"]["description"], "What to greet.");
/// assert_eq!(schema["required"][0], "name");
/// ```
pub fn schema_for_args<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|settings| {
            settings.inline_subschemas = true;
        })
        .into_generator();
    let schema = generator.into_root_schema_for::<T>();
    let mut value = schema.to_value();
    if let Value::Object(map) = &mut value {
        map.remove("$schema");
        map.remove("title");
        map.entry("type").or_insert_with(|| Value::from("object"));
        if !map.contains_key("properties") {
            map.insert("properties".into(), Value::Object(Default::default()));
        }
    }
    value
}
