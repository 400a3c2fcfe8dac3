//! Quotas: at most N calls per turn, per session, per time window, and a
//! cost budget per session.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// One quota, as the host configures it.
///
/// `scope` is `identifier/api` (one API), `identifier` (every API of a
/// tool, counted together) or `*` (every call).
///
/// ```
/// use tool_core::taint::{Quota, QuotaSettings};
/// let settings = QuotaSettings::from_json(r#"{
///   "quotas": [
///     {"scope": "mail/send", "perTurn": 1, "perSession": 5},
///     {"scope": "search", "perWindow": {"max": 10, "windowMs": 60000}, "cost": 0.01}
///   ],
///   "budget": 1.0
/// }"#)?;
/// assert_eq!(settings.quotas[0].per_turn, Some(1));
/// assert!(QuotaSettings::from_json(r#"{"quotas": [{"scope": "a/b/c", "perTurn": 1}]}"#).is_err());
/// # Ok::<(), tool_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Quota {
    /// What it counts: `identifier/api`, `identifier` or `*`.
    pub scope: String,
    /// At most this many calls per turn ([`Session::begin_turn`](super::Session::begin_turn)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_turn: Option<u32>,
    /// At most this many calls per session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_session: Option<u32>,
    /// At most `max` calls in any `window_ms` milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_window: Option<Window>,
    /// What one call costs against the session's [`QuotaSettings::budget`]
    /// (the most specific quota with a cost prices the call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
}

impl Quota {
    /// A quota on `scope` with no limit yet.
    pub fn new(scope: impl Into<String>) -> Self {
        Self {
            scope: scope.into(),
            per_turn: None,
            per_session: None,
            per_window: None,
            cost: None,
        }
    }

    /// At most `n` calls per turn.
    pub fn per_turn(mut self, n: u32) -> Self {
        self.per_turn = Some(n);
        self
    }

    /// At most `n` calls per session.
    pub fn per_session(mut self, n: u32) -> Self {
        self.per_session = Some(n);
        self
    }

    /// At most `max` calls in any `window_ms` milliseconds.
    pub fn per_window(mut self, max: u32, window_ms: u64) -> Self {
        self.per_window = Some(Window { max, window_ms });
        self
    }

    /// Each call costs `cost`.
    pub fn cost(mut self, cost: f64) -> Self {
        self.cost = Some(cost);
        self
    }

    /// Whether it counts a call of `identifier/api`.
    pub fn applies(&self, identifier: &str, api: &str) -> bool {
        match self.scope.split_once('/') {
            Some((tool, name)) => tool == identifier && name == api,
            None => self.scope == "*" || self.scope == identifier,
        }
    }

    /// How specific the scope is: 2 for an API, 1 for a tool, 0 for `*`.
    fn specificity(&self) -> u8 {
        if self.scope.contains('/') {
            2
        } else if self.scope == "*" {
            0
        } else {
            1
        }
    }
}

/// A sliding time window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Window {
    /// At most this many calls…
    pub max: u32,
    /// …in any this many milliseconds.
    pub window_ms: u64,
}

/// The host's quotas and the session's cost budget.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QuotaSettings {
    /// Every quota; a call is held by the first it would exceed.
    #[serde(default)]
    pub quotas: Vec<Quota>,
    /// The most the calls of a session may cost in all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<f64>,
}

impl QuotaSettings {
    /// Settings from JSON, checked ([`check`](Self::check)).
    pub fn from_json(text: &str) -> Result<Self, Error> {
        let settings: Self = serde_json::from_str(text).map_err(|e| Error::InvalidRule {
            table: "quotas".into(),
            rule: String::new(),
            message: format!("the quotas do not read: {e}"),
        })?;
        settings.check()?;
        Ok(settings)
    }

    /// Refuses a scope that is not `identifier/api`, `identifier` or `*`,
    /// a window of 0 ms, a cost or budget that is negative or not finite.
    pub fn check(&self) -> Result<(), Error> {
        let bad = |rule: &str, message: &str| Error::InvalidRule {
            table: "quotas".into(),
            rule: rule.to_owned(),
            message: message.to_owned(),
        };
        for q in &self.quotas {
            let parts: Vec<&str> = q.scope.split('/').collect();
            let name_ok = |s: &str| {
                !s.is_empty()
                    && s.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
            };
            let scope_ok = match parts.as_slice() {
                ["*"] => true,
                [tool] => name_ok(tool),
                [tool, api] => name_ok(tool) && name_ok(api),
                _ => false,
            };
            if !scope_ok {
                return Err(bad(
                    &q.scope,
                    "a scope is `identifier/api`, `identifier` or `*`",
                ));
            }
            if q.per_window.is_some_and(|w| w.window_ms == 0) {
                return Err(bad(&q.scope, "a window of 0 ms counts nothing"));
            }
            if q.cost.is_some_and(|c| !c.is_finite() || c < 0.0) {
                return Err(bad(&q.scope, "a cost is a finite number ≥ 0"));
            }
            if q.per_turn.is_none()
                && q.per_session.is_none()
                && q.per_window.is_none()
                && q.cost.is_none()
            {
                return Err(bad(
                    &q.scope,
                    "a quota with no limit and no cost does nothing",
                ));
            }
        }
        if self.budget.is_some_and(|b| !b.is_finite() || b < 0.0) {
            return Err(bad("budget", "a budget is a finite number ≥ 0"));
        }
        Ok(())
    }

    /// What a call of `identifier/api` costs (the most specific quota
    /// with a cost), 0 when none says.
    pub fn cost_of(&self, identifier: &str, api: &str) -> f64 {
        self.quotas
            .iter()
            .filter(|q| q.cost.is_some() && q.applies(identifier, api))
            .max_by_key(|q| q.specificity())
            .and_then(|q| q.cost)
            .unwrap_or(0.0)
    }
}

/// What the quotas have counted so far in a session (part of the stored
/// [`SessionState`](super::SessionState)).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuotaCounts {
    /// The current turn's number.
    #[serde(default)]
    pub turn: u64,
    /// Per scope.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub scopes: BTreeMap<String, ScopeCount>,
    /// The cost spent so far.
    #[serde(default)]
    pub spent: f64,
}

/// The counts of one quota scope.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScopeCount {
    /// The turn `in_turn` counts.
    #[serde(default)]
    pub turn: u64,
    /// Calls in that turn.
    #[serde(default)]
    pub in_turn: u32,
    /// Calls in the session.
    #[serde(default)]
    pub in_session: u32,
    /// When recent calls started (Unix ms), for windows; pruned.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recent: Vec<u64>,
}

/// A quota a call would exceed.
#[derive(Debug, Clone, PartialEq)]
pub struct QuotaHit {
    /// `quota/turn`, `quota/session`, `quota/window` or `quota/budget`.
    pub rule: &'static str,
    /// For people.
    pub message: String,
    /// The quota's scope (`budget` for the budget).
    pub scope: String,
}

impl QuotaCounts {
    /// Starts a new turn: per-turn counts start again from 0.
    pub fn begin_turn(&mut self) {
        self.turn += 1;
    }

    /// Whether one more call of `identifier/api` at `now_ms`, after
    /// `pending` (calls of the same batch already let through, as
    /// `(identifier, api)`), stays within `settings`.
    pub fn check(
        &self,
        settings: &QuotaSettings,
        identifier: &str,
        api: &str,
        pending: &[(String, String)],
        now_ms: u64,
    ) -> Option<QuotaHit> {
        for q in settings
            .quotas
            .iter()
            .filter(|q| q.applies(identifier, api))
        {
            let extra = pending.iter().filter(|(t, a)| q.applies(t, a)).count() as u64;
            let count = self.scopes.get(&q.scope).cloned().unwrap_or_default();
            let in_turn = if count.turn == self.turn {
                u64::from(count.in_turn)
            } else {
                0
            };
            if let Some(max) = q.per_turn
                && in_turn + extra >= u64::from(max)
            {
                return Some(QuotaHit {
                    rule: "quota/turn",
                    message: format!(
                        "`{}` allows {max} call(s) per turn; this turn has used them",
                        q.scope
                    ),
                    scope: q.scope.clone(),
                });
            }
            if let Some(max) = q.per_session
                && u64::from(count.in_session) + extra >= u64::from(max)
            {
                return Some(QuotaHit {
                    rule: "quota/session",
                    message: format!(
                        "`{}` allows {max} call(s) per session; this session has used them",
                        q.scope
                    ),
                    scope: q.scope.clone(),
                });
            }
            if let Some(w) = q.per_window {
                let since = now_ms.saturating_sub(w.window_ms);
                let recent = count.recent.iter().filter(|t| **t > since).count() as u64;
                if recent + extra >= u64::from(w.max) {
                    return Some(QuotaHit {
                        rule: "quota/window",
                        message: format!(
                            "`{}` allows {} call(s) per {} ms; that many ran in the last {} ms",
                            q.scope, w.max, w.window_ms, w.window_ms
                        ),
                        scope: q.scope.clone(),
                    });
                }
            }
        }
        if let Some(budget) = settings.budget {
            let pending_cost: f64 = pending.iter().map(|(t, a)| settings.cost_of(t, a)).sum();
            let cost = settings.cost_of(identifier, api);
            if cost > 0.0 && self.spent + pending_cost + cost > budget + f64::EPSILON {
                return Some(QuotaHit {
                    rule: "quota/budget",
                    message: format!(
                        "a call of `{identifier}/{api}` costs {cost}; the session has spent {} of its budget of {budget}",
                        self.spent + pending_cost
                    ),
                    scope: "budget".into(),
                });
            }
        }
        None
    }

    /// Counts a call of `identifier/api` that ran at `now_ms`.
    pub fn record(&mut self, settings: &QuotaSettings, identifier: &str, api: &str, now_ms: u64) {
        for q in settings
            .quotas
            .iter()
            .filter(|q| q.applies(identifier, api))
        {
            let turn = self.turn;
            let count = self.scopes.entry(q.scope.clone()).or_default();
            if count.turn != turn {
                count.turn = turn;
                count.in_turn = 0;
            }
            count.in_turn = count.in_turn.saturating_add(1);
            count.in_session = count.in_session.saturating_add(1);
            if let Some(w) = q.per_window {
                let since = now_ms.saturating_sub(w.window_ms);
                count.recent.retain(|t| *t > since);
                count.recent.push(now_ms);
            }
        }
        self.spent += settings.cost_of(identifier, api);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> QuotaSettings {
        QuotaSettings {
            quotas: vec![
                Quota::new("mail/send").per_turn(1).per_session(2),
                Quota::new("web").per_window(2, 1_000).cost(0.5),
                Quota::new("*").cost(0.1),
            ],
            budget: Some(1.2),
        }
    }

    #[test]
    fn per_turn_resets_with_the_turn_and_per_session_does_not() {
        let s = settings();
        let mut c = QuotaCounts::default();
        assert!(c.check(&s, "mail", "send", &[], 0).is_none());
        c.record(&s, "mail", "send", 0);
        assert_eq!(
            c.check(&s, "mail", "send", &[], 0).unwrap().rule,
            "quota/turn"
        );
        c.begin_turn();
        assert!(c.check(&s, "mail", "send", &[], 0).is_none());
        c.record(&s, "mail", "send", 0);
        c.begin_turn();
        let hit = c.check(&s, "mail", "send", &[], 0).unwrap();
        assert_eq!(
            (hit.rule, hit.scope.as_str()),
            ("quota/session", "mail/send")
        );
        assert!(
            c.check(&s, "mail", "read", &[], 0).is_none(),
            "another API is not counted"
        );
    }

    #[test]
    fn a_window_slides_and_a_batch_counts_its_earlier_calls() {
        let s = QuotaSettings {
            quotas: vec![Quota::new("web").per_window(2, 1_000)],
            budget: None,
        };
        let mut c = QuotaCounts::default();
        let one = [("web".to_owned(), "fetch".to_owned())];
        assert!(c.check(&s, "web", "fetch", &one, 0).is_none());
        let two = [one[0].clone(), ("web".to_owned(), "search".to_owned())];
        assert_eq!(
            c.check(&s, "web", "fetch", &two, 0).unwrap().rule,
            "quota/window"
        );
        c.record(&s, "web", "fetch", 100);
        c.record(&s, "web", "search", 200);
        assert_eq!(
            c.check(&s, "web", "fetch", &[], 900).unwrap().rule,
            "quota/window"
        );
        assert!(
            c.check(&s, "web", "fetch", &[], 1_150).is_none(),
            "the first call left the window"
        );
    }

    #[test]
    fn the_budget_is_priced_by_the_most_specific_cost() {
        let s = settings();
        assert_eq!(s.cost_of("web", "fetch"), 0.5);
        assert_eq!(s.cost_of("mail", "send"), 0.1);
        let mut c = QuotaCounts::default();
        c.record(&s, "web", "fetch", 0);
        c.record(&s, "mail", "read", 0);
        assert!((c.spent - 0.6).abs() < 1e-9);
        c.begin_turn();
        assert!(
            c.check(&s, "web", "search", &[], 10_000).is_none(),
            "0.6 + 0.5 ≤ 1.2"
        );
        let pending = [("web".to_owned(), "search".to_owned())];
        let hit = c.check(&s, "web", "fetch", &pending, 10_000).unwrap();
        assert_eq!(hit.rule, "quota/budget");
        assert!(hit.message.contains("costs 0.5"), "{}", hit.message);
    }

    #[test]
    fn bad_quotas_are_refused_naming_the_scope() {
        for (json, want) in [
            (
                r#"{"quotas":[{"scope":"a/b/c","perTurn":1}]}"#,
                "a scope is",
            ),
            (
                r#"{"quotas":[{"scope":"a","perWindow":{"max":1,"windowMs":0}}]}"#,
                "0 ms",
            ),
            (r#"{"quotas":[{"scope":"a","cost":-1}]}"#, "finite number"),
            (r#"{"quotas":[{"scope":"a"}]}"#, "does nothing"),
            (r#"{"quotas":[{"scope":"a","perturn":1}]}"#, "unknown field"),
            (r#"{"budget":-2}"#, "budget"),
        ] {
            let err = QuotaSettings::from_json(json).unwrap_err().to_string();
            assert!(err.contains(want), "{json}: {err}");
        }
    }
}
