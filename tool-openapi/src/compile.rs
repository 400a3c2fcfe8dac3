//! Compilation: a normalised document → one tool manifest, one API per operation.
//!
//! Pure functions over values. Each operation's JSON Schema is built from
//! its parameters: the argument name is the property, the parameter's
//! schema (narrow `str`/`int`/`float`/`bool` → `string`/`integer`/`number`/
//! `boolean`) with its description is the property's schema, and
//! `required` lists exactly the required arguments. Approval comes from
//! the operation's override, else from the method (`get`/`head` →
//! `never`, everything else → `required`).

use serde_json::{Map, Value};
use tool_core::{ApiDefinition, CompiledSchema, NameRules, ToolManifest};

use crate::document::{ApiDocument, Operation};
use crate::error::Error;

/// The manifest `kind` of compiled API tools.
pub const MANIFEST_KIND: &str = "api";

/// The arguments schema of one operation, as the model receives it.
pub fn parameters_schema(operation: &Operation) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for parameter in &operation.parameters {
        let mut schema = parameter.schema.clone();
        if let Value::Object(object) = &mut schema
            && let Some(description) = &parameter.description
            && !description.is_empty()
            && !object.contains_key("description")
        {
            object.insert("description".into(), Value::String(description.clone()));
        }
        let name = parameter.argument_name().to_owned();
        if parameter.required {
            required.push(Value::String(name.clone()));
        }
        properties.insert(name, schema);
    }
    // Built by hand: `json!` would copy `properties` through `Serialize`.
    let mut schema = Map::with_capacity(4);
    schema.insert("type".into(), Value::String("object".into()));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    if !operation.definitions.is_empty() {
        schema.insert("$defs".into(), Value::Object(operation.definitions.clone()));
    }
    Value::Object(schema)
}

/// The API definition of one operation.
pub fn api_definition(operation: &Operation) -> ApiDefinition {
    let description = if operation.description.is_empty() {
        format!(
            "{} {}",
            operation.method.as_str().to_ascii_uppercase(),
            operation.path
        )
    } else {
        operation.description.clone()
    };
    ApiDefinition::new(operation.operation_id.clone(), description)
        .with_parameters(parameters_schema(operation))
        .with_intervention(operation.intervention())
}

/// The manifest of the tool `identifier` compiled from `document`: one API
/// per operation, validated under [`NameRules::Foreign`] (operation ids
/// are foreign names; the registry gives them safe wire names).
///
/// An imported document's operations carry the schemas compiled while
/// importing; those still matching are reused, not compiled again.
pub fn compile_manifest(document: &ApiDocument, identifier: &str) -> Result<ToolManifest, Error> {
    let manifest = unchecked_manifest(document, identifier);
    CompiledSchema::for_manifest(&manifest, NameRules::Foreign, compiled(document))?;
    Ok(manifest)
}

/// The manifest of [`compile_manifest`], not yet validated.
pub(crate) fn unchecked_manifest(document: &ApiDocument, identifier: &str) -> ToolManifest {
    let mut manifest = ToolManifest::new(identifier);
    manifest.meta.title = document.title.clone();
    manifest.meta.description = Some(document.description.clone());
    manifest.kind = Some(MANIFEST_KIND.to_owned());
    manifest.api = document.operations.iter().map(api_definition).collect();
    manifest
}

/// Each operation's import-time compilation, in operation order.
pub(crate) fn compiled(document: &ApiDocument) -> Vec<Option<CompiledSchema>> {
    document
        .operations
        .iter()
        .map(|op| op.compiled.0.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::narrow::parse_narrow;
    use serde_json::json;
    use tool_core::{HumanIntervention, InterventionPolicy};

    #[test]
    fn schema_keeps_descriptions_and_exactly_the_required() {
        let (doc, _) = parse_narrow(
            r#"{"server":"http://x.test","description":"d","paths":{"/a/{id}":{"post":{
                "operationId":"op","description":"o","parameters":[
                {"name":"id","in":"path","type":"int","description":"the id"},
                {"name":"q","in":"query","type":"float"},
                {"name":"b","in":"request_body","type":"bool","required":true}]}}}}"#,
        )
        .unwrap();
        let schema = parameters_schema(&doc.operations[0]);
        assert_eq!(
            schema,
            json!({"type":"object","properties":{
                "id":{"type":"integer","description":"the id"},
                "q":{"type":"number"},
                "b":{"type":"boolean"}},
                "required":["id","b"]})
        );
        let manifest = compile_manifest(&doc, "t").unwrap();
        assert_eq!(
            manifest.api[0].human_intervention,
            Some(HumanIntervention::Policy(InterventionPolicy::Required))
        );
    }
}
