//! Manifest validation and compiled argument schemas.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::Value;

use crate::error::{Error, Violation};
use crate::manifest::ToolManifest;

/// A compiled JSON Schema. Compile once, validate many times.
#[derive(Clone)]
pub struct CompiledSchema {
    validator: Arc<jsonschema::Validator>,
}

impl std::fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledSchema").finish_non_exhaustive()
    }
}

impl CompiledSchema {
    /// Compiles `schema`. Remote `$ref`s are never fetched.
    pub fn compile(schema: &Value) -> Result<Self, String> {
        jsonschema::validator_for(schema)
            .map(|validator| Self {
                validator: Arc::new(validator),
            })
            .map_err(|e| e.to_string())
    }

    /// Every violation of `instance`, each with its JSON pointer. Empty means valid.
    pub fn violations(&self, instance: &Value) -> Vec<Violation> {
        self.validator
            .iter_errors(instance)
            .map(|error| Violation {
                pointer: error.instance_path().to_string(),
                message: error.to_string(),
            })
            .collect()
    }

    /// Whether `instance` is valid.
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.validator.is_valid(instance)
    }
}

/// Whether `name` is a valid identifier or API name: non-empty `[A-Za-z0-9_-]`.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Validates a manifest and compiles each API's parameters schema.
///
/// Returns the compiled schemas in API order. The first problem found is the
/// error; it names the tool, the API and the field.
pub fn validate_manifest(manifest: &ToolManifest) -> Result<Vec<CompiledSchema>, Error> {
    let tool = manifest.identifier.clone();
    let invalid = |api: Option<&str>, field: String, message: String| Error::InvalidManifest {
        tool: tool.clone(),
        api: api.map(str::to_owned),
        field,
        message,
    };
    if !is_valid_name(&manifest.identifier) {
        return Err(invalid(
            None,
            "identifier".into(),
            "must be non-empty and use only A-Z, a-z, 0-9, `_` and `-`".into(),
        ));
    }
    let mut seen = HashSet::new();
    let mut compiled = Vec::with_capacity(manifest.api.len());
    for (index, api) in manifest.api.iter().enumerate() {
        let name = api.name.as_str();
        if !is_valid_name(name) {
            return Err(invalid(
                Some(name),
                format!("api[{index}].name"),
                "must be non-empty and use only A-Z, a-z, 0-9, `_` and `-`".into(),
            ));
        }
        if !seen.insert(name) {
            return Err(invalid(
                Some(name),
                format!("api[{index}].name"),
                "duplicate API name".into(),
            ));
        }
        let field = format!("api[{index}].parameters");
        let Value::Object(schema) = &api.parameters else {
            return Err(invalid(
                Some(name),
                field,
                format!(
                    "must be a JSON Schema object, got {}",
                    crate::manifest::json_kind(&api.parameters)
                ),
            ));
        };
        match schema.get("type") {
            Some(Value::String(t)) if t == "object" => {}
            None if schema.contains_key("properties") => {}
            other => {
                return Err(invalid(
                    Some(name),
                    format!("{field}.type"),
                    format!(
                        "arguments must be described as `\"type\": \"object\"`, got {}",
                        other.map_or_else(|| "nothing".to_owned(), Value::to_string)
                    ),
                ));
            }
        }
        let schema = CompiledSchema::compile(&api.parameters).map_err(|message| {
            invalid(
                Some(name),
                field.clone(),
                format!("does not compile: {message}"),
            )
        })?;
        compiled.push(schema);
    }
    Ok(compiled)
}
