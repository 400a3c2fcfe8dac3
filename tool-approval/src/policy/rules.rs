//! Compiled rule lists: `[{match: {param: matcher}, policy}, …]`.
//!
//! The first matching rule decides, except that a matching `always` or
//! `deny` rule anywhere in the list wins over a weaker first match. A rule
//! without `match` always matches. A `never` rule's matchers *approve*
//! (every part of a shell command must match); other rules' matchers
//! *trigger* (any part is enough). See [`MatchMode`].
//!
//! A `never` rule on a shell-command parameter does not approve a call that
//! also changes *how* the command runs, unless the rule matches on that
//! argument too: a non-empty environment (`env`, `environment`) or a working
//! directory (`cwd`, `workdir`, …) outside the host's working directory.

use serde_json::Value;
use tool_core::{InterventionPolicy, manifest::InterventionRule};

use crate::call::arguments::is_command_param;
use crate::call::facts::CallFacts;
use crate::error::{Error, push_pointer};
use crate::policy::matcher::{Matcher, Subject, part_approved};
use crate::shell::Hazard;

/// A compiled rule list.
#[derive(Debug, Clone, Default)]
pub(crate) struct RuleSet {
    rules: Vec<CompiledRule>,
    /// The rules that may approve a compound command together (see
    /// [`composite_approval`](Self::composite_approval)): `never` rules
    /// with one command-prefix matcher, on the parameter of the first of
    /// them, in order. Found once at compile time.
    composite: Vec<usize>,
    /// The `composite` rules by the first word of their prefix (in order),
    /// so a part is tried only against the rules that may approve it.
    composite_by_first: crate::name_hash::NameMap<String, Vec<usize>>,
    /// The `composite` rules whose prefix has no word (they approve any
    /// plain part).
    composite_any: Vec<usize>,
    /// The rules not in `composite`, in order: all a command can match
    /// when no composite rule can approve it alone.
    not_composite: Vec<usize>,
    /// The `always` and `deny` rules, in order: after the first match,
    /// only these are still looked at.
    strong: Vec<usize>,
}

#[derive(Debug, Clone)]
struct CompiledRule {
    matchers: Vec<(String, Matcher)>,
    policy: InterventionPolicy,
    /// [`RuleHit::detail`], written once at compile time.
    detail: String,
}

/// The rule that decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RuleHit {
    /// Index of the rule in its list.
    pub index: usize,
    /// The rule's policy.
    pub policy: InterventionPolicy,
    /// `rules[2]` plus the matchers, e.g. `rules[0] (command ~ "git status:*")`.
    pub detail: String,
    /// `Some(hazard)` when the rule only *might* match: its command could
    /// not be read whole (see [`Hazard`]); the engine asks instead of
    /// applying the rule's policy.
    pub unsure: Option<Hazard>,
    /// For a compound command approved part by part by several `never`
    /// rules together, their indices (in order); empty otherwise.
    pub approved_by: Vec<usize>,
}

impl RuleSet {
    /// Compiles rules (regexes, globs, prefixes).
    pub(crate) fn compile(rules: &[InterventionRule]) -> Result<Self, Error> {
        Self::compile_at(rules, "")
    }

    pub(crate) fn compile_at(rules: &[InterventionRule], base: &str) -> Result<Self, Error> {
        let mut compiled = Vec::with_capacity(rules.len());
        for (index, rule) in rules.iter().enumerate() {
            let here = push_pointer(base, index);
            let mut matchers = Vec::new();
            for (param, matcher) in rule.matches.iter().flatten() {
                let at = push_pointer(&push_pointer(&here, "match"), param);
                matchers.push((param.clone(), Matcher::compile_at(matcher, &at)?));
            }
            let detail = describe(index, &matchers);
            compiled.push(CompiledRule {
                matchers,
                policy: rule.policy,
                detail,
            });
        }
        let mut composite = Vec::new();
        let mut param: Option<&str> = None;
        for (index, rule) in compiled.iter().enumerate() {
            if rule.policy != InterventionPolicy::Never {
                continue;
            }
            let [(p, matcher)] = rule.matchers.as_slice() else {
                continue;
            };
            if matcher.prefix_words().is_some() && *param.get_or_insert(p.as_str()) == p.as_str() {
                composite.push(index);
            }
        }
        let mut composite_by_first = crate::name_hash::NameMap::<String, Vec<usize>>::default();
        let mut composite_any = Vec::new();
        for &index in &composite {
            let first = compiled
                .get(index)
                .and_then(|r| r.matchers.first())
                .and_then(|(_, m)| m.prefix_words())
                .and_then(<[String]>::first);
            match first {
                Some(word) => composite_by_first
                    .entry(word.clone())
                    .or_default()
                    .push(index),
                None => composite_any.push(index),
            }
        }
        let not_composite = (0..compiled.len())
            .filter(|i| composite.binary_search(i).is_err())
            .collect();
        let strong = compiled
            .iter()
            .enumerate()
            .filter(|(_, r)| r.policy >= InterventionPolicy::Always)
            .map(|(i, _)| i)
            .collect();
        Ok(Self {
            rules: compiled,
            composite,
            composite_by_first,
            composite_any,
            not_composite,
            strong,
        })
    }

    /// The deciding rule for `args`, or `None` when no rule matches.
    /// `schema` (the API's parameters) marks extra shell-command parameters.
    /// A working-directory argument counts as leaving the host's directory
    /// unless it is `.` (see [`evaluate_in`](Self::evaluate_in)).
    #[cfg(test)]
    pub(crate) fn evaluate(&self, args: &Value, schema: Option<&Value>) -> Option<RuleHit> {
        self.evaluate_in(args, schema, None)
    }

    /// Like [`evaluate`](Self::evaluate), with the host's working directory,
    /// against which a working-directory argument is judged.
    #[cfg(test)]
    pub(crate) fn evaluate_in(
        &self,
        args: &Value,
        schema: Option<&Value>,
        cwd: Option<&std::path::Path>,
    ) -> Option<RuleHit> {
        let facts = CallFacts::build(args, schema, cwd);
        self.evaluate_facts(args, schema, &facts)
    }

    /// Like [`evaluate_in`](Self::evaluate_in), reading the call's facts
    /// (commands already parsed) instead of finding them again.
    pub(crate) fn evaluate_facts(
        &self,
        args: &Value,
        schema: Option<&Value>,
        facts: &CallFacts<'_>,
    ) -> Option<RuleHit> {
        let subjects = Subjects::new(args, schema, facts);
        let mut composite = self.composite_approval(&subjects);
        // The rules that can match in order: every rule, or only the
        // others when no composite rule's prefix can start every part.
        let mut all = 0..self.rules.len();
        let mut others = self.not_composite.iter().copied();
        let candidates: &mut dyn Iterator<Item = usize> =
            if self.composite_alone_impossible(&subjects) {
                &mut others
            } else {
                &mut all
            };
        let hit = |index: usize, rule: &CompiledRule| {
            rule.matches(&subjects).map(|unsure| RuleHit {
                index,
                policy: rule.policy,
                detail: rule.detail.clone(),
                unsure,
                approved_by: Vec::new(),
            })
        };
        // The first match, in order; the combined approval sits at `at`.
        let mut first: Option<RuleHit> = None;
        let mut passed = 0usize;
        for index in candidates {
            if composite.as_ref().is_some_and(|(at, _, _)| *at <= index) {
                break;
            }
            passed = index + 1;
            if let Some(found) = self.rules.get(index).and_then(|r| hit(index, r)) {
                first = Some(found);
                break;
            }
        }
        if first.is_none()
            && let Some((at, detail, used)) = composite.take()
        {
            passed = at + 1;
            first = Some(RuleHit {
                index: at,
                policy: InterventionPolicy::Never,
                detail,
                unsure: None,
                approved_by: used,
            });
        }
        // A matching `always` or `deny` rule anywhere wins over a weaker
        // first match. A hit that only perhaps applies asks (it becomes a
        // limit), so it ranks as `required`: a sure `always` beats a
        // perhaps-`deny`, and a sure hit beats a perhaps of the same policy.
        let rank = |h: &RuleHit| (effective(h), h.unsure.is_none());
        let mut strongest = first
            .as_ref()
            .filter(|f| f.policy >= InterventionPolicy::Always)
            .cloned();
        let later = self.strong.partition_point(|&i| i < passed);
        for &index in self.strong.get(later..).unwrap_or_default() {
            let Some(found) = self.rules.get(index).and_then(|r| hit(index, r)) else {
                continue;
            };
            if strongest.as_ref().is_none_or(|s| rank(&found) > rank(s)) {
                strongest = Some(found);
            }
        }
        match (first, strongest) {
            (Some(f), Some(s)) if effective(&s) > effective(&f) => Some(s),
            (first, _) => first,
        }
    }

    /// The rule loop as first written: every rule in order, composite
    /// rules skipped one by one. The property test below holds
    /// [`evaluate_facts`](Self::evaluate_facts) to it.
    #[cfg(test)]
    fn evaluate_facts_in_order(
        &self,
        args: &Value,
        schema: Option<&Value>,
        facts: &CallFacts<'_>,
    ) -> Option<RuleHit> {
        let subjects = Subjects::new(args, schema, facts);
        let mut composite = self.composite_approval(&subjects);
        let alone_impossible = self.composite_alone_impossible(&subjects);
        let mut first: Option<RuleHit> = None;
        let mut strongest: Option<RuleHit> = None;
        for (index, rule) in self.rules.iter().enumerate() {
            if first.is_none() && composite.as_ref().is_some_and(|(at, _, _)| *at == index) {
                first = composite.take().map(|(_, detail, used)| RuleHit {
                    index,
                    policy: InterventionPolicy::Never,
                    detail,
                    unsure: None,
                    approved_by: used,
                });
            }
            let is_strong = rule.policy >= InterventionPolicy::Always;
            if (first.is_some() && !is_strong)
                || (alone_impossible && self.composite.contains(&index))
            {
                continue;
            }
            let Some(unsure) = rule.matches(&subjects) else {
                continue;
            };
            let hit = RuleHit {
                index,
                policy: rule.policy,
                detail: rule.detail.clone(),
                unsure,
                approved_by: Vec::new(),
            };
            if first.is_none() {
                first = Some(hit.clone());
            }
            let rank = |h: &RuleHit| (effective(h), h.unsure.is_none());
            if is_strong && strongest.as_ref().is_none_or(|s| rank(&hit) > rank(s)) {
                strongest = Some(hit);
            }
        }
        match (first, strongest) {
            (Some(f), Some(s)) if effective(&s) > effective(&f) => Some(s),
            (first, _) => first,
        }
    }

    /// Whether no `composite` rule can approve the command on its own: the
    /// parts of its parameter's command do not all start with one word,
    /// and each such rule's prefix (of one word or more) would have to
    /// start every part.
    fn composite_alone_impossible(&self, subjects: &Subjects<'_>) -> bool {
        if !self.composite_any.is_empty() {
            return false;
        }
        let param = self
            .composite
            .first()
            .and_then(|&i| self.rules.get(i))
            .and_then(|r| r.matchers.first())
            .map(|(p, _)| p.as_str());
        let Some(shell) = param.and_then(|p| subjects.get(p)).and_then(|s| s.shell()) else {
            return false;
        };
        let mut firsts = shell.parts().iter().map(|p| p.words.first());
        let Some(first) = firsts.next() else {
            return false;
        };
        first.is_none() || firsts.any(|w| w != first)
    }

    /// Several `never` command-prefix rules on one parameter approve a
    /// compound command together when each part is approved by one of them
    /// (`ls && git status` under `ls:*` and `git status:*`). The combined
    /// approval sits at the position of the last rule it needs, so an
    /// earlier non-`never` rule that matches still comes first.
    fn composite_approval(&self, subjects: &Subjects<'_>) -> Option<(usize, String, Vec<usize>)> {
        if self.composite.len() < 2 || !subjects.overrides.is_empty() {
            return None;
        }
        let prefix = |index: usize| {
            self.rules
                .get(index)
                .and_then(|r| r.matchers.first())
                .and_then(|(_, m)| m.prefix_words())
        };
        let param = self
            .rules
            .get(*self.composite.first()?)?
            .matchers
            .first()?
            .0
            .as_str();
        let shell = subjects.get(param)?.shell()?;
        if !shell.is_plain() || shell.parts().is_empty() {
            return None;
        }
        let mut used: Vec<usize> = Vec::with_capacity(shell.parts().len());
        for part in shell.parts() {
            // The first rule (in order) that approves the part: its prefix
            // starts with the part's command word, or has no word.
            let approves = |&i: &usize| prefix(i).is_some_and(|words| part_approved(part, words));
            let by_first = part
                .words
                .first()
                .and_then(|w| self.composite_by_first.get(w.as_str()))
                .and_then(|list| list.iter().copied().find(approves));
            let any = self.composite_any.iter().copied().find(approves);
            let index = match (by_first, any) {
                (Some(a), Some(b)) => a.min(b),
                (a, b) => a.or(b)?,
            };
            used.push(index);
        }
        used.sort_unstable();
        used.dedup();
        if used.len() < 2 {
            // One rule approves every part: it matches on its own, with its own description.
            return None;
        }
        let at = *used.last()?;
        // (With room for the call's key the engine writes before it, the
        // rule id of its finding.)
        let mut detail = String::with_capacity(12 * used.len() + 24 + param.len() + 64);
        for (n, i) in used.iter().enumerate() {
            if n > 0 {
                detail.push_str(" + ");
            }
            detail.push_str("rules[");
            push_decimal(&mut detail, *i);
            detail.push(']');
        }
        detail.push_str(" (every part approved: ");
        detail.push_str(param);
        detail.push(')');
        Some((at, detail, used))
    }

    /// Whether rule `index` matches `args` on its own.
    pub(crate) fn rule_matches(&self, index: usize, args: &Value, schema: Option<&Value>) -> bool {
        let facts = CallFacts::build(args, schema, None);
        let subjects = Subjects::new(args, schema, &facts);
        self.rules
            .get(index)
            .is_some_and(|r| r.matches(&subjects).is_some())
    }

    /// The parameter names rule `index` matches on.
    pub(crate) fn params(&self, index: usize) -> Vec<&str> {
        self.rules
            .get(index)
            .map(|r| r.matchers.iter().map(|(p, _)| p.as_str()).collect())
            .unwrap_or_default()
    }
}

impl CompiledRule {
    /// `None`: no match; `Some(None)`: a match; `Some(Some(hazard))`: only
    /// perhaps a match (trigger mode on text that could not be read whole).
    fn matches(&self, subjects: &Subjects<'_>) -> Option<Option<Hazard>> {
        if self.policy == InterventionPolicy::Never {
            if subjects
                .overrides
                .iter()
                .any(|key| !self.matchers.iter().any(|(p, _)| p == key))
                && self
                    .matchers
                    .iter()
                    .any(|(p, _)| subjects.get(p).is_some_and(|s| s.is_shell_param()))
            {
                // The command may be fine, but not in that environment or directory.
                return None;
            }
            return self
                .matchers
                .iter()
                .all(|(param, matcher)| {
                    subjects
                        .get(param)
                        .is_some_and(|s| matcher.approves_subject(s))
                })
                .then_some(None);
        }
        let mut unsure = None;
        for (param, matcher) in &self.matchers {
            match subjects
                .get(param)
                .and_then(|s| matcher.triggers_subject(s))
            {
                None => return None,
                Some(None) => {}
                Some(Some(hazard)) => unsure = Some(hazard),
            }
        }
        Some(unsure)
    }
}

/// Appends `n` in decimal (what `write!(out, "{n}")` writes, without the
/// formatting machinery: a combined approval names every rule it used).
fn push_decimal(out: &mut String, n: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n;
    loop {
        at -= 1;
        if let Some(d) = digits.get_mut(at) {
            // `rest % 10` is below 10.
            *d = b'0' + (rest % 10) as u8;
        }
        rest /= 10;
        if rest == 0 || at == 0 {
            break;
        }
    }
    for &d in digits.get(at..).unwrap_or_default() {
        out.push(char::from(d));
    }
}

/// `rules[2]` plus the matchers: what a hit of the rule is reported as.
fn describe(index: usize, matchers: &[(String, Matcher)]) -> String {
    if matchers.is_empty() {
        return format!("rules[{index}] (no match: always applies)");
    }
    let list: Vec<String> = matchers
        .iter()
        .map(|(p, m)| format!("{p} ~ {:?}", m.source()))
        .collect();
    format!("rules[{index}] ({})", list.join(", "))
}

/// The argument values a rule list looks at; shell-command values come with
/// the parse the call's facts already hold.
struct Subjects<'v> {
    entries: Vec<(&'v str, Subject<'v>)>,
    /// Top-level arguments that change how a command runs (see the module docs).
    overrides: &'v [&'v str],
}

impl<'v> Subjects<'v> {
    fn new(args: &'v Value, schema: Option<&Value>, facts: &'v CallFacts<'v>) -> Self {
        let entries = args
            .as_object()
            .map(|map| {
                map.iter()
                    .map(|(k, v)| {
                        let subject = match facts.shell_of(k) {
                            Some(shell) => Subject::parsed(v, Some(shell.clone())),
                            None => Subject::new(v, is_command_param(k, schema)),
                        };
                        (k.as_str(), subject)
                    })
                    .collect()
            })
            .unwrap_or_default();
        Self {
            entries,
            overrides: &facts.overrides,
        }
    }

    fn get(&self, param: &str) -> Option<&Subject<'v>> {
        self.entries
            .iter()
            .find(|(k, _)| *k == param)
            .map(|(_, s)| s)
    }
}

/// The policy a hit stands for: a hit that only perhaps applies asks.
fn effective(hit: &RuleHit) -> InterventionPolicy {
    if hit.unsure.is_some() {
        hit.policy.min(InterventionPolicy::Required)
    } else {
        hit.policy
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rules(value: Value) -> RuleSet {
        let rules: Vec<InterventionRule> = serde_json::from_value(value).unwrap();
        RuleSet::compile(&rules).unwrap()
    }

    #[test]
    fn first_match_decides_but_later_deny_wins() {
        let set = rules(json!([
            {"match": {"command": "git:*"}, "policy": "never"},
            {"match": {"command": "git push:*"}, "policy": "deny"},
            {"policy": "required"}
        ]));
        assert_eq!(
            set.evaluate(&json!({"command": "git status"}), None)
                .unwrap()
                .index,
            0
        );
        let hit = set.evaluate(&json!({"command": "git push"}), None).unwrap();
        assert_eq!((hit.index, hit.policy), (1, InterventionPolicy::Deny));
        assert_eq!(
            set.evaluate(&json!({"command": "ls"}), None).unwrap().index,
            2
        );
    }

    #[test]
    fn several_prefix_rules_approve_a_compound_together() {
        let set = rules(json!([
            {"match": {"command": "ls:*"}, "policy": "never"},
            {"match": {"command": "git status:*"}, "policy": "never"},
            {"policy": "required"}
        ]));
        let hit = set
            .evaluate(&json!({"command": "ls -la && git status"}), None)
            .unwrap();
        assert_eq!((hit.index, hit.policy), (1, InterventionPolicy::Never));
        let hit = set
            .evaluate(&json!({"command": "ls && make"}), None)
            .unwrap();
        assert_eq!(hit.index, 2);
    }

    fn rule_list() -> impl proptest::strategy::Strategy<Value = Vec<Value>> {
        use proptest::prelude::*;
        let pattern = prop_oneof![
            Just("ls:*"),
            Just("git:*"),
            Just("git status:*"),
            Just("git push:*"),
            Just("echo:*"),
            Just("cargo test:*"),
            Just("*"),
            Just("rm -rf:*"),
        ];
        let policy = prop_oneof![
            Just("never"),
            Just("never"),
            Just("required"),
            Just("always"),
            Just("deny"),
        ];
        let rule =
            (proptest::option::weighted(0.9, pattern), policy).prop_map(|(p, policy)| match p {
                Some(p) => json!({"match": {"command": p}, "policy": policy}),
                None => json!({"policy": policy}),
            });
        proptest::collection::vec(rule, 0..12)
    }

    fn command_line() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let part = prop_oneof![
            Just("ls -la"),
            Just("git status"),
            Just("git push origin"),
            Just("echo $HOME"),
            Just("cargo test -p x"),
            Just("rm -rf build"),
            Just("make"),
            Just("bash -c 'ls'"),
        ];
        let op = prop_oneof![Just(" && "), Just(" | "), Just("; ")];
        (part.clone(), proptest::collection::vec((op, part), 0..4)).prop_map(|(first, rest)| {
            rest.into_iter()
                .fold(first.to_owned(), |line, (op, part)| line + op + part)
        })
    }

    proptest::proptest! {
        /// The indexed rule loop answers as the loop over every rule in order.
        #[test]
        fn the_indexed_loop_answers_as_the_loop_in_order(
            list in rule_list(),
            line in command_line(),
            env in proptest::bool::weighted(0.2),
        ) {
            let set = rules(Value::Array(list));
            let args = if env {
                json!({"command": line, "env": {"A": "1"}})
            } else {
                json!({"command": line})
            };
            let facts = CallFacts::build(&args, None, None);
            proptest::prop_assert_eq!(
                set.evaluate_facts(&args, None, &facts),
                set.evaluate_facts_in_order(&args, None, &facts),
                "{}", line
            );
        }
    }

    #[test]
    fn decimals_are_written_as_format_writes_them() {
        for n in [0, 7, 10, 99, 100, 12_345, usize::MAX] {
            let mut out = String::from("x");
            push_decimal(&mut out, n);
            assert_eq!(out, format!("x{n}"));
        }
    }

    #[test]
    fn the_first_rule_in_order_approves_each_part_of_a_compound() {
        // Parts are looked up by their command word: the earliest rule that
        // approves each part counts, and a rule alone still approves a line
        // whose parts all start with its prefix.
        let set = rules(json!([
            {"match": {"command": "git diff:*"}, "policy": "never"},
            {"match": {"command": "cargo test:*"}, "policy": "never"},
            {"match": {"command": "git:*"}, "policy": "never"},
            {"match": {"command": "ls:*"}, "policy": "never"},
            {"policy": "required"}
        ]));
        let hit = set
            .evaluate(&json!({"command": "git diff x && ls"}), None)
            .unwrap();
        assert_eq!((hit.index, hit.approved_by.as_slice()), (3, &[0, 3][..]));
        let hit = set
            .evaluate(&json!({"command": "git log && git diff && ls"}), None)
            .unwrap();
        assert_eq!((hit.index, hit.approved_by.as_slice()), (3, &[0, 2, 3][..]));
        // One rule alone: `git:*` approves both parts, before `ls:*` is needed.
        let hit = set
            .evaluate(&json!({"command": "git log && git status"}), None)
            .unwrap();
        assert_eq!((hit.index, hit.approved_by.len()), (2, 0));
        let hit = set
            .evaluate(&json!({"command": "git log && make"}), None)
            .unwrap();
        assert_eq!(hit.index, 4);
    }

    #[test]
    fn an_earlier_ask_rule_beats_a_later_combined_approval() {
        let set = rules(json!([
            {"match": {"command": "ls:*"}, "policy": "never"},
            {"match": {"command": "git:*"}, "policy": "required"},
            {"match": {"command": "git status:*"}, "policy": "never"}
        ]));
        let hit = set
            .evaluate(&json!({"command": "ls && git status"}), None)
            .unwrap();
        assert_eq!(hit.index, 1);
    }

    #[test]
    fn missing_parameter_does_not_match() {
        let set = rules(json!([{"match": {"command": "ls:*"}, "policy": "never"}]));
        assert!(set.evaluate(&json!({}), None).is_none());
    }

    #[test]
    fn all_matchers_of_a_rule_must_match() {
        let set = rules(json!([{"match": {"command": "ls:*", "cwd": "/w"}, "policy": "never"}]));
        assert!(
            set.evaluate(&json!({"command": "ls", "cwd": "/w"}), None)
                .is_some()
        );
        assert!(
            set.evaluate(&json!({"command": "ls", "cwd": "/x"}), None)
                .is_none()
        );
    }
}
