//! [`ImportOptions`]: what to import (the operation filter) and how (the
//! server, the schema check, the size budgets).

use crate::method::Method;

use super::DEFAULT_MAX_DOCUMENT_BYTES;

/// The default tool size budget: 32 000 bytes of arguments schema and
/// description (about 8 000 tokens), above the largest GitHub REST tool.
pub const DEFAULT_MAX_TOOL_CHARS: usize = 32_000;

/// The default document budget: 1 000 000 bytes for all its tools.
pub const DEFAULT_MAX_DOCUMENT_CHARS: usize = 1_000_000;

/// What to import and how.
///
/// Defaults: every operation; the first server; schemas checked to
/// compile; documents up to [`DEFAULT_MAX_DOCUMENT_BYTES`]; tools fitted
/// to [`DEFAULT_MAX_TOOL_CHARS`], documents over
/// [`DEFAULT_MAX_DOCUMENT_CHARS`] reported.
///
/// # Which operations are imported
///
/// The filter runs on the document as written, before any schema of the
/// operation is looked at, so a left-out operation costs nothing:
///
/// 1. With no [`tags`](Self::tag), [`operations`](Self::operations) or
///    [`paths`](Self::paths), every operation is a candidate; otherwise an
///    operation is one when it matches any of them (a union).
/// 2. With [`methods`](Self::methods), a candidate is kept only when its
///    method is one of them (an intersection).
///
/// ```
/// use tool_openapi::{ImportOptions, Method, import_openapi};
/// let text = r#"{"openapi": "3.0.3", "info": {"title": "T", "version": "1"},
///   "servers": [{"url": "https://api.example.com"}], "paths": {
///   "/repos/{owner}/issues": {"get": {"operationId": "list", "parameters": [{"name": "owner", "in": "path", "required": true}], "responses": {}},
///                             "post": {"operationId": "create", "parameters": [{"name": "owner", "in": "path", "required": true}], "responses": {}}},
///   "/users": {"get": {"operationId": "users", "responses": {}}}}}"#;
/// let options = ImportOptions::new().paths(["/repos/**"]).methods([Method::Get]);
/// let import = import_openapi(text, &options)?;
/// let ids: Vec<&str> = import.document.operations.iter().map(|o| o.operation_id.as_str()).collect();
/// assert_eq!(ids, ["list"]);
/// assert_eq!(import.filtered_out, 2);
/// # Ok::<(), tool_openapi::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportOptions {
    pub(crate) tags: Vec<String>,
    pub(crate) operations: Vec<String>,
    pub(crate) paths: Vec<String>,
    pub(crate) methods: Vec<Method>,
    pub(crate) server: Option<String>,
    pub(crate) base_url: Option<String>,
    pub(crate) server_variables: Vec<(String, String)>,
    pub(crate) check_schemas: bool,
    pub(crate) keep_compiled: bool,
    pub(crate) max_bytes: usize,
    pub(crate) max_tool_chars: usize,
    pub(crate) max_document_chars: usize,
}

impl Default for ImportOptions {
    fn default() -> Self {
        Self {
            tags: Vec::new(),
            operations: Vec::new(),
            paths: Vec::new(),
            methods: Vec::new(),
            server: None,
            base_url: None,
            server_variables: Vec::new(),
            check_schemas: true,
            keep_compiled: false,
            max_bytes: DEFAULT_MAX_DOCUMENT_BYTES,
            max_tool_chars: DEFAULT_MAX_TOOL_CHARS,
            max_document_chars: DEFAULT_MAX_DOCUMENT_CHARS,
        }
    }
}

impl ImportOptions {
    /// Every operation, first server.
    pub fn new() -> Self {
        Self::default()
    }

    /// Only operations carrying one of these tags (repeatable; a union
    /// with [`operations`](Self::operations) and [`paths`](Self::paths)).
    pub fn tag(mut self, tag: impl Into<String>) -> Self {
        self.tags.push(tag.into());
        self
    }

    /// Several tags at once.
    pub fn tags(mut self, tags: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.tags.extend(tags.into_iter().map(Into::into));
        self
    }

    /// Only these operations: by `operationId` as the document spells it,
    /// by the sanitised id, or as `METHOD /path`.
    pub fn operations(mut self, ids: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.operations.extend(ids.into_iter().map(Into::into));
        self
    }

    /// Only operations whose path template matches one of these globs:
    /// `*` is any text within one segment, `**` any text across segments,
    /// `?` one character (`/repos/*/issues*`, `/users/**`).
    pub fn paths(mut self, globs: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.paths.extend(globs.into_iter().map(Into::into));
        self
    }

    /// Only operations with one of these methods (combined with the other
    /// filters as an intersection).
    pub fn methods(mut self, methods: impl IntoIterator<Item = Method>) -> Self {
        self.methods.extend(methods);
        self
    }

    /// The base URL, replacing `servers` (an absolute http(s) URL).
    pub fn server(mut self, url: impl Into<String>) -> Self {
        self.server = Some(url.into());
        self
    }

    /// The URL relative `servers` resolve against (RFC 3986): where the
    /// document was fetched, or a base the host gives. An absolute server
    /// in the document is kept; a missing `servers` is `/` against it.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// The value of server variable `name` (checked against its `enum`);
    /// variables not given take their `default`.
    pub fn server_variable(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        let name = name.into();
        self.server_variables.retain(|(n, _)| *n != name);
        self.server_variables.push((name, value.into()));
        self
    }

    /// Whether each operation's arguments schema is compiled during the
    /// import, so a schema `tool-core` would refuse fails that operation
    /// only (default `true`). A shared definition is compiled once for the
    /// whole document; an operation whose `$defs` are small keeps its
    /// compilation, so building a tool from it does not compile that
    /// schema again.
    pub fn check_schemas(mut self, check: bool) -> Self {
        self.check_schemas = check;
        self
    }

    /// Whether the checked compilations are kept with the operations for
    /// building tools (default `false`).
    ///
    /// - `false`: every operation's arguments schema is compiled once to
    ///   check it (the same check and the same failures), and only the
    ///   verdict is kept ([`CompiledSchema::checked`](tool_core::pipeline::CompiledSchema::checked)):
    ///   a registered tool compiles an operation's validator on that
    ///   operation's first call. Memory holds no validators, so a document
    ///   of 10 000 operations imports and registers in bounded memory.
    /// - `true`: the validators (and their schemas) are kept, and a tool
    ///   built from the document validates its first call without
    ///   compiling. For a few operations called at once.
    pub fn keep_compiled(mut self, keep: bool) -> Self {
        self.keep_compiled = keep;
        self
    }

    /// The largest text accepted.
    pub fn max_bytes(mut self, max: usize) -> Self {
        self.max_bytes = max;
        self
    }

    /// The tool size budget: bytes of one tool's arguments schema (with
    /// its `$defs`) and description (default [`DEFAULT_MAX_TOOL_CHARS`]).
    /// A larger tool is shortened step by step (see
    /// [`Shortened`](crate::Shortened)) and reported; `usize::MAX` turns
    /// the budget off.
    pub fn max_tool_chars(mut self, budget: usize) -> Self {
        self.max_tool_chars = budget;
        self
    }

    /// The document budget: bytes of all its tools together (default
    /// [`DEFAULT_MAX_DOCUMENT_CHARS`]). Over it, a warning at `/paths`
    /// gives the total and the largest tools, and suggests the filters.
    pub fn max_document_chars(mut self, budget: usize) -> Self {
        self.max_document_chars = budget;
        self
    }

    pub(crate) fn filtering(&self) -> bool {
        !self.tags.is_empty()
            || !self.operations.is_empty()
            || !self.paths.is_empty()
            || !self.methods.is_empty()
    }
}
