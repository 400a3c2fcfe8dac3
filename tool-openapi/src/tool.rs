//! The runtime tool: one document, one API per operation, calls over HTTP.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use http::{HeaderName, HeaderValue};
use serde_json::Value;
use tool_core::{
    Tool, ToolContext, ToolError, ToolManifest, ToolOutput, ToolRegistry, manifest::NameRules,
    pipeline::CompiledSchema,
};

use crate::compile::take_manifest;
use crate::credentials::Credentials;
use crate::document::ApiDocument;
use crate::error::Error;
use crate::execute::{HttpSettings, run};
use tool_core::net::SsrfGuard;

/// A compiled API document as a [`Tool`].
///
/// ```
/// use tool_openapi::{OpenApiTool, parse_narrow};
/// use tool_core::Tool;
/// let (doc, _warnings) = parse_narrow(r#"{"server": "https://api.example.com", "description": "Echo.",
///   "paths": {"/echo": {"get": {"operationId": "echo", "description": "Echoes.",
///     "parameters": [{"name": "text", "in": "query", "type": "str", "required": true}]}}}}"#)?;
/// let tool = OpenApiTool::builder(doc, "echo").secret_header("X-Key", "k-123")?.build()?;
/// assert_eq!(tool.manifest().api[0].parameters["required"][0], "text");
/// assert!(!serde_json::to_string(tool.manifest()).unwrap().contains("k-123"));
/// # Ok::<(), tool_openapi::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct OpenApiTool {
    manifest: Arc<ToolManifest>,
    document: Arc<ApiDocument>,
    by_name: HashMap<String, usize>,
    settings: Arc<HttpSettings>,
}

impl OpenApiTool {
    /// Starts a tool called `identifier` from `document`.
    pub fn builder(document: ApiDocument, identifier: impl Into<String>) -> OpenApiToolBuilder {
        OpenApiToolBuilder {
            document,
            identifier: identifier.into(),
            headers: Vec::new(),
            secret_texts: Vec::new(),
            credentials: Credentials::new(),
            guard: None,
            client: None,
            workspace: None,
            home: None,
            max_upload_bytes: DEFAULT_MAX_UPLOAD_BYTES,
        }
    }

    /// The normalised document the tool was compiled from, as the tool
    /// sends requests from it: each operation's own `definitions` have
    /// moved into its API's arguments schema (`$defs` of the manifest's
    /// `parameters`; the document's
    /// [`shared_definitions`](crate::Operation::shared_definitions) stay
    /// shared with the manifest), each parameter's schema is `true` (the
    /// whole schema is the manifest's, which sending reads an argument's
    /// `type` from) and the descriptions of operations and parameters are
    /// the manifest's too, so a 20 MB document's schemas and descriptions
    /// are held once.
    pub fn document(&self) -> &ApiDocument {
        &self.document
    }
}

/// Configures an [`OpenApiTool`].
///
/// Defaults: no provider headers, no credentials, the default
/// [`SsrfGuard`] and a client built from it, shared with every other tool
/// of the process whose guard has an equal policy (the client and its
/// guard are built once per policy: root certificates load once and
/// connections are pooled across tools and documents); file arguments (multipart
/// uploads, binary bodies) read from the call's `cwd`, at most
/// [`DEFAULT_MAX_UPLOAD_BYTES`] per file.
///
/// # File arguments and confinement
///
/// An operation with a file argument reads host files, so its API is
/// marked [`touches_host`](tool_core::ApiDefinition::touches_host): the
/// approval gate confines it or asks. When the call's context carries a
/// [`Confinement`](tool_core::Confinement) of `read_only` or
/// `workspace_write`, a file in a secret class
/// ([`PathClass`](tool_core::approval::PathClass) with
/// [`PathRole::Secret`](tool_core::approval::PathRole::Secret): `.env`, private keys,
/// `~/.ssh`…), named directly or reached through a link, is refused with
/// [`ErrorCode::CONFINEMENT_REFUSED`](tool_core::ErrorCode::CONFINEMENT_REFUSED) and nothing is sent; under
/// `full_access` (or no confinement) the workspace rule alone applies. A host that shares one client
/// (and its connection pool) across tools passes it with
/// [`client`](Self::client); it should come from the same guard's
/// [`build_client`](SsrfGuard::build_client).
#[derive(Debug)]
pub struct OpenApiToolBuilder {
    document: ApiDocument,
    identifier: String,
    headers: Vec<(HeaderName, HeaderValue)>,
    secret_texts: Vec<String>,
    credentials: Credentials,
    guard: Option<SsrfGuard>,
    client: Option<reqwest::Client>,
    workspace: Option<PathBuf>,
    home: Option<PathBuf>,
    max_upload_bytes: u64,
}

/// The largest file one call uploads by default: 32 MiB.
pub const DEFAULT_MAX_UPLOAD_BYTES: u64 = 32 * 1024 * 1024;

impl OpenApiToolBuilder {
    fn push_header(mut self, name: &str, value: &str, secret: bool) -> Result<Self, Error> {
        let invalid = |message: &str| Error::InvalidConfig {
            field: format!("headers.{name}"),
            message: message.to_owned(),
        };
        let header_name =
            HeaderName::from_bytes(name.as_bytes()).map_err(|_| invalid("not a header name"))?;
        let mut header_value =
            HeaderValue::from_str(value).map_err(|_| invalid("not a valid header value"))?;
        if secret {
            header_value.set_sensitive(true);
            self.secret_texts.push(value.to_owned());
        }
        self.headers.retain(|(n, _)| n != header_name);
        self.headers.push((header_name, header_value));
        Ok(self)
    }

    /// A provider header sent with every request (a header parameter of the
    /// same name replaces it).
    pub fn header(self, name: &str, value: &str) -> Result<Self, Error> {
        self.push_header(name, value, false)
    }

    /// A provider header holding a secret: sent like [`header`](Self::header),
    /// redacted wherever a response echoes it.
    pub fn secret_header(self, name: &str, value: &str) -> Result<Self, Error> {
        self.push_header(name, value, true)
    }

    /// Secrets for the document's security schemes.
    pub fn credentials(mut self, credentials: Credentials) -> Self {
        self.credentials = credentials;
        self
    }

    /// The SSRF guard (default: [`SsrfGuard::default`]).
    pub fn guard(mut self, guard: SsrfGuard) -> Self {
        self.guard = Some(guard);
        self
    }

    /// A client to send with (default: the one shared by the tools whose
    /// guard has this tool's policy, built from that guard).
    pub fn client(mut self, client: reqwest::Client) -> Self {
        self.client = Some(client);
        self
    }

    /// The folder file arguments are read from (default: the call's
    /// [`cwd`](ToolContext::cwd); with neither, a call with a file
    /// argument fails with `file_refused`). Paths resolving outside it,
    /// through `..` or symbolic links, are refused.
    pub fn workspace(mut self, dir: impl Into<PathBuf>) -> Self {
        self.workspace = Some(dir.into());
        self
    }

    /// The home directory that secret classes anchored at `~` resolve
    /// against (default: `HOME`).
    pub fn home(mut self, dir: impl Into<PathBuf>) -> Self {
        self.home = Some(dir.into());
        self
    }

    /// The largest file one call uploads (default [`DEFAULT_MAX_UPLOAD_BYTES`]);
    /// a larger one fails the call with `file_unreadable`.
    pub fn max_upload_bytes(mut self, limit: u64) -> Self {
        self.max_upload_bytes = limit;
        self
    }

    /// Gives the document a base URL when it has none: see
    /// [`ApiDocument::resolve_server`] (an absolute server is kept).
    pub fn base_url(mut self, base: &str) -> Result<Self, Error> {
        self.document.resolve_server(base)?;
        Ok(self)
    }

    /// Compiles the manifest and builds the tool.
    pub fn build(mut self) -> Result<OpenApiTool, Error> {
        let (manifest, compiled) = take_manifest(&mut self.document, &self.identifier);
        let manifest = Arc::new(manifest);
        CompiledSchema::for_shared_manifest(&manifest, NameRules::Foreign, compiled)?;
        self.finish(manifest)
    }

    /// Builds the tool and registers it in `registry`: the same result and
    /// errors as [`build`](Self::build) followed by
    /// [`ToolRegistry::register`], but each operation's arguments schema is
    /// compiled once, not once for the build and again for the registry
    /// (not at all here for a document just imported with its schemas
    /// checked: that compilation is reused), and the registry shares the
    /// tool's manifest instead of copying it.
    ///
    /// ```
    /// use tool_core::{ToolRegistry, manifest::NameRules};
    /// use tool_openapi::{OpenApiTool, parse_narrow};
    /// let (doc, _) = parse_narrow(r#"{"server": "https://api.example.com", "description": "Echo.",
    ///   "paths": {"/echo": {"get": {"operationId": "echo", "description": "Echoes."}}}}"#)?;
    /// let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    /// OpenApiTool::builder(doc, "echo").register(&mut registry)?;
    /// assert_eq!(registry.identifiers().collect::<Vec<_>>(), ["echo"]);
    /// # Ok::<(), tool_openapi::Error>(())
    /// ```
    pub fn register(mut self, registry: &mut ToolRegistry) -> Result<(), Error> {
        let (manifest, compiled) = take_manifest(&mut self.document, &self.identifier);
        let manifest = Arc::new(manifest);
        let tool = self.finish(Arc::clone(&manifest))?;
        registry.register_compiled(Arc::new(tool), manifest, compiled)?;
        Ok(())
    }

    fn finish(self, manifest: Arc<ToolManifest>) -> Result<OpenApiTool, Error> {
        // The tool keeps the document to send requests, not the import's
        // compilations (the registry holds what it needs), nor the
        // arguments' schemas (the manifest holds them, which validation
        // reads and sending takes each argument's `type` from): both
        // taken out by `take_manifest`.
        let guard = self.guard.unwrap_or_default();
        let (guard, client) = match self.client {
            Some(client) => (guard, client),
            None => crate::client::shared(guard)?,
        };
        let by_name = self
            .document
            .operations
            .iter()
            .enumerate()
            .map(|(i, op)| (op.operation_id.clone(), i))
            .collect();
        Ok(OpenApiTool {
            manifest,
            document: Arc::new(self.document),
            by_name,
            settings: Arc::new(HttpSettings {
                client,
                guard,
                headers: self.headers,
                credentials: self.credentials,
                secret_texts: self.secret_texts,
                workspace: self.workspace,
                max_upload_bytes: self.max_upload_bytes,
                home: self.home,
                tokens: Default::default(),
            }),
        })
    }
}

#[async_trait]
impl Tool for OpenApiTool {
    fn manifest(&self) -> &ToolManifest {
        &self.manifest
    }

    async fn call(
        &self,
        api: &str,
        args: Value,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let index = *self
            .by_name
            .get(api)
            .ok_or_else(|| self.manifest.unknown_api(api))?;
        let arguments = self.manifest.api.get(index).map(|api| &*api.parameters);
        run(&self.document, index, arguments, args, &self.settings, ctx).await
    }
}
