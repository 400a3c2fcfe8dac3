//! The core of the tool layer for LLM agents: declare tools, show them to a
//! model, and turn each model call into exactly one result with text for the
//! model and structured state for a UI.
//!
//! # Overview of the roles
//!
//! - [`ToolManifest`] / [`ApiDefinition`]: pure data describing a tool and its
//!   APIs, in the camelCase JSON shape hosts store. An API's arguments
//!   schema is a [`Parameters`](manifest::Parameters): a `Value` held whole, or, from importers
//!   writing thousands of APIs, composed of property schemas shared between
//!   them; it reads as the `Value` either way.
//! - [`Tool`]: a manifest plus code. [`ToolBuilder`] wraps closures and
//!   [`TypedApi`] handlers (schemas generated with `schemars`); the name
//!   rules a builder declares travel with the tool.
//! - [`ToolRegistry`]: identifier → tool, changed while in use (replace,
//!   remove); [`ToolRegistry::offer`] gives the [`OfferedTools`] of one
//!   context, an immutable shared snapshot that exports provider tool lists
//!   (also OpenAI strict mode, [`export::strict_schema`]) and resolves wire
//!   names ([`export::wire_name`]). [`LiveRegistry`] shares one between tasks.
//!   [`OfferedTools::system_prompt`] is the text the model needs beside the
//!   tool list: each offered tool's `system_role` (the skills catalog,
//!   local-system's working rules…), or `None` when no tool has one. Send
//!   it as (part of) the system message of every turn, or the model never
//!   sees the skills it may activate.
//! - [`Invoker`]: the pipeline from a raw [`ToolCall`] to a [`ToolOutput`]:
//!   parse (diagnosing cut-off JSON), validate, resolve the deadline, run with
//!   cancellation, normalise, cap content. The tool sees a [`ToolContext`]
//!   carrying the call id, its deadlines and the host's typed [`Extensions`].
//! - [`Gate`] and [`Asker`]: approval as a step of the pipeline. An invoker
//!   built [`with_gate`](Invoker::with_gate) decides every prepared call
//!   (run / ask / block, with the reason and the [`Confinement`] it runs
//!   under), puts the asks of a batch to the host's asker together, and
//!   returns ready [blocked](ToolOutput::blocked) and
//!   [declined](ToolOutput::declined) outputs; tool-approval's
//!   `PolicyEngine` is the full gate.
//! - [`durable`]: approvals and tool questions as data. A batch returns a
//!   MAC'd, bound [`durable::Pending`] for what waits for a person instead
//!   of waiting ([`Invoker::invoke_turn`]); any process resumes it
//!   ([`Invoker::resume`]), once (a use-once ledger), failing closed when
//!   the call, the tool, the policy or the scope changed.
//! - [`taint`]: what a conversation has taken in. Each API's
//!   [`taint::Capabilities`] (private reads, untrusted content, a way
//!   out); a serialisable [`taint::Ledger`] the invoker keeps
//!   ([`Invoker::with_session`]); the [`taint::TaintGate`] that holds back
//!   an egress call carrying a destination from untrusted content or
//!   private data to a destination the user did not name
//!   (`taint/trifecta`).
//! - [`telemetry`]: what a host sees of each call through `tracing`: an
//!   `execute_tool` span in the OpenTelemetry GenAI conventions, the
//!   gate's decision and the answer as events on it, metric events; what
//!   is recorded and what never is (argument values, content, credentials).
//! - [`Confinement`] and [`approval::PathClass`]: what a call that runs may touch on
//!   the host, and the named protected and secret path classes both walls
//!   (approval and the OS sandbox) read.
//! - [`ToolOutput`]: text for the model, state for a UI, a typed error; typed
//!   [`ContentPart`]s (images, files…) beside the text.
//! - [`ProviderFormat`]: OpenAI Chat, OpenAI Responses and Anthropic messages
//!   both ways: assistant turns → [`ToolCall`]s, outputs → tool results.
//! - [`search`]: thousands of APIs in one turn. A BM25 and regex index
//!   over every kind of tool, kept up to date one tool at a time; deferred
//!   definitions (per manifest, tool, kind or over a budget) exported with
//!   each provider's own tool search or our portable `tool_search`, the
//!   loaded set carried from turn to turn as data, and a size report per
//!   export ([`search::ToolSearch`]).
//! - [`assembly`]: stored [`ToolReference`](assembly::ToolReference)s →
//!   runtime tools via [`ToolProvider`](assembly::ToolProvider)s, keyed by
//!   [`ToolKind`].
//! - [`export::SurfaceTable`]: `identifier → api → T` lookups for host UI surfaces.
//! - Shared contracts: [`ApiKey`] (`identifier/apiName`), [`ToolKind`],
//!   [`approval::ArgRole`] (what an argument is: path, shell command…),
//!   [`ConfinementSupport`],
//!   [`approval::PATH_SCOPE_AUDIT`], the [`ErrorCode`] constants.
//!
//! # Where names live
//!
//! The root holds what a host touches on every turn (declaring, offering,
//! invoking, gating, the output and its errors, [`Partial`] for batch
//! loads); the rest lives in a module per concept:
//!
//! | module | holds |
//! |---|---|
//! | [`manifest`] | the declaration format: manifests, APIs, intervention rules, parameters, validation |
//! | [`pipeline`] | the steps from a raw call to an output: argument parsing and diagnosis, schemas, prepared calls, caps |
//! | [`approval`] | the gate's ready answers, argument roles, path classes, egress |
//! | [`export`] | provider exports: wire names, strict mode, UI surface tables |
//! | [`assembly`] | stored references to runtime tools through providers |
//! | [`content`] | typed non-text parts and chat attachments |
//! | [`durable`], [`taint`], [`telemetry`], [`search`] | turns as data, what a conversation took in, tracing, tool search |
//!
//! # Example
//!
//! ```
//! use tool_core::prelude::*;
//!
//! #[derive(schemars::JsonSchema, serde::Deserialize)]
//! struct AddArgs {
//!     /// First addend.
//!     a: f64,
//!     /// Second addend.
//!     b: f64,
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let mut registry = ToolRegistry::new();
//! registry.register(
//!     ToolBuilder::new("math")
//!         .typed(ApiDefinition::new("add", "Adds two numbers."), |args: AddArgs, _ctx| async move {
//!             let sum = args.a + args.b;
//!             Ok(ToolOutput::with_state(sum.to_string(), serde_json::json!({ "sum": sum })))
//!         })
//!         .build()?,
//! )?;
//!
//! let ctx = ToolContext::new();
//! let offered = registry.offer(&ctx);
//! let tools_for_openai = offered.openai_chat_tools();
//! assert_eq!(tools_for_openai[0]["function"]["name"], "math____add");
//! // What goes into the system message beside the tools (none here).
//! assert_eq!(offered.system_prompt(), None);
//!
//! let invoker = Invoker::default();
//! let ok = invoker.invoke(&offered, &ToolCall::new("math____add", r#"{"a":1,"b":2}"#), &ctx).await;
//! assert_eq!(ok.content, "3");
//!
//! let bad = invoker.invoke(&offered, &ToolCall::new("math____add", r#"{"a":"one"}"#), &ctx).await;
//! assert_eq!(bad.error_code().unwrap(), "invalid_arguments");
//!
//! // A whole turn with a provider: its answer in, the result messages out.
//! let answer = serde_json::json!({"role": "assistant", "tool_calls": [{
//!     "id": "call_1", "type": "function",
//!     "function": {"name": "math____add", "arguments": "{\"a\":2,\"b\":2}"}
//! }]});
//! let calls = ProviderFormat::OpenAiChat.tool_calls(&answer)?;
//! let outputs = invoker.invoke_batch(&offered, &calls, &ctx).await;
//! let messages = ProviderFormat::OpenAiChat.tool_results(&calls, &outputs)?;
//! assert_eq!(messages[0]["content"], "4");
//! # Ok::<(), tool_core::Error>(())
//! # }).unwrap();
//! ```
//!
//! # Crate features
//!
#![cfg_attr(
    feature = "net",
    doc = "- `net` (off by default): [`net`], the network guard, an SSRF-guarded"
)]
#![cfg_attr(
    not(feature = "net"),
    doc = "- `net` (off by default): the module `net`, the network guard, an SSRF-guarded"
)]
//!   `reqwest` client (resolver filter, peer check, redirect rule, no
//!   proxies, capped bodies) that tool-openapi and tool-mcp both build
//!   their clients from. Pulls reqwest, hyper-util, url and ipnet.
//!
//! Without features `tool-core` has no I/O and does not depend on an HTTP
//! client, an MCP SDK or a process spawner.
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod api_hints;
mod api_key;
mod arg_role;
mod arguments;
pub mod assembly;
mod capability;
mod compiled;
mod confine;
pub mod content;
mod context;
mod declare;
pub mod durable;
mod error;
pub mod export;
mod extensions;
mod gate;
mod invoke;
mod kinds;
mod live;
mod manifest_problem;
mod naming;
#[cfg(feature = "net")]
#[cfg_attr(docsrs, doc(cfg(feature = "net")))]
pub mod net;
mod offered;
mod output;
mod parameters;
mod partial;
mod path_class;
mod prepared;
mod provide_error;
mod provider;
mod registry;
mod schema;
pub mod search;
mod shared_defs;
mod strict;
mod suggest;
mod surface;
mod synthetic;
pub mod taint;
mod talk;
pub mod telemetry;
mod tool;
mod validate;
mod violation;

pub use api_key::ApiKey;
pub use confine::{Confinement, ConfinementSupport};
pub use content::ContentPart;
pub use context::ToolContext;
pub use declare::{ApiDefinition, HumanIntervention, InterventionPolicy, ToolManifest, ToolMeta};
pub use error::Error;
pub use extensions::Extensions;
pub use gate::{Answer, Ask, Asker, Gate, GateAction, GateDecision};
pub use invoke::{InvokeConfig, Invoker, ToolCall};
pub use kinds::ToolKind;
pub use live::LiveRegistry;
pub use offered::{OfferedTool, OfferedTools};
pub use output::{ErrorCode, ToolError, ToolOutput};
pub use partial::{Failed, Incomplete, Partial};
pub use provider::{ProviderFormat, ResultOptions};
pub use registry::ToolRegistry;
pub use talk::{CallEvents, Elicitation, Elicited, LogLevel, Progress};
pub use tool::{FnTool, Tool, ToolBuilder, TypedApi};

/// The declaration format: manifests, APIs and their intervention rules,
/// parameters schemas (shared definitions for importers), and validation
/// with the name rules a tool declares.
pub mod manifest {
    pub use crate::api_hints::{ApiHints, TaskSupport};
    pub use crate::declare::{
        ApiDefinition, ArgMatcher, DynamicIntervention, Executor, HumanIntervention,
        InterventionPolicy, InterventionRule, ProviderHints, RenderDisplayControl, RuleExamples,
        ToolManifest, ToolMeta, json_kind,
    };
    pub use crate::manifest_problem::ManifestProblem;
    pub use crate::parameters::Parameters;
    pub use crate::shared_defs::SharedDefs;
    pub use crate::validate::{
        NameRules, is_valid_name, manifest_problems, validate_manifest, validate_manifest_with,
    };
}

/// Approval's shared vocabulary: the gate's ready-made answers and the
/// texts of refused calls, what an argument is ([`ArgRole`](approval::ArgRole)),
/// the protected and secret path classes both walls read, and where a
/// confined call may connect.
pub mod approval {
    pub use crate::arg_role::{ArgRole, ROLE_KEY, role};
    pub use crate::confine::Egress;
    pub use crate::gate::{
        APPROVAL_REQUIRED_CONTENT, ApproveAll, BLOCKED_CONTENT, DECLINED_CONTENT, DeclineAll,
    };
    pub use crate::kinds::PATH_SCOPE_AUDIT;
    pub use crate::path_class::{EXAMPLE_HOME, PathClass, PathRole};
}

/// The steps between a raw call and its output, for hosts that drive them
/// one by one: argument parsing and diagnosis, schema compilation and
/// validation, prepared and synthetic calls, content caps and the
/// invoker's limits.
pub mod pipeline {
    pub use crate::arguments::{ArgumentsProblem, diagnose as diagnose_arguments, parse_arguments};
    pub use crate::compiled::CompiledSchema;
    pub use crate::invoke::{
        DEFAULT_MAX_CONTENT_CHARS, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, MIN_TIMEOUT_MS, cap_content,
        mint_call_id,
    };
    pub use crate::prepared::PreparedCall;
    pub use crate::schema::schema_for_args;
    pub use crate::suggest::nearest_candidates;
    pub use crate::synthetic::SyntheticCall;
    pub use crate::tool::deserialize_args;
    pub use crate::violation::Violation;
}

/// What a host uses, in one import: `use tool_core::prelude::*;`.
///
/// Declaring tools ([`ToolBuilder`], [`ApiDefinition`], [`Tool`]), holding
/// them ([`ToolRegistry`], [`OfferedTools`]), one turn with a provider
/// ([`ProviderFormat`], [`ToolCall`], [`Invoker`], [`ToolContext`],
/// [`ToolOutput`], [`ToolError`]), approval in the pipeline ([`Gate`],
/// [`Asker`], [`Answer`], [`Confinement`]) and batch loads ([`Partial`]).
/// Everything else stays at the crate root.
pub mod prelude {
    #[doc(no_inline)]
    pub use crate::{
        Answer, ApiDefinition, Ask, Asker, Confinement, Elicitation, Elicited, Gate, GateDecision,
        Invoker, OfferedTools, Partial, ProviderFormat, Tool, ToolBuilder, ToolCall, ToolContext,
        ToolError, ToolOutput, ToolRegistry,
    };
}

/// Re-exported so hosts and tool crates share one token type.
pub use tokio_util::sync::CancellationToken;
