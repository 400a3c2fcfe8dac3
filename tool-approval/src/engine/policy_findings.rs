//! What a loaded policy file says that is valid but unsafe: a rule that
//! gives full access (`"confinement": "full_access"`) to a program that
//! runs code from the workspace. `cargo build` runs every `build.rs` and
//! proc macro of the workspace and its path dependencies, `npm test` the
//! package's scripts, `pytest` the `conftest.py` files, `make` the
//! Makefile: an edit the path scope approves (a new `build.rs`, a path
//! dependency, a test) then runs unconfined the next time the rule
//! approves the command. The finding names the rule, the program and why;
//! the engine still loads the file (the host decides).

use tool_core::{Confinement, manifest::ArgMatcher};

use crate::engine::PolicyFile;
use crate::error::push_pointer;
use crate::shell::tokenize;

/// A finding about a loaded policy file (see [`PolicyFile::findings`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PolicyFinding {
    /// Where in the file: `/rules/local-system~1runCommand/3`.
    pub pointer: String,
    /// What kind of finding: `policy/full-access-runs-workspace-code`.
    pub id: &'static str,
    /// What is wrong and why, for a person.
    pub message: String,
}

/// The id of a full-access rule over a program that runs workspace code.
pub const FULL_ACCESS_RUNS_WORKSPACE_CODE: &str = "policy/full-access-runs-workspace-code";

/// Programs (and, where only some subcommands do, those subcommands) that
/// run code the workspace holds: builds, test runners, package scripts,
/// interpreters. Empty subcommands: every invocation.
const WORKSPACE_CODE: &[(&[&str], &[&str], &str)] = &[
    (
        &["cargo"],
        &[
            "build", "b", "check", "c", "test", "t", "run", "r", "bench", "clippy", "doc", "d",
            "install", "nextest", "miri", "fix",
        ],
        "build scripts (`build.rs`), proc macros and tests of the workspace and its path dependencies",
    ),
    (
        &["npm", "pnpm", "yarn", "bun"],
        &[
            "run", "test", "t", "start", "install", "i", "ci", "build", "exec", "x", "rebuild",
            "pack", "publish",
        ],
        "the package's scripts and its dependencies' install scripts",
    ),
    (
        &["npx", "pnpx", "bunx"],
        &[],
        "a package's program, possibly the workspace's own",
    ),
    (
        &[
            "make", "gmake", "just", "ninja", "cmake", "meson", "bazel", "gradle", "gradlew",
            "mvn", "sbt", "ant", "rake", "task",
        ],
        &[],
        "the build file's recipes",
    ),
    (
        &["go"],
        &["test", "run", "generate", "build"],
        "tests, `go:generate` lines and cgo build steps of the module",
    ),
    (
        &[
            "pytest", "py.test", "tox", "nox", "jest", "vitest", "mocha", "rspec", "phpunit",
        ],
        &[],
        "the workspace's tests and their configuration (`conftest.py`, setup files)",
    ),
    (
        &[
            "python", "python3", "node", "deno", "ruby", "perl", "php", "bash", "sh", "zsh", "uv",
            "poetry", "pipenv", "dotnet",
        ],
        &[],
        "the workspace's programs and scripts",
    ),
    (
        &["pip", "pip3"],
        &["install"],
        "a package's build backend (`setup.py`), possibly the workspace's",
    ),
];

/// Why `prefix` (a rule's command prefix, as words) runs workspace code.
fn runs_workspace_code(prefix: &[String]) -> Option<&'static str> {
    let (program, rest) = prefix.split_first()?;
    let program = crate::shell::basename(program);
    WORKSPACE_CODE.iter().find_map(|(programs, subs, why)| {
        let named = programs.contains(&program);
        let sub_ok = subs.is_empty()
            || rest
                .iter()
                .find(|w| !w.starts_with('-'))
                .is_none_or(|w| subs.contains(&w.as_str()));
        (named && sub_ok).then_some(*why)
    })
}

impl PolicyFile {
    /// What the file says that is valid but unsafe: each rule giving full
    /// access to a program that runs code from the workspace (see
    /// [`PolicyFinding`]), also a full-access rule with no `match` (it
    /// covers every command). Empty for a safe file.
    ///
    /// ```
    /// use tool_approval::PolicyFile;
    /// let file = PolicyFile::from_json(r#"{"rules": {"local-system/runCommand": [
    ///     {"match": {"command": "cargo build:*"}, "policy": "never", "confinement": "full_access"},
    ///     {"match": {"command": "git status:*"}, "policy": "never", "confinement": "full_access"}
    /// ]}}"#)?;
    /// let findings = file.findings();
    /// assert_eq!(findings.len(), 1);
    /// assert_eq!(findings[0].pointer, "/rules/local-system~1runCommand/0");
    /// assert!(findings[0].message.contains("build.rs"));
    /// # Ok::<(), tool_approval::Error>(())
    /// ```
    pub fn findings(&self) -> Vec<PolicyFinding> {
        let mut out = Vec::new();
        for (key, rules) in &self.rules {
            let list_at = push_pointer("/rules", key);
            for (i, host_rule) in rules.iter().enumerate() {
                if host_rule.confinement != Some(Confinement::FullAccess) {
                    continue;
                }
                let at = push_pointer(&list_at, i);
                let Some(matches) = &host_rule.rule.matches else {
                    out.push(PolicyFinding {
                        pointer: at,
                        id: FULL_ACCESS_RUNS_WORKSPACE_CODE,
                        message: format!(
                            "rule {i} of `{key}` gives full access to every call it decides (it has no `match`); a command that runs the workspace's code then runs unconfined"
                        ),
                    });
                    continue;
                };
                for matcher in matches.values() {
                    let ArgMatcher::Pattern(pattern) = matcher else {
                        continue;
                    };
                    let Some(prefix) = pattern.strip_suffix(":*") else {
                        continue;
                    };
                    let words = tokenize(prefix);
                    if let Some(why) = runs_workspace_code(&words) {
                        out.push(PolicyFinding {
                            pointer: at.clone(),
                            id: FULL_ACCESS_RUNS_WORKSPACE_CODE,
                            message: format!(
                                "rule {i} of `{key}` gives `{prefix}` full access, and it runs {why}: an edit the path scope approves (a new file, a dependency) then runs unconfined; give it `workspace_write` with the roots it needs instead"
                            ),
                        });
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        tokenize(line)
    }

    #[test]
    fn builds_tests_and_interpreters_run_workspace_code() {
        for prefix in [
            "cargo build",
            "cargo",
            "cargo test --release",
            "npm test",
            "make",
            "go test",
            "pytest",
            "python3",
        ] {
            assert!(runs_workspace_code(&words(prefix)).is_some(), "{prefix}");
        }
        for prefix in ["cargo fmt", "git status", "npm view", "go version", "ls"] {
            assert!(runs_workspace_code(&words(prefix)).is_none(), "{prefix}");
        }
    }
}
