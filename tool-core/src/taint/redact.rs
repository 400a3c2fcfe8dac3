//! Secrets redacted from tool output before the model sees it: rules as
//! data (checked at load), plus the host's own secret values.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use regex::{Regex, RegexBuilder};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;

mod keywords;
use keywords::FoldedKeywords;

/// The built-in rule table: cloud keys, Git hosting and CI tokens, chat
/// webhooks, private keys, JWTs, connection strings with passwords…
pub const BUILTIN_SECRET_RULES: &str = include_str!("secret_rules.json");

/// The most bytes one compiled rule may take (a pattern past it is
/// refused at load rather than slowing every output).
const RULE_SIZE_LIMIT: usize = 1 << 20;

/// The shortest host secret value redacted (a shorter one would blank out
/// ordinary words).
pub const MIN_HOST_SECRET_LEN: usize = 8;

/// One rule of a secret table, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SecretRule {
    /// The rule's id: the placeholder's name (`[REDACTED:github-token]`).
    pub id: String,
    /// What it finds, for people.
    #[serde(default)]
    pub description: String,
    /// Lower-case words one of which occurs (in any case) wherever the
    /// rule can match: the rule runs only on text containing one.
    pub keywords: Vec<String>,
    /// The pattern (Rust `regex` syntax: no look-around or
    /// back-references, so matching stays linear). A group named `secret`
    /// limits what is replaced to that group.
    pub regex: String,
    /// Texts the rule must find something in.
    pub examples: Vec<String>,
    /// Texts the rule must find nothing in.
    #[serde(default)]
    pub counter_examples: Vec<String>,
    /// Every match lies inside one run of text without ASCII whitespace
    /// that holds one of the keywords (the regex has no `\s`-crossing
    /// part and no `^`/`$`): the rule then runs only on those runs, not
    /// on the whole text (a `://` in every link of an output no longer
    /// sends the whole output through the URL-password regex). Checked on
    /// the examples at load.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub in_token: bool,
    /// For an [`in_token`](Self::in_token) rule: strings every match
    /// holds (the `@` of `user:password@`); a run without one is skipped
    /// without running the regex. Checked on the examples at load.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub needs: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    #[serde(rename = "$comment", default)]
    _comment: Option<String>,
    rules: Vec<SecretRule>,
}

/// What one redaction pass found and replaced.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Redactions {
    /// Rule id (or `host-secret:NAME`) → how many were replaced.
    pub counts: BTreeMap<String, u64>,
}

impl Redactions {
    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// How many were replaced in all.
    pub fn total(&self) -> u64 {
        self.counts.values().sum()
    }

    fn add(&mut self, other: Redactions) {
        for (id, n) in other.counts {
            *self.counts.entry(id).or_default() += n;
        }
    }
}

/// Finds secrets in text and replaces each with a named placeholder,
/// `[REDACTED:<rule id>]` (`[REDACTED:host-secret:<name>]` for a host's own
/// value), in time linear in the text's length.
///
/// One pass over the text for every rule's keywords at once (a SIMD
/// multi-pattern search over a lower-cased copy, a chunk at a time; an
/// Aho-Corasick automaton where the keywords do not fit it) says which
/// rules can occur at all (most outputs: none, and nothing is copied);
/// only those rules' regexes then run, each once.
///
/// ```
/// use tool_core::taint::Redactor;
/// let redactor = Redactor::builtin()?.with_host_secret("vault", "correct-horse-battery")?;
/// let (text, found) = redactor
///     .redact("token ghp_0123456789abcdefghijABCDEFGHIJ012345 and correct-horse-battery")
///     .unwrap();
/// assert_eq!(text, "token [REDACTED:github-token] and [REDACTED:host-secret:vault]");
/// assert_eq!(found.total(), 2);
/// assert!(redactor.redact("nothing to see").is_none());
/// # Ok::<(), tool_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Redactor {
    // Shared, so clones (one per session) share the regexes' match caches.
    inner: Arc<Inner>,
}

#[derive(Debug, Clone)]
struct Inner {
    ids: Vec<String>,
    /// Every keyword of every rule, ASCII case-insensitive.
    keywords: AhoCorasick,
    /// The same keywords, same pattern order, searched with SIMD in a
    /// lower-cased copy of the text; `None` when they do not fit it (the
    /// automaton then searches).
    packed: Option<FoldedKeywords>,
    /// Keyword pattern index → the rules it opens.
    opens: Vec<Vec<usize>>,
    /// Keyword pattern index → the other keywords an occurrence of it can
    /// overlap, each with every offset (from its start to the other's)
    /// at which their shared bytes agree: where it is reported, the other
    /// is compared there only.
    overlaps: Vec<Vec<(usize, isize)>>,
    /// The keywords, lower case, in pattern order.
    words: Vec<Vec<u8>>,
    rules: Vec<Regex>,
    /// Whether each rule runs only on the runs around its keywords.
    in_token: Vec<bool>,
    /// What each in-token rule's runs must hold for its regex to run.
    needs: Vec<Vec<String>>,
    /// Index of each rule's `secret` group, when it has one.
    secret_group: Vec<Option<usize>>,
    host: Option<(Regex, Vec<String>)>,
    host_values: Vec<(String, String)>,
}

impl Redactor {
    /// The built-in rules ([`BUILTIN_SECRET_RULES`]), loaded and checked
    /// once per process.
    pub fn builtin() -> Result<Self, Error> {
        static BUILTIN: OnceLock<Result<Redactor, Error>> = OnceLock::new();
        BUILTIN
            .get_or_init(|| Self::from_json(BUILTIN_SECRET_RULES, "the built-in secret rules"))
            .clone()
    }

    /// Rules from a JSON table `{"rules": [SecretRule…]}`; `table` names it
    /// in errors. Every rule must compile, find something in each of its
    /// examples and nothing in its counter-examples; ids must be unique.
    pub fn from_json(text: &str, table: &str) -> Result<Self, Error> {
        let parsed: Table = serde_json::from_str(text).map_err(|e| Error::InvalidRule {
            table: table.to_owned(),
            rule: String::new(),
            message: format!("the table does not read: {e}"),
        })?;
        Self::from_rules(&parsed.rules, table)
    }

    /// Rules given as values (see [`from_json`](Self::from_json)).
    pub fn from_rules(rules: &[SecretRule], table: &str) -> Result<Self, Error> {
        let bad = |rule: &str, message: String| Error::InvalidRule {
            table: table.to_owned(),
            rule: rule.to_owned(),
            message,
        };
        let mut ids: Vec<String> = Vec::with_capacity(rules.len());
        let mut compiled = Vec::with_capacity(rules.len());
        for rule in rules {
            if rule.id.is_empty()
                || !rule
                    .id
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            {
                return Err(bad(
                    &rule.id,
                    "an id is lower-case letters, digits and `-`".into(),
                ));
            }
            if ids.contains(&rule.id) {
                return Err(bad(&rule.id, "the id is used twice".into()));
            }
            let regex = RegexBuilder::new(&rule.regex)
                .size_limit(RULE_SIZE_LIMIT)
                .build()
                .map_err(|e| bad(&rule.id, format!("the regex does not compile: {e}")))?;
            if rule.examples.is_empty() {
                return Err(bad(&rule.id, "a rule needs at least one example".into()));
            }
            if rule.keywords.is_empty()
                || rule
                    .keywords
                    .iter()
                    .any(|k| k.is_empty() || *k != k.to_ascii_lowercase())
            {
                return Err(bad(
                    &rule.id,
                    "a rule needs keywords, each non-empty and lower case".into(),
                ));
            }
            for example in &rule.examples {
                if !regex.is_match(example) {
                    return Err(bad(
                        &rule.id,
                        format!("finds nothing in its example {example:?}"),
                    ));
                }
                let lower = example.to_ascii_lowercase();
                if !rule.keywords.iter().any(|k| lower.contains(k.as_str())) {
                    return Err(bad(
                        &rule.id,
                        format!("none of its keywords occurs in its example {example:?}"),
                    ));
                }
            }
            if !rule.needs.is_empty() && !rule.in_token {
                return Err(bad(&rule.id, "`needs` is for inToken rules".into()));
            }
            if rule.in_token {
                for example in &rule.examples {
                    for m in regex.find_iter(example) {
                        let lower = m.as_str().to_ascii_lowercase();
                        if m.as_str().bytes().any(|b| b.is_ascii_whitespace())
                            || !rule.keywords.iter().any(|k| lower.contains(k.as_str()))
                            || !rule.needs.iter().all(|n| m.as_str().contains(n.as_str()))
                        {
                            return Err(bad(
                                &rule.id,
                                format!(
                                    "an inToken rule's match {:?} in its example {example:?} is not one run without whitespace holding a keyword and what it needs",
                                    m.as_str()
                                ),
                            ));
                        }
                    }
                }
            }
            for counter in &rule.counter_examples {
                if regex.is_match(counter) {
                    return Err(bad(
                        &rule.id,
                        format!("finds something in its counter-example {counter:?}"),
                    ));
                }
            }
            ids.push(rule.id.clone());
            compiled.push(regex);
        }
        let mut words: Vec<String> = Vec::new();
        let mut opens: Vec<Vec<usize>> = Vec::new();
        for (index, rule) in rules.iter().enumerate() {
            for keyword in &rule.keywords {
                match words.iter().position(|w| w == keyword) {
                    Some(at) => opens[at].push(index),
                    None => {
                        words.push(keyword.clone());
                        opens.push(vec![index]);
                    }
                }
            }
        }
        // The search reports keyword occurrences without overlaps (the
        // fast one, with its prefilter): an occurrence it steps over
        // overlaps one it reports, so where a keyword is reported, every
        // keyword that can overlap it is looked for at each place where
        // it would (a few bytes compared), and opens its rules if there.
        let keywords = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            // A full DFA: a few bytes of table per state for a handful of
            // keywords, and the fastest scan between prefilter hits.
            .kind(Some(AhoCorasickKind::DFA))
            .prefilter(false)
            .build(&words)
            .map_err(|e| bad("", format!("the keywords do not build: {e}")))?;
        let packed = FoldedKeywords::new(&words);
        let overlaps: Vec<Vec<(usize, isize)>> = words
            .iter()
            .enumerate()
            .map(|(at, word)| {
                words
                    .iter()
                    .enumerate()
                    .filter(|(other_at, _)| *other_at != at)
                    .flat_map(|(other_at, other)| {
                        overlap_offsets(word, other).map(move |d| (other_at, d))
                    })
                    .collect()
            })
            .collect();
        let secret_group = compiled
            .iter()
            .map(|r| r.capture_names().position(|n| n == Some("secret")))
            .collect();
        Ok(Self {
            inner: Arc::new(Inner {
                ids,
                keywords,
                packed,
                opens,
                overlaps,
                words: words.into_iter().map(String::into_bytes).collect(),
                rules: compiled,
                in_token: rules.iter().map(|r| r.in_token).collect(),
                needs: rules.iter().map(|r| r.needs.clone()).collect(),
                secret_group,
                host: None,
                host_values: Vec::new(),
            }),
        })
    }

    /// The same redactor also replacing the host's own secret `value`
    /// (an API key it holds) with `[REDACTED:host-secret:<name>]`. A value
    /// shorter than [`MIN_HOST_SECRET_LEN`] is refused.
    pub fn with_host_secret(mut self, name: &str, value: &str) -> Result<Self, Error> {
        if value.chars().count() < MIN_HOST_SECRET_LEN {
            return Err(Error::InvalidRule {
                table: "host secrets".into(),
                rule: name.to_owned(),
                message: format!(
                    "a secret value shorter than {MIN_HOST_SECRET_LEN} characters would redact ordinary text"
                ),
            });
        }
        let mut host_values = self.inner.host_values.clone();
        host_values.push((name.to_owned(), value.to_owned()));
        // Longest first, so a value that contains another is replaced whole.
        let mut values = host_values.clone();
        values.sort_by_key(|v| std::cmp::Reverse(v.1.len()));
        let pattern = values
            .iter()
            .map(|(_, v)| format!("({})", regex::escape(v)))
            .collect::<Vec<_>>()
            .join("|");
        let regex = RegexBuilder::new(&pattern)
            .size_limit(RULE_SIZE_LIMIT * 4)
            .build()
            .map_err(|e| Error::InvalidRule {
                table: "host secrets".into(),
                rule: name.to_owned(),
                message: format!("the values do not compile: {e}"),
            })?;
        let inner = &self.inner;
        self.inner = Arc::new(Inner {
            ids: inner.ids.clone(),
            keywords: inner.keywords.clone(),
            packed: inner.packed.clone(),
            opens: inner.opens.clone(),
            overlaps: inner.overlaps.clone(),
            words: inner.words.clone(),
            rules: inner.rules.clone(),
            in_token: inner.in_token.clone(),
            needs: inner.needs.clone(),
            secret_group: inner.secret_group.clone(),
            host: Some((regex, values.into_iter().map(|(n, _)| n).collect())),
            host_values,
        });
        Ok(self)
    }

    /// The rule ids, in table order.
    pub fn rule_ids(&self) -> &[String] {
        &self.inner.ids
    }

    /// `text` with every secret replaced, and what was found; `None` when
    /// nothing was (the text is then not copied).
    pub fn redact(&self, text: &str) -> Option<(String, Redactions)> {
        let inner = &*self.inner;
        let mut spans: Vec<(usize, usize, String)> = Vec::new();
        if let Some((host, names)) = &inner.host {
            for caps in host.captures_iter(text) {
                if let Some((i, m)) = caps
                    .iter()
                    .skip(1)
                    .enumerate()
                    .find_map(|(i, m)| m.map(|m| (i, m)))
                {
                    let name = names.get(i).map_or("", String::as_str);
                    spans.push((m.start(), m.end(), format!("host-secret:{name}")));
                }
            }
        }
        let mut open = vec![false; inner.rules.len()];
        let mut any = false;
        // For the in-token rules: the runs to search, and where each
        // rule's last run ended (runs of one rule never overlap, so each
        // byte is looked at a bounded number of times: linear).
        let mut runs: Vec<(usize, usize, usize)> = Vec::new();
        let mut last_end = vec![0usize; inner.rules.len()];
        let bytes = text.as_bytes();
        let mut open_at = |pattern: usize, found_start: usize, found_end: usize| {
            let Some(rules) = inner.opens.get(pattern) else {
                return;
            };
            for &rule in rules {
                if !inner.in_token.get(rule).copied().unwrap_or(false) {
                    open[rule] = true;
                    any = true;
                    continue;
                }
                let lo = last_end[rule];
                if found_end <= lo {
                    continue;
                }
                let from = found_start.max(lo);
                let start = bytes[lo..from]
                    .iter()
                    .rposition(u8::is_ascii_whitespace)
                    .map_or(lo, |i| lo + i + 1);
                let end = next_space(bytes, found_end);
                last_end[rule] = end;
                let run = text.get(start..end).unwrap_or_default();
                let needs = inner.needs.get(rule).map_or(&[][..], Vec::as_slice);
                // One byte (the `@` of the URL rules) found with memchr,
                // without a substring searcher built per run.
                if needs.iter().all(|n| match n.as_bytes() {
                    [byte] => run.as_bytes().contains(byte),
                    _ => run.contains(n.as_str()),
                }) {
                    runs.push((rule, start, end));
                    any = true;
                }
            }
        };
        // A reported keyword, then each other keyword wherever it occurs
        // overlapping it (the search steps over those).
        let mut hit = |pattern: usize, found_start: usize, found_end: usize| {
            open_at(pattern, found_start, found_end);
            for &(other, offset) in inner.overlaps.get(pattern).map_or(&[][..], Vec::as_slice) {
                let (Some(word), Some(at)) = (
                    inner.words.get(other),
                    found_start.checked_add_signed(offset),
                ) else {
                    continue;
                };
                if bytes
                    .get(at..at + word.len())
                    .is_some_and(|b| b.eq_ignore_ascii_case(word))
                {
                    open_at(other, at, at + word.len());
                }
            }
        };
        match &inner.packed {
            Some(packed) => packed.each(bytes, &mut hit),
            None => {
                for found in inner.keywords.find_iter(text) {
                    hit(found.pattern().as_usize(), found.start(), found.end());
                }
            }
        }
        self.redact_opened(text, spans, &open, &runs, any)
    }

    /// The matches of rule `index` in `text`, offset by `at`, into `spans`.
    fn find_rule(
        &self,
        index: usize,
        text: &str,
        at: usize,
        spans: &mut Vec<(usize, usize, String)>,
    ) {
        let inner = &*self.inner;
        let (Some(regex), Some(id)) = (inner.rules.get(index), inner.ids.get(index)) else {
            return;
        };
        match inner.secret_group.get(index).copied().flatten() {
            None => {
                for m in regex.find_iter(text) {
                    if !m.is_empty() {
                        spans.push((at + m.start(), at + m.end(), id.clone()));
                    }
                }
            }
            Some(group) => {
                // The fast search finds each match; the slower capturing
                // one runs only where there is one.
                for whole in regex.find_iter(text) {
                    let Some(caps) = regex.captures_at(text, whole.start()) else {
                        continue;
                    };
                    if let Some(m) = caps.get(group).filter(|m| !m.is_empty()) {
                        spans.push((at + m.start(), at + m.end(), id.clone()));
                    }
                }
            }
        }
    }

    /// [`redact`](Self::redact) with the rules `open` says on the whole
    /// text (all of them, in the tests that hold the keyword prefilter to
    /// running them all) and the in-token rules on their `runs` (rule,
    /// start, end).
    fn redact_opened(
        &self,
        text: &str,
        mut spans: Vec<(usize, usize, String)>,
        open: &[bool],
        runs: &[(usize, usize, usize)],
        any: bool,
    ) -> Option<(String, Redactions)> {
        if any {
            for (index, _) in open.iter().enumerate().filter(|(_, o)| **o) {
                self.find_rule(index, text, 0, &mut spans);
            }
            for &(index, start, end) in runs {
                if let Some(run) = text.get(start..end) {
                    self.find_rule(index, run, start, &mut spans);
                }
            }
        }
        if spans.is_empty() {
            return None;
        }
        // Earliest first; of two that overlap, the one starting first (and
        // then the longer) wins, and the other is dropped.
        spans.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let mut out = String::with_capacity(text.len());
        let mut found = Redactions::default();
        let mut at = 0;
        for (start, end, id) in spans {
            if start < at {
                continue;
            }
            out.push_str(&text[at..start]);
            out.push_str("[REDACTED:");
            out.push_str(&id);
            out.push(']');
            *found.counts.entry(id).or_default() += 1;
            at = end;
        }
        out.push_str(&text[at..]);
        Some((out, found))
    }

    /// Redacts every string in `value` in place (keys are left alone).
    pub fn redact_json(&self, value: &mut Value) -> Redactions {
        let mut found = Redactions::default();
        self.walk(value, &mut found);
        found
    }

    fn walk(&self, value: &mut Value, found: &mut Redactions) {
        match value {
            Value::String(s) => {
                if let Some((text, here)) = self.redact(s) {
                    *s = text;
                    found.add(here);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.walk(v, found)),
            Value::Object(map) => map.values_mut().for_each(|v| self.walk(v, found)),
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

/// The index of the first ASCII whitespace byte at or after `from` in
/// `bytes`, or its length: eight bytes at a time while none of them is a
/// control byte or a space (the runs around keywords are links and
/// tokens, tens of bytes long).
fn next_space(bytes: &[u8], from: usize) -> usize {
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    const BELOW: u64 = u64::from_ne_bytes([0x21; 8]);
    let mut at = from;
    while let Some(word) = bytes.get(at..at + 8) {
        let mut eight = [0u8; 8];
        eight.copy_from_slice(word);
        let w = u64::from_ne_bytes(eight);
        // A byte below 0x21 (whitespace among them) sets its high bit
        // here, or an earlier byte does; none set: none is whitespace.
        if w.wrapping_sub(BELOW) & !w & HIGH != 0 {
            break;
        }
        at += 8;
    }
    bytes
        .get(at..)
        .unwrap_or_default()
        .iter()
        .position(u8::is_ascii_whitespace)
        .map_or(bytes.len(), |i| at + i)
}

/// Whether an occurrence of `a` and one of `b` can share a byte (ASCII
/// case ignored): `b` placed at every offset against `a`, the bytes they
/// share agree. A word overlaps itself.
#[cfg(test)]
fn can_overlap(a: &str, b: &str) -> bool {
    overlap_offsets(a, b).next().is_some()
}

/// The offsets `d` (from `a`'s start to `b`'s) at which an occurrence of
/// `b` shares at least one byte with one of `a` and every shared byte
/// agrees (ASCII case ignored).
fn overlap_offsets<'a>(a: &'a str, b: &'a str) -> impl Iterator<Item = isize> + 'a {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (la, lb) = (a.len() as isize, b.len() as isize);
    (1 - lb..la).filter(move |&d| {
        (0..la).all(|i| {
            let j = i - d;
            j < 0 || j >= lb || a[i as usize].eq_ignore_ascii_case(&b[j as usize])
        })
    })
}

#[cfg(test)]
mod tests;
