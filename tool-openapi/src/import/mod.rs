//! Importing real OpenAPI 3.0 / 3.1 documents (JSON or YAML) into the
//! normalised form.
//!
//! What is imported, and how:
//!
//! 1. The base URL is `servers[0].url` with its variables' values (or
//!    [`ImportOptions::server`]); a relative or missing one is resolved
//!    against [`ImportOptions::base_url`], and without a base it is
//!    reported as "needs a base URL" while the tools still compile (see
//!    the servers module for the steps).
//! 2. Every method of every path item; path-level parameters apply to each
//!    operation unless the operation redefines them (same `name` and `in`).
//! 3. Parameters keep their real schemas (arrays, enums, formats, defaults);
//!    `Accept`, `Content-Type` and `Authorization` header parameters are
//!    ignored, as OpenAPI says.
//! 4. A `requestBody` picks one media type (JSON, form, multipart, text,
//!    binary; see the body module): an object body contributes one
//!    argument per property (a name already a parameter's becomes
//!    `body_<name>`), any other body is one `body` argument; multipart
//!    files and binary bodies are workspace paths (`"x-role": "path"`)
//!    read when the call is sent. The choice is kept in
//!    [`Operation::body_format`](crate::Operation::body_format).
//! 5. Local `$ref`s of every kind are followed (schemas, parameters,
//!    request bodies, responses, path items, security schemes). Each
//!    argument's own schema is written out; deeper schemas are `$defs`
//!    converted once per document and held once for all its operations
//!    ([`Operation::shared_definitions`](crate::Operation::shared_definitions)),
//!    each arguments schema written with only those it reaches (see the
//!    shared module); nesting cut at a depth limit is reported, never
//!    silently lost.
//! 6. A missing `operationId` is generated from method and path
//!    (`get_pets_petId`); ids are sanitised to `[A-Za-z0-9_-]` and made
//!    unique with `_2`, `_3`…; renames are warnings.
//! 7. The operation filter of [`ImportOptions`] (tags, operation ids, path
//!    globs, methods) selects what to import before any of its schemas is
//!    read.
//! 8. Each tool is fitted to the tool size budget
//!    ([`ImportOptions::max_tool_chars`]), reported in
//!    [`Import::shortened`]; a document over its budget is a warning.
//! 9. `securitySchemes` (apiKey in header/query/cookie, http bearer/basic;
//!    oauth2/openIdConnect as bearer) become the document's schemes; their
//!    secrets come from [`Credentials`](crate::Credentials).
//! 10. An operation whose arguments schema does not compile only because
//!     of ECMA-262 patterns has them repaired (see the pattern module).
//! 11. Unknown keys (not `x-`) are warnings with their pointer: at the top
//!     level, in `components`, and in the path items, operations,
//!     parameters, request bodies and responses read (see the keys
//!     module).
//!
//! An operation that cannot be represented is an [`OperationFailure`]; the
//! rest still imports. [`import_batch`] returns what loaded and what failed.

mod arguments;
mod body;
mod budget;
mod check;
mod description;
mod filter;
mod keys;
mod names;
mod node;
mod operation;
mod options;
mod pattern;
mod refs;
mod schema;
mod security;
mod servers;

pub use budget::{ARGUMENT_DESCRIPTION, NESTED_DESCRIPTION, Shortened, TOOL_DESCRIPTION};
pub use options::{DEFAULT_MAX_DOCUMENT_CHARS, DEFAULT_MAX_TOOL_CHARS, ImportOptions};

use std::collections::HashMap;

use bumpalo::Bump;
use serde_json::Value;
use tool_core::pipeline::Violation;

use crate::document::ApiDocument;
use crate::error::Error;
use crate::method::Method;
use crate::narrow::validate_narrow_value;
use crate::pointer;

use names::UniqueIds;
use node::Node;
use refs::{Lazy, Refs};

/// The largest document text accepted by default: 64 MiB.
pub const DEFAULT_MAX_DOCUMENT_BYTES: usize = 64 * 1024 * 1024;

/// An operation that could not be imported.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct OperationFailure {
    /// JSON pointer of the operation (`/paths/~1pets/get`).
    pub pointer: String,
    /// `GET /pets`.
    pub operation: String,
    /// Why.
    pub message: String,
}

impl std::fmt::Display for OperationFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.operation, self.pointer, self.message)
    }
}

/// What one import produced: the document, what was dropped or renamed,
/// what failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Import {
    /// The normalised document (the operations that imported).
    pub document: ApiDocument,
    /// Renames, ignored parameters, unsupported schemes, …
    pub warnings: Vec<Violation>,
    /// Operations that could not be represented.
    pub failures: Vec<OperationFailure>,
    /// Operations left out by the filters.
    pub filtered_out: usize,
    /// Tools shortened to fit the tool size budget (each also a warning).
    pub shortened: Vec<Shortened>,
}

/// A text's format and protocol, as detected by [`load_document`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DocumentKind {
    /// The narrow protocol.
    Narrow,
    /// OpenAPI 3.0.x.
    OpenApi30,
    /// OpenAPI 3.1.x.
    OpenApi31,
}

/// A loaded document of either protocol.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// Which protocol it was.
    pub kind: DocumentKind,
    /// The import (for the narrow protocol: no failures, its warnings).
    pub import: Import,
}

impl Loaded {
    /// The normalised document, what [`OpenApiTool::builder`](crate::OpenApiTool::builder) takes.
    pub fn document(&self) -> &ApiDocument {
        &self.import.document
    }

    /// The normalised document, keeping nothing else.
    pub fn into_document(self) -> ApiDocument {
        self.import.document
    }

    /// Warnings of the import (renames, ignored parameters, shortened tools…).
    pub fn warnings(&self) -> &[Violation] {
        &self.import.warnings
    }
}

/// Parses JSON (text starting with `{` or `[`) or YAML into a value,
/// refusing texts larger than `max_bytes`.
pub fn parse_text(text: &str, max_bytes: usize) -> Result<Value, Error> {
    match split_text(text, max_bytes)? {
        Text::Json(json) => serde_json::from_str(json).map_err(json_error),
        Text::Yaml(yaml) => parse_yaml(yaml),
    }
}

/// A document text, trimmed, by format.
enum Text<'a> {
    Json(&'a str),
    Yaml(&'a str),
}

/// Refuses texts larger than `max_bytes`; JSON is text starting with `{`
/// or `[` (after a byte-order mark and white space), anything else YAML.
fn split_text(text: &str, max_bytes: usize) -> Result<Text<'_>, Error> {
    if text.len() > max_bytes {
        return Err(Error::TooLarge {
            size: text.len(),
            limit: max_bytes,
        });
    }
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if trimmed.starts_with(['{', '[']) {
        Ok(Text::Json(trimmed))
    } else {
        Ok(Text::Yaml(trimmed))
    }
}

fn json_error(e: serde_json::Error) -> Error {
    Error::Syntax {
        format: "JSON",
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    }
}

/// JSON text as a tree borrowing from it, in `arena` (see the node module).
fn parse_json_node<'a>(json: &'a str, arena: &'a Bump) -> Result<Node<'a>, Error> {
    node::parse(json, arena).map_err(json_error)
}

/// An arena for the tree of a `len`-byte text (about as large as the text:
/// one chunk, usually).
fn arena_for(len: usize) -> Bump {
    Bump::with_capacity(len)
}

fn parse_yaml(trimmed: &str) -> Result<Value, Error> {
    {
        yaml_serde::from_str(trimmed).map_err(|e| {
            let (line, column) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
            Error::Syntax {
                format: "YAML",
                line,
                column,
                message: e.to_string(),
            }
        })
    }
}

/// Loads a narrow or OpenAPI 3 document (JSON or YAML), detected by its
/// content: an `openapi` field means OpenAPI, otherwise narrow.
pub fn load_document(text: &str, options: &ImportOptions) -> Result<Loaded, Error> {
    match split_text(text, options.max_bytes)? {
        Text::Json(json) => {
            let arena = Bump::new();
            let lazy = Lazy::new(&arena);
            match lazy_root(json, &arena) {
                Some(root) if is_openapi(&root) => {
                    match load_openapi(&root, Some(&lazy), options) {
                        Err(Stop::Reparse) => load_whole(json, options),
                        other => other.map_err(Stop::into_error),
                    }
                }
                // The narrow protocol is small: read as a value, as before.
                Some(_) => load_narrow(&serde_json::from_str(json).map_err(json_error)?),
                None => load_whole(json, options),
            }
        }
        Text::Yaml(yaml) => load_value(&parse_yaml(yaml)?, options),
    }
}

/// Texts from this size on have their path items parsed one at a time
/// (`node::parse_lazy`); smaller ones are parsed whole. Finding where each
/// item ends costs about half a parse more (GitHub's 13 MB description
/// into a registry: 684 million instructions lazily, 577 whole); what it
/// saves is a tree about three times the text while importing (Microsoft
/// Graph, 20 MB: import heap peak 211 -> 159 MiB; graph-beta, 47 MB:
/// 436 -> 325 MiB), which matters for large texts.
const LAZY_MIN_BYTES: usize = 16 * 1024 * 1024;

/// The document's tree with its path items left as text, for a text of at
/// least [`LAZY_MIN_BYTES`]; `None` (parse it whole) otherwise, or when
/// it does not split (see `node::parse_lazy`).
fn lazy_root<'a>(json: &'a str, arena: &'a Bump) -> Option<Node<'a>> {
    if json.len() < LAZY_MIN_BYTES {
        return None;
    }
    node::parse_lazy(json, arena)
}

/// [`load_document`] from the whole JSON text parsed at once: what it did
/// before path items were parsed one at a time, and what it does when one
/// does not parse on its own (so that a syntax error is reported exactly
/// as `serde_json` reports it for the whole text).
fn load_whole(json: &str, options: &ImportOptions) -> Result<Loaded, Error> {
    let arena = arena_for(json.len());
    let root = parse_json_node(json, &arena)?;
    if is_openapi(&root) {
        load_openapi(&root, None, options).map_err(Stop::into_error)
    } else {
        load_narrow(&root.to_value())
    }
}

/// [`load_document`] for a parsed value.
pub fn load_value(value: &Value, options: &ImportOptions) -> Result<Loaded, Error> {
    let arena = Bump::new();
    let root = Node::from_value(value, &arena);
    if is_openapi(&root) {
        return load_openapi(&root, None, options).map_err(Stop::into_error);
    }
    load_narrow(value)
}

/// An `openapi` (or `swagger`) field means OpenAPI, otherwise narrow.
fn is_openapi(root: &Node<'_>) -> bool {
    root.get("openapi").is_some() || root.get("swagger").is_some()
}

fn load_openapi<'a>(
    root: &'a Node<'a>,
    lazy: Option<&'a Lazy<'a>>,
    options: &ImportOptions,
) -> Result<Loaded, Stop> {
    let import = import_node(root, lazy, options)?;
    let kind = match root.get("openapi").and_then(Node::as_str) {
        Some(v) if v.starts_with("3.1") => DocumentKind::OpenApi31,
        _ => DocumentKind::OpenApi30,
    };
    Ok(Loaded { kind, import })
}

fn load_narrow(value: &Value) -> Result<Loaded, Error> {
    let (document, warnings) = validate_narrow_value(value).into_result()?;
    Ok(Loaded {
        kind: DocumentKind::Narrow,
        import: Import {
            document,
            warnings,
            failures: Vec::new(),
            filtered_out: 0,
            shortened: Vec::new(),
        },
    })
}

/// Imports an OpenAPI 3.0/3.1 text (JSON or YAML).
pub fn import_openapi(text: &str, options: &ImportOptions) -> Result<Import, Error> {
    match split_text(text, options.max_bytes)? {
        Text::Json(json) => {
            let arena = Bump::new();
            let lazy = Lazy::new(&arena);
            let outcome = match lazy_root(json, &arena) {
                Some(root) => import_node(&root, Some(&lazy), options),
                None => Err(Stop::Reparse),
            };
            match outcome {
                Err(Stop::Reparse) => {
                    let arena = arena_for(json.len());
                    import_node(&parse_json_node(json, &arena)?, None, options)
                        .map_err(Stop::into_error)
                }
                other => other.map_err(Stop::into_error),
            }
        }
        Text::Yaml(yaml) => import_value(&parse_yaml(yaml)?, options),
    }
}

/// What a batch import produced: every document that loaded, and every
/// source that did not, never one without the other.
#[derive(Debug, Clone, Default)]
pub struct BatchImport {
    /// `(source name, loaded document)`.
    pub loaded: Vec<(String, Loaded)>,
    /// `(source name, why it did not load)`.
    pub failed: Vec<(String, Error)>,
}

impl BatchImport {
    /// The family's one batch shape ([`tool_core::Partial`]): the loaded
    /// documents with their source names, each failure under its source.
    ///
    /// ```
    /// let options = tool_openapi::ImportOptions::new();
    /// let batch = tool_openapi::import_batch([("broken.json", "{")], &options);
    /// let loaded = batch.into_partial();
    /// assert_eq!(loaded.failed()[0].source, "broken.json");
    /// ```
    pub fn into_partial(self) -> tool_core::Partial<(String, Loaded), Error> {
        let mut partial = tool_core::Partial::new();
        for item in self.loaded {
            partial.push(item);
        }
        for (source, error) in self.failed {
            partial.fail(source, error);
        }
        partial
    }
}

/// Loads several `(name, text)` sources, going on after failures.
pub fn import_batch<'a>(
    sources: impl IntoIterator<Item = (&'a str, &'a str)>,
    options: &ImportOptions,
) -> BatchImport {
    let mut batch = BatchImport::default();
    for (name, text) in sources {
        match load_document(text, options) {
            Ok(loaded) => batch.loaded.push((name.to_owned(), loaded)),
            Err(error) => batch.failed.push((name.to_owned(), error)),
        }
    }
    batch
}

fn invalid(pointer: &str, message: impl Into<String>) -> Error {
    Error::Invalid {
        problems: vec![Violation {
            pointer: pointer.to_owned(),
            message: message.into(),
        }],
    }
}

/// Imports a parsed OpenAPI 3.0/3.1 document.
pub fn import_value(root: &Value, options: &ImportOptions) -> Result<Import, Error> {
    let arena = Bump::new();
    import_node(&Node::from_value(root, &arena), None, options).map_err(Stop::into_error)
}

/// Why an import stopped.
enum Stop {
    /// The document is refused.
    Error(Error),
    /// A path item left as text does not parse on its own: the whole text
    /// is parsed at once and imported from that (see `node::parse_lazy`).
    Reparse,
}

impl From<Error> for Stop {
    fn from(error: Error) -> Self {
        Self::Error(error)
    }
}

impl Stop {
    /// Only a tree with no text left unparsed stops with [`Stop::Error`].
    fn into_error(self) -> Error {
        match self {
            Self::Error(error) => error,
            Self::Reparse => invalid("/paths", "a path item is not valid JSON"),
        }
    }
}

/// An operation converted, before its check: its pointer, its label, the
/// operation, the shared definitions it reaches (with their distance),
/// when it was shortened the JSON length of its `$defs` (its shared
/// definitions are then the plain ones), and the size of its arguments and
/// description as fitted to the budget.
type ConvertedOp = (
    String,
    String,
    crate::document::Operation,
    Vec<(usize, usize)>,
    Option<usize>,
    usize,
);

/// What an import keeps from one operation for the next, so that each
/// distinct argument schema is built and held once for every operation
/// taking it.
#[derive(Default)]
pub(crate) struct Reuse {
    /// Each distinct argument schema (see the interned module).
    pub(crate) interned: crate::interned::Interned,
    /// Object bodies split into arguments, by the schema they refer to.
    pub(crate) splits: body::Splits,
    /// Argument schemas converted, by their source.
    pub(crate) arguments: arguments::Arguments,
    /// Argument schemas' JSON lengths, for the tool budget.
    pub(crate) lengths: budget::Lengths,
}

/// Imports the document `root`; its path items left as text (when `lazy`
/// is given, see `node::parse_lazy`) are parsed one at a time into an
/// arena reused for each.
fn import_node<'a>(
    root: &'a Node<'a>,
    lazy: Option<&'a Lazy<'a>>,
    options: &ImportOptions,
) -> Result<Import, Stop> {
    let Some(object) = root.as_object() else {
        return Err(invalid("", "an OpenAPI document must be an object").into());
    };
    if object.contains_key("swagger") {
        return Err(invalid(
            "/swagger",
            "Swagger 2.0 is not supported: convert it to OpenAPI 3 first",
        )
        .into());
    }
    let version = object.get("openapi").and_then(Node::as_str).unwrap_or("");
    let openapi30 = version.starts_with("3.0");
    if !openapi30 && !version.starts_with("3.1") {
        return Err(invalid(
            "/openapi",
            format!("unsupported OpenAPI version `{version}` (3.0.x and 3.1.x are)"),
        )
        .into());
    }
    let mut warnings = Vec::new();
    {
        let mut warn =
            |pointer: String, message: String| warnings.push(Violation { pointer, message });
        keys::check(object, keys::Kind::Document, "", version, &mut warn);
        keys::components(object, version, &mut warn);
    }
    let server = servers::choose(root, options, &mut warnings)?;
    let server_template = servers::template(root, options);
    let refs = Refs::new(root, lazy);
    let schemes = security::schemes(root, refs, &mut warnings);
    let mut defs = schema::shared::SharedDefs::new(refs, openapi30);
    let filter = filter::Filter::new(options);
    let cx = operation::Context {
        refs,
        root_security: object.get("security"),
        schemes: &schemes,
        version,
    };
    let Some(Node::Object(paths)) = object.get("paths") else {
        return Err(invalid("/paths", "missing `paths` (an object)").into());
    };
    let mut ids = UniqueIds::default();
    // (pointer, label, operation, shared definitions it reaches)
    let mut converted_ops: Vec<ConvertedOp> = Vec::new();
    let mut failures = Vec::new();
    let mut filtered_out = 0;
    let mut shortened = Vec::new();
    let mut reuse = Reuse::default();
    // Each path item left as text is parsed here, into this arena, and
    // dropped with the next one: nothing kept borrows from it.
    let mut item_arena = Bump::new();
    for (path, item) in paths.iter() {
        item_arena.reset();
        let item: &Node<'_> = match item {
            Node::Raw(text) => match node::parse_item(text, &item_arena) {
                Some(parsed) => item_arena.alloc(parsed),
                None => return Err(Stop::Reparse),
            },
            other => other,
        };
        let item_at = pointer::join("/paths", path);
        let (item, _) = match refs.follow(item) {
            Ok(found) => found,
            Err(message) => {
                failures.push(OperationFailure {
                    pointer: item_at,
                    operation: path.to_owned(),
                    message,
                });
                continue;
            }
        };
        let Some(item) = item.as_object() else {
            continue;
        };
        let mut item_checked = false;
        for method in Method::ALL {
            let Some(op) = item.get(method.as_str()) else {
                continue;
            };
            let at = pointer::join(&item_at, method.as_str());
            let label = format!("{} {path}", method.as_str().to_ascii_uppercase());
            let Some(op) = op.as_object() else {
                failures.push(OperationFailure {
                    pointer: at,
                    operation: label,
                    message: "an operation must be an object".into(),
                });
                continue;
            };
            let original = op.get("operationId").and_then(Node::as_str);
            if options.filtering() && !filter.keeps(op, method, path, &label) {
                filtered_out += 1;
                continue;
            }
            let mut warn =
                |pointer: String, message: String| warnings.push(Violation { pointer, message });
            if !item_checked {
                // The path item (and its shared parameters) once, when one
                // of its operations is imported.
                item_checked = true;
                keys::check(item, keys::Kind::PathItem, &item_at, version, &mut warn);
                let shared = item.get("parameters").and_then(Node::as_array);
                for (index, parameter) in shared.into_iter().flatten().enumerate() {
                    let parameter_at = format!("{}/{index}", pointer::join(&item_at, "parameters"));
                    keys::check_node(
                        parameter,
                        keys::Kind::Parameter,
                        &parameter_at,
                        version,
                        &mut warn,
                    );
                }
            }
            keys::check(op, keys::Kind::Operation, &at, version, &mut warn);
            let converted = operation::convert(
                &cx,
                &mut defs,
                &mut reuse,
                path,
                method,
                item,
                op,
                &at,
                options.max_tool_chars,
                &mut warnings,
            );
            match converted {
                Ok(operation::Converted {
                    operation: mut converted,
                    shortened: cost,
                    shared: reached,
                    plain,
                    own_len,
                }) => {
                    let base = match original {
                        Some(id) if !id.trim().is_empty() => names::sanitise(id),
                        _ => names::generated(method, path),
                    };
                    let id = ids.claim(base);
                    match original {
                        Some(o) if o == id => {}
                        Some(o) => warnings.push(Violation {
                            pointer: pointer::join(&at, "operationId"),
                            message: format!("operationId `{o}` is imported as `{id}`"),
                        }),
                        None => warnings.push(Violation {
                            pointer: pointer::join(&at, "operationId"),
                            message: format!("no operationId: generated `{id}`"),
                        }),
                    }
                    if let Some(mut cost) = cost {
                        cost.operation_id = id.clone();
                        cost.pointer = at.clone();
                        warnings.push(Violation {
                            pointer: at.clone(),
                            message: cost.summary(),
                        });
                        shortened.push(cost);
                    }
                    converted.operation_id = id;
                    for parameter in &mut converted.parameters {
                        reuse.interned.share_in_place(&mut parameter.schema);
                    }
                    converted_ops.push((at, label, converted, reached, plain, own_len));
                }
                Err(message) => failures.push(OperationFailure {
                    pointer: at,
                    operation: label,
                    message,
                }),
            }
        }
    }
    warnings.append(&mut defs.findings);
    // The definitions of the operations within their budget, held once
    // for all of them.
    let shared = defs.shared(
        converted_ops
            .iter()
            .filter(|op| op.4.is_none())
            .map(|op| op.3.as_slice()),
    );
    // The shortened tools' definitions without descriptions, held once
    // for all of them (see the budget module's `Cut`).
    let plain_shared = defs.plain_shared(
        converted_ops
            .iter()
            .filter(|op| op.4.is_some())
            .map(|op| op.3.as_slice()),
    );
    let mut operations = Vec::with_capacity(converted_ops.len());
    let mut shared_lens = Vec::with_capacity(converted_ops.len());
    let mut own_lens = Vec::with_capacity(converted_ops.len());
    // Verdicts of arguments schemas already checked, by fingerprint: many
    // operations of a large document take the same arguments (Microsoft
    // Graph: 11 422 operations, about 6 800 distinct), and a verdict holds
    // no validator, so one check serves each. Only when nothing is kept
    // and the check repaired nothing (the schema is the one checked).
    let mut verdicts: HashMap<u64, Option<tool_core::pipeline::CompiledSchema>> = HashMap::new();
    // Argument schemas hashed once each for the fingerprints.
    let mut hashes = crate::fingerprint::SchemaHashes::default();
    for (at, label, mut converted, reached, plain, own_len) in converted_ops {
        shared_lens.push(plain.unwrap_or_else(|| defs.json_len_of(&reached)));
        own_lens.push(own_len);
        if !reached.is_empty() {
            converted.shared_definitions = if plain.is_some() {
                plain_shared.clone()
            } else {
                shared.clone()
            };
        }
        if options.check_schemas {
            let before = (!options.keep_compiled)
                .then(|| crate::fingerprint::schema_fingerprint_with(&converted, &mut hashes));
            if let Some(known) = before.and_then(|f| verdicts.get(&f).map(|v| (f, v))) {
                if let (fingerprint, Some(verdict)) = known {
                    converted.compiled.0 = Some((fingerprint, verdict.clone()));
                }
                operations.push(converted);
                continue;
            }
            let warned = warnings.len();
            let was_shared = !converted.shared_definitions.is_empty();
            match check::check(
                &mut defs,
                &mut converted,
                &reached,
                plain,
                &at,
                &mut warnings,
                options.keep_compiled,
            ) {
                Ok(verdict) => {
                    // A check changes the schema only to repair patterns
                    // (each repair a warning) or to give the operation its
                    // own copies of what it reaches.
                    let unchanged = warnings.len() == warned
                        && was_shared != converted.shared_definitions.is_empty();
                    if warnings.len() != warned
                        && let Some(own) = own_lens.last_mut()
                    {
                        // Repaired patterns: the arguments are counted again.
                        *own = budget::arguments_len(&converted.parameters)
                            + converted.description.len();
                    }
                    let fingerprint = match before {
                        Some(fingerprint) if unchanged => fingerprint,
                        _ => crate::fingerprint::schema_fingerprint_with(&converted, &mut hashes),
                    };
                    if before == Some(fingerprint) {
                        verdicts.insert(fingerprint, verdict.clone());
                    }
                    if let Some(compiled) = verdict {
                        converted.compiled.0 = Some((fingerprint, compiled));
                    }
                }
                Err(message) => {
                    failures.push(OperationFailure {
                        pointer: at,
                        operation: label,
                        message: format!("its arguments schema does not compile: {message}"),
                    });
                    shared_lens.pop();
                    own_lens.pop();
                    continue;
                }
            }
        }
        operations.push(converted);
    }
    if operations.is_empty() {
        let reason = if filtered_out > 0 && failures.is_empty() {
            format!("the filters left out all {filtered_out} operations")
        } else if failures.is_empty() {
            "the document has no operations".to_owned()
        } else {
            format!(
                "{} operation(s) failed, first: {}",
                failures.len(),
                failures[0]
            )
        };
        return Err(Error::NothingImported { reason }.into());
    }
    budget::document(&operations, &shared_lens, &own_lens, options, &mut warnings);
    if operations.len() > 128 && !options.filtering() {
        warnings.push(Violation {
            pointer: "/paths".into(),
            message: format!(
                "{} operations imported: consider tag or operation filters, a model chooses poorly among that many",
                operations.len()
            ),
        });
    }
    let info = object.get("info");
    let title = info
        .and_then(|i| i.get("title"))
        .and_then(Node::as_str)
        .map(str::to_owned);
    let description = info
        .and_then(|i| i.get("description").or_else(|| i.get("title")))
        .and_then(Node::as_str)
        .unwrap_or("")
        .chars()
        .take(1_000)
        .collect();
    Ok(Import {
        document: ApiDocument {
            server,
            description,
            title,
            operations,
            security_schemes: schemes,
            server_template,
        },
        warnings,
        failures,
        filtered_out,
        shortened,
    })
}
