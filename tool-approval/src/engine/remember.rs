//! What a person approved with "always", kept for the engine's lifetime
//! (the rules are on [`PolicyEngine`](crate::PolicyEngine)'s "Remembered approvals").

use std::collections::BTreeMap;
use std::sync::RwLock;

use serde_json::Value;
use tool_core::{
    InterventionPolicy,
    manifest::{ArgMatcher, InterventionRule},
};

use crate::call::facts::CallFacts;
use crate::policy::RuleSet;
use crate::shell::SimpleCommand;
use crate::shell::words::shell_quote;

/// Programs whose arguments decide everything they do: remembered only as
/// the exact command, never as a prefix.
pub const EXACT_ONLY: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "fish",
    "ksh",
    "eval",
    "exec",
    "source",
    ".",
    "env",
    "sudo",
    "doas",
    "su",
    "xargs",
    "find",
    "rm",
    "rmdir",
    "mv",
    "cp",
    "dd",
    "chmod",
    "chown",
    "chgrp",
    "ln",
    "tee",
    "truncate",
    "shred",
    "python",
    "python3",
    "node",
    "deno",
    "bun",
    "perl",
    "ruby",
    "php",
    "lua",
    "awk",
    "sed",
    "curl",
    "wget",
    "ssh",
    "scp",
    "rsync",
    "docker",
    "podman",
    "kubectl",
    "make",
    "npx",
    "git-shell",
];

/// How many subcommand words may follow the program in a remembered prefix.
pub const MAX_SUBCOMMAND_WORDS: usize = 2;

/// The remembered approvals, per `identifier/apiName`.
#[derive(Debug, Default)]
pub(crate) struct Memory {
    keys: RwLock<BTreeMap<String, Remembered>>,
}

#[derive(Debug, Default)]
struct Remembered {
    /// The key itself was approved (a call without shell commands).
    key: bool,
    rules: Vec<InterventionRule>,
    set: RuleSet,
}

impl Memory {
    /// What approves this call, if anything remembered does.
    pub(crate) fn recall(&self, key: &str, args: &Value, facts: &CallFacts<'_>) -> Option<String> {
        let keys = self.keys.read().ok()?;
        let remembered = keys.get(key)?;
        if facts.commands.is_empty() {
            return remembered.key.then(|| key.to_owned());
        }
        let hit = remembered.set.evaluate_facts(args, None, facts)?;
        (hit.policy == InterventionPolicy::Never && hit.unsure.is_none())
            .then(|| format!("remembered {key}: {}", hit.detail))
    }

    /// Records an approval of `args` for `key` (see the module table).
    pub(crate) fn record(&self, key: &str, facts: &CallFacts<'_>) {
        let Ok(mut keys) = self.keys.write() else {
            return;
        };
        let remembered = keys.entry(key.to_owned()).or_default();
        if facts.commands.is_empty() {
            remembered.key = true;
            return;
        }
        let mut added = false;
        for command in &facts.commands {
            let Some(param) = command
                .pointer
                .strip_prefix('/')
                .filter(|p| !p.contains('/'))
            else {
                continue;
            };
            let Some(shell) = command.shell.as_deref() else {
                continue;
            };
            if !shell.is_plain() || shell.parts().is_empty() {
                continue;
            }
            let patterns: Option<Vec<ArgMatcher>> = shell
                .parts()
                .iter()
                .map(|part| matcher_for(part, command.value, shell.parts().len()))
                .collect();
            for pattern in patterns.into_iter().flatten() {
                let rule = InterventionRule {
                    matches: Some(BTreeMap::from([(param.to_owned(), pattern)])),
                    policy: InterventionPolicy::Never,
                    examples: None,
                };
                if !remembered.rules.contains(&rule) {
                    remembered.rules.push(rule);
                    added = true;
                }
            }
        }
        if added && let Ok(set) = RuleSet::compile(&remembered.rules) {
            remembered.set = set;
        }
    }

    /// Whether nothing is remembered (the common case, checked without
    /// building anything).
    pub(crate) fn is_empty(&self) -> bool {
        self.keys.read().map_or(true, |k| k.is_empty())
    }
}

/// The matcher that remembers one part of an approved command: a prefix,
/// or the exact text for a one-part command of an [`EXACT_ONLY`] program;
/// `None` when the part cannot be remembered safely.
fn matcher_for(part: &SimpleCommand, value: &Value, parts: usize) -> Option<ArgMatcher> {
    if part.nested || part.recovered || !part.assignments.is_empty() || !part.redirects.is_empty() {
        return None;
    }
    let program = part.words.first()?;
    let name = program.rsplit('/').next().unwrap_or(program);
    if EXACT_ONLY.contains(&name) || program.contains('/') || !is_word(program) {
        let text = value.as_str().filter(|_| parts == 1)?;
        return Some(ArgMatcher::Regex {
            regex: regex::escape(text),
        });
    }
    let subcommands = part
        .words
        .iter()
        .skip(1)
        .take(MAX_SUBCOMMAND_WORDS)
        .take_while(|w| is_word(w));
    let words: Vec<String> = std::iter::once(program)
        .chain(subcommands)
        .map(|w| shell_quote(w))
        .collect();
    Some(ArgMatcher::Pattern(format!("{}:*", words.join(" "))))
}

/// A subcommand-like word: `add`, `run-script`, `x86_64`.
fn is_word(word: &str) -> bool {
    word.chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && word
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn remembered(command: &str) -> Memory {
        let memory = Memory::default();
        let args = json!({ "command": command });
        let facts = CallFacts::build(&args, None, None);
        memory.record("t/run", &facts);
        memory
    }

    fn approves(memory: &Memory, command: &str) -> bool {
        let args = json!({ "command": command });
        let facts = CallFacts::build(&args, None, None);
        memory.recall("t/run", &args, &facts).is_some()
    }

    #[test]
    fn a_prefix_is_the_program_and_its_subcommands() {
        let m = remembered("git add src/a.rs");
        assert!(approves(&m, "git add -A"));
        assert!(!approves(&m, "git push"));
        assert!(!approves(&m, "git add . && rm -rf ~"));
        assert!(!approves(&m, "git add $(rm -rf ~)"));
    }

    #[test]
    fn exact_only_programs_are_remembered_exactly() {
        let m = remembered("rm -rf build");
        assert!(approves(&m, "rm -rf build"));
        assert!(!approves(&m, "rm -rf build ~"));
        assert!(!approves(&m, "rm -rf src"));
    }

    #[test]
    fn nested_and_redirected_commands_are_not_remembered() {
        let m = remembered("echo $(whoami) > out.txt");
        assert!(!approves(&m, "echo hi"));
        assert!(!approves(&m, "echo $(whoami) > out.txt"));
    }
}
