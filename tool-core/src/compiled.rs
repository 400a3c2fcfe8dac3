//! Compiled argument schemas: compiled now, or checked now and compiled on
//! first use.

use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::declare::{ApiDefinition, ToolManifest};
use crate::error::Error;
use crate::violation::Violation;

/// A compiled JSON Schema. Compile once, validate many times.
///
/// # Compiled now, or checked and compiled on first use
///
/// [`try_compile`](Self::try_compile) keeps the validator. A host with
/// thousands of tools (an OpenAPI document of 10 000 operations) cannot keep
/// thousands of validators: [`checked`](Self::checked) compiles the schema
/// once to prove it compiles, keeps nothing, and the validator is built again
/// the first time an argument is validated against it, then kept. Errors
/// stay where they were: a schema that does not compile is refused by
/// `checked` (and so at registration or import), exactly as by
/// `try_compile`. A checked schema gets its source from the manifest it is
/// registered with ([`for_manifest`](Self::for_manifest), the registry), so
/// the schema is not held twice.
///
/// If the compilation on first use fails after all (it cannot for the
/// compiler this crate pins, which is deterministic), [`compile_error`](Self::compile_error)
/// says so and the invoker answers the call with
/// [`ErrorCode::SCHEMA_UNUSABLE`](crate::ErrorCode::SCHEMA_UNUSABLE)
/// instead of running the tool.
#[derive(Clone)]
pub struct CompiledSchema {
    engine: Engine,
    /// The schema it was compiled from, when kept
    /// ([`try_compile_kept`](Self::try_compile_kept)).
    source: Option<Arc<Value>>,
}

#[derive(Clone)]
enum Engine {
    /// Compiled and kept.
    Ready(Arc<jsonschema::Validator>),
    /// Checked; compiled on first use.
    Deferred(Arc<Deferred>),
}

struct Deferred {
    home: Home,
    validator: OnceLock<Result<Arc<jsonschema::Validator>, Error>>,
}

/// Where a deferred schema's source is.
enum Home {
    /// Not given yet ([`CompiledSchema::checked`] before a manifest).
    Unbound,
    /// API `index` of a shared manifest's parameters.
    Api(Arc<ToolManifest>, usize),
    /// Its own copy.
    Own(Value),
}

impl std::fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match &self.engine {
            Engine::Ready(_) => "compiled",
            Engine::Deferred(deferred) if deferred.validator.get().is_some() => {
                "compiled on first use"
            }
            Engine::Deferred(_) => "checked, not compiled yet",
        };
        f.debug_struct("CompiledSchema")
            .field("state", &state)
            .finish_non_exhaustive()
    }
}

fn compile_now(schema: &Value) -> Result<jsonschema::Validator, Error> {
    jsonschema::validator_for(schema).map_err(|e| Error::InvalidSchema {
        pointer: e.instance_path().to_string(),
        message: e.to_string(),
    })
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
    /// use tool_core::{Error, pipeline::CompiledSchema};
    /// let error = CompiledSchema::try_compile(&serde_json::json!({
    ///     "type": "object", "properties": {"n": {"type": "integer", "minimum": "zero"}}
    /// })).unwrap_err();
    /// match error {
    ///     Error::InvalidSchema { pointer, .. } => assert_eq!(pointer, "/properties/n/minimum"),
    ///     other => panic!("{other}"),
    /// }
    /// ```
    pub fn try_compile(schema: &Value) -> Result<Self, Error> {
        compile_now(schema).map(|validator| Self {
            engine: Engine::Ready(Arc::new(validator)),
            source: None,
        })
    }

    /// Checks that `schema` compiles (the same check and the same
    /// [`Error::InvalidSchema`] as [`try_compile`](Self::try_compile)) and
    /// keeps nothing: the validator is dropped, and built again on first
    /// use from the parameters of the manifest this is registered with
    /// (see the type's docs). Pass it to [`for_manifest`](Self::for_manifest)
    /// or [`ToolRegistry::register_compiled`](crate::ToolRegistry::register_compiled)
    /// for an API whose parameters are exactly `schema`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use tool_core::{ApiDefinition, ToolManifest, pipeline::CompiledSchema, manifest::NameRules};
    /// let schema = serde_json::json!({"type": "object", "properties": {"n": {"type": "integer"}}});
    /// let checked = CompiledSchema::checked(&schema)?;
    /// assert!(!checked.is_compiled());
    /// assert!(CompiledSchema::checked(&serde_json::json!({"type": 7})).is_err());
    ///
    /// let mut manifest = ToolManifest::new("count");
    /// manifest.api.push(ApiDefinition::new("add", "Adds.").with_parameters(schema));
    /// let manifest = Arc::new(manifest);
    /// let schemas = CompiledSchema::for_shared_manifest(&manifest, NameRules::Strict, vec![Some(checked)])?;
    /// assert!(!schemas[0].is_compiled());
    /// assert!(!schemas[0].is_valid(&serde_json::json!({"n": "x"}))); // compiled here, then kept
    /// assert!(schemas[0].is_compiled());
    /// # Ok::<(), tool_core::Error>(())
    /// ```
    pub fn checked(schema: &Value) -> Result<Self, Error> {
        drop(compile_now(schema)?);
        Ok(Self::deferred(Home::Unbound))
    }

    /// Whether `schema` passes the first step of compiling it: validation
    /// against the JSON Schema meta-schema of draft 2020-12 (the draft a
    /// schema without `$schema` is compiled under), which is where a
    /// keyword of the wrong kind (`"pattern": 0`, a `type` that is an
    /// object) is refused. Much cheaper than [`checked`](Self::checked): no
    /// validator is built, so `pattern`s are not compiled and `$ref`s are
    /// not resolved; a caller that vouches for a schema with this (and
    /// registers it as [`checked`](Self::checked) without compiling it)
    /// checks those itself, and a schema that still fails to compile on
    /// first use answers [`ErrorCode::SCHEMA_UNUSABLE`](crate::ErrorCode::SCHEMA_UNUSABLE).
    /// `false` also when `schema` declares a `$schema` anywhere (compile it
    /// to know).
    ///
    /// ```
    /// use tool_core::pipeline::CompiledSchema;
    /// use serde_json::json;
    /// assert!(CompiledSchema::meets_meta_schema(&json!({"type": "object", "properties": {"n": {"type": "integer"}}})));
    /// assert!(!CompiledSchema::meets_meta_schema(&json!({"type": "string", "pattern": 0})));
    /// assert!(!CompiledSchema::meets_meta_schema(&json!({"type": {"type": "string"}})));
    /// ```
    pub fn meets_meta_schema(schema: &Value) -> bool {
        fn declares_schema(value: &Value) -> bool {
            match value {
                Value::Object(map) => map
                    .iter()
                    .any(|(key, child)| key == "$schema" || declares_schema(child)),
                Value::Array(items) => items.iter().any(declares_schema),
                _ => false,
            }
        }
        !declares_schema(schema)
            && (meta::surely_valid(schema) || jsonschema::draft202012::meta::is_valid(schema))
    }

    /// A [`checked`](Self::checked) schema the caller vouches for without
    /// compiling it (see [`meets_meta_schema`](Self::meets_meta_schema)):
    /// compiled on first use from the manifest it is registered with, and
    /// answering [`ErrorCode::SCHEMA_UNUSABLE`](crate::ErrorCode::SCHEMA_UNUSABLE)
    /// if it does not compile then.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use tool_core::{ApiDefinition, ToolManifest, pipeline::CompiledSchema, manifest::NameRules};
    /// let schema = serde_json::json!({"type": "object", "properties": {"n": {"$ref": "#/$defs/gone"}}});
    /// assert!(CompiledSchema::meets_meta_schema(&schema)); // but it does not compile
    /// let mut manifest = ToolManifest::new("count");
    /// manifest.api.push(ApiDefinition::new("add", "Adds.").with_parameters(schema));
    /// let manifest = Arc::new(manifest);
    /// let vouched = CompiledSchema::vouched();
    /// let schemas = CompiledSchema::for_shared_manifest(&manifest, NameRules::Strict, vec![Some(vouched)])?;
    /// assert!(schemas[0].compile_error().is_some());
    /// # Ok::<(), tool_core::Error>(())
    /// ```
    pub fn vouched() -> Self {
        Self::deferred(Home::Unbound)
    }

    fn deferred(home: Home) -> Self {
        Self {
            engine: Engine::Deferred(Arc::new(Deferred {
                home,
                validator: OnceLock::new(),
            })),
            source: None,
        }
    }

    /// [`try_compile`](Self::try_compile), keeping `schema` beside the
    /// validator ([`source`](Self::source)), so that a later validation of a
    /// manifest whose API has exactly these parameters reuses this
    /// compilation instead of compiling again (see [`for_manifest`](Self::for_manifest)).
    ///
    /// ```
    /// use tool_core::pipeline::CompiledSchema;
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
    /// use tool_core::pipeline::CompiledSchema;
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
            engine: self.engine,
            source: None,
        };
        (compiled, source)
    }

    /// Whether the validator is built (always for [`try_compile`](Self::try_compile);
    /// for [`checked`](Self::checked) schemas after their first use).
    pub fn is_compiled(&self) -> bool {
        match &self.engine {
            Engine::Ready(_) => true,
            Engine::Deferred(deferred) => deferred.validator.get().is_some_and(Result::is_ok),
        }
    }

    /// Builds a [`checked`](Self::checked) schema's validator now if it is
    /// not built yet, and says why it cannot be: `None` when the schema is
    /// usable. A checked schema that was never given a manifest
    /// ([`for_manifest`](Self::for_manifest)) has no source and is an
    /// [`Error::InvalidSchema`] saying so.
    pub fn compile_error(&self) -> Option<Error> {
        self.validator().err()
    }

    fn validator(&self) -> Result<&jsonschema::Validator, Error> {
        match &self.engine {
            Engine::Ready(validator) => Ok(validator),
            Engine::Deferred(deferred) => deferred
                .validator
                .get_or_init(|| {
                    let schema = match &deferred.home {
                        Home::Api(manifest, index) => {
                            manifest.api.get(*index).map(ApiDefinition::parameters_schema)
                        }
                        Home::Own(schema) => Some(std::borrow::Cow::Borrowed(schema)),
                        Home::Unbound => None,
                    };
                    match schema {
                        Some(schema) => compile_now(&schema).map(Arc::new).map_err(|e| match e {
                            Error::InvalidSchema { pointer, message } => Error::InvalidSchema {
                                pointer,
                                message: format!("on first use (it compiled when checked): {message}"),
                            },
                            other => other,
                        }),
                        None => Err(Error::InvalidSchema {
                            pointer: String::new(),
                            message: "a checked schema was used without the manifest it belongs to (build it with CompiledSchema::for_manifest)".into(),
                        }),
                    }
                })
                .as_deref()
                .map_err(Clone::clone),
        }
    }

    /// Whether this may stand for a compilation of `schema`: its kept
    /// [`source`](Self::source) equals it, or it keeps none (the caller
    /// vouched for it).
    pub(crate) fn stands_for(&self, schema: &Value) -> bool {
        self.source
            .as_deref()
            .is_none_or(|source| same_json(source, schema))
    }

    /// The same compilation without the kept source (which is freed when
    /// no other copy holds it). A checked schema not yet given a source
    /// takes `home()`'s.
    pub(crate) fn without_source(&self, home: impl FnOnce() -> SchemaHome) -> Self {
        match &self.engine {
            Engine::Deferred(deferred) if matches!(deferred.home, Home::Unbound) => {
                Self::deferred(match home() {
                    SchemaHome::Api(manifest, index) => Home::Api(manifest, index),
                    SchemaHome::Own(schema) => Home::Own(schema),
                })
            }
            engine => Self {
                engine: engine.clone(),
                source: None,
            },
        }
    }

    /// Whether both use one validator (or one deferred compilation).
    #[cfg(test)]
    pub(crate) fn same_engine(&self, other: &Self) -> bool {
        match (&self.engine, &other.engine) {
            (Engine::Ready(a), Engine::Ready(b)) => Arc::ptr_eq(a, b),
            (Engine::Deferred(a), Engine::Deferred(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// Every violation of `instance`, each with its JSON pointer. Empty
    /// means valid. A schema that cannot be compiled (see
    /// [`compile_error`](Self::compile_error)) is one violation at the root
    /// saying so.
    pub fn violations(&self, instance: &Value) -> Vec<Violation> {
        let validator = match self.validator() {
            Ok(validator) => validator,
            Err(error) => {
                return vec![Violation {
                    pointer: String::new(),
                    message: format!("the arguments schema is unusable: {error}"),
                }];
            }
        };
        validator
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

    /// Whether `instance` is valid (never for an unusable schema).
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.validator().is_ok_and(|v| v.is_valid(instance))
    }
}

/// Where a checked schema finds its source when it is given a manifest.
pub(crate) enum SchemaHome {
    /// API `index` of a shared manifest.
    Api(Arc<ToolManifest>, usize),
    /// A copy of the parameters.
    Own(Value),
}

/// `a == b` for JSON, comparing objects entry by entry in order: cheaper
/// than `Value`'s `==` (no key lookups) and never true when they differ;
/// equal objects in a different order count as different.
pub(crate) fn same_json(a: &Value, b: &Value) -> bool {
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

/// A fast path of [`CompiledSchema::meets_meta_schema`] for the schemas
/// importers write: a walk that answers "valid against the 2020-12
/// meta-schema" only where a table of keywords says so for certain, and
/// leaves anything else (an unusual keyword, a value of another kind) to
/// the meta-schema itself.
mod meta {
    use serde_json::Value;

    /// What the 2020-12 meta-schema asks of a keyword's value.
    #[derive(Clone, Copy)]
    enum Kind {
        /// Anything.
        Any,
        String,
        Bool,
        Number,
        /// A number above 0.
        Positive,
        /// An integer of at least 0.
        Count,
        /// A schema (an object or a boolean).
        Schema,
        /// A non-empty array of schemas.
        Schemas,
        /// An object whose values are schemas.
        SchemaMap,
        /// A simple type name, or a non-empty array of distinct ones.
        Types,
        /// An array.
        Array,
        /// An array of distinct strings.
        Names,
    }

    /// The keywords the fast path knows. A keyword not listed is one the
    /// meta-schema lets hold anything, unless it is in [`UNSURE`].
    const KEYWORDS: &[(&str, Kind)] = &[
        ("$ref", Kind::String),
        ("$comment", Kind::String),
        ("$defs", Kind::SchemaMap),
        ("definitions", Kind::SchemaMap),
        ("allOf", Kind::Schemas),
        ("anyOf", Kind::Schemas),
        ("oneOf", Kind::Schemas),
        ("prefixItems", Kind::Schemas),
        ("not", Kind::Schema),
        ("if", Kind::Schema),
        ("then", Kind::Schema),
        ("else", Kind::Schema),
        ("items", Kind::Schema),
        ("contains", Kind::Schema),
        ("additionalProperties", Kind::Schema),
        ("propertyNames", Kind::Schema),
        ("unevaluatedItems", Kind::Schema),
        ("unevaluatedProperties", Kind::Schema),
        ("contentSchema", Kind::Schema),
        ("properties", Kind::SchemaMap),
        ("patternProperties", Kind::SchemaMap),
        ("dependentSchemas", Kind::SchemaMap),
        ("type", Kind::Types),
        ("enum", Kind::Array),
        ("const", Kind::Any),
        ("default", Kind::Any),
        ("examples", Kind::Array),
        ("multipleOf", Kind::Positive),
        ("maximum", Kind::Number),
        ("minimum", Kind::Number),
        ("exclusiveMaximum", Kind::Number),
        ("exclusiveMinimum", Kind::Number),
        ("maxLength", Kind::Count),
        ("minLength", Kind::Count),
        ("maxItems", Kind::Count),
        ("minItems", Kind::Count),
        ("maxProperties", Kind::Count),
        ("minProperties", Kind::Count),
        ("maxContains", Kind::Count),
        ("minContains", Kind::Count),
        ("pattern", Kind::String),
        ("format", Kind::String),
        ("title", Kind::String),
        ("description", Kind::String),
        ("contentEncoding", Kind::String),
        ("contentMediaType", Kind::String),
        ("uniqueItems", Kind::Bool),
        ("deprecated", Kind::Bool),
        ("readOnly", Kind::Bool),
        ("writeOnly", Kind::Bool),
        ("required", Kind::Names),
    ];

    /// Keywords the fast path leaves to the meta-schema (identifiers,
    /// dialects, older drafts' forms).
    const UNSURE: &[&str] = &[
        "$id",
        "$schema",
        "$anchor",
        "$dynamicRef",
        "$dynamicAnchor",
        "$vocabulary",
        "$recursiveRef",
        "$recursiveAnchor",
        "dependencies",
        "dependentRequired",
    ];

    const SIMPLE_TYPES: &[&str] = &[
        "array", "boolean", "integer", "null", "number", "object", "string",
    ];

    /// Whether `schema` is certainly valid against the 2020-12 meta-schema
    /// (`false`: not certain).
    pub(super) fn surely_valid(schema: &Value) -> bool {
        match schema {
            Value::Bool(_) => true,
            Value::Object(object) => object.iter().all(|(key, value)| {
                match KEYWORDS.iter().find(|(name, _)| name == key) {
                    Some(&(_, kind)) => value_fits(kind, value),
                    None => !UNSURE.contains(&key.as_str()),
                }
            }),
            _ => false,
        }
    }

    fn value_fits(kind: Kind, value: &Value) -> bool {
        match kind {
            Kind::Any => true,
            Kind::String => value.is_string(),
            Kind::Bool => value.is_boolean(),
            Kind::Number => value.is_number(),
            Kind::Positive => value.as_f64().is_some_and(|n| n > 0.0),
            Kind::Count => value.is_u64(),
            Kind::Schema => surely_valid(value),
            Kind::Schemas => value
                .as_array()
                .is_some_and(|items| !items.is_empty() && items.iter().all(surely_valid)),
            Kind::SchemaMap => value
                .as_object()
                .is_some_and(|map| map.values().all(surely_valid)),
            Kind::Types => match value {
                Value::String(name) => SIMPLE_TYPES.contains(&name.as_str()),
                Value::Array(names) => {
                    !names.is_empty()
                        && distinct_strings(names)
                        && names
                            .iter()
                            .all(|n| n.as_str().is_some_and(|n| SIMPLE_TYPES.contains(&n)))
                }
                _ => false,
            },
            Kind::Array => value.is_array(),
            Kind::Names => value
                .as_array()
                .is_some_and(|names| distinct_strings(names)),
        }
    }

    /// Whether `items` are strings, no two equal.
    fn distinct_strings(items: &[Value]) -> bool {
        let mut seen = std::collections::HashSet::with_capacity(items.len());
        items
            .iter()
            .all(|item| item.as_str().is_some_and(|s| seen.insert(s)))
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use serde_json::json;

        /// Every schema the fast path is sure of, the meta-schema accepts;
        /// it may leave valid ones to the meta-schema, never accept an
        /// invalid one.
        #[test]
        fn the_fast_path_never_accepts_what_the_meta_schema_refuses() {
            let cases = [
                json!({"type": "object", "properties": {"n": {"type": ["integer", "null"], "minimum": 0}},
                    "required": ["n"], "additionalProperties": false}),
                json!({"type": "string", "pattern": "^a+$", "format": "date", "enum": ["a", "aa"]}),
                json!({"allOf": [{"$ref": "#/$defs/A"}, true], "$defs": {"A": {"type": "array", "items": {}}}}),
                json!({"type": "string", "x-role": "path", "nullable": true, "example": 1}),
                json!({"multipleOf": 0.5, "maxLength": 3, "readOnly": true, "examples": [1]}),
                json!({"type": "string", "pattern": 0}),
                json!({"type": {"type": "string"}}),
                json!({"type": "text"}),
                json!({"type": []}),
                json!({"type": ["string", "string"]}),
                json!({"required": ["a", "a"]}),
                json!({"required": "a"}),
                json!({"allOf": []}),
                json!({"items": [{"type": "string"}]}),
                json!({"minLength": -1}),
                json!({"minLength": 1.5}),
                json!({"multipleOf": 0}),
                json!({"enum": "a"}),
                json!({"properties": {"a": 5}}),
                json!({"description": 5}),
                json!({"$id": "#a"}),
                json!(5),
                // Formats in the meta-schema (`regex`, `uri-reference`) are
                // annotations: the meta-schema accepts these too.
                json!({"pattern": "(", "$ref": "not a ^ uri \\ %%"}),
            ];
            let mut sure = 0;
            for case in &cases {
                let valid = jsonschema::draft202012::meta::is_valid(case);
                if surely_valid(case) {
                    sure += 1;
                    assert!(valid, "{case}");
                }
            }
            assert_eq!(sure, 6, "the first five and the last are certain");
        }
    }
}
