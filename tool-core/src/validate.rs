//! Manifest validation: names, parameters, and each API's schema compiled
//! (or checked, see [`CompiledSchema::checked`]).

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::Value;

use crate::compiled::{CompiledSchema, SchemaHome};
use crate::declare::ToolManifest;
use crate::error::Error;
pub use crate::manifest_problem::ManifestProblem;

impl CompiledSchema {
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
    /// - a [`checked`](Self::checked) schema (no source, nothing kept) is
    ///   taken the same way and compiled on first use from a copy of the
    ///   API's parameters ([`for_shared_manifest`](Self::for_shared_manifest)
    ///   avoids the copy);
    /// - `None`, or no entry, compiles the parameters here.
    ///
    /// The returned schemas keep no source.
    ///
    /// ```
    /// use tool_core::{ApiDefinition, ToolManifest, pipeline::CompiledSchema, manifest::NameRules};
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
        let home =
            |index: usize| SchemaHome::Own(manifest.api[index].parameters_schema().into_owned());
        let (schemas, problems) = check_reusing(manifest, rules, &compiled, &home);
        match problems_error(&manifest.identifier, problems) {
            None => Ok(schemas),
            Some(error) => Err(error),
        }
    }

    /// [`for_manifest`](Self::for_manifest) for a manifest in an `Arc`: a
    /// [`checked`](Self::checked) schema compiles on first use from the
    /// manifest's own parameters (kept alive by the returned schemas), so
    /// the schema is held once. What the registry does for
    /// [`register_compiled`](crate::ToolRegistry::register_compiled).
    pub fn for_shared_manifest(
        manifest: &Arc<ToolManifest>,
        rules: NameRules,
        compiled: Vec<Option<CompiledSchema>>,
    ) -> Result<Vec<CompiledSchema>, Error> {
        let home = |index: usize| SchemaHome::Api(Arc::clone(manifest), index);
        let (schemas, problems) = check_reusing(manifest, rules, &compiled, &home);
        match problems_error(&manifest.identifier, problems) {
            None => Ok(schemas),
            Some(error) => Err(error),
        }
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

fn check(manifest: &ToolManifest, rules: NameRules) -> (Vec<CompiledSchema>, Vec<ManifestProblem>) {
    check_reusing(manifest, rules, &[], &|index| {
        SchemaHome::Own(manifest.api[index].parameters_schema().into_owned())
    })
}

/// [`check`], reusing `compiled[i]` for API `i` when it was compiled from
/// equal parameters.
fn check_reusing(
    manifest: &ToolManifest,
    rules: NameRules,
    compiled_before: &[Option<CompiledSchema>],
    home: &dyn Fn(usize) -> SchemaHome,
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
        // A composed schema is an object schema by construction (and is
        // not written out to be looked at).
        if !api.parameters.is_composed() {
            let Value::Object(schema) = &*api.parameters else {
                problem(
                    field,
                    Some(name),
                    format!(
                        "must be a JSON Schema object, got {}",
                        crate::declare::json_kind(&api.parameters)
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
        }
        // A compilation that keeps no source stands for the parameters
        // unseen (the caller vouched for it): the whole schema, a copy when
        // definitions are shared, is built only to compare or compile.
        let reused = compiled_before
            .get(index)
            .and_then(Option::as_ref)
            .filter(|before| {
                before.source().is_none() || before.stands_for(&api.parameters_schema())
            });
        if let Some(before) = reused {
            compiled.push(before.without_source(|| home(index)));
            continue;
        }
        match CompiledSchema::try_compile(&api.parameters_schema()) {
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

#[cfg(test)]
mod reuse_tests {
    use super::*;
    use crate::compiled::same_json;
    use crate::declare::ApiDefinition;
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
        assert!(schemas[0].same_engine(&kept));
        assert!(!schemas[1].same_engine(&kept));
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
        assert!(schemas[0].same_engine(&compiled));
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
