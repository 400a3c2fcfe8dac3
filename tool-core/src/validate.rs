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
    /// The schema it was compiled from, when kept
    /// ([`try_compile_kept`](Self::try_compile_kept)).
    source: Option<Arc<Value>>,
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
                source: None,
            })
            .map_err(|e| Error::InvalidSchema {
                pointer: e.instance_path().to_string(),
                message: e.to_string(),
            })
    }

    /// [`try_compile`](Self::try_compile), keeping `schema` beside the
    /// validator ([`source`](Self::source)), so that a later validation of a
    /// manifest whose API has exactly these parameters reuses this
    /// compilation instead of compiling again (see [`for_manifest`](Self::for_manifest)).
    ///
    /// ```
    /// use tool_core::CompiledSchema;
    /// let schema = serde_json::json!({"type": "object", "properties": {"n": {"type": "integer"}}});
    /// let compiled = CompiledSchema::try_compile_kept(schema.clone())?;
    /// assert_eq!(compiled.source(), Some(&schema));
    /// assert!(!compiled.is_valid(&serde_json::json!({"n": "x"})));
    /// # Ok::<(), tool_core::Error>(())
    /// ```
    pub fn try_compile_kept(schema: Value) -> Result<Self, Error> {
        let mut compiled = Self::try_compile(&schema)?;
        compiled.source = Some(Arc::new(schema));
        Ok(compiled)
    }

    /// The schema this was compiled from, when it was kept
    /// ([`try_compile_kept`](Self::try_compile_kept)).
    pub fn source(&self) -> Option<&Value> {
        self.source.as_deref()
    }

    /// Splits off the kept [`source`](Self::source): the same validator
    /// without it, and the schema (moved out when nothing else holds it,
    /// else copied). For a caller that puts the schema into a manifest and
    /// hands the validator on as compiled from it (see
    /// [`for_manifest`](Self::for_manifest)).
    ///
    /// ```
    /// use tool_core::CompiledSchema;
    /// let schema = serde_json::json!({"type": "object", "properties": {}});
    /// let (compiled, source) = CompiledSchema::try_compile_kept(schema.clone())?.into_source();
    /// assert_eq!(source, Some(schema));
    /// assert!(compiled.source().is_none());
    /// # Ok::<(), tool_core::Error>(())
    /// ```
    pub fn into_source(self) -> (Self, Option<Value>) {
        let source = self
            .source
            .map(|source| Arc::try_unwrap(source).unwrap_or_else(|shared| (*shared).clone()));
        let compiled = Self {
            validator: self.validator,
            source: None,
        };
        (compiled, source)
    }

    /// Whether this may stand for a compilation of `schema`: its kept
    /// [`source`](Self::source) equals it, or it keeps none (the caller
    /// vouched for it).
    fn stands_for(&self, schema: &Value) -> bool {
        self.source
            .as_deref()
            .is_none_or(|source| same_json(source, schema))
    }

    /// The same validator without the kept source (which is freed when no
    /// other copy holds it).
    pub(crate) fn without_source(&self) -> Self {
        Self {
            validator: Arc::clone(&self.validator),
            source: None,
        }
    }

    /// Validates `manifest` exactly as [`validate_manifest_with`] does (same
    /// checks, same errors) and returns its compiled parameters in API order,
    /// using `compiled[i]` for API `i` instead of compiling its parameters
    /// again:
    ///
    /// - a schema that kept its source ([`try_compile_kept`](Self::try_compile_kept))
    ///   is used when that source equals the API's parameters, else the
    ///   parameters are compiled here;
    /// - a schema without a source is taken on the caller's word that it was
    ///   compiled from exactly the API's parameters (as after
    ///   [`into_source`](Self::into_source) moved them into the manifest);
    ///   a wrong one validates that API's arguments wrongly;
    /// - `None`, or no entry, compiles the parameters here.
    ///
    /// The returned schemas keep no source.
    ///
    /// ```
    /// use tool_core::{ApiDefinition, CompiledSchema, NameRules, ToolManifest};
    /// let schema = serde_json::json!({"type": "object", "properties": {"q": {"type": "string"}}});
    /// let mut manifest = ToolManifest::new("search");
    /// manifest.api.push(ApiDefinition::new("find", "Finds.").with_parameters(schema.clone()));
    /// let kept = CompiledSchema::try_compile_kept(schema)?;
    /// let schemas = CompiledSchema::for_manifest(&manifest, NameRules::Strict, vec![Some(kept)])?;
    /// assert_eq!(schemas.len(), 1);
    /// assert!(schemas[0].source().is_none());
    /// # Ok::<(), tool_core::Error>(())
    /// ```
    pub fn for_manifest(
        manifest: &ToolManifest,
        rules: NameRules,
        compiled: Vec<Option<CompiledSchema>>,
    ) -> Result<Vec<CompiledSchema>, Error> {
        let (schemas, problems) = check_reusing(manifest, rules, &compiled);
        match problems_error(&manifest.identifier, problems) {
            None => Ok(schemas),
            Some(error) => Err(error),
        }
    }

    /// Every violation of `instance`, each with its JSON pointer. Empty means valid.
    pub fn violations(&self, instance: &Value) -> Vec<Violation> {
        self.validator
            .iter_errors(instance)
            .map(|error| {
                let mut message = error.to_string();
                if let (
                    jsonschema::error::ValidationErrorKind::Enum { options },
                    Value::String(given),
                ) = (error.kind(), error.instance().as_ref())
                {
                    let options: Vec<&str> = options
                        .as_array()
                        .map(|o| o.iter().filter_map(Value::as_str).collect())
                        .unwrap_or_default();
                    let near = crate::suggest::nearest_candidates(given, options);
                    if !near.is_empty() {
                        let list: Vec<String> = near.iter().map(|c| format!("`{c}`")).collect();
                        message.push_str(&format!("; did you mean {}?", list.join(" or ")));
                    }
                }
                Violation {
                    pointer: error.instance_path().to_string(),
                    message,
                }
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
    check_reusing(manifest, rules, &[])
}

/// [`check`], reusing `compiled[i]` for API `i` when it was compiled from
/// equal parameters.
fn check_reusing(
    manifest: &ToolManifest,
    rules: NameRules,
    compiled_before: &[Option<CompiledSchema>],
) -> (Vec<CompiledSchema>, Vec<ManifestProblem>) {
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
        let reused = compiled_before
            .get(index)
            .and_then(Option::as_ref)
            .filter(|before| before.stands_for(&api.parameters));
        if let Some(before) = reused {
            compiled.push(before.without_source());
            continue;
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

/// `a == b` for JSON, comparing objects entry by entry in order: cheaper
/// than `Value`'s `==` (no key lookups) and never true when they differ;
/// equal objects in a different order count as different.
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b.iter())
                    .all(|((ka, va), (kb, vb))| ka == kb && same_json(va, vb))
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_json(a, b))
        }
        (a, b) => a == b,
    }
}

#[cfg(test)]
mod reuse_tests {
    use super::*;
    use crate::manifest::ApiDefinition;
    use serde_json::json;

    fn manifest(schemas: &[Value]) -> ToolManifest {
        let mut manifest = ToolManifest::new("t");
        for (i, schema) in schemas.iter().enumerate() {
            manifest
                .api
                .push(ApiDefinition::new(format!("a{i}"), "d").with_parameters(schema.clone()));
        }
        manifest
    }

    #[test]
    fn a_kept_compilation_is_reused_only_for_equal_parameters() {
        let int = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
        let string = json!({"type": "object", "properties": {"n": {"type": "string"}}});
        let kept = CompiledSchema::try_compile_kept(int.clone()).unwrap();
        // API 0 has the kept parameters; API 1 got the same compilation
        // offered for different parameters: it is compiled afresh.
        let m = manifest(&[int, string]);
        let offered = vec![Some(kept.clone()), Some(kept.clone())];
        let schemas = CompiledSchema::for_manifest(&m, NameRules::Strict, offered).unwrap();
        assert!(Arc::ptr_eq(&schemas[0].validator, &kept.validator));
        assert!(!Arc::ptr_eq(&schemas[1].validator, &kept.validator));
        assert!(!schemas[0].is_valid(&json!({"n": "x"})));
        assert!(
            schemas[1].is_valid(&json!({"n": "x"})),
            "not the integer schema"
        );
        assert!(!schemas[1].is_valid(&json!({"n": 1})));
        assert!(schemas.iter().all(|s| s.source().is_none()));
    }

    #[test]
    fn a_schema_without_source_is_taken_as_given() {
        let int = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
        let (compiled, source) = CompiledSchema::try_compile_kept(int.clone())
            .unwrap()
            .into_source();
        assert_eq!(source, Some(int.clone()));
        let m = manifest(&[int]);
        let schemas =
            CompiledSchema::for_manifest(&m, NameRules::Strict, vec![Some(compiled.clone())])
                .unwrap();
        assert!(Arc::ptr_eq(&schemas[0].validator, &compiled.validator));
        // A kept source still shared elsewhere is copied out.
        let kept = CompiledSchema::try_compile_kept(json!({"type": "object"})).unwrap();
        let other = kept.clone();
        assert_eq!(kept.into_source().1, Some(json!({"type": "object"})));
        assert_eq!(other.source(), Some(&json!({"type": "object"})));
    }

    #[test]
    fn reuse_reports_the_same_problems() {
        let bad =
            json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": "zero"}}});
        let good = json!({"type": "object", "properties": {}});
        let mut m = manifest(&[
            good.clone(),
            bad,
            json!({"properties": {}, "type": "array"}),
        ]);
        m.api[0].name = "bad name".into();
        let kept = CompiledSchema::try_compile_kept(good).unwrap();
        let reused = CompiledSchema::for_manifest(&m, NameRules::Strict, vec![Some(kept)])
            .unwrap_err()
            .to_string();
        let plain = validate_manifest_with(&m, NameRules::Strict)
            .unwrap_err()
            .to_string();
        assert_eq!(reused, plain);
    }

    #[test]
    fn same_json_is_equality_in_order() {
        assert!(same_json(
            &json!({"a": [1, {"b": null}]}),
            &json!({"a": [1, {"b": null}]})
        ));
        assert!(!same_json(
            &json!({"a": 1, "b": 2}),
            &json!({"b": 2, "a": 1})
        ));
        assert!(!same_json(&json!({"a": 1}), &json!({"a": 1.0})));
        assert!(!same_json(&json!([1, 2]), &json!([1])));
    }
}
