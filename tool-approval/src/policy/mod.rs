//! The rule language: argument [`Matcher`]s and compiled rule lists
//! ([`RuleSet`]). Host rules, manifest rules and the blacklist's command
//! entries all match with it; the policy file that configures them lives
//! with the engine ([`PolicyFile`](crate::PolicyFile)), since it configures
//! the audits too.

pub(crate) mod matcher;
pub(crate) mod rules;

pub use matcher::{MatchMode, Matcher};
pub(crate) use rules::{RuleHit, RuleSet};
