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

/// Which identifiers and API names a registry accepts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum NameRules {
    /// `[A-Za-z0-9_-]+`: what a tool author writes (the default).
    #[default]
    Strict,
    /// Any non-empty name of at most 256 characters without control
    /// characters: for tools named elsewhere (MCP servers, OpenAPI
    /// `operationId`s). Their wire names are shortened with a hash and
    /// resolved back through the registry.
    Foreign,
}

impl NameRules {
    /// Whether `name` is acceptable under these rules.
    pub fn accepts(self, name: &str) -> bool {
        match self {
            Self::Strict => is_valid_name(name),
            Self::Foreign => {
                !name.is_empty()
                    && name.chars().count() <= 256
                    && !name.chars().any(char::is_control)
            }
        }
    }

    /// The looser of two rule sets (`Foreign` if either is).
    pub fn loosest(self, other: Self) -> Self {
        if self == Self::Foreign || other == Self::Foreign {
            Self::Foreign
        } else {
            Self::Strict
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Self::Strict => "must be non-empty and use only A-Z, a-z, 0-9, `_` and `-`",
            Self::Foreign => {
                "must be non-empty, at most 256 characters, without control characters"
            }
        }
    }
}

/// Validates a manifest under [`NameRules::Strict`] and compiles each API's
/// parameters schema.
///
/// Returns the compiled schemas in API order. The first problem found is the
/// error; it names the tool, the API and the field.
pub fn validate_manifest(manifest: &ToolManifest) -> Result<Vec<CompiledSchema>, Error> {
    validate_manifest_with(manifest, NameRules::Strict)
}

/// [`validate_manifest`] with explicit [`NameRules`].
pub fn validate_manifest_with(
    manifest: &ToolManifest,
    rules: NameRules,
) -> Result<Vec<CompiledSchema>, Error> {
    let tool = manifest.identifier.clone();
    let invalid = |api: Option<&str>, field: String, message: String| Error::InvalidManifest {
        tool: tool.clone(),
        api: api.map(str::to_owned),
        field,
        message,
    };
    if !rules.accepts(&manifest.identifier) {
        return Err(invalid(None, "identifier".into(), rules.describe().into()));
    }
    let mut seen = HashSet::new();
    let mut compiled = Vec::with_capacity(manifest.api.len());
    for (index, api) in manifest.api.iter().enumerate() {
        let name = api.name.as_str();
        if !rules.accepts(name) {
            return Err(invalid(
                Some(name),
                format!("api[{index}].name"),
                rules.describe().into(),
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
