//! A host's rule: a tool-core [`InterventionRule`] plus what only a host
//! may say, the confinement its calls run under.
//!
//! A manifest's rules are plain [`InterventionRule`]s (which reject a
//! `confinement` field), so a tool can never take its own calls out of
//! confinement; only the host, in its policy file or through
//! [`PolicyEngineBuilder::rules`](crate::PolicyEngineBuilder::rules), can.

use tool_core::{Confinement, manifest::InterventionRule};

use crate::error::Error;
use crate::policy::{RuleHit, RuleSet};

/// One host rule. Converts from an [`InterventionRule`] (no confinement of
/// its own: calls it lets through run under the engine's default).
///
/// ```
/// use tool_approval::HostRule;
/// use tool_core::{Confinement, InterventionPolicy, manifest::InterventionRule};
///
/// let rule = HostRule::from(InterventionRule {
///     matches: None,
///     policy: InterventionPolicy::Never,
///     examples: None,
/// })
/// .with_confinement(Confinement::FullAccess);
/// assert_eq!(rule.confinement, Some(Confinement::FullAccess));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostRule {
    /// The rule as a tool could also write it.
    pub rule: InterventionRule,
    /// The confinement the calls this rule decides run under, replacing the
    /// engine's default (`full_access` takes them out of confinement).
    pub confinement: Option<Confinement>,
}

impl HostRule {
    /// The same rule with its own confinement.
    pub fn with_confinement(mut self, confinement: Confinement) -> Self {
        self.confinement = Some(confinement);
        self
    }
}

impl From<InterventionRule> for HostRule {
    fn from(rule: InterventionRule) -> Self {
        Self {
            rule,
            confinement: None,
        }
    }
}

/// A host's compiled rule list for one `identifier/apiName`.
#[derive(Debug, Clone)]
pub(crate) struct HostRules {
    pub(crate) set: RuleSet,
    confinements: Vec<Option<Confinement>>,
}

impl HostRules {
    pub(crate) fn compile_at(rules: &[HostRule], at: &str) -> Result<Self, Error> {
        let plain: Vec<InterventionRule> = rules.iter().map(|r| r.rule.clone()).collect();
        Ok(Self {
            set: RuleSet::compile_at(&plain, at)?,
            confinements: rules.iter().map(|r| r.confinement.clone()).collect(),
        })
    }

    /// The confinement the hit's rule sets explicitly. A compound command
    /// approved by several rules together gets one only when all of them
    /// set the same.
    pub(crate) fn confinement_of(&self, hit: &RuleHit) -> Option<Confinement> {
        let of = |i: &usize| self.confinements.get(*i).cloned().flatten();
        match hit.approved_by.split_first() {
            None => of(&hit.index),
            Some((first, rest)) => {
                let first = of(first)?;
                rest.iter()
                    .all(|i| of(i).as_ref() == Some(&first))
                    .then_some(first)
            }
        }
    }
}
