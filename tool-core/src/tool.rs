//! The `Tool` trait, and tools built from closures or typed handlers.

use std::borrow::Cow;
use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use async_trait::async_trait;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::context::ToolContext;
use crate::declare::{ApiDefinition, Executor, HumanIntervention, ToolManifest};
use crate::error::Error;
use crate::output::{ErrorCode, ToolError, ToolOutput};
use crate::schema::schema_for_args;
use crate::validate::{ManifestProblem, NameRules, manifest_problems, problems_error};

/// A tool: a manifest plus the code behind its APIs.
///
/// The invocation pipeline has already parsed and validated `args` against
/// the API's schema when [`Tool::call`] runs, and it enforces the timeout and
/// cancellation around it; a tool only does the work. Returning `Err` makes a
/// failed [`ToolOutput`] carrying that error.
///
/// Most tools are built with [`ToolBuilder`]; implement the trait by hand
/// for a tool whose APIs are known only at run time (a proxy for an MCP
/// server, an HTTP API compiled from a document).
///
/// # Scenarios
///
/// **A tool that waits on something else** (an HTTP server, a device, a
/// child process) takes its limits from the context: it stops when
/// [`ToolContext::cancellation`] fires and hands [`ToolContext::remaining`]
/// (or [`ToolContext::deadline`]) to whatever it waits on, so the remote side
/// gives up when the pipeline will.
///
/// ```
/// use tool_core::{ToolContext, ToolError, ToolOutput};
///
/// async fn fetch(url: &str, budget: Option<std::time::Duration>) -> Result<String, String> {
///     # let _ = budget;
///     Ok(format!("body of {url}"))
/// }
///
/// async fn call(url: &str, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
///     tokio::select! {
///         body = fetch(url, ctx.remaining()) => body
///             .map(ToolOutput::text)
///             .map_err(ToolError::execution_failed),
///         () = ctx.cancellation().cancelled() => Err(ToolError::execution_failed("stopped")),
///     }
/// }
/// ```
///
/// **Credentials per user** come from the host through typed extensions,
/// never from the model's arguments: `ctx.extension::<ApiToken>()`.
///
/// **A failure** is an `Err(ToolError)` with a specific code
/// ([`ErrorCode::new`]`("quota_exceeded")`) and a message that tells the
/// model what to do next. Non-text results (an image, a file) go beside the
/// text with [`ToolOutput::with_parts`].
///
/// **A tool that depends on the context** overrides
/// [`resolve_manifest`](Tool::resolve_manifest): `None` hides it, an owned
/// manifest trims it. Returning the static manifest borrowed lets the
/// registry hand out one cached snapshot for every turn.
///
/// # The wrong way
///
/// Rolling your own timeout: the pipeline already enforces the call's
/// budget (clamped between 1 s and 800 s, bounded by the host's deadline);
/// a longer private timer is dead code and a shorter one disagrees with what
/// the model was told. Ignoring cancellation: a task spawned and left
/// running keeps working (and spending) after the call has produced its
/// output. Contradicting yourself: `success: true` with an error, or
/// `success: false` without one.
///
/// ```
/// use std::time::Duration;
/// use tool_core::{ToolContext, ToolError, ToolOutput};
///
/// async fn long_job() {}
///
/// // Don't: a private timer and a detached task that outlives the call.
/// async fn wrong(_ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
///     tokio::spawn(long_job());
///     let _ = tokio::time::timeout(Duration::from_secs(600), long_job()).await;
///     let mut out = ToolOutput::text("done");
///     out.error = Some(ToolError::execution_failed("half done")); // contradicts `success`
///     Ok(out)
/// }
///
/// // Do: work under the call's token, fail with an error.
/// async fn right(ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
///     tokio::select! {
///         () = long_job() => Ok(ToolOutput::text("done")),
///         () = ctx.cancellation().cancelled() => Err(ToolError::execution_failed("stopped")),
///     }
/// }
/// ```
///
/// (The [`Invoker`](crate::Invoker) [normalises](ToolOutput::normalized)
/// a contradictory output into a failure, but the tool's intent is lost.)
#[async_trait]
pub trait Tool: Send + Sync + 'static {
    /// The static manifest (what is registered and validated).
    fn manifest(&self) -> &ToolManifest;

    /// The manifest to offer in `ctx`: `None` hides the tool, an owned value
    /// may trim its API list (for example inside a sub-agent). The default
    /// offers the static manifest unchanged.
    fn resolve_manifest(&self, ctx: &ToolContext) -> Option<Cow<'_, ToolManifest>> {
        let _ = ctx;
        Some(Cow::Borrowed(self.manifest()))
    }

    /// The name rules this tool's identifier and API names are validated
    /// under when it is registered (default [`NameRules::Strict`]). A tool
    /// named elsewhere (an MCP server, an OpenAPI `operationId`) returns
    /// [`NameRules::Foreign`]; the rules travel with the tool, so the
    /// registry stays strict for every other tool.
    fn name_rules(&self) -> NameRules {
        NameRules::Strict
    }

    /// Whether this tool can run its calls under the
    /// [`Confinement`](crate::Confinement) a gate puts on them: a tool that
    /// enforces it itself (tool-runtime's local system, with the OS
    /// sandbox) says so, and a gate the host did not tell reads it for this
    /// tool's calls. Default `None`: the tool does not say. A host's own
    /// statement to its gate always wins.
    fn confinement_support(&self) -> Option<&crate::ConfinementSupport> {
        None
    }

    /// Runs `api` with validated `args`.
    async fn call(
        &self,
        api: &str,
        args: Value,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError>;
}

/// One API implemented by a typed handler: the schema the model sees comes
/// from [`TypedApi::Args`] through `schemars`.
///
/// ```
/// use tool_core::{TypedApi, ToolBuilder, ToolContext, ToolError, ToolOutput};
///
/// #[derive(schemars::JsonSchema, serde::Deserialize)]
/// struct GreetArgs {
///     /// Who to greet.
///     name: String,
/// }
///
/// struct Greet;
///
/// #[async_trait::async_trait]
/// impl TypedApi for Greet {
///     type Args = GreetArgs;
///     fn name(&self) -> &str { "greet" }
///     fn description(&self) -> &str { "Greets someone." }
///     async fn call(&self, args: GreetArgs, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
///         Ok(ToolOutput::text(format!("Hello, {}!", args.name)))
///     }
/// }
///
/// let tool = ToolBuilder::new("greeter").typed_api(Greet).build().unwrap();
/// use tool_core::Tool;
/// assert_eq!(tool.manifest().api[0].parameters["required"][0], "name");
/// ```
#[async_trait]
pub trait TypedApi: Send + Sync + 'static {
    /// The argument type; its schema is what the model sees.
    type Args: JsonSchema + DeserializeOwned + Send + 'static;

    /// The API name.
    fn name(&self) -> &str;

    /// The API description for the model.
    fn description(&self) -> &str;

    /// Adjusts the generated definition (timeout, display control, policy).
    fn configure(&self, api: ApiDefinition) -> ApiDefinition {
        api
    }

    /// Runs the API.
    async fn call(&self, args: Self::Args, ctx: &ToolContext) -> Result<ToolOutput, ToolError>;
}

type Handler = Arc<
    dyn Fn(Value, ToolContext) -> BoxFuture<'static, Result<ToolOutput, ToolError>> + Send + Sync,
>;

type Resolver = Arc<dyn Fn(&ToolManifest, &ToolContext) -> Option<ToolManifest> + Send + Sync>;

/// A tool assembled by [`ToolBuilder`] from closures and typed handlers.
///
/// This is how a host publishes a function, a workflow or any async closure
/// as a tool.
#[derive(Clone)]
pub struct FnTool {
    manifest: ToolManifest,
    handlers: HashMap<String, Handler>,
    resolver: Option<Resolver>,
    rules: NameRules,
}

impl std::fmt::Debug for FnTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FnTool")
            .field("manifest", &self.manifest)
            .field("resolver", &self.resolver.is_some())
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl Tool for FnTool {
    fn manifest(&self) -> &ToolManifest {
        &self.manifest
    }

    fn name_rules(&self) -> NameRules {
        self.rules
    }

    fn resolve_manifest(&self, ctx: &ToolContext) -> Option<Cow<'_, ToolManifest>> {
        match &self.resolver {
            None => Some(Cow::Borrowed(&self.manifest)),
            Some(resolve) => resolve(&self.manifest, ctx).map(Cow::Owned),
        }
    }

    async fn call(
        &self,
        api: &str,
        args: Value,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let handler = self
            .handlers
            .get(api)
            .ok_or_else(|| self.manifest.unknown_api(api))?;
        handler(args, ctx.clone()).await
    }
}

/// Builds a [`FnTool`]: a manifest plus one handler per API.
///
/// ```
/// use tool_core::{ApiDefinition, ToolBuilder, ToolOutput};
/// use serde_json::json;
///
/// let tool = ToolBuilder::new("echo")
///     .title("Echo")
///     .api(
///         ApiDefinition::new("say", "Repeats the text.")
///             .with_parameters(json!({"type":"object","properties":{"text":{"type":"string"}}})),
///         |args, _ctx| async move {
///             Ok(ToolOutput::text(args["text"].as_str().unwrap_or_default().to_owned()))
///         },
///     )
///     .build()
///     .unwrap();
/// # let _ = tool;
/// ```
pub struct ToolBuilder {
    manifest: ToolManifest,
    handlers: HashMap<String, Handler>,
    resolver: Option<Resolver>,
    rules: NameRules,
}

impl std::fmt::Debug for ToolBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolBuilder")
            .field("manifest", &self.manifest)
            .finish_non_exhaustive()
    }
}

impl ToolBuilder {
    /// Starts a tool with this identifier.
    pub fn new(identifier: impl Into<String>) -> Self {
        Self {
            manifest: ToolManifest::new(identifier),
            handlers: HashMap::new(),
            resolver: None,
            rules: NameRules::Strict,
        }
    }

    /// Starts from an existing manifest; every API in it still needs a handler.
    pub fn from_manifest(manifest: ToolManifest) -> Self {
        Self {
            manifest,
            handlers: HashMap::new(),
            resolver: None,
            rules: NameRules::Strict,
        }
    }

    /// Which names [`build`](Self::build) accepts (default [`NameRules::Strict`]);
    /// the built tool carries them ([`Tool::name_rules`]), so a registry
    /// accepts it without loosening its rules for other tools.
    pub fn name_rules(mut self, rules: NameRules) -> Self {
        self.rules = rules;
        self
    }

    /// Sets the title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.manifest.meta.title = Some(title.into());
        self
    }

    /// Sets the description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.manifest.meta.description = Some(description.into());
        self
    }

    /// Sets the avatar.
    pub fn avatar(mut self, avatar: impl Into<String>) -> Self {
        self.manifest.meta.avatar = Some(avatar.into());
        self
    }

    /// Sets the system-prompt guidance.
    pub fn system_role(mut self, role: impl Into<String>) -> Self {
        self.manifest.system_role = Some(role.into());
        self
    }

    /// Sets the executors.
    pub fn executors(mut self, executors: impl IntoIterator<Item = Executor>) -> Self {
        self.manifest.executors = Some(executors.into_iter().collect());
        self
    }

    /// Sets the tool-level approval config.
    pub fn intervention(mut self, intervention: HumanIntervention) -> Self {
        self.manifest.human_intervention = Some(intervention);
        self
    }

    /// Sets the manifest's `type`.
    pub fn tool_kind(mut self, kind: crate::ToolKind) -> Self {
        self.manifest.kind = Some(kind);
        self
    }

    /// Adds (or, for an API already in the manifest, implements) a dynamic
    /// API that takes the raw JSON arguments.
    pub fn api<F, Fut>(mut self, definition: ApiDefinition, handler: F) -> Self
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
    {
        let name = definition.name.clone();
        match self.manifest.api.iter_mut().find(|a| a.name == name) {
            Some(existing) => *existing = definition,
            None => self.manifest.api.push(definition),
        }
        self.handlers.insert(
            name,
            Arc::new(move |args, ctx| Box::pin(handler(args, ctx))),
        );
        self
    }

    /// Implements an API already present in the manifest (see
    /// [`ToolBuilder::from_manifest`]) with a dynamic handler.
    pub fn handler<F, Fut>(mut self, api: impl Into<String>, handler: F) -> Self
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
    {
        self.handlers.insert(
            api.into(),
            Arc::new(move |args, ctx| Box::pin(handler(args, ctx))),
        );
        self
    }

    /// Adds an API whose arguments deserialise into `A`; the parameters
    /// schema is generated from `A` (the definition's own is replaced).
    pub fn typed<A, F, Fut>(self, definition: ApiDefinition, handler: F) -> Self
    where
        A: JsonSchema + DeserializeOwned + Send + 'static,
        F: Fn(A, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
    {
        let definition = definition.with_parameters(schema_for_args::<A>());
        let handler = Arc::new(handler);
        self.api(definition, move |args, ctx| {
            let handler = Arc::clone(&handler);
            async move {
                let args = deserialize_args::<A>(args)?;
                handler(args, ctx).await
            }
        })
    }

    /// Adds an API implemented by a [`TypedApi`].
    pub fn typed_api<T: TypedApi>(self, api: T) -> Self {
        let definition = api.configure(
            ApiDefinition::new(api.name(), api.description())
                .with_parameters(schema_for_args::<T::Args>()),
        );
        let api = Arc::new(api);
        self.api(definition, move |args, ctx| {
            let api = Arc::clone(&api);
            async move {
                let args = deserialize_args::<T::Args>(args)?;
                api.call(args, &ctx).await
            }
        })
    }

    /// Makes the manifest depend on the context: return `None` to hide the
    /// tool, or a trimmed copy of the manifest.
    pub fn resolver<F>(mut self, resolve: F) -> Self
    where
        F: Fn(&ToolManifest, &ToolContext) -> Option<ToolManifest> + Send + Sync + 'static,
    {
        self.resolver = Some(Arc::new(resolve));
        self
    }

    /// Validates the manifest and checks that every API has a handler;
    /// every problem is reported (see [`validate_manifest`](crate::validate::validate_manifest)).
    pub fn build(self) -> Result<FnTool, Error> {
        let mut problems = manifest_problems(&self.manifest, self.rules);
        for (index, api) in self.manifest.api.iter().enumerate() {
            if !self.handlers.contains_key(&api.name) {
                problems.push(ManifestProblem {
                    pointer: format!("/api/{index}"),
                    api: Some(api.name.clone()),
                    message: "no handler implements this API".into(),
                });
            }
        }
        if let Some(error) = problems_error(&self.manifest.identifier, problems) {
            return Err(error);
        }
        Ok(FnTool {
            manifest: self.manifest,
            handlers: self.handlers,
            resolver: self.resolver,
            rules: self.rules,
        })
    }
}

/// Deserialises validated JSON arguments into a typed value, as an
/// `invalid_arguments` error when the type is stricter than its schema.
pub fn deserialize_args<A: DeserializeOwned>(args: Value) -> Result<A, ToolError> {
    serde_json::from_value(args).map_err(|e| {
        ToolError::new(
            ErrorCode::INVALID_ARGUMENTS,
            format!("arguments do not fit the expected shape: {e}"),
        )
    })
}
