//! The host's policy file (its format is on [`PolicyFile`]).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;
use tool_core::{
    Confinement, InterventionPolicy,
    manifest::{ArgMatcher, InterventionRule, RuleExamples},
};

use super::host_rule::HostRule;
use super::json_fields::{array, known_keys, object, string};

use crate::audit::{Blacklist, BlacklistEntry};
use crate::error::{Error, push_pointer};
use crate::mode::ApprovalMode;
use crate::policy::{Matcher, RuleSet};
use crate::shell::ShellSyntax;

/// The largest policy file [`PolicyFile::load`] reads.
pub const MAX_POLICY_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// A loaded, checked policy file; [`PolicyFile::engine`] builds the engine it describes.
///
/// ```json
/// {
///   "mode": "manual",
///   "allowList": ["local-system/readFile"],
///   "rules": {
///     "local-system/runCommand": [
///       {"match": {"command": "git status:*"}, "policy": "never",
///        "examples": {"match": ["git status -s"], "notMatch": ["git status && rm -rf ~"]}},
///       {"match": {"command": "cargo build:*"}, "policy": "never",
///        "confinement": {"mode": "workspace_write", "writable_roots": ["/home/me/.cargo"], "network": true}},
///       {"match": {"command": "git push:*"}, "policy": "deny"},
///       {"policy": "required"}
///     ]
///   },
///   "blacklist": "default"
/// }
/// ```
///
/// A rule's `confinement` bounds what the calls it approves can do; a
/// full-access rule (`"confinement": "full_access"`) applies only to the
/// invocation it names (an option that takes the command to another
/// project, directory or configuration, `cargo build --manifest-path
/// /tmp/x/Cargo.toml`, takes it out of the rule), and one over a program
/// that runs the workspace's code (builds, test runners, package scripts,
/// interpreters) is reported by [`PolicyFile::findings`]: an edit the path
/// scope approves (a `build.rs`, a path dependency) would run unconfined.
///
/// - `mode`: `manual` | `allow-list` | `auto-run` | `headless` (optional; a
///   host's command-line flag may override it).
/// - `allowList`: `identifier/apiName` keys (used in allow-list mode).
/// - `rules`: `identifier/apiName` → rule list. A rule is `{match?, policy,
///   examples?, confinement?}`; `match` maps a parameter to a matcher (see
///   [`Matcher`](crate::Matcher)); `examples.match` / `examples.notMatch`
///   list argument objects (or bare values, for one-parameter rules) the rule
///   must / must not match, checked at load time. `confinement` is what the
///   calls this rule decides run under instead of the engine's default:
///   `"full_access"` (explicitly out of confinement), `"workspace_write"`,
///   `"read_only"` (both without network), or a full object
///   `{"mode": "workspace_write", "writable_roots": ["/srv/cache"], "network": true}`
///   (see [`Confinement`](tool_core::Confinement) and the confinement column
///   in [`ApprovalMode`](crate::ApprovalMode)). Only the host's rules have it; a tool's manifest
///   rules do not.
/// - `blacklist`: `"default"` (the built-ins, also when absent), `"none"`, or
///   `{"base": "default"|"none", "remove": [ids], "add": [entries]}` where an
///   entry is `{"id", "policy", "command": matcher}` or `{"id", "policy",
///   "path": glob}`, with an optional `"message"` and optional `"examples":
///   {"match": [...], "notMatch": [...]}` (commands or paths the entry must
///   and must not flag, checked at load: a wrong example is an error at its
///   pointer, `/blacklist/add/0/examples/match/1`).
/// - `shell`: the host's wrappers and command options, see
///   [the `shell` section](#the-shell-section) and [`ShellSyntax`](crate::ShellSyntax).
///
/// Unknown fields, unknown policies or modes, bad keys, bad regexes and
/// failing examples are errors that name the place as a JSON pointer.
///
/// # The `shell` section
///
/// A host's wrappers and command options (see [`ShellSyntax`](crate::ShellSyntax)).
///
/// ```json
/// "shell": {
///   "wrappers": [{"name": "with-vpn", "valuedOptions": ["--profile"], "positional": 0}],
///   "options": [{"program": "deploy", "subcommand": "run", "names": ["--hook"],
///                "value": "required", "effect": "runsCode"}]
/// }
/// ```
///
/// Each option is a row of the program table ([`CommandOption`](crate::CommandOption)).
/// `value` is `required` (`-o F`, `-oF`, `--out F`, `--out=F`), `attached`
/// (`--out=F` only) or `flag`; `effect` is one of the table's effects
/// ([`Effect`](crate::Effect): `readsFile`, `writesFile`, `runsCode`, `loadsCode`, `network`,
/// `changesConfig`) or `none` for an option that only takes a value (so the
/// word after it is neither the subcommand nor an operand: `deploy --env prod
/// run --hook CMD`).
#[derive(Debug, Clone)]
pub struct PolicyFile {
    /// The file's mode, if it sets one.
    pub mode: Option<ApprovalMode>,
    /// `identifier/apiName` keys that run in allow-list mode.
    pub allow_list: Vec<String>,
    /// Host rules per `identifier/apiName`.
    pub rules: BTreeMap<String, Vec<HostRule>>,
    /// The blacklist (`None` for `"none"`).
    pub blacklist: Option<Blacklist>,
    /// The host's wrappers and command options.
    pub shell: ShellSyntax,
}

impl Default for PolicyFile {
    fn default() -> Self {
        Self {
            mode: None,
            allow_list: Vec::new(),
            rules: BTreeMap::new(),
            blacklist: Some(Blacklist::builtin()),
            shell: ShellSyntax::new(),
        }
    }
}

impl PolicyFile {
    /// Reads and checks a policy file.
    pub fn load(path: &Path) -> Result<Self, Error> {
        let io = |e: std::io::Error| Error::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        let size = std::fs::metadata(path).map_err(io)?.len();
        if size > MAX_POLICY_FILE_BYTES {
            return Err(Error::Io {
                path: path.to_path_buf(),
                message: format!("the file is {size} bytes; the limit is {MAX_POLICY_FILE_BYTES}"),
            });
        }
        let text = std::fs::read_to_string(path).map_err(io)?;
        Self::from_json(&text)
    }

    /// Parses and checks a policy document.
    ///
    /// ```
    /// use tool_approval::PolicyFile;
    /// let err = PolicyFile::from_json(r#"{"rules": {"a/b": [{"policy": "sometimes"}]}}"#).unwrap_err();
    /// assert_eq!(err.pointer(), Some("/rules/a~1b/0/policy"));
    /// ```
    pub fn from_json(text: &str) -> Result<Self, Error> {
        let value: Value = serde_json::from_str(text).map_err(|e| Error::Json {
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        Self::from_value(&value)
    }

    /// Checks a policy document already parsed as JSON. Every problem is
    /// reported ([`Error::Many`] when there are several, see
    /// [`Error::problems`]), each with its JSON pointer.
    ///
    /// ```
    /// use tool_approval::PolicyFile;
    /// let err = PolicyFile::from_json(r#"{"mode": "sometimes", "allowList": ["nokey"]}"#).unwrap_err();
    /// let pointers: Vec<_> = err.problems().iter().filter_map(|p| p.pointer()).collect();
    /// assert_eq!(pointers, ["/mode", "/allowList/0"]);
    /// ```
    pub fn from_value(value: &Value) -> Result<Self, Error> {
        let map = object(value, "")?;
        let mut problems = Vec::new();
        known_keys(
            map,
            "",
            &["mode", "allowList", "rules", "blacklist", "shell"],
            &mut problems,
        );
        let mut file = Self::default();
        if let Some(mode) = map.get("mode") {
            match string(mode, "/mode").and_then(str::parse) {
                Ok(mode) => file.mode = Some(mode),
                Err(e) => problems.push(e),
            }
        }
        if let Some(list) = map.get("allowList") {
            match array(list, "/allowList") {
                Err(e) => problems.push(e),
                Ok(items) => {
                    for (i, item) in items.iter().enumerate() {
                        let at = push_pointer("/allowList", i);
                        match string(item, &at).and_then(|k| check_key(k, &at).map(|()| k)) {
                            Ok(key) => file.allow_list.push(key.to_owned()),
                            Err(e) => problems.push(e),
                        }
                    }
                }
            }
        }
        if let Some(rules) = map.get("rules") {
            match object(rules, "/rules") {
                Err(e) => problems.push(e),
                Ok(rules) => {
                    for (key, list) in rules {
                        let at = push_pointer("/rules", key);
                        if let Err(e) = check_key(key, &at) {
                            problems.push(e);
                        }
                        match parse_rules(list, &at) {
                            Ok(parsed) => {
                                file.rules.insert(key.clone(), parsed);
                            }
                            Err(e) => problems.extend(e.into_problems()),
                        }
                    }
                }
            }
        }
        if let Some(blacklist) = map.get("blacklist") {
            match parse_blacklist(blacklist) {
                Ok(list) => file.blacklist = list,
                Err(e) => problems.extend(e.into_problems()),
            }
        }
        if let Some(shell) = map.get("shell") {
            file.shell = super::policy_shell::parse_shell(shell, &mut problems);
        }
        Error::from_list(problems)?;
        Ok(file)
    }
}

/// Checks an `identifier/apiName` key.
pub(crate) fn check_key(key: &str, pointer: &str) -> Result<(), Error> {
    // One grammar for keys across the crates: tool-core's `ApiKey`.
    tool_core::ApiKey::parse(key).map(drop).map_err(|e| {
        let reason = match &e {
            tool_core::Error::InvalidApiKey { message, .. } => message.clone(),
            other => other.to_string(),
        };
        Error::invalid(
            pointer,
            &Value::String(key.to_owned()),
            format!("expected an `identifier/apiName` key: {reason}"),
        )
    })
}

fn policy(value: &Value, at: &str) -> Result<InterventionPolicy, Error> {
    match value.as_str() {
        Some("never") => Ok(InterventionPolicy::Never),
        Some("required") => Ok(InterventionPolicy::Required),
        Some("always") => Ok(InterventionPolicy::Always),
        Some("deny") => Ok(InterventionPolicy::Deny),
        _ => Err(Error::invalid(
            at,
            value,
            "unknown policy, expected one of never, required, always, deny",
        )),
    }
}

fn matcher(value: &Value, at: &str) -> Result<ArgMatcher, Error> {
    match value {
        Value::String(s) => Ok(ArgMatcher::Pattern(s.clone())),
        Value::Object(map) => {
            let mut problems = Vec::new();
            known_keys(map, at, &["regex"], &mut problems);
            Error::from_list(problems)?;
            let regex = map
                .get("regex")
                .ok_or_else(|| Error::invalid(at, value, "expected `{\"regex\": \"…\"}`"))?;
            Ok(ArgMatcher::Regex {
                regex: string(regex, &push_pointer(at, "regex"))?.to_owned(),
            })
        }
        other => Err(Error::invalid(
            at,
            other,
            "expected a pattern string or {\"regex\": …}",
        )),
    }
}

/// Parses, compiles and self-checks a rule list at `at`, reporting every
/// problem of every rule.
pub(crate) fn parse_rules(value: &Value, at: &str) -> Result<Vec<HostRule>, Error> {
    let mut host_rules = Vec::new();
    let mut problems = Vec::new();
    for (i, item) in array(value, at)?.iter().enumerate() {
        let here = push_pointer(at, i);
        match parse_rule(item, &here) {
            Ok(rule) => host_rules.push(rule),
            Err(e) => problems.extend(e.into_problems()),
        }
    }
    Error::from_list(problems)?;
    let rules: Vec<InterventionRule> = host_rules.iter().map(|r| r.rule.clone()).collect();
    let compiled = RuleSet::compile_at(&rules, at)?;
    let mut problems = Vec::new();
    for (i, rule) in rules.iter().enumerate() {
        let Some(examples) = &rule.examples else {
            continue;
        };
        let here = push_pointer(&push_pointer(at, i), "examples");
        for (key, list, expect) in [
            ("match", &examples.matches, true),
            ("notMatch", &examples.not_match, false),
        ] {
            for (j, example) in list.iter().enumerate() {
                let ex_at = push_pointer(&push_pointer(&here, key), j);
                let args = match example_args(example, &compiled.params(i), &ex_at) {
                    Ok(args) => args,
                    Err(e) => {
                        problems.push(e);
                        continue;
                    }
                };
                let matched = compiled.rule_matches(i, &args, None);
                if matched != expect {
                    problems.push(Error::Example {
                        pointer: ex_at,
                        example: example.to_string(),
                        matched,
                    });
                }
            }
        }
    }
    Error::from_list(problems)?;
    Ok(host_rules)
}

/// A rule's `confinement`: a mode name (no network, no extra roots) or a
/// full [`Confinement`] object.
fn confinement(value: &Value, at: &str) -> Result<Confinement, Error> {
    match value.as_str() {
        Some("full_access") => Ok(Confinement::FullAccess),
        Some("workspace_write") => Ok(Confinement::workspace_write()),
        Some("read_only") => Ok(Confinement::read_only()),
        Some(_) => Err(Error::invalid(
            at,
            value,
            "unknown confinement, expected one of full_access, workspace_write, read_only, or an object with `mode`",
        )),
        None => serde_json::from_value(value.clone()).map_err(|e| {
            Error::invalid(
                at,
                value,
                format!("expected a confinement (`{{\"mode\": …}}`): {e}"),
            )
        }),
    }
}

/// One rule at `here`: every field checked, every problem kept.
fn parse_rule(item: &Value, here: &str) -> Result<HostRule, Error> {
    let map = object(item, here)?;
    let mut problems = Vec::new();
    known_keys(
        map,
        here,
        &["match", "policy", "examples", "confinement"],
        &mut problems,
    );
    let confinement = map.get("confinement").and_then(|v| {
        confinement(v, &push_pointer(here, "confinement"))
            .map_err(|e| problems.push(e))
            .ok()
    });
    let policy = match map.get("policy") {
        None => {
            problems.push(Error::invalid(here, item, "a rule needs a `policy`"));
            None
        }
        Some(v) => policy(v, &push_pointer(here, "policy"))
            .map_err(|e| problems.push(e))
            .ok(),
    };
    let mut matches = None;
    if let Some(m) = map.get("match") {
        let match_at = push_pointer(here, "match");
        match object(m, &match_at) {
            Err(e) => problems.push(e),
            Ok(params) => {
                let mut out = BTreeMap::new();
                for (param, v) in params {
                    let at = push_pointer(&match_at, param);
                    // Compiled here too, so a bad regex or glob is reported
                    // with the rule's other problems.
                    match matcher(v, &at).and_then(|m| Matcher::compile_at(&m, &at).map(|_| m)) {
                        Ok(m) => {
                            out.insert(param.clone(), m);
                        }
                        Err(e) => problems.push(e),
                    }
                }
                matches = Some(out);
            }
        }
    }
    let mut examples = None;
    if let Some(e) = map.get("examples") {
        let ex_at = push_pointer(here, "examples");
        match object(e, &ex_at) {
            Err(e) => problems.push(e),
            Ok(ex) => {
                known_keys(ex, &ex_at, &["match", "notMatch"], &mut problems);
                let mut list = |k: &str| -> Vec<Value> {
                    match ex.get(k).map(|v| array(v, &push_pointer(&ex_at, k))) {
                        None => Vec::new(),
                        Some(Ok(items)) => items.clone(),
                        Some(Err(e)) => {
                            problems.push(e);
                            Vec::new()
                        }
                    }
                };
                let matches = list("match");
                let not_match = list("notMatch");
                examples = Some(RuleExamples { matches, not_match });
            }
        }
    }
    Error::from_list(problems)?;
    Ok(HostRule {
        rule: InterventionRule {
            matches,
            policy: policy.unwrap_or(InterventionPolicy::Required),
            examples,
        },
        confinement,
    })
}

fn example_args(example: &Value, params: &[&str], at: &str) -> Result<Value, Error> {
    if example.is_object() {
        return Ok(example.clone());
    }
    match params {
        [param] => Ok(serde_json::json!({ *param: example })),
        _ => Err(Error::invalid(
            at,
            example,
            "a bare example needs a rule that matches exactly one parameter; give an argument object",
        )),
    }
}

fn parse_blacklist(value: &Value) -> Result<Option<Blacklist>, Error> {
    let at = "/blacklist";
    let base = |v: &Value, at: &str| match v.as_str() {
        Some("default") => Ok(Some(Blacklist::builtin())),
        Some("none") => Ok(None),
        _ => Err(Error::invalid(at, v, "expected \"default\" or \"none\"")),
    };
    let Value::Object(map) = value else {
        return base(value, at);
    };
    let mut problems = Vec::new();
    known_keys(map, at, &["base", "remove", "add"], &mut problems);
    let mut list = match map.get("base") {
        Some(b) => base(b, &push_pointer(at, "base"))?.unwrap_or_else(Blacklist::empty),
        None => Blacklist::builtin(),
    };
    if let Some(remove) = map.get("remove") {
        let rm_at = push_pointer(at, "remove");
        for (i, id) in array(remove, &rm_at)?.iter().enumerate() {
            list = list.without(string(id, &push_pointer(&rm_at, i))?);
        }
    }
    if let Some(add) = map.get("add") {
        let add_at = push_pointer(at, "add");
        for (i, entry) in array(add, &add_at)?.iter().enumerate() {
            let here = push_pointer(&add_at, i);
            match blacklist_entry(entry, &here) {
                Ok(built) => list = list.with(built),
                Err(e) => problems.extend(e.into_problems()),
            }
        }
    }
    Error::from_list(problems)?;
    Ok(Some(list))
}

/// One host blacklist entry at `here`.
fn blacklist_entry(entry: &Value, here: &str) -> Result<BlacklistEntry, Error> {
    let here = here.to_owned();
    let e = object(entry, &here)?;
    let mut problems = Vec::new();
    known_keys(
        e,
        &here,
        &["id", "policy", "command", "path", "message", "examples"],
        &mut problems,
    );
    Error::from_list(problems)?;
    let id = string(
        e.get("id").unwrap_or(&Value::Null),
        &push_pointer(&here, "id"),
    )?;
    let policy = policy(
        e.get("policy").unwrap_or(&Value::Null),
        &push_pointer(&here, "policy"),
    )?;
    let message = match e.get("message") {
        Some(m) => string(m, &push_pointer(&here, "message"))?.to_owned(),
        None => format!("matches the host's blacklist entry `{id}`"),
    };
    let relocate = |err: Error, field: &str| match err {
        Error::Regex {
            pattern, message, ..
        } => Error::Regex {
            pointer: push_pointer(&here, field),
            pattern,
            message,
        },
        Error::Glob {
            pattern, message, ..
        } => Error::Glob {
            pointer: push_pointer(&here, field),
            pattern,
            message,
        },
        Error::Invalid { input, message, .. } => Error::Invalid {
            pointer: push_pointer(&here, field),
            input,
            message,
        },
        other => other,
    };
    let built = match (e.get("command"), e.get("path")) {
        (Some(c), None) => {
            let m = matcher(c, &push_pointer(&here, "command"))?;
            BlacklistEntry::command(id, policy, &m, message)
                .map_err(|err| relocate(err, "command"))?
        }
        (None, Some(p)) => {
            let glob = string(p, &push_pointer(&here, "path"))?;
            BlacklistEntry::path(id, policy, glob, message).map_err(|err| relocate(err, "path"))?
        }
        _ => {
            return Err(Error::invalid(
                &here,
                entry,
                "an entry needs exactly one of `command` or `path`",
            ));
        }
    };
    if let Some(examples) = e.get("examples") {
        check_entry_examples(&built, e.contains_key("path"), examples, &here)?;
    }
    Ok(built)
}

/// A blacklist entry's `examples` (`{"match": […], "notMatch": […]}`, each
/// a command or a path as the entry reads it), checked by running the entry
/// alone over each; a disagreeing example is an error at its pointer.
fn check_entry_examples(
    entry: &BlacklistEntry,
    is_path: bool,
    examples: &Value,
    here: &str,
) -> Result<(), Error> {
    let at = push_pointer(here, "examples");
    let map = object(examples, &at)?;
    let mut problems = Vec::new();
    known_keys(map, &at, &["match", "notMatch"], &mut problems);
    let alone = Blacklist::empty().home(None).with(entry.clone());
    for (key, want) in [("match", true), ("notMatch", false)] {
        let Some(list) = map.get(key) else { continue };
        let list_at = push_pointer(&at, key);
        for (i, example) in array(list, &list_at)?.iter().enumerate() {
            let example_at = push_pointer(&list_at, i);
            let text = match string(example, &example_at) {
                Ok(text) => text,
                Err(e) => {
                    problems.push(e);
                    continue;
                }
            };
            let hit = if is_path {
                alone.check_path(text, None)
            } else {
                alone.check_command(text, None)
            };
            if hit.is_some() != want {
                problems.push(Error::Example {
                    pointer: example_at,
                    example: example.to_string(),
                    matched: !want,
                });
            }
        }
    }
    Error::from_list(problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> Error {
        match PolicyFile::from_json(text) {
            Err(e) => e,
            Ok(_) => panic!("expected an error for {text}"),
        }
    }

    #[test]
    fn errors_name_the_place() {
        assert_eq!(err(r#"{"mdoe": "manual"}"#).pointer(), Some("/mdoe"));
        assert_eq!(err(r#"{"mode": "yolo"}"#).pointer(), Some("/mode"));
        assert_eq!(
            err(r#"{"allowList": ["nokey"]}"#).pointer(),
            Some("/allowList/0")
        );
        assert_eq!(
            err(r#"{"rules": {"a/b/c": []}}"#).pointer(),
            Some("/rules/a~1b~1c")
        );
        assert_eq!(
            err(r#"{"rules": {"a/b": [{"match": {"x": {"regex": "("}}, "policy": "never"}]}}"#)
                .pointer(),
            Some("/rules/a~1b/0/match/x")
        );
        assert_eq!(
            err(r#"{"rules": {"a/b": [{"policy": "never", "extra": 1}]}}"#).pointer(),
            Some("/rules/a~1b/0/extra")
        );
        assert_eq!(
            err(r#"{"blacklist": "some"}"#).pointer(),
            Some("/blacklist")
        );
        assert_eq!(
            err(r#"{"blacklist": {"add": [{"id": "x", "policy": "deny", "command": {"regex": "["}}]}}"#).pointer(),
            Some("/blacklist/add/0/command")
        );
        assert!(matches!(err("{"), Error::Json { line: 1, .. }));
    }

    #[test]
    fn examples_are_checked_at_load() {
        let bad = r#"{"rules": {"a/b": [{"match": {"command": "git status:*"}, "policy": "never",
            "examples": {"match": ["git status"], "notMatch": ["git status && rm -rf ~", "git statusx"]}}]}}"#;
        assert!(PolicyFile::from_json(bad).is_ok());
        let wrong = r#"{"rules": {"a/b": [{"match": {"command": "git *"}, "policy": "never",
            "examples": {"notMatch": ["git status"]}}]}}"#;
        let e = err(wrong);
        assert!(e.is_example_failure());
        assert_eq!(e.pointer(), Some("/rules/a~1b/0/examples/notMatch/0"));
    }

    #[test]
    fn blacklist_forms() {
        assert!(
            PolicyFile::from_json(r#"{"blacklist": "none"}"#)
                .unwrap()
                .blacklist
                .is_none()
        );
        let f = PolicyFile::from_json(
            r#"{"blacklist": {"base": "default", "remove": ["read-secrets"], "add": [{"id": "p", "policy": "deny", "path": "/srv/**"}]}}"#,
        )
        .unwrap();
        let list = f.blacklist.unwrap();
        assert!(list.entries().iter().all(|e| e.id() != "read-secrets"));
        assert_eq!(list.entries().last().map(|e| e.id()), Some("p"));
    }

    #[test]
    fn blacklist_entry_examples_are_checked_at_load() {
        let good = r#"{"blacklist": {"add": [
            {"id": "p", "policy": "deny", "path": "/srv/**",
             "examples": {"match": ["/srv/data/x", "/srv/../srv/y"], "notMatch": ["/srv2/x"]}},
            {"id": "c", "policy": "deny", "command": "deploy:*",
             "examples": {"match": ["ls && deploy prod"], "notMatch": ["echo deploy"]}}]}}"#;
        assert!(PolicyFile::from_json(good).is_ok());
        let bad = r#"{"blacklist": {"add": [
            {"id": "p", "policy": "deny", "path": "/srv/**",
             "examples": {"match": ["/srv/x", "/opt/x"], "notMatch": ["/srv/y"]}}]}}"#;
        let e = PolicyFile::from_json(bad).unwrap_err();
        assert!(e.is_example_failure(), "{e}");
        let pointers: Vec<_> = e.problems().iter().filter_map(Error::pointer).collect();
        assert_eq!(
            pointers,
            [
                "/blacklist/add/0/examples/match/1",
                "/blacklist/add/0/examples/notMatch/0"
            ]
        );
    }
}
