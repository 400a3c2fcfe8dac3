//! Decisions, their reasons, and the partition of a batch.

use serde::{Deserialize, Serialize};
use serde_json::json;
use tool_core::{Confinement, InterventionPolicy, ToolOutput};

/// What the host does with a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Execute it.
    Run,
    /// Ask a human first.
    Ask,
    /// Do not execute; hand the model [`Decision::blocked_output`].
    Block,
}

/// Which level of policy decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Level {
    /// A global audit (the blacklist or a host audit).
    GlobalAudit,
    /// The API's dynamic audit (`{dynamic: {type}}`).
    ApiDynamic,
    /// The API's own policy or rule list.
    ApiStatic,
    /// The tool-level policy, rule list or dynamic audit.
    ToolLevel,
    /// The host's policy file rules for this `identifier/apiName`.
    HostPolicy,
    /// The allow list (allow-list mode).
    AllowList,
    /// The approval mode (auto-run and headless skip a static `required`).
    Mode,
    /// The call could not be fully analysed (too long, too deep, text that
    /// does not parse where a deny or `always` rule might apply); the rule
    /// id starts with `limits/`.
    Limits,
    /// The tool is not in the registry.
    UnknownTool,
    /// A person approved calls like this one before ("always"), for the
    /// engine's lifetime ([`Gate::remember`](tool_core::Gate::remember)).
    Remembered,
    /// The call would run confined, and the host cannot confine it: it
    /// asks (blocked in headless mode) instead of running unconfined. The
    /// rule id is `confinement/unavailable`.
    Confinement,
    /// Nothing is configured for this API.
    Default,
}

/// Why a call got its decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reason {
    /// The level that decided.
    pub level: Level,
    /// The rule that decided: a blacklist entry (`blacklist/rm-recursive-root`),
    /// a rule (`rules[1] (command ~ "git push:*")`), an audit finding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// A human explanation.
    pub message: String,
}

impl Reason {
    pub(crate) fn new(level: Level, rule: Option<String>, message: impl Into<String>) -> Self {
        Self {
            level,
            rule,
            message: message.into(),
        }
    }
}

/// The decision for one call.
///
/// Serialised (the shape `toolhost check` prints) as
///
/// ```json
/// {"action": "run", "policy": "never",
///  "reason": {"level": "host_policy", "rule": "…", "message": "…"},
///  "confinement": {"mode": "workspace_write", "writable_roots": [], "network": false}}
/// ```
///
/// `confinement` is always present: `null` for a call to an API that does
/// not touch the host ([`ApiDefinition::touches_host`](tool_core::ApiDefinition::touches_host)
/// false: an HTTP API, a remote MCP tool) and for every blocked call;
/// otherwise a [`Confinement`] (`mode` is `full_access`, `workspace_write`
/// or `read_only`): for `run`, what it runs under now; for `ask`, what it
/// runs under once a person approves it (see the confinement column in
/// [`ApprovalMode`](crate::ApprovalMode)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    /// What to do.
    pub action: Action,
    /// The policy that applied (before the mode's say).
    pub policy: InterventionPolicy,
    /// Why.
    pub reason: Reason,
    /// What the call runs under (see above); `None`: nothing to confine.
    #[serde(default)]
    pub confinement: Option<Confinement>,
}

impl Decision {
    /// True when the call may run.
    pub fn is_run(&self) -> bool {
        self.action == Action::Run
    }

    /// True when a human must be asked.
    pub fn is_ask(&self) -> bool {
        self.action == Action::Ask
    }

    /// True when the call is blocked.
    pub fn is_block(&self) -> bool {
        self.action == Action::Block
    }

    /// For a blocked call, the output to give the model in place of a result:
    /// content `Blocked by security/privacy.`, error code
    /// `blocked_by_security_privacy`, state `{"type": "blocked", "reason": …}`,
    /// success false. `None` for calls that are not blocked.
    pub fn blocked_output(&self) -> Option<ToolOutput> {
        if !self.is_block() {
            return None;
        }
        let reason = serde_json::to_value(&self.reason).unwrap_or_default();
        let mut out = ToolOutput::blocked(self.reason.message.clone(), reason.clone());
        if let Some(error) = out.error.as_mut() {
            error.details = Some(json!({ "reason": reason, "policy": self.policy }));
        }
        Some(out)
    }
}

/// The decisions for a batch, in input order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evaluation {
    decisions: Vec<Decision>,
}

impl Evaluation {
    pub(crate) fn new(decisions: Vec<Decision>) -> Self {
        Self { decisions }
    }

    /// All decisions, in input order.
    pub fn decisions(&self) -> &[Decision] {
        &self.decisions
    }

    /// The decision for input `index`.
    pub fn get(&self, index: usize) -> Option<&Decision> {
        self.decisions.get(index)
    }

    /// The input indices with `action`, in order.
    pub fn indices(&self, action: Action) -> Vec<usize> {
        self.decisions
            .iter()
            .enumerate()
            .filter(|(_, d)| d.action == action)
            .map(|(i, _)| i)
            .collect()
    }

    /// The input indices that may run.
    pub fn run(&self) -> Vec<usize> {
        self.indices(Action::Run)
    }

    /// The input indices that need a human.
    pub fn ask(&self) -> Vec<usize> {
        self.indices(Action::Ask)
    }

    /// The input indices that are blocked.
    pub fn block(&self) -> Vec<usize> {
        self.indices(Action::Block)
    }

    /// Splits `items` (the calls, in the order evaluated) by action.
    /// Extra items beyond the decisions are treated as `ask`.
    pub fn partition<T>(&self, items: impl IntoIterator<Item = T>) -> Partition<T> {
        let mut out = Partition {
            run: Vec::new(),
            ask: Vec::new(),
            block: Vec::new(),
        };
        for (index, item) in items.into_iter().enumerate() {
            match self.decisions.get(index) {
                Some(d) if d.is_run() => out.run.push((item, d.clone())),
                Some(d) if d.is_block() => out.block.push((item, d.clone())),
                Some(d) => out.ask.push((item, d.clone())),
                None => out.ask.push((
                    item,
                    Decision {
                        action: Action::Ask,
                        policy: InterventionPolicy::Required,
                        reason: Reason::new(
                            Level::Default,
                            None,
                            "no decision was made for this call",
                        ),
                        confinement: None,
                    },
                )),
            }
        }
        out
    }
}

/// A batch split by action, each item with its decision, input order kept.
#[derive(Debug, Clone)]
pub struct Partition<T> {
    /// Calls to execute.
    pub run: Vec<(T, Decision)>,
    /// Calls that need a human.
    pub ask: Vec<(T, Decision)>,
    /// Calls to answer with [`Decision::blocked_output`].
    pub block: Vec<(T, Decision)>,
}
