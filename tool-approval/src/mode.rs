//! Approval modes and the last step of a decision: what the mode does with
//! the strictest finding of a call (the table is on [`ApprovalMode`]).

use std::str::FromStr;

use serde::{Deserialize, Serialize};
use tool_core::{Confinement, ConfinementSupport, InterventionPolicy};

use crate::decision::{Action, Decision, Level, Reason};
use crate::error::Error;

use InterventionPolicy::{Always, Deny, Never, Required};

/// How much the host trusts calls, and what each mode does with a call's
/// strictest finding.
///
/// Audits come **before** the mode (the order of the reference design): a
/// mode can only exempt what the tool or the host configured statically
/// (`required` in a manifest or a policy file), never what an audit found
/// in this very call. Every finding has a source:
///
/// - **global**: a global audit (the blacklist, a host audit);
/// - **dynamic**: the API's dynamic audit flagged the call (a failed
///   `pathScopeAudit`, an audit type nobody registered);
/// - **limit**: the call could not be analysed (too long, too deep, text
///   that does not parse and might hide a deny or `always` rule); its rule
///   id starts with `limits/`;
/// - **static**: the tool's API-level or tool-level policy or rule list, the
///   host's policy-file rules, or a dynamic audit that passed (its `default`);
/// - **unknown**: the tool is not in the registry, or its manifest does not
///   define the API;
/// - **none**: nothing is configured.
///
/// | source and policy | manual | allow-list, key not listed | allow-list, key listed | auto-run | headless |
/// |---|---|---|---|---|---|
/// | any source, `deny` | block | block | block | block | block |
/// | any source, `always` | ask | ask | ask | ask | block |
/// | global, `required` | ask | ask | ask | ask | block |
/// | dynamic, `required` | ask | ask | ask | ask | block |
/// | limit (`required`) | ask | ask | ask | ask | block |
/// | unread code (`limits/unread-code`, `required`) | ask | ask | ask | run ◆, confined | run ◆, confined |
/// | unknown option (`limits/unknown-option`, `required`) | ask | ask | ask | run ◆ | run ◆ |
/// | static, `required` | ask | ask | run ◆ | run ◆ | run ◆ |
/// | static, `never` | run ◆ | run ◆ | run ◆ | run ◆ | run ◆ |
/// | remembered ("always" from a person) | run ◆ | run ◆ | run ◆ | run ◆ | run ◆ |
/// | unknown tool or API | ask | ask | ask | run ◆ | run ◆ |
/// | none | run ◆ | run ◆ | run ◆ | run ◆ | run ◆ |
///
/// A remembered approval ranks like a listed key: audits, limits, `always`
/// and `deny` still come first.
///
/// # The confinement column
///
/// Every `run` happens without a person having seen the call (◆). For a
/// call to an API that [touches the host](tool_core::ApiDefinition::touches_host)
/// (an unknown tool or API counts as touching it), the decision carries a
/// [`Confinement`]:
///
/// | action | confinement of a `touches_host` call | where the host cannot confine |
/// |---|---|---|
/// | run ◆ | the engine's default ([`Confinement::workspace_write`], no network; [`PolicyEngineBuilder::confinement`](crate::PolicyEngineBuilder::confinement)), or the deciding host rule's own `confinement` | ask (`confinement/unavailable`); headless: block |
/// | ask | once approved: full access, since a person saw exactly this call ([`PolicyEngineBuilder::confine_approved`](crate::PolicyEngineBuilder::confine_approved) keeps it at the default), or the deciding host rule's own `confinement` | full access once approved |
/// | block | none (`null`) | none |
///
/// A call to an API that does not touch the host gets none (`null`) in
/// every cell. Only a host rule (a policy file or
/// [`PolicyEngineBuilder::rules`](crate::PolicyEngineBuilder::rules)) can
/// take its calls out of confinement, explicitly (`"confinement":
/// "full_access"`, or a full confinement object); a tool's manifest cannot.
/// The support is the host's
/// ([`PolicyEngineBuilder::confinement_support`](crate::PolicyEngineBuilder::confinement_support))
/// when it gave one, else what the called tool reports
/// ([`Tool::confinement_support`](tool_core::Tool::confinement_support)).
/// Where [`ConfinementSupport`] is not available (the default,
/// `Unknown`, counts as unavailable), a `run` that would be confined asks
/// instead, or is blocked in headless mode, with a reason naming the
/// confinement it lacks; a host rule's explicit `full_access` still runs.
/// Audits keep their place: confinement is the second wall behind them.
///
/// Headless does better than the reference design (whose headless mode
/// lets a non-`always` global finding through): whatever would need a human
/// there is blocked, with the reason saying so.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovalMode {
    /// Policies apply as written; unknown tools ask. The default.
    #[default]
    Manual,
    /// Like manual, but listed `identifier/apiName` keys run unless an audit
    /// finds something or a policy says `always`/`deny`.
    AllowList,
    /// Static `required` policies and unknown tools run; audit findings
    /// still ask.
    AutoRun,
    /// Nobody is watching: like auto-run, and whatever would need a human is
    /// blocked.
    Headless,
}

impl ApprovalMode {
    /// The mode's spelling (`manual`, `allow-list`, `auto-run`, `headless`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Manual => "manual",
            Self::AllowList => "allow-list",
            Self::AutoRun => "auto-run",
            Self::Headless => "headless",
        }
    }

    fn trusting(self) -> bool {
        matches!(self, Self::AutoRun | Self::Headless)
    }
}

impl std::fmt::Display for ApprovalMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ApprovalMode {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "manual" => Ok(Self::Manual),
            "allow-list" => Ok(Self::AllowList),
            "auto-run" => Ok(Self::AutoRun),
            "headless" => Ok(Self::Headless),
            other => Err(Error::invalid(
                "/mode",
                &serde_json::Value::String(other.to_owned()),
                "unknown mode, expected one of manual, allow-list, auto-run, headless",
            )),
        }
    }
}

/// Where a finding comes from; a later variant wins a tie of policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Source {
    /// Configured: manifest, policy file, a dynamic audit's `default`.
    Static,
    /// An option the program's closed row does not list
    /// (`limits/unknown-option`): asks where a person is present, runs
    /// under the default confinement where nobody is (as a static
    /// `required` does), and no rule's `confinement` applies.
    Unlisted,
    /// The call runs code the engine does not read (`limits/unread-code`):
    /// asks where a person is present, runs only confined where nobody is.
    Unread,
    /// The call could not be analysed.
    Limit,
    /// A dynamic audit flagged the call.
    Dynamic,
    /// A global audit flagged the call.
    Global,
}

/// One policy with where it came from and why.
#[derive(Debug, Clone)]
pub(crate) struct Finding {
    pub(crate) policy: InterventionPolicy,
    pub(crate) source: Source,
    pub(crate) reason: Reason,
    /// The confinement a host rule sets explicitly for its calls; never set
    /// from a manifest.
    pub(crate) confinement: Option<Confinement>,
}

impl Finding {
    pub(crate) fn new(policy: InterventionPolicy, source: Source, reason: Reason) -> Self {
        Self {
            policy,
            source,
            reason,
            confinement: None,
        }
    }

    /// The same finding with a host rule's explicit confinement.
    pub(crate) fn with_confinement(mut self, confinement: Option<Confinement>) -> Self {
        self.confinement = confinement;
        self
    }

    /// [`strictest`](Self::strictest) of `top` and `other`, kept in `top`
    /// (a finding is moved only when it replaces the one kept).
    pub(crate) fn raise(top: &mut Option<Self>, other: Option<Self>) {
        let Some(b) = other else {
            return;
        };
        if top
            .as_ref()
            .is_none_or(|a| (b.policy, b.source) > (a.policy, a.source))
        {
            *top = Some(b);
        }
    }

    /// The stricter of two findings; on equal policies the one a mode cannot
    /// exempt (an audit's over a configured one), else the first.
    pub(crate) fn strictest(a: Option<Self>, b: Option<Self>) -> Option<Self> {
        match (a, b) {
            (Some(a), Some(b)) => Some(if (b.policy, b.source) > (a.policy, a.source) {
                b
            } else {
                a
            }),
            (a, b) => a.or(b),
        }
    }
}

/// What the engine knows about the call apart from its findings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Standing<'a> {
    /// The tool is registered and its manifest defines the API.
    pub(crate) known: Result<(), &'a str>,
    /// The `identifier/apiName` key is on the allow list (allow-list mode).
    pub(crate) listed: Option<&'a str>,
    /// A person approved calls like this one ("always"): what was remembered.
    pub(crate) remembered: Option<&'a str>,
}

/// What the engine knows about confining the call (the confinement column).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Wall<'a> {
    /// The API touches the host (or is unknown).
    pub(crate) touches_host: bool,
    /// What an unattended `run` gets by default.
    pub(crate) unattended: &'a Confinement,
    /// Whether an approved ask keeps the default confinement.
    pub(crate) confine_approved: bool,
    /// Whether the host can confine at all.
    pub(crate) support: &'a ConfinementSupport,
}

impl Wall<'_> {
    /// What an ask runs under once approved, without a host rule's say.
    fn approved(&self) -> Confinement {
        if self.confine_approved && self.support.is_available() {
            self.unattended.clone()
        } else {
            Confinement::FullAccess
        }
    }
}

/// The decision for the strictest finding: the action from the mode table,
/// then the confinement column (see the module docs).
pub(crate) fn decide(
    mode: ApprovalMode,
    top: Option<Finding>,
    standing: Standing<'_>,
    wall: Wall<'_>,
) -> Decision {
    let explicit = top.as_ref().and_then(|f| f.confinement.clone());
    let unread = top.as_ref().is_some_and(|f| f.source == Source::Unread);
    // A program nobody read runs on the host, whatever the API claims.
    let wall = Wall {
        touches_host: wall.touches_host || unread,
        ..wall
    };
    let mut decision = action(mode, top, standing);
    if unread && decision.action == Action::Run && !wall.unattended.is_confined() {
        // Unread code runs only confined, whatever the default says.
        decision.confinement = None;
        return confine(mode, decision, Some(Confinement::workspace_write()), wall);
    }
    confine(mode, decision, explicit, wall)
}

/// The confinement column: `decision` as the mode table made it, with what
/// it runs under; an unattended run the host cannot confine asks instead
/// (headless: is blocked).
fn confine(
    mode: ApprovalMode,
    mut decision: Decision,
    explicit: Option<Confinement>,
    wall: Wall<'_>,
) -> Decision {
    if !wall.touches_host {
        return decision;
    }
    match decision.action {
        Action::Block => {}
        Action::Ask => decision.confinement = Some(explicit.unwrap_or_else(|| wall.approved())),
        Action::Run => {
            let confinement = explicit.unwrap_or_else(|| wall.unattended.clone());
            match wall.support.missing_reason() {
                Some(missing) if confinement.is_confined() => {
                    let message = format!(
                        "{} — it would run confined ({}) without a person seeing it, and this host cannot confine calls: {missing}",
                        decision.reason.message,
                        describe(&confinement),
                    );
                    let reason = Reason::new(
                        Level::Confinement,
                        Some(CONFINEMENT_UNAVAILABLE.to_owned()),
                        message,
                    );
                    decision = if mode == ApprovalMode::Headless {
                        Decision {
                            action: Action::Block,
                            reason: headless(reason),
                            ..decision
                        }
                    } else {
                        Decision {
                            action: Action::Ask,
                            reason,
                            confinement: Some(Confinement::FullAccess),
                            ..decision
                        }
                    };
                }
                _ => decision.confinement = Some(confinement),
            }
        }
    }
    decision
}

/// The rule id of a run turned into an ask (or a block) because the host
/// cannot confine it.
pub const CONFINEMENT_UNAVAILABLE: &str = "confinement/unavailable";

/// `workspace_write (no network, extra writable roots: /a, /b)`.
fn describe(confinement: &Confinement) -> String {
    let network = if confinement.network() {
        "network allowed"
    } else {
        "no network"
    };
    let roots = confinement.writable_roots();
    if roots.is_empty() {
        format!("{}, {network}", confinement.name())
    } else {
        let roots: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
        format!(
            "{}, {network}, extra writable roots: {}",
            confinement.name(),
            roots.join(", ")
        )
    }
}

/// `reason`, saying that headless mode has nobody to ask.
fn headless(mut reason: Reason) -> Reason {
    reason.message = format!(
        "{} (needs a human; nobody is there in headless mode)",
        reason.message
    );
    reason
}

/// The mode table: the action for the strictest finding.
fn action(mode: ApprovalMode, top: Option<Finding>, standing: Standing<'_>) -> Decision {
    let decision = |action, policy, reason| Decision {
        action,
        policy,
        reason,
        confinement: None,
    };
    let policy = top.as_ref().map_or(Never, |f| f.policy);
    if let Some(finding) = &top {
        let needs_human = match finding.policy {
            Deny => return decision(Action::Block, Deny, finding.reason.clone()),
            Always => true,
            Required => match finding.source {
                Source::Static => false,
                // Nobody reads the code: a person is asked where one is
                // present; unattended modes run it confined (below).
                Source::Unread | Source::Unlisted => !mode.trusting(),
                _ => true,
            },
            Never => false,
        };
        if needs_human {
            if mode == ApprovalMode::Headless {
                return decision(Action::Block, policy, headless(finding.reason.clone()));
            }
            return decision(Action::Ask, policy, finding.reason.clone());
        }
    }
    // What is left: a static `required` or `never`, an unknown tool, nothing.
    if let (Some(what), Ok(())) = (standing.remembered, standing.known) {
        let reason = Reason::new(
            Level::Remembered,
            Some(what.to_owned()),
            "a person approved calls like this one (\"always\")",
        );
        return decision(Action::Run, policy, reason);
    }
    if let (Some(key), Ok(())) = (standing.listed, standing.known) {
        let reason = Reason::new(
            Level::AllowList,
            Some(key.to_owned()),
            "listed in the allow list",
        );
        return decision(Action::Run, policy, reason);
    }
    if mode.trusting() {
        let reason = match (top, standing.known) {
            (Some(f), _) if f.policy == Never => f.reason,
            (Some(f), _) => Reason::new(
                Level::Mode,
                f.reason.rule.clone(),
                format!(
                    "{mode} mode runs `{policy}` calls without asking ({})",
                    f.reason.message
                ),
            ),
            (None, Err(what)) => Reason::new(
                Level::Mode,
                None,
                format!("{mode} mode runs calls to unknown tools ({what})"),
            ),
            (None, Ok(())) => {
                Reason::new(Level::Default, None, "no policy is configured for this API")
            }
        };
        return decision(Action::Run, policy, reason);
    }
    if let Err(what) = standing.known {
        let reason = Reason::new(Level::UnknownTool, None, what.to_owned());
        return decision(Action::Ask, policy.max(Required), reason);
    }
    match top {
        Some(f) if f.policy == Never => decision(Action::Run, Never, f.reason),
        Some(f) => decision(Action::Ask, f.policy, f.reason),
        None => decision(
            Action::Run,
            Never,
            Reason::new(Level::Default, None, "no policy is configured for this API"),
        ),
    }
}
