//! Compilation: a normalised document → one tool manifest, one API per operation.
//!
//! Pure functions over values. Each operation's JSON Schema is built from
//! its parameters: the argument name is the property, the parameter's
//! schema (narrow `str`/`int`/`float`/`bool` → `string`/`integer`/`number`/
//! `boolean`) with its description is the property's schema, and
//! `required` lists exactly the required arguments. Approval comes from
//! the operation's override, else from the method (`get`/`head` →
//! `never`, everything else → `required`). An operation with a file
//! argument (a multipart upload, a binary body) reads host files, so its
//! API is marked [`touching_host`](tool_core::ApiDefinition::touching_host).

use std::sync::Arc;

use serde_json::{Map, Value};
use tool_core::{
    ApiDefinition, ToolManifest,
    manifest::{NameRules, Parameters},
    pipeline::CompiledSchema,
};

use crate::document::{ApiDocument, Operation};
use crate::error::Error;
use crate::fingerprint::{SchemaHashes, schema_fingerprint_with};
use crate::interned::{Interned, compact_copy};

/// The manifest `kind` of compiled API tools.
pub const MANIFEST_KIND: &str = tool_core::ToolKind::Api.as_str();

/// The arguments schema of one operation, as the model receives it (with
/// the [`shared_definitions`](Operation::shared_definitions) it reaches).
pub fn parameters_schema(operation: &Operation) -> Value {
    let schema = parameters_schema_with(operation, operation.definitions.clone());
    match operation.shared_definitions.complete(&schema) {
        std::borrow::Cow::Owned(complete) => complete,
        std::borrow::Cow::Borrowed(_) => schema,
    }
}

/// [`parameters_schema`] with `definitions` as its `$defs` (and nothing
/// shared added).
pub(crate) fn parameters_schema_with(
    operation: &Operation,
    definitions: Map<String, Value>,
) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for parameter in &operation.parameters {
        let mut schema = compact_copy(&parameter.schema);
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
    let mut schema = object_schema(properties, required, definitions);
    if let (Value::Object(object), Some(dependent)) = (&mut schema, dependent_required(operation)) {
        object.insert("dependentRequired".into(), dependent);
    }
    schema
}

/// `dependentRequired` of an operation whose optional body has required
/// properties: every body argument, once given, requires them (OpenAPI:
/// a body that is sent has its required properties). `None` when there
/// are none.
fn dependent_required(operation: &Operation) -> Option<Value> {
    let with_body: Vec<Value> = operation
        .parameters
        .iter()
        .filter(|p| p.required_with_body)
        .map(|p| Value::String(p.argument_name().to_owned()))
        .collect();
    if with_body.is_empty() {
        return None;
    }
    let mut dependent = Map::new();
    for parameter in &operation.parameters {
        if parameter.location != crate::document::Location::RequestBody {
            continue;
        }
        let name = parameter.argument_name();
        let others: Vec<Value> = with_body
            .iter()
            .filter(|w| w.as_str() != Some(name))
            .cloned()
            .collect();
        if !others.is_empty() {
            dependent.insert(name.to_owned(), Value::Array(others));
        }
    }
    (!dependent.is_empty()).then_some(Value::Object(dependent))
}

/// The arguments schema of `properties`, `required` and `definitions`.
fn object_schema(
    properties: Map<String, Value>,
    required: Vec<Value>,
    definitions: Map<String, Value>,
) -> Value {
    // Built by hand: `json!` would copy `properties` through `Serialize`.
    let mut schema = Map::with_capacity(4);
    schema.insert("type".into(), Value::String("object".into()));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    if !definitions.is_empty() {
        schema.insert("$defs".into(), Value::Object(definitions));
    }
    Value::Object(schema)
}

/// The API definition of one operation (its shared definitions kept
/// shared: [`ApiDefinition::parameters_schema`] is the whole schema).
pub fn api_definition(operation: &Operation) -> ApiDefinition {
    definition_with(
        operation,
        parameters_schema_with(operation, operation.definitions.clone()),
        operation.description.clone(),
    )
}

/// [`api_definition`] with its arguments schema already built and the
/// operation's description given.
fn definition_with(
    operation: &Operation,
    parameters: impl Into<Parameters>,
    description: String,
) -> ApiDefinition {
    let description = if description.is_empty() {
        format!(
            "{} {}",
            operation.method.as_str().to_ascii_uppercase(),
            operation.path
        )
    } else {
        description
    };
    let mut definition = ApiDefinition::new(operation.operation_id.clone(), description)
        .with_parameters(parameters)
        .with_intervention(operation.intervention());
    if !operation.shared_definitions.is_empty() {
        definition = definition.with_shared_defs(operation.shared_definitions.clone());
    }
    // File arguments read host files: the gate confines such calls or asks.
    if operation.parameters.iter().any(|p| p.file) {
        definition.touching_host()
    } else {
        definition
    }
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
    manifest.kind = Some(tool_core::ToolKind::Api);
    manifest.api = document.operations.iter().map(api_definition).collect();
    manifest
}

/// Each operation's import-time compilation (with its kept schema, which
/// the validation compares), in operation order.
fn compiled(document: &ApiDocument) -> Vec<Option<CompiledSchema>> {
    document
        .operations
        .iter()
        .map(|op| op.compiled.0.as_ref().map(|(_, c)| c.clone()))
        .collect()
}

/// [`compile_manifest`] before validation, taking the operations'
/// import-time compilations and their `definitions` (moved into the
/// arguments schemas' `$defs`) out of `document`: an operation whose
/// parameters and definitions are unchanged since (same fingerprint) lends
/// its kept schema to the manifest and its validator to the result, taken
/// as compiled from it; the others are built here and left to compile.
pub(crate) fn take_manifest(
    document: &mut ApiDocument,
    identifier: &str,
) -> (ToolManifest, Vec<Option<CompiledSchema>>) {
    let mut manifest = ToolManifest::new(identifier);
    manifest.meta.title = document.title.clone();
    manifest.meta.description = Some(document.description.clone());
    manifest.kind = Some(tool_core::ToolKind::Api);
    manifest.api.reserve_exact(document.operations.len());
    let mut compiled = Vec::with_capacity(document.operations.len());
    let mut interned = Interned::default();
    // Argument schemas hashed once each for the fingerprints.
    let mut hashes = SchemaHashes::default();
    // What each parameter keeps: `true`, held once.
    let anything = Arc::new(Value::Bool(true));
    for op in &mut document.operations {
        let reusable =
            op.compiled.0.take().filter(|(fingerprint, _)| {
                *fingerprint == schema_fingerprint_with(op, &mut hashes)
            });
        // The definitions move into the arguments schema (the tool sends
        // requests from the parameters alone), so they are held once.
        let definitions = std::mem::take(&mut op.definitions);
        let (schema, parameters) = match reusable.map(|(_, kept)| kept.into_source()) {
            Some((schema, Some(parameters))) => {
                for parameter in &mut op.parameters {
                    parameter.schema = Arc::clone(&anything);
                    parameter.description = None;
                }
                (Some(schema), Parameters::from(parameters))
            }
            // Checked, nothing kept: the same parameters, built again.
            Some((checked, None)) => (
                Some(checked),
                take_parameters_schema(op, definitions, &mut interned, &anything),
            ),
            None => (
                None,
                take_parameters_schema(op, definitions, &mut interned, &anything),
            ),
        };
        // The description moves too: sending does not read it.
        let description = std::mem::take(&mut op.description);
        manifest
            .api
            .push(definition_with(op, parameters, description));
        compiled.push(schema);
    }
    (manifest, compiled)
}

/// [`parameters_schema_with`], moving each parameter's schema into it and
/// leaving the parameter `true` (a schema accepting anything, allocating
/// nothing) and no description: the manifest holds the whole schema, each
/// argument's schema shared with every equal one of the document
/// (`interned`), and the tool reads each argument's `type` from it when
/// sending.
fn take_parameters_schema(
    operation: &mut Operation,
    definitions: Map<String, Value>,
    interned: &mut Interned,
    anything: &Arc<Value>,
) -> Parameters {
    let properties = operation.parameters.iter_mut().map(|parameter| {
        let schema = std::mem::replace(&mut parameter.schema, Arc::clone(anything));
        // An object schema takes the description (the parameter keeps none).
        let schema = match schema.as_object().map(|o| o.contains_key("description")) {
            Some(has_one) => match parameter.description.take() {
                Some(description) if !description.is_empty() && !has_one => {
                    interned.described(schema, description)
                }
                _ => schema,
            },
            None => schema,
        };
        let name = interned.name(parameter.argument_name());
        (name, schema, parameter.required)
    });
    let properties = properties.collect::<Vec<_>>();
    let dependent = dependent_required(operation);
    let parameters = Parameters::from_properties(properties, definitions);
    match dependent {
        // Rare (an optional body with required properties): held whole.
        Some(dependent) => {
            let mut whole = Value::from(parameters);
            if let Value::Object(object) = &mut whole {
                object.insert("dependentRequired".into(), dependent);
            }
            Parameters::from(whole)
        }
        None => parameters,
    }
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
