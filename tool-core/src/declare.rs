//! Tool manifests: the pure-data description of a tool and its APIs.
//!
//! A manifest serialises to the camelCase JSON shape hosts already store
//! (`identifier`, `meta`, `api[]`, `executors`, `humanIntervention`,
//! `systemRole`, `type`). It never holds functions: a dynamic approval audit
//! is named by its `type` string and resolved by whoever evaluates policy.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The description of one tool: what it is called, what it offers, where it runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolManifest {
    /// Unique identifier, `[A-Za-z0-9_-]+`.
    pub identifier: String,
    /// Display metadata.
    #[serde(default)]
    pub meta: ToolMeta,
    /// The APIs (functions) the tool offers.
    #[serde(default)]
    pub api: Vec<ApiDefinition>,
    /// Where the tool can run. `None` means server only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executors: Option<Vec<Executor>>,
    /// Tool-level default approval policy (an API-level one shadows it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub human_intervention: Option<HumanIntervention>,
    /// Guidance for the model, placed in the system prompt when the tool is offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_role: Option<String>,
    /// What kind of tool this is (`"type"`: `builtin`, `api`, `mcp`, `skill`,
    /// `function`; older spellings such as `builtin_tool` are read, see
    /// [`ToolKind`](crate::ToolKind)). A stored manifest with a `type` none
    /// of these name fails to load with an error naming it, rather than
    /// losing it.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<crate::ToolKind>,
}

impl ToolManifest {
    /// The manifest's `type`, when it has one.
    pub fn tool_kind(&self) -> Option<crate::ToolKind> {
        self.kind
    }

    /// A manifest with an identifier and nothing else.
    pub fn new(identifier: impl Into<String>) -> Self {
        Self {
            identifier: identifier.into(),
            meta: ToolMeta::default(),
            api: Vec::new(),
            executors: None,
            human_intervention: None,
            system_role: None,
            kind: None,
        }
    }

    /// The API called `name`, if the manifest has one.
    pub fn api(&self, name: &str) -> Option<&ApiDefinition> {
        self.api.iter().find(|api| api.name == name)
    }

    /// The API called `name`, or the [`unknown_api`](Self::unknown_api)
    /// error: the one check a [`Tool::call`](crate::Tool::call) makes when
    /// it is called directly, outside the [`Invoker`](crate::Invoker)
    /// (which resolves the API before any tool runs).
    ///
    /// ```
    /// use tool_core::{ApiDefinition, ErrorCode, ToolManifest};
    /// let mut manifest = ToolManifest::new("files");
    /// manifest.api.push(ApiDefinition::new("readFile", "Reads a file."));
    /// assert!(manifest.require_api("readFile").is_ok());
    /// let error = manifest.require_api("readfile").unwrap_err();
    /// assert_eq!(error.code, ErrorCode::UNKNOWN_API);
    /// assert!(error.message.contains("did you mean `readFile`?"), "{}", error.message);
    /// ```
    #[allow(clippy::result_large_err)] // handed straight to the model as the call's error
    pub fn require_api(&self, name: &str) -> Result<&ApiDefinition, crate::ToolError> {
        self.api(name).ok_or_else(|| self.unknown_api(name))
    }

    /// The error for a call of an API this tool does not have: names the
    /// tool, the nearest API names (a model's slip such as `readfile`) or
    /// else every API, with code [`UNKNOWN_API`](crate::ErrorCode::UNKNOWN_API)
    /// and details `{tool, api, available}`.
    pub fn unknown_api(&self, name: &str) -> crate::ToolError {
        let names = self.api.iter().map(|api| api.name.as_str());
        let nearest = crate::pipeline::nearest_candidates(name, names.clone());
        let hint = if nearest.is_empty() {
            let all: Vec<&str> = names.clone().collect();
            if all.is_empty() {
                "it has no APIs".to_owned()
            } else {
                format!("its APIs: {}", all.join(", "))
            }
        } else {
            let quoted: Vec<String> = nearest.iter().map(|n| format!("`{n}`")).collect();
            format!("did you mean {}?", quoted.join(" or "))
        };
        crate::ToolError::new(
            crate::ErrorCode::UNKNOWN_API,
            format!("tool `{}` has no API `{name}`; {hint}", self.identifier),
        )
        .with_details(serde_json::json!({
            "tool": self.identifier,
            "api": name,
            "available": names.collect::<Vec<_>>(),
        }))
    }

    /// The executors this tool can run on; an absent list means server only.
    pub fn executors(&self) -> &[Executor] {
        match &self.executors {
            Some(list) => list,
            None => &[Executor::Server],
        }
    }

    /// The approval config that applies to `api`: the API's own, else the tool's.
    pub fn intervention_for(&self, api: &str) -> Option<&HumanIntervention> {
        self.api(api)
            .and_then(|a| a.human_intervention.as_ref())
            .or(self.human_intervention.as_ref())
    }
}

/// Display metadata of a tool.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolMeta {
    /// Human title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Human description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// An emoji, URL or icon name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avatar: Option<String>,
}

/// One API (function) of a tool.
///
/// Serialises with its [`parameters_schema`](Self::parameters_schema), so a
/// stored or exported API is self-contained whether or not it holds
/// [`SharedDefs`](crate::shared_defs::SharedDefs).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiDefinition {
    /// Name, `[A-Za-z0-9_-]+`, unique within the tool.
    pub name: String,
    /// What the API does, as the model reads it.
    #[serde(default)]
    pub description: String,
    /// JSON Schema of the arguments, as the model receives it, less the
    /// [`SharedDefs`](crate::shared_defs::SharedDefs) it refers to when it has some
    /// ([`parameters_schema`](Self::parameters_schema) is the whole schema).
    ///
    /// Held whole or composed of shared property schemas (see
    /// [`Parameters`](crate::parameters::Parameters)); either way it reads, serialises
    /// and compares as the JSON Schema [`Value`].
    #[serde(default)]
    pub parameters: crate::parameters::Parameters,
    /// Default time budget of one call, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_timeout_ms: Option<u64>,
    /// How a UI shows the result card by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub render_display_control: Option<RenderDisplayControl>,
    /// API-level approval config.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub human_intervention: Option<HumanIntervention>,
    /// The API reads or writes the host's files or starts processes on it
    /// (a local computer, a script runner). A gate gives its calls a
    /// [`Confinement`](crate::Confinement) and the tool applies it; where the
    /// host cannot confine, unattended calls ask or are blocked instead.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub touches_host: bool,
    /// Offer only the API's name to search until a search loads it (see
    /// [`search::DeferPolicy`](crate::search::DeferPolicy)).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub defer_loading: bool,
    /// Example arguments, each a JSON object valid against the parameters
    /// (Anthropic receives them as `input_examples`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<serde_json::Map<String, Value>>,
    /// Provider-specific options passed through where the provider takes
    /// them (see [`ProviderHints`]).
    #[serde(default, skip_serializing_if = "ProviderHints::is_empty")]
    pub provider: ProviderHints,
    /// JSON Schema of the result's `state`, when the API promises one (MCP
    /// serves it as the tool's `outputSchema`, with the state as
    /// `structuredContent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// What the API can do to data (private reads, untrusted content, a
    /// way out), when its author says; `None` lets the host derive it from
    /// the tool's source (see [`taint::derive_capabilities`](crate::taint::derive_capabilities)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<crate::capability::Capabilities>,
    /// What a client may assume about the API's effects (MCP tool
    /// annotations), as its author or its server states them.
    #[serde(default, skip_serializing_if = "crate::api_hints::ApiHints::is_empty")]
    pub hints: crate::api_hints::ApiHints,
    /// Whether the API runs as a task (MCP `execution.taskSupport`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_support: Option<crate::api_hints::TaskSupport>,
    /// Metadata the API's source attached (MCP tool `_meta`), passed on
    /// unchanged; nothing here reaches the model.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<serde_json::Map<String, Value>>,
    /// Definitions held once for many APIs that `parameters` may refer to.
    #[serde(skip)]
    shared_defs: Option<crate::shared_defs::SharedDefs>,
}

impl Serialize for ApiDefinition {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        /// The stored shape, with the whole parameters schema.
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Stored<'a> {
            name: &'a str,
            description: &'a str,
            parameters: std::borrow::Cow<'a, Value>,
            #[serde(skip_serializing_if = "Option::is_none")]
            default_timeout_ms: Option<u64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            render_display_control: Option<RenderDisplayControl>,
            #[serde(skip_serializing_if = "Option::is_none")]
            human_intervention: Option<&'a HumanIntervention>,
            #[serde(skip_serializing_if = "std::ops::Not::not")]
            touches_host: bool,
            #[serde(skip_serializing_if = "std::ops::Not::not")]
            defer_loading: bool,
            #[serde(skip_serializing_if = "<[_]>::is_empty")]
            examples: &'a [serde_json::Map<String, Value>],
            #[serde(skip_serializing_if = "ProviderHints::is_empty")]
            provider: &'a ProviderHints,
            #[serde(skip_serializing_if = "Option::is_none")]
            output_schema: Option<&'a Value>,
            #[serde(skip_serializing_if = "Option::is_none")]
            capabilities: Option<crate::capability::Capabilities>,
            #[serde(skip_serializing_if = "crate::api_hints::ApiHints::is_empty")]
            hints: crate::api_hints::ApiHints,
            #[serde(skip_serializing_if = "Option::is_none")]
            task_support: Option<crate::api_hints::TaskSupport>,
            #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
            meta: Option<&'a serde_json::Map<String, Value>>,
        }
        Stored {
            name: &self.name,
            description: &self.description,
            parameters: self.parameters_schema(),
            default_timeout_ms: self.default_timeout_ms,
            render_display_control: self.render_display_control,
            human_intervention: self.human_intervention.as_ref(),
            touches_host: self.touches_host,
            defer_loading: self.defer_loading,
            examples: &self.examples,
            provider: &self.provider,
            output_schema: self.output_schema.as_ref(),
            capabilities: self.capabilities,
            hints: self.hints,
            task_support: self.task_support,
            meta: self.meta.as_ref(),
        }
        .serialize(serializer)
    }
}

impl ApiDefinition {
    /// An API with a name, a description and parameters `{"type":"object"}`.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            parameters: crate::parameters::Parameters::default(),
            default_timeout_ms: None,
            render_display_control: None,
            human_intervention: None,
            touches_host: false,
            defer_loading: false,
            examples: Vec::new(),
            provider: ProviderHints::default(),
            output_schema: None,
            capabilities: None,
            hints: crate::api_hints::ApiHints::default(),
            task_support: None,
            meta: None,
            shared_defs: None,
        }
    }

    /// Replaces the parameters schema: a [`Value`], or [`Parameters`](crate::parameters::Parameters)
    /// composed of shared property schemas.
    pub fn with_parameters(mut self, parameters: impl Into<crate::parameters::Parameters>) -> Self {
        self.parameters = parameters.into();
        self
    }

    /// Lets [`parameters`](Self::parameters) refer (`"$ref":
    /// "#/$defs/NAME"`) to definitions held once for many APIs instead of
    /// carrying its own copies; see [`SharedDefs`](crate::shared_defs::SharedDefs).
    pub fn with_shared_defs(mut self, defs: crate::shared_defs::SharedDefs) -> Self {
        self.shared_defs = Some(defs);
        self
    }

    /// The shared definitions [`parameters`](Self::parameters) may refer to.
    pub fn shared_defs(&self) -> Option<&crate::shared_defs::SharedDefs> {
        self.shared_defs.as_ref()
    }

    /// The whole JSON Schema of the arguments, as the model receives it:
    /// [`parameters`](Self::parameters) with the shared definitions it
    /// reaches added under `$defs`. Borrowed when there are none to add.
    ///
    /// A [composed](crate::parameters::Parameters::from_properties) schema not yet read
    /// through `Deref` is built here and not kept.
    pub fn parameters_schema(&self) -> std::borrow::Cow<'_, Value> {
        use std::borrow::Cow;
        let own = self.parameters.to_cow();
        let Some(defs) = &self.shared_defs else {
            return own;
        };
        match own {
            Cow::Borrowed(own) => defs.complete(own),
            Cow::Owned(own) => {
                if let Cow::Owned(complete) = defs.complete(&own) {
                    return Cow::Owned(complete);
                }
                Cow::Owned(own)
            }
        }
    }

    /// Sets the default timeout in milliseconds.
    pub fn with_default_timeout_ms(mut self, ms: u64) -> Self {
        self.default_timeout_ms = Some(ms);
        self
    }

    /// Sets the display control.
    pub fn with_display_control(mut self, control: RenderDisplayControl) -> Self {
        self.render_display_control = Some(control);
        self
    }

    /// Sets the API-level approval config.
    pub fn with_intervention(mut self, intervention: HumanIntervention) -> Self {
        self.human_intervention = Some(intervention);
        self
    }

    /// Declares the schema of the result's `state`.
    pub fn with_output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// Declares what the API can do to data (see
    /// [`ApiDefinition::capabilities`]).
    pub fn with_capabilities(mut self, capabilities: crate::capability::Capabilities) -> Self {
        self.capabilities = Some(capabilities);
        self
    }

    /// States the API's effect hints (see [`ApiDefinition::hints`]).
    pub fn with_hints(mut self, hints: crate::api_hints::ApiHints) -> Self {
        self.hints = hints;
        self
    }

    /// States whether the API runs as a task (see
    /// [`ApiDefinition::task_support`]).
    pub fn with_task_support(mut self, support: crate::api_hints::TaskSupport) -> Self {
        self.task_support = Some(support);
        self
    }

    /// Adds an example of the arguments (see [`ApiDefinition::examples`]).
    pub fn with_example(mut self, example: serde_json::Map<String, Value>) -> Self {
        self.examples.push(example);
        self
    }

    /// Sets the provider options (see [`ProviderHints`]).
    pub fn with_provider_hints(mut self, hints: ProviderHints) -> Self {
        self.provider = hints;
        self
    }

    /// Marks the API as deferred (see [`ApiDefinition::defer_loading`]).
    pub fn deferred(mut self) -> Self {
        self.defer_loading = true;
        self
    }

    /// Marks the API as touching the host (see [`ApiDefinition::touches_host`]).
    pub fn touching_host(mut self) -> Self {
        self.touches_host = true;
        self
    }
}

/// Provider-specific options of an API, kept as data and exported where the
/// provider takes them.
///
/// | field | Anthropic | OpenAI Chat / Responses |
/// |---|---|---|
/// | `allowedCallers` | `allowed_callers` (`direct`, `code_execution_…`) | — |
/// | `strict` | `strict` | `strict` |
///
/// (OpenAI Responses namespaces come from the deferral policy, one per tool;
/// see [`search::DeferPolicy`](crate::search::DeferPolicy).)
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ProviderHints {
    /// Who may call the API on Anthropic (`direct`, or a code execution
    /// tool version for programmatic calls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_callers: Option<Vec<String>>,
    /// Ask the provider to enforce the schema strictly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
}

impl ProviderHints {
    /// Whether no option is set.
    pub fn is_empty(&self) -> bool {
        self.allowed_callers.is_none() && self.strict.is_none()
    }
}

/// Whether a result card starts collapsed or expanded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RenderDisplayControl {
    /// Collapsed until the user opens it (the default).
    #[default]
    Collapsed,
    /// Expanded when it appears.
    Expand,
    /// Always expanded.
    AlwaysExpand,
}

/// Where a tool can execute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Executor {
    /// On the user's device (reverse dispatch from the server).
    Client,
    /// In the host process.
    Server,
}

/// An approval policy, weakest to strongest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum InterventionPolicy {
    /// Run without asking.
    Never,
    /// Ask a human; a trusting approval mode may skip the ask.
    Required,
    /// Ask a human; no mode skips it.
    Always,
    /// Never run and never ask: the call is blocked.
    Deny,
}

impl InterventionPolicy {
    /// The policy's wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Never => "never",
            Self::Required => "required",
            Self::Always => "always",
            Self::Deny => "deny",
        }
    }

    /// The stricter of two policies (`deny > always > required > never`).
    pub fn strictest(self, other: Self) -> Self {
        self.max(other)
    }
}

impl std::fmt::Display for InterventionPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Approval configuration in any of its three JSON forms.
///
/// ```
/// use tool_core::{HumanIntervention, InterventionPolicy};
/// let p: HumanIntervention = serde_json::from_str(r#""required""#).unwrap();
/// assert_eq!(p, HumanIntervention::Policy(InterventionPolicy::Required));
/// let d: HumanIntervention =
///     serde_json::from_str(r#"{"dynamic":{"type":"pathScopeAudit"}}"#).unwrap();
/// let HumanIntervention::Dynamic { dynamic } = d else { unreachable!() };
/// assert_eq!(dynamic.policy, InterventionPolicy::Always);
/// assert_eq!(dynamic.default, InterventionPolicy::Never);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum HumanIntervention {
    /// A single policy string.
    Policy(InterventionPolicy),
    /// An ordered rule list; see [`InterventionRule`].
    Rules(Vec<InterventionRule>),
    /// A dynamic audit named by type.
    Dynamic {
        /// The dynamic audit reference.
        dynamic: DynamicIntervention,
    },
}

/// One approval rule: when every matcher in `match` matches, `policy` applies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InterventionRule {
    /// Parameter name → matcher. Absent means the rule always matches.
    #[serde(default, rename = "match", skip_serializing_if = "Option::is_none")]
    pub matches: Option<BTreeMap<String, ArgMatcher>>,
    /// The policy when the rule matches.
    pub policy: InterventionPolicy,
    /// Self-checks: values the rule must and must not match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub examples: Option<RuleExamples>,
}

/// Values a rule is expected to match and not to match, checked when loaded.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RuleExamples {
    /// Argument objects (or bare values for single-parameter rules) that must match.
    #[serde(default, rename = "match")]
    pub matches: Vec<Value>,
    /// Argument objects (or bare values) that must not match.
    #[serde(default)]
    pub not_match: Vec<Value>,
}

/// How a rule matches one parameter value. Semantics live in `tool-approval`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ArgMatcher {
    /// `"git add:*"` (command prefix), a glob with `*`/`**`/`?`, or equality.
    Pattern(String),
    /// An anchored regular expression.
    Regex {
        /// The pattern, matched against the whole value.
        regex: String,
    },
}

/// A reference to a dynamic audit function, resolved by type name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DynamicIntervention {
    /// The audit's registered type name, e.g. `pathScopeAudit`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Policy when the audit flags the call (default `always`).
    #[serde(default = "policy_always")]
    pub policy: InterventionPolicy,
    /// Policy when the audit passes (default `never`).
    #[serde(default = "policy_never")]
    pub default: InterventionPolicy,
}

impl DynamicIntervention {
    /// A dynamic audit of type `kind` with the default policies (`always`
    /// when it flags the call, `never` when it passes).
    pub fn new(kind: impl Into<String>) -> Self {
        Self {
            kind: kind.into(),
            policy: InterventionPolicy::Always,
            default: InterventionPolicy::Never,
        }
    }

    /// The [`PATH_SCOPE_AUDIT`](crate::approval::PATH_SCOPE_AUDIT) audit with the default policies.
    pub fn path_scope_audit() -> Self {
        Self::new(crate::kinds::PATH_SCOPE_AUDIT)
    }

    /// Whether this is the path-scope audit.
    pub fn is_path_scope_audit(&self) -> bool {
        self.kind == crate::kinds::PATH_SCOPE_AUDIT
    }
}

fn policy_always() -> InterventionPolicy {
    InterventionPolicy::Always
}

fn policy_never() -> InterventionPolicy {
    InterventionPolicy::Never
}

impl<'de> Deserialize<'de> for HumanIntervention {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let value = Value::deserialize(deserializer)?;
        match value {
            Value::String(_) => serde_json::from_value(value)
                .map(Self::Policy)
                .map_err(|_| D::Error::custom(
                    "humanIntervention: unknown policy, expected one of never, required, always, deny",
                )),
            Value::Array(items) => {
                let mut rules = Vec::with_capacity(items.len());
                for (index, item) in items.into_iter().enumerate() {
                    let rule = serde_json::from_value(item).map_err(|e| {
                        D::Error::custom(format!("humanIntervention[{index}]: {e}"))
                    })?;
                    rules.push(rule);
                }
                Ok(Self::Rules(rules))
            }
            Value::Object(mut map) if map.len() == 1 && map.contains_key("dynamic") => {
                let dynamic = map.remove("dynamic").unwrap_or(Value::Null);
                let dynamic = serde_json::from_value(dynamic)
                    .map_err(|e| D::Error::custom(format!("humanIntervention.dynamic: {e}")))?;
                Ok(Self::Dynamic { dynamic })
            }
            other => Err(D::Error::custom(format!(
                "humanIntervention: expected a policy string, a rule array or {{\"dynamic\": …}}, got {}",
                json_kind(&other)
            ))),
        }
    }
}

/// A short name of a JSON value's kind for error messages (`"a string"`,
/// `"an array"`, `"null"`…), so every crate says "expected an object, got
/// an array" the same way.
///
/// ```
/// assert_eq!(tool_core::manifest::json_kind(&serde_json::json!([1])), "an array");
/// assert_eq!(tool_core::manifest::json_kind(&serde_json::Value::Null), "null");
/// ```
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
