//! Audits: the two audit traits, global audits (every call) and dynamic
//! audits (named by a manifest's `{dynamic: {type}}`), and the built-in
//! ones, the [`Blacklist`] (global) and the [`PathScopeAudit`] (dynamic).

use std::fmt;

use serde_json::Value;
use tool_core::{InterventionPolicy, ToolContext};

use crate::call::CallRef;
use crate::call::arguments::FoundArgument;
use crate::call::facts::CallFacts;
use crate::shell::ShellCommand;

mod blacklist;
mod path_scope;

pub(crate) use blacklist::builtin_rows_checked;
pub use blacklist::{Blacklist, BlacklistEntry};
pub use path_scope::PathScopeAudit;

/// What an audit sees: the call, the host's context, and the facts the
/// engine found once for this call (path and command arguments, each
/// command parsed once).
#[derive(Debug, Clone, Copy)]
pub struct AuditInput<'a> {
    /// The call under evaluation.
    pub call: &'a CallRef<'a>,
    /// The host's context (working directory and so on). Models cannot set it.
    pub ctx: &'a ToolContext,
    facts: &'a CallFacts<'a>,
}

impl<'a> AuditInput<'a> {
    pub(crate) fn new(
        call: &'a CallRef<'a>,
        ctx: &'a ToolContext,
        facts: &'a CallFacts<'a>,
    ) -> Self {
        Self { call, ctx, facts }
    }

    pub(crate) fn facts(&self) -> &'a CallFacts<'a> {
        self.facts
    }

    /// The API's parameters schema, when the tool is known.
    pub fn schema(&self) -> Option<&'a Value> {
        self.call.schema()
    }

    /// The path arguments (see [`path_arguments`](crate::call::arguments::path_arguments)).
    pub fn paths(&self) -> &'a [FoundArgument<'a>] {
        &self.facts.paths
    }

    /// The shell-command arguments (see
    /// [`command_arguments`](crate::call::arguments::command_arguments)) with their parse:
    /// `(pointer, value, parsed command)`; the parse is `None` for a value
    /// that is not command text.
    pub fn commands(
        &self,
    ) -> impl Iterator<Item = (&'a str, &'a Value, Option<&'a ShellCommand>)> + 'a {
        self.facts
            .commands
            .iter()
            .map(|c| (c.pointer.as_str(), c.value, c.shell.as_deref()))
    }
}

/// A global audit's finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditHit {
    /// The policy the finding asks for.
    pub policy: InterventionPolicy,
    /// A stable name of what matched (e.g. `rm-recursive-root`).
    pub rule: String,
    /// A human explanation.
    pub message: String,
}

/// An audit run on every call, whatever the tool says about itself.
///
/// Return the strictest finding, or `None`. The engine combines the findings
/// of all audits with the tool's own policy and keeps the strictest.
///
/// ```
/// use tool_approval::{AuditHit, AuditInput, GlobalAudit};
/// use tool_core::InterventionPolicy;
/// #[derive(Debug)]
/// struct NoProd;
/// impl GlobalAudit for NoProd {
///     fn name(&self) -> &str { "noProd" }
///     fn audit(&self, input: &AuditInput<'_>) -> Option<AuditHit> {
///         let text = input.call.arguments.to_string();
///         text.contains("prod").then(|| AuditHit {
///             policy: InterventionPolicy::Always,
///             rule: "mentions-prod".into(),
///             message: "the call mentions production".into(),
///         })
///     }
/// }
/// ```
pub trait GlobalAudit: Send + Sync + fmt::Debug {
    /// The audit's name, shown in reasons.
    fn name(&self) -> &str;
    /// Audits one call.
    fn audit(&self, input: &AuditInput<'_>) -> Option<AuditHit>;
}

/// A dynamic audit's verdict: the engine maps it to the manifest's
/// `policy` (flagged) or `default` (passed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuditVerdict {
    /// Nothing to flag.
    Pass,
    /// The call is flagged.
    Flag {
        /// What flagged it (e.g. the argument's JSON pointer).
        rule: String,
        /// A human explanation.
        message: String,
    },
}

/// An audit a manifest names by type string (`{dynamic: {type: "pathScopeAudit"}}`),
/// so manifests stay pure data.
pub trait DynamicAudit: Send + Sync + fmt::Debug {
    /// The type string manifests use.
    fn kind(&self) -> &str;
    /// Audits one call.
    fn audit(&self, input: &AuditInput<'_>) -> AuditVerdict;
}
