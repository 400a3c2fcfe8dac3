//! `tool-approval` decides, for each tool call an LLM agent makes, whether
//! it **runs**, a human is **asked**, or it is **blocked**, and says why.
//! Evaluation is a synchronous function over values; it never runs a tool.
//! It is not pure: path checks read the file system through [`PathView`]
//! ([`RealFs`] by default: where a link or `..` really points, whether a
//! path exists) and the home directory from `$HOME`, so the same call can
//! be decided differently on another machine.
//!
//! # Roles
//!
//! - [`PolicyEngine`] (built with [`PolicyEngineBuilder`]) holds the mode,
//!   allow list, host rules, global audits and dynamic audits, and
//!   evaluates batches of [`CallRef`]s into an [`Evaluation`].
//! - A [`Decision`] has an [`Action`], the [`InterventionPolicy`](tool_core::InterventionPolicy)
//!   that applied, a [`Reason`] naming the [`Level`] and rule, and the
//!   [`Confinement`](tool_core::Confinement) the call runs under (`null`
//!   for APIs that do not touch the host; see [`Decision`] for the printed
//!   shape and [`ApprovalMode`] for the confinement column); a blocked decision
//!   carries a ready [`ToolOutput`](tool_core::ToolOutput) via [`Decision::blocked_output`].
//! - [`PolicyEngine`] is a [`tool_core::Gate`]: `Invoker::default().with_gate(Arc::new(engine)).with_asker(asker)`
//!   decides, asks, runs under the decision's confinement and returns one
//!   output per call; an "always" answer is remembered
//!   ([remembered approvals](PolicyEngine#remembered-approvals)). Whether a call can be confined comes from the
//!   host ([`PolicyEngineBuilder::confinement_support`]), else from the
//!   called tool itself ([`Tool::confinement_support`](tool_core::Tool::confinement_support):
//!   tool-runtime's local system reports its OS sandbox); where neither
//!   says, unattended runs of calls that touch the host ask (headless: are
//!   blocked).
//! - [`PolicyFile`] loads the host's JSON policy (mode, allow list, rules, blacklist).
//! - [`Matcher`] compiles a rule's argument matcher; [`ShellCommand`] splits
//!   shell commands part by part; [`Blacklist`] is the default
//!   [`GlobalAudit`]; [`PathScopeAudit`] is the `pathScopeAudit`
//!   [`DynamicAudit`].
//!
//! # Layout (for contributors)
//!
//! The modules are private; everything a host uses is re-exported above.
//! One folder per concept; each depends only on the ones listed before it,
//! so no two modules import each other:
//!
//! 1. `error`, `decision`, `path_view` (where a path really
//!    points, through the [`PathView`] trait): leaves.
//! 2. `mode`: what a mode does with the strictest finding (uses `decision`).
//! 3. `shell`: parsing command text (leaf types, words, wrappers, scripts,
//!    the fast path and the tree walk); depends on nothing else in the crate.
//! 4. `call`: a call, the discovery of its path and command arguments, and
//!    its facts built once per evaluation (uses `shell`, `path_view`).
//! 5. `policy`: matchers and rule lists (uses `call`, `shell`).
//! 6. `audit`: the audit traits, the path-scope audit and the blacklist
//!    (uses `policy` for the blacklist's command entries, `call`, `shell`,
//!    `path_view`).
//! 7. `engine`: evaluation, the builder and the policy file, which
//!    configures rules and audits alike (uses everything above).
//!
//! # Example
//!
//! ```
//! use serde_json::json;
//! use tool_approval::{Action, CallRef, Level, PolicyFile};
//! use tool_core::{ApiDefinition, HumanIntervention, InterventionPolicy, ToolContext, ToolManifest};
//!
//! let file = PolicyFile::from_json(r#"{
//!     "rules": {"local-system/runCommand": [
//!         {"match": {"command": "git add:*"}, "policy": "never"},
//!         {"match": {"command": "git push:*"}, "policy": "deny"},
//!         {"policy": "required"}
//!     ]}
//! }"#)?;
//! let engine = file.engine()?;
//!
//! let mut manifest = ToolManifest::new("local-system");
//! manifest.api.push(ApiDefinition::new("runCommand", "Run a shell command.")
//!     .with_intervention(HumanIntervention::Policy(InterventionPolicy::Required)));
//!
//! let a = json!({"command": "git add -A src"});
//! let b = json!({"command": "git add . && rm -rf ~"});
//! let c = json!({"command": "git push --force"});
//! let calls = [
//!     CallRef::new("local-system", "runCommand", &a).with_manifest(&manifest),
//!     CallRef::new("local-system", "runCommand", &b).with_manifest(&manifest),
//!     CallRef::new("local-system", "runCommand", &c).with_manifest(&manifest),
//! ];
//! let eval = engine.evaluate(&calls, &ToolContext::new());
//! assert_eq!(eval.run(), [0]);
//! assert_eq!(eval.ask(), [1]);   // the blacklist flags `rm -rf ~`: always ask
//! assert_eq!(eval.get(1).unwrap().reason.level, Level::GlobalAudit);
//! assert_eq!(eval.block(), [2]); // the host's deny rule
//! let out = eval.get(2).unwrap().blocked_output().unwrap();
//! assert_eq!(out.content, "Blocked by security/privacy.");
//! assert_eq!(out.error_code().unwrap(), "blocked_by_security_privacy");
//! # Ok::<(), tool_approval::Error>(())
//! ```
//!
//! # What a command is read as
//!
//! Deny rules, `always` rules and the blacklist judge every spelling of a
//! command that can be read (wrappers, `bash -c`, pipes into a shell,
//! runners, options that run code, git aliases, brace and ANSI-C decoding,
//! code stored and evaluated later); where a spelling cannot be read, the
//! call asks (headless: is blocked) under a `limits/…` rule id and never
//! runs. Every bound of the analysis has its own id. The tables, the
//! languages read and the crash-proof parse are on [`ShellCommand`].
//!
//! # Adding a dangerous command
//!
//! What the engine knows is held as rows, each with examples checked (path
//! and environment rows when an engine is built, the corpus by its test):
//! the program table (`shell/table.rs`: per program and subcommand, the
//! options that take a value and what each does, as an [`Effect`]), path
//! classes (`audit/blacklist/path_rows.rs`, `tool_core::path_class!` rows
//! over cleaned, case-folded paths), dangerous environment
//! (`audit/blacklist/env_rows.rs`), network clients and command runners.
//! A new dangerous option or file is one row plus its corpus lines; a new
//! built-in blacklist entry is still more (its `Builtin`, its place in
//! `BUILTINS`, a dispatch row and its check); what needs code (fork bombs,
//! removal relative to the working directory, reverse shells) is a named
//! check.
//!
//! # What a prefix rule approves
//!
//! A prefix rule (`never`), a remembered answer or an allow-list entry
//! approves a program with a closed row only when every option is one the
//! row lists, or one the host adds (`shell.options`): any other is
//! `limits/unknown-option` (asks where a person is present, runs under the
//! default confinement where nobody is). Closed rows: `find`, `sort`, `rg`,
//! `tree`, `jq`, `go test`, `pytest` (`shell/table/known_rows.rs`);
//! `grep`, `diff`, `sed`, `awk` (`text_rows.rs`); git's own options and
//! `status`, `log`, `diff`, `show`, `blame`, `branch`, `rev-parse`,
//! `ls-files`, `config` (`git_rows.rs`); cargo's and npm's own options and
//! their build, test, run and listing subcommands (`build_rows.rs`);
//! `xargs`, whose options end at the first operand, the command it runs
//! judged by its own row (`runner_rows.rs`). Long options are read as the
//! program reads them (GNU unique prefixes: `sort --outp=F` is
//! `--output=F`; cargo's exactly). An option with
//! an [`Effect`] (`--manifest-path`, `-C`, `--config`) takes the call out of
//! the rule, also out of a full-access rule's `confinement`;
//! [`PolicyFile::findings`] names full-access rules over programs that run
//! the workspace's code.
//!
//! Worked example: `git send-email --sendmail-cmd=CMD` runs CMD to send each
//! patch. Without a row, `git send-email --sendmail-cmd='rm -rf ~' x.patch`
//! is one command named `git` and runs in auto-run mode. The row, in
//! `shell/table.rs`:
//!
//! ```text
//! sub(GIT, "send-email", &[opt(&["--sendmail-cmd"], Required, RunsCode)]),
//! ```
//!
//! says the option takes a value (`--sendmail-cmd CMD` or `=CMD`) that is a
//! command: the value is parsed like the line, so the blacklist sees
//! `rm -rf ~`, a host's deny rule sees `git push`, and no prefix rule
//! approves the call. Its lines in `tests/corpus/programs.cases`:
//!
//! ```text
//! attempt all stop blacklist/rm-recursive-root git send-email --sendmail-cmd='rm -rf ~' x.patch
//! attempt manual block - git send-email --sendmail-cmd 'git push' x.patch
//! control auto-run run - git send-email --dry-run x.patch
//! ```
//!
//! A host adds the same row without a release, in its policy file:
//! `"shell": {"options": [{"program": "git", "subcommand": "send-email",
//! "names": ["--sendmail-cmd"], "effect": "runsCode"}]}` (see
//! [the `shell` section](PolicyFile#the-shell-section) of the policy file).
//!
//! With an [`Invoker`](tool_core::Invoker), give it the engine as its gate
//! (above); to evaluate by hand, build the call from the prepared call:
//! `CallRef::from_prepared(&prepared, &offered)`; an identifier missing
//! from `offered` gives `manifest: None`, which asks in manual and
//! allow-list modes and counts as touching the host.
#![deny(missing_docs)]
#![warn(unnameable_types, unreachable_pub)]

mod audit;
mod call;
mod decision;
mod engine;
mod error;
mod mode;
mod name_hash;
mod path_view;
mod policy;
pub mod record;
mod shell;

pub use audit::{
    AuditHit, AuditInput, AuditVerdict, Blacklist, BlacklistEntry, DynamicAudit, GlobalAudit,
    PathScopeAudit,
};
pub use call::CallRef;
pub use call::arguments::{FoundArgument, command_arguments, path_arguments};
pub use decision::{Action, Decision, Evaluation, Level, Partition, Reason};
pub use engine::{
    EXACT_ONLY, FULL_ACCESS_RUNS_WORKSPACE_CODE, HostRule, MAX_POLICY_FILE_BYTES,
    MAX_SUBCOMMAND_WORDS, PolicyEngine, PolicyEngineBuilder, PolicyFile, PolicyFinding,
};
pub use error::Error;
pub use mode::{ApprovalMode, CONFINEMENT_UNAVAILABLE};
pub use path_view::{PathEntry, PathView, RealFs};
pub use policy::{MatchMode, Matcher};
pub use shell::{
    CommandOption, Effect, Hazard, MAX_COMMAND_BYTES, MAX_DIR_CHANGES, MAX_LINE_PARTS, OptionValue,
    ShellCommand, ShellSyntax, SimpleCommand,
};

/// What a host uses, in one import: `use tool_approval::prelude::*;` — the
/// engine and its builder ([`PolicyEngine`], [`PolicyEngineBuilder`]), the
/// policy file ([`PolicyFile`]), the modes ([`ApprovalMode`]), a decision
/// ([`Decision`], [`Action`]) and a host's own rules and audits
/// ([`HostRule`], [`GlobalAudit`]). The engine is a `tool_core::Gate`: give
/// it to `Invoker::with_gate`. Names do not clash with `tool_core::prelude`.
///
/// ```
/// use tool_approval::prelude::*;
/// let engine = PolicyEngine::builder().mode(ApprovalMode::Manual).build().unwrap();
/// # let _ = engine;
/// ```
pub mod prelude {
    #[doc(no_inline)]
    pub use crate::{
        Action, ApprovalMode, Decision, GlobalAudit, HostRule, PolicyEngine, PolicyEngineBuilder,
        PolicyFile,
    };
}
