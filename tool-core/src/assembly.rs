//! Assembly: turning stored light references into runtime tools.
//!
//! A host stores what a user picked as [`ToolReference`]s
//! (`{type, provider_id, tool_id, params}`), never tool instances. An
//! [`Assembler`] maps each reference's `type` to a [`ToolProvider`] that builds
//! the runtime tool; debug runs and production runs go through the same path.

pub use crate::offered::ResolvedApi;
pub use crate::provide_error::{ErrorSource, ProvideError};

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::compiled::CompiledSchema;
use crate::error::Error;
use crate::partial::Partial;
use crate::registry::ToolRegistry;
use crate::schema::schema_for_args;
use crate::tool::Tool;

/// A stored reference to a tool: which provider kind, which provider, which
/// tool, and the instance params to build it with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolReference {
    /// The provider kind, spelled as a [`ToolKind`](crate::ToolKind) (`builtin`,
    /// `api`, `mcp`, …; older spellings such as `builtin_tool` still resolve).
    ///
    /// Kept as the stored text rather than a [`ToolKind`](crate::ToolKind):
    /// a host may register providers under kinds of its own (an
    /// [`Assembler`] keys providers by any name), and a stored reference is
    /// written back exactly as it was read. [`tool_kind`](Self::tool_kind)
    /// gives the typed kind where the spelling names one.
    #[serde(rename = "type")]
    pub kind: String,
    /// The provider inside that kind.
    pub provider_id: String,
    /// The tool inside that provider.
    pub tool_id: String,
    /// Instance params (configuration, not call arguments).
    #[serde(default = "empty_object")]
    pub params: Value,
}

fn empty_object() -> Value {
    Value::Object(Default::default())
}

impl ToolReference {
    /// A reference with empty params.
    pub fn new(
        kind: impl Into<String>,
        provider_id: impl Into<String>,
        tool_id: impl Into<String>,
    ) -> Self {
        Self {
            kind: kind.into(),
            provider_id: provider_id.into(),
            tool_id: tool_id.into(),
            params: empty_object(),
        }
    }

    /// A reference to a tool of a workspace kind, spelled the one way this
    /// workspace writes it.
    pub fn of_kind(
        kind: crate::ToolKind,
        provider_id: impl Into<String>,
        tool_id: impl Into<String>,
    ) -> Self {
        Self::new(kind.as_str(), provider_id, tool_id)
    }

    /// The [`ToolKind`](crate::ToolKind) the reference's `type` spells
    /// (any of its spellings), or `None` for a host's own provider kind.
    pub fn tool_kind(&self) -> Option<crate::ToolKind> {
        crate::ToolKind::parse(&self.kind)
    }

    /// Sets the params.
    pub fn with_params(mut self, params: Value) -> Self {
        self.params = params;
        self
    }
}

impl fmt::Display for ToolReference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.kind, self.provider_id, self.tool_id)
    }
}

/// Turns references of one kind into runtime tools.
///
/// An [`Assembler`] keys providers by [`kind`](ToolProvider::kind) (any
/// spelling of a [`ToolKind`](crate::ToolKind) finds it) and asks each for
/// the tools its references name. A provider holds what is shared between
/// references (an HTTP client, a pool of MCP sessions, a catalog cache); a
/// reference holds only ids and instance params.
///
/// # Scenarios
///
/// - **Unknown ids** are [`ProvideError::NotFound`]; **bad params** are
///   [`ProvideError::InvalidParams`] with every violation's pointer. Neither
///   is worth a retry.
/// - **A backend that is down** (a refused connection, a 503, a timeout) is
///   [`ProvideError::transient`] with the cause attached
///   ([`ProvideError::with_source`]); the host may retry the assembly later
///   ([`Error::is_retryable`]). A document that does not parse is
///   [`ProvideError::permanent`].
/// - **Slow backends**: `provide` is async and the assembler resolves
///   references concurrently; cache what several references share instead of
///   fetching it per reference.
///
/// ```
/// use std::sync::Arc;
/// use tool_core::{Tool, assembly::{ProvideError, ToolProvider, ToolReference}};
///
/// struct Remote;
///
/// #[async_trait::async_trait]
/// impl ToolProvider for Remote {
///     fn kind(&self) -> &str { "mcp" }
///     async fn provide(&self, reference: &ToolReference) -> Result<Arc<dyn Tool>, ProvideError> {
///         let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
///         Err(ProvideError::transient(format!("server `{}` is down", reference.provider_id))
///             .with_source(refused))
///     }
/// }
/// # let _ = Remote;
/// ```
///
/// # The wrong way
///
/// Panicking or returning a half-built tool when the backend fails (the
/// assembly must report it and go on with the other references);
/// [`ProvideError::Failed`] with the cause flattened into a string (the
/// host can no longer tell a retryable outage from a broken spec); building
/// the tool's name rules into the registry instead of the tool (return
/// [`NameRules::Foreign`](crate::validate::NameRules::Foreign) from
/// [`Tool::name_rules`] for foreign names).
#[async_trait]
pub trait ToolProvider: Send + Sync {
    /// The reference `type` this provider serves.
    fn kind(&self) -> &str;

    /// Builds the tool a reference names.
    async fn provide(&self, reference: &ToolReference) -> Result<Arc<dyn Tool>, ProvideError>;
}

type Factory = Arc<dyn Fn(Value) -> Result<Arc<dyn Tool>, ProvideError> + Send + Sync>;

struct FactoryEntry {
    params_schema: Value,
    compiled: CompiledSchema,
    build: Factory,
}

/// Builtin tools made by named factories that take instance params.
///
/// Each factory declares its own params schema (the configuration a user sets
/// once, distinct from the call schema the model sees); params are validated
/// against it before the factory runs.
///
/// ```
/// use tool_core::{ApiDefinition, ToolBuilder, ToolOutput, assembly::{Assembler, BuiltinProvider, ToolReference}};
/// #[derive(schemars::JsonSchema, serde::Deserialize)]
/// struct Params { greeting: String }
///
/// let mut builtin = BuiltinProvider::new();
/// builtin.typed_factory("greetings", "greeter", |p: Params| {
///     let greeting = p.greeting;
///     Ok(std::sync::Arc::new(ToolBuilder::new("greeter")
///         .api(ApiDefinition::new("greet", "Greets."), move |_, _| {
///             let g = greeting.clone();
///             async move { Ok(ToolOutput::text(g)) }
///         })
///         .build().map_err(|e| tool_core::assembly::ProvideError::Failed(e.to_string()))?))
/// })?;
/// let assembler = Assembler::new().with_provider(builtin);
/// let refs = vec![ToolReference::new("builtin", "greetings", "greeter")
///     .with_params(serde_json::json!({"greeting": "hi"}))];
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let assembled = assembler.assemble(&refs).await;
/// assert!(assembled.failures.is_empty());
/// assert_eq!(assembled.tools.len(), 1);
/// # });
/// # Ok::<(), tool_core::Error>(())
/// ```
#[derive(Default)]
pub struct BuiltinProvider {
    kind: String,
    factories: HashMap<(String, String), FactoryEntry>,
}

impl fmt::Debug for BuiltinProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut keys: Vec<String> = self
            .factories
            .keys()
            .map(|(p, t)| format!("{p}/{t}"))
            .collect();
        keys.sort();
        f.debug_struct("BuiltinProvider")
            .field("kind", &self.kind)
            .field("factories", &keys)
            .finish()
    }
}

impl BuiltinProvider {
    /// A provider for references of type `builtin` (or `builtin_tool`):
    /// [`ToolKind::Builtin`](crate::ToolKind::Builtin).
    pub fn new() -> Self {
        Self::with_kind(crate::ToolKind::Builtin)
    }

    /// A provider answering to another reference type.
    pub fn with_kind(kind: impl Into<String>) -> Self {
        Self {
            kind: kind.into(),
            factories: HashMap::new(),
        }
    }

    /// Registers a factory taking raw JSON params checked against `params_schema`.
    pub fn factory<F>(
        &mut self,
        provider_id: impl Into<String>,
        tool_id: impl Into<String>,
        params_schema: Value,
        build: F,
    ) -> Result<&mut Self, Error>
    where
        F: Fn(Value) -> Result<Arc<dyn Tool>, ProvideError> + Send + Sync + 'static,
    {
        let provider_id = provider_id.into();
        let tool_id = tool_id.into();
        let compiled = CompiledSchema::try_compile(&params_schema).map_err(|error| {
            let (pointer, message) = match error {
                Error::InvalidSchema { pointer, message } => (pointer, message),
                other => (String::new(), other.to_string()),
            };
            Error::InvalidManifest {
                tool: format!("{provider_id}/{tool_id}"),
                api: None,
                field: format!("/paramsSchema{pointer}"),
                message: format!("does not compile: {message}"),
            }
        })?;
        self.factories.insert(
            (provider_id, tool_id),
            FactoryEntry {
                params_schema,
                compiled,
                build: Arc::new(build),
            },
        );
        Ok(self)
    }

    /// Registers a factory whose params deserialise into `P`; the params
    /// schema is generated from `P`.
    pub fn typed_factory<P, F>(
        &mut self,
        provider_id: impl Into<String>,
        tool_id: impl Into<String>,
        build: F,
    ) -> Result<&mut Self, Error>
    where
        P: JsonSchema + DeserializeOwned + 'static,
        F: Fn(P) -> Result<Arc<dyn Tool>, ProvideError> + Send + Sync + 'static,
    {
        self.factory(
            provider_id,
            tool_id,
            schema_for_args::<P>(),
            move |params| {
                let params: P = serde_json::from_value(params).map_err(|e| {
                    ProvideError::InvalidParams(vec![crate::pipeline::Violation {
                        pointer: String::new(),
                        message: e.to_string(),
                    }])
                })?;
                build(params)
            },
        )
    }

    /// The params schema of a factory (for a configuration form).
    pub fn params_schema(&self, provider_id: &str, tool_id: &str) -> Option<&Value> {
        self.factories
            .get(&(provider_id.to_owned(), tool_id.to_owned()))
            .map(|f| &f.params_schema)
    }
}

#[async_trait]
impl ToolProvider for BuiltinProvider {
    fn kind(&self) -> &str {
        &self.kind
    }

    async fn provide(&self, reference: &ToolReference) -> Result<Arc<dyn Tool>, ProvideError> {
        let key = (reference.provider_id.clone(), reference.tool_id.clone());
        let entry = self.factories.get(&key).ok_or_else(|| {
            let known_provider = self
                .factories
                .keys()
                .any(|(p, _)| *p == reference.provider_id);
            ProvideError::NotFound(if known_provider {
                format!(
                    "provider `{}` has no tool `{}`",
                    reference.provider_id, reference.tool_id
                )
            } else {
                format!("no builtin provider `{}`", reference.provider_id)
            })
        })?;
        let violations = entry.compiled.violations(&reference.params);
        if !violations.is_empty() {
            return Err(ProvideError::InvalidParams(violations));
        }
        (entry.build)(reference.params.clone())
    }
}

/// Turns a list of references into runtime tools through providers keyed by type.
#[derive(Default)]
pub struct Assembler {
    providers: HashMap<String, Arc<dyn ToolProvider>>,
}

impl fmt::Debug for Assembler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut kinds: Vec<&String> = self.providers.keys().collect();
        kinds.sort();
        f.debug_struct("Assembler").field("kinds", &kinds).finish()
    }
}

/// What an assembly produced: every tool that was built, and every
/// reference that failed, each failure naming its reference.
#[derive(Default)]
pub struct Assembly {
    /// `(reference index, tool)` for each reference that resolved.
    pub tools: Vec<(usize, Arc<dyn Tool>)>,
    /// One error per reference that did not.
    pub failures: Vec<Error>,
}

impl fmt::Debug for Assembly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Assembly")
            .field(
                "tools",
                &self
                    .tools
                    .iter()
                    .map(|(i, t)| (i, t.manifest().identifier.as_str()))
                    .collect::<Vec<_>>(),
            )
            .field("failures", &self.failures)
            .finish()
    }
}

impl Assembly {
    /// Whether every reference resolved.
    pub fn is_complete(&self) -> bool {
        self.failures.is_empty()
    }

    /// The family's one batch shape: the built tools in reference order, and
    /// each failure under the source `references[i]` of its reference, so
    /// `registry.register_all(assembly.into_partial())` registers what
    /// resolved and reports the rest (or `.into_complete()?` stops at any).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use tool_core::{ToolRegistry, assembly::{Assembler, ToolReference}};
    /// let references = [ToolReference::new("teleporter", "acme", "beam")];
    /// let loaded = Assembler::new().assemble(&references).await.into_partial();
    /// assert_eq!(loaded.failed()[0].source, "references[0]");
    /// let (tools, failed) = loaded.into_parts();
    /// let registered = ToolRegistry::new().register_all(tools);
    /// assert!(registered.is_complete() && failed.len() == 1);
    /// # });
    /// ```
    pub fn into_partial(self) -> Partial<Arc<dyn Tool>, Error> {
        let mut partial = Partial::new();
        for (_, tool) in self.tools {
            partial.push(tool);
        }
        for error in self.failures {
            let source = error
                .reference_index()
                .map_or_else(|| "references".to_owned(), |i| format!("references[{i}]"));
            partial.fail(source, error);
        }
        partial
    }

    /// Registers every built tool; registration failures (duplicate
    /// identifiers, collisions) are added to the returned failures.
    pub fn into_registry(self) -> (ToolRegistry, Vec<Error>) {
        let mut registry = ToolRegistry::new();
        let mut failures = self.failures;
        for (_, tool) in self.tools {
            if let Err(error) = registry.register_arc(tool) {
                failures.push(error);
            }
        }
        (registry, failures)
    }
}

impl Assembler {
    /// An assembler without providers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) the provider for its kind.
    pub fn with_provider(mut self, provider: impl ToolProvider + 'static) -> Self {
        self.add_provider(Arc::new(provider));
        self
    }

    /// Adds (or replaces) a shared provider for its kind.
    pub fn add_provider(&mut self, provider: Arc<dyn ToolProvider>) {
        self.providers.insert(provider.kind().to_owned(), provider);
    }

    /// The provider for a reference type: registered under exactly that
    /// spelling, else under another spelling of the same
    /// [`ToolKind`](crate::ToolKind).
    pub fn provider_for(&self, kind: &str) -> Option<&Arc<dyn ToolProvider>> {
        if let Some(provider) = self.providers.get(kind) {
            return Some(provider);
        }
        let kind = crate::ToolKind::parse(kind)?;
        std::iter::once(kind.as_str())
            .chain(kind.aliases().iter().copied())
            .find_map(|spelling| self.providers.get(spelling))
    }

    /// Resolves one reference (at position `index`, for error messages).
    pub async fn resolve(
        &self,
        index: usize,
        reference: &ToolReference,
    ) -> Result<Arc<dyn Tool>, Error> {
        let name = reference.to_string();
        let provider =
            self.provider_for(&reference.kind)
                .ok_or_else(|| Error::MissingProvider {
                    index,
                    reference: name.clone(),
                    kind: reference.kind.clone(),
                })?;
        provider
            .provide(reference)
            .await
            .map_err(|error| match error {
                ProvideError::NotFound(message) => Error::MissingTool {
                    index,
                    reference: name,
                    message,
                },
                ProvideError::InvalidParams(violations) => Error::InvalidParams {
                    index,
                    reference: name,
                    violations,
                },
                ProvideError::Failed(message) => Error::ProviderFailed {
                    index,
                    reference: name,
                    message,
                },
                source => Error::Provider {
                    index,
                    reference: name,
                    source,
                },
            })
    }

    /// Resolves every reference, collecting failures and going on: what
    /// loaded plus the list of what failed, nothing dropped silently.
    pub async fn assemble(&self, references: &[ToolReference]) -> Assembly {
        let results = futures::future::join_all(references.iter().enumerate().map(
            |(index, reference)| async move { (index, self.resolve(index, reference).await) },
        ))
        .await;
        let mut assembly = Assembly::default();
        for (index, result) in results {
            match result {
                Ok(tool) => assembly.tools.push((index, tool)),
                Err(error) => assembly.failures.push(error),
            }
        }
        assembly
    }

    /// Resolves every reference, stopping at the first failure.
    pub async fn assemble_strict(
        &self,
        references: &[ToolReference],
    ) -> Result<Vec<Arc<dyn Tool>>, Error> {
        let mut tools = Vec::with_capacity(references.len());
        for (index, reference) in references.iter().enumerate() {
            tools.push(self.resolve(index, reference).await?);
        }
        Ok(tools)
    }
}
