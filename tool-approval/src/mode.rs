//! Approval modes and the last step of a decision: what the mode does with
//! the strictest finding of a call.
//!
//! Audits come **before** the mode (the order of the reference design): a
//! mode can only exempt what the tool or the host configured statically
//! (`required` in a manifest or a policy file), never what an audit found
//! in this very call. Every finding has a source:
//!
//! - **global**: a global audit (the blacklist, a host audit);
//! - **dynamic**: the API's dynamic audit flagged the call (a failed
//!   `pathScopeAudit`, an audit type nobody registered);
//! - **limit**: the call could not be analysed (too long, too deep, text
//!   that does not parse and might hide a deny or `always` rule); its rule
//!   id starts with `limits/`;
//! - **static**: the tool's API-level or tool-level policy or rule list, the
//!   host's policy-file rules, or a dynamic audit that passed (its `default`);
//! - **unknown**: the tool is not in the registry, or its manifest does not
//!   define the API;
//! - **none**: nothing is configured.
//!
//! | source and policy | manual | allow-list, key not listed | allow-list, key listed | auto-run | headless |
//! |---|---|---|---|---|---|
//! | any source, `deny` | block | block | block | block | block |
//! | any source, `always` | ask | ask | ask | ask | block |
//! | global, `required` | ask | ask | ask | ask | block |
//! | dynamic, `required` | ask | ask | ask | ask | block |
//! | limit (`required`) | ask | ask | ask | ask | block |
//! | static, `required` | ask | ask | run | run | run |
//! | static, `never` | run | run | run | run | run |
//! | unknown tool or API | ask | ask | ask | run | run |
//! | none | run | run | run | run | run |
//!
//! Headless does better than the reference design (whose headless mode
//! lets a non-`always` global finding through): whatever would need a human
//! there is blocked, with the reason saying so.

use std::str::FromStr;

use serde::{Deserialize, Serialize};
use tool_core::InterventionPolicy;

use crate::decision::{Action, Decision, Level, Reason};
use crate::error::Error;

use InterventionPolicy::{Always, Deny, Never, Required};

/// How much the host trusts calls. See the [module docs](self) for the table.
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
}

impl Finding {
    pub(crate) fn new(policy: InterventionPolicy, source: Source, reason: Reason) -> Self {
        Self {
            policy,
            source,
            reason,
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
}

/// Applies `mode` to the strictest finding (see the table in the module docs).
pub(crate) fn decide(mode: ApprovalMode, top: Option<Finding>, standing: Standing<'_>) -> Decision {
    let decision = |action, policy, reason| Decision {
        action,
        policy,
        reason,
    };
    let policy = top.as_ref().map_or(Never, |f| f.policy);
    if let Some(finding) = &top {
        let needs_human = match finding.policy {
            Deny => return decision(Action::Block, Deny, finding.reason.clone()),
            Always => true,
            Required => finding.source != Source::Static,
            Never => false,
        };
        if needs_human {
            if mode == ApprovalMode::Headless {
                let mut reason = finding.reason.clone();
                reason.message = format!(
                    "{} (needs a human; nobody is there in headless mode)",
                    reason.message
                );
                return decision(Action::Block, policy, reason);
            }
            return decision(Action::Ask, policy, finding.reason.clone());
        }
    }
    // What is left: a static `required` or `never`, an unknown tool, nothing.
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
