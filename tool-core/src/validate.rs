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
    /// Compiles `schema`. Remote `$ref`s are never fetched. The error is the
    /// message of [`try_compile`](Self::try_compile)'s.
    pub fn compile(schema: &Value) -> Result<Self, String> {
        Self::try_compile(schema).map_err(|e| match e {
            Error::InvalidSchema { message, .. } => message,
            other => other.to_string(),
        })
    }

    /// Compiles `schema`; a schema that does not compile is an
    /// [`Error::InvalidSchema`] with the JSON pointer of the offending part
    /// of the schema.
    ///
    /// ```
    /// use tool_core::{CompiledSchema, Error};
    /// let error = CompiledSchema::try_compile(&serde_json::json!({
    ///     "type": "object", "properties": {"n": {"type": "integer", "minimum": "zero"}}
    /// })).unwrap_err();
    /// match error {
    ///     Error::InvalidSchema { pointer, .. } => assert_eq!(pointer, "/properties/n/minimum"),
    ///     other => panic!("{other}"),
    /// }
    /// ```
    pub fn try_compile(schema: &Value) -> Result<Self, Error> {
        jsonschema::validator_for(schema)
            .map(|validator| Self {
                validator: Arc::new(validator),
            })
            .map_err(|e| Error::InvalidSchema {
                pointer: e.instance_path().to_string(),
                message: e.to_string(),
            })
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
/// Returns the compiled schemas in API order. Every problem is reported, each
/// at the JSON pointer of its field in the manifest (`/api/2/parameters`):
/// one problem is an [`Error::InvalidManifest`], several are an
/// [`Error::InvalidManifestProblems`]; [`Error::manifest_problems`] lists
/// them either way.
pub fn validate_manifest(manifest: &ToolManifest) -> Result<Vec<CompiledSchema>, Error> {
    validate_manifest_with(manifest, NameRules::Strict)
}

/// [`validate_manifest`] with explicit [`NameRules`].
pub fn validate_manifest_with(
    manifest: &ToolManifest,
    rules: NameRules,
) -> Result<Vec<CompiledSchema>, Error> {
    let (compiled, problems) = check(manifest, rules);
    match problems_error(&manifest.identifier, problems) {
        None => Ok(compiled),
        Some(error) => Err(error),
    }
}

/// The error for a list of problems: none, one ([`Error::InvalidManifest`])
/// or several ([`Error::InvalidManifestProblems`]).
pub(crate) fn problems_error(tool: &str, mut problems: Vec<ManifestProblem>) -> Option<Error> {
    match problems.len() {
        0 => None,
        1 => {
            let problem = problems.remove(0);
            Some(Error::InvalidManifest {
                tool: tool.to_owned(),
                api: problem.api,
                field: problem.pointer,
                message: problem.message,
            })
        }
        _ => Some(Error::InvalidManifestProblems {
            tool: tool.to_owned(),
            problems,
        }),
    }
}

/// Every problem of `manifest` under `rules` (empty when it is valid).
pub fn manifest_problems(manifest: &ToolManifest, rules: NameRules) -> Vec<ManifestProblem> {
    check(manifest, rules).1
}

/// One problem of a manifest: where (JSON pointer into the manifest), in
/// which API, and what.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ManifestProblem {
    /// JSON pointer of the field (`/api/2/parameters/type`).
    pub pointer: String,
    /// The API's name, when the problem is inside one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ManifestProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "at {}", self.pointer)?;
        if let Some(api) = &self.api {
            write!(f, " (api `{api}`)")?;
        }
        write!(f, ": {}", self.message)
    }
}

fn check(manifest: &ToolManifest, rules: NameRules) -> (Vec<CompiledSchema>, Vec<ManifestProblem>) {
    let mut problems = Vec::new();
    let mut problem = |pointer: String, api: Option<&str>, message: String| {
        problems.push(ManifestProblem {
            pointer,
            api: api.map(str::to_owned),
            message,
        });
    };
    if !rules.accepts(&manifest.identifier) {
        problem("/identifier".into(), None, rules.describe().into());
    }
    let mut seen = HashSet::new();
    let mut compiled = Vec::with_capacity(manifest.api.len());
    for (index, api) in manifest.api.iter().enumerate() {
        let name = api.name.as_str();
        let at = format!("/api/{index}");
        if !rules.accepts(name) {
            problem(format!("{at}/name"), Some(name), rules.describe().into());
        }
        if !seen.insert(name) {
            problem(
                format!("{at}/name"),
                Some(name),
                "duplicate API name".into(),
            );
        }
        let field = format!("{at}/parameters");
        let Value::Object(schema) = &api.parameters else {
            problem(
                field,
                Some(name),
                format!(
                    "must be a JSON Schema object, got {}",
                    crate::manifest::json_kind(&api.parameters)
                ),
            );
            continue;
        };
        match schema.get("type") {
            Some(Value::String(t)) if t == "object" => {}
            None if schema.contains_key("properties") => {}
            other => problem(
                format!("{field}/type"),
                Some(name),
                format!(
                    "arguments must be described as `\"type\": \"object\"`, got {}",
                    other.map_or_else(|| "nothing".to_owned(), Value::to_string)
                ),
            ),
        }
        match CompiledSchema::try_compile(&api.parameters) {
            Ok(schema) => compiled.push(schema),
            Err(Error::InvalidSchema { pointer, message }) => {
                problem(
                    format!("{field}{pointer}"),
                    Some(name),
                    format!("does not compile: {message}"),
                );
            }
            Err(other) => problem(field, Some(name), other.to_string()),
        }
    }
    (compiled, problems)
}
