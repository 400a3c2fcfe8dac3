//! `tool-approval` decides, for each tool call an LLM agent makes, whether
//! it **runs**, a human is **asked**, or it is **blocked**, and says why.
//! Evaluation is a pure, synchronous function over values; it never runs a tool.
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
//! # No input crashes the host
//!
//! Shell commands are parsed with tree-sitter-bash, whose external scanner
//! (C code) reads out of bounds when `{` is followed by a code point far
//! above ASCII (upstream tree-sitter-bash issue 337): one model call could
//! take a whole server down. The parser therefore never sees the original
//! text: it parses an *ASCII shadow*, the same text with every byte of every
//! non-ASCII character replaced by `x`. The shadow has the same length and
//! byte offsets, and Bash reads non-ASCII characters as word characters just
//! like `x`, so the tree has the same shape; every word's text is then read
//! from the original by the node's byte range. Where the two readings can
//! differ (`$é` is literal text to Bash, an expansion in the shadow), the
//! shadow's reading is the more cautious one. The crashing inputs are
//! regression tests, and the cargo-fuzz target runs the full evaluation.
//!
//! # What a command is read as
//!
//! Deny rules, `always` rules and the blacklist judge every spelling of a
//! command that can be read; where a spelling cannot be read, the call asks
//! (in every mode; headless blocks) under a `limits/…` rule id, never runs:
//!
//! | spelling | read as |
//! |---|---|
//! | wrappers (`sudo`, `timeout`, `env`, `setpriv`, `npx`, `npm exec`, `pnpm dlx`, … and the host's, see [`ShellSyntax`]) | the command they run |
//! | `bash -c`, `eval`, `su -c`, `npx -c`, `ssh HOST CMD`, `watch`, `trap 'CMD'`, `git submodule foreach`, `git rebase -x`, `git bisect run`, `find -exec`, `git -c alias.x='!…'` | the script, parsed like the line |
//! | `echo '…' \| sh`, `cat <<EOF \| sh`, `cat <<< '…' \| sh`, `sh <<EOF`, `. /dev/stdin <<< '…'` | the text fed to the shell |
//! | `git -c alias.x=…` (any case, chains) | the expanded command |
//! | `tmux new-session CMD`, `tmux send-keys 'CMD' Enter`, `screen CMD`, `screen -X stuff`, `docker`/`podman`/`kubectl exec … CMD`, `pueue add`, `tsp`, `nq`, `chronic`, `watchexec`, `entr -s`, `git difftool -x`, `git clone 'ext::CMD'`, `parallel CMD ::: ARGS`, `nix develop -c CMD`, `fd -x CMD`, `gdb -ex 'shell CMD'`, `bwrap --bind A B CMD`, `start-stop-daemon -x PROG -- ARGS`, `kubectl debug … -- CMD` (rows of `shell::runners`) | the command they run, parsed like the line; `parallel :::: FILE` is a script not on the line |
//! | `$'\x72m'`, `{rm,-rf,/}`, `cat /etc/{shadow,passwd}`, `git pus{h..h}`, `{01..10}` | decoded first, as Bash does: ANSI-C escapes give literal words, brace expansion gives the words it spells (bounded; past the bound `limits/step-budget`) |
//! | `x=${y:=$(CMD)}`, `unset 'a[$(CMD)]'`, `printf -v 'a[$(CMD)]'`, `coproc NAME { CMD; }` | the substitution or command inside, parsed like the line; `$(( a[$i] ))` (a subscript that expands a variable) is a script not on the line |
//! | `x='$(CMD)'; echo ${x@P}`, `x='a[$(CMD)]'; echo $((x))` (also `${!x}`, `[[ x -eq 0 ]]`, `let x`, `declare -i`, `${s:x}`), `coproc sh; echo CMD >&${COPROC[1]}`, `echo CMD > >(sh)` | code stored as text and evaluated later, or printed into a shell: parsed like the line too, and a script not on the line (`limits/unread-script`) |
//! | `git $SUB origin`, `git pu$1sh`, `git "$(echo push)"` | an argument computed at run time that could spell a deny or `always` rule's word: that rule *might* apply (`limits/computed-word`) |
//! | `cat x.sh \| sh`, `curl … \| bash`, `. /dev/stdin`, `xargs sh -c`, `… \| xargs git`, `git --config-env=alias.x=V` | a script not on the line: every deny rule *might* apply (`limits/unread-script`) |
//! | `$X args`, `$(…) args`, `/bin/r[m]` | a computed command word (`limits/computed-command-word`); deny rules match a glob word against what it could name |
//! | text that does not parse, or is longer than [`MAX_COMMAND_BYTES`] | `limits/unparsed-text`, `limits/command-too-long` |
//!
//! Every bound of the analysis has its own id ([`Hazard::limit_id`]); a
//! call that reaches one asks (headless: is blocked) whatever lower rules
//! say, and nothing past a bound falls through to a lower rule:
//!
//! | bound | id |
//! |---|---|
//! | nesting: the syntax tree (200 levels), scripts inside scripts (`bash -c "bash -c …"`, 3 levels), a call's arguments (32 levels) | `limits/too-deep` |
//! | wrappers stacked deeper than are looked through (64, or 128 Ki words of views) | `limits/wrapper-chain` |
//! | more links made on a line than are followed (16) | `limits/link-chain` |
//! | a git alias chain longer than is expanded (8 steps, 32 readings) | `limits/alias-chain` |
//! | more directory changes on a line than are followed ([`MAX_DIR_CHANGES`]: `cd a && cd b && …`; later parts run somewhere unknown, so their relative paths are checked in every sensitive directory) | `limits/dir-chain` |
//! | a pipeline of more than 128 stages, or more than 1 024 pipe bars in one text (the grammar's error recovery is quadratic in a pipeline's length; its parts are recovered from the text, so deny rules *might* apply) | `limits/pipeline-length` |
//! | more simple commands on a line than are read ([`MAX_LINE_PARTS`]), or a salvaged reading of text read two ways cut short (32 command starts, 1 024 parts) | `limits/part-count` |
//! | more scripts than are parsed: in options and behind host wrappers (16 a line), commands found in programs (16), scripts of a salvaged segment (4) | `limits/script-count` |
//! | more to analyse than the line's step budget (proportional to its length: each script parsed, each part recovered, each reading through wrappers, each step of a brace expansion costs steps; `watch watch … CMD`, wrappers stacked thousands deep, `{,}{,}…`) | `limits/step-budget` (asks, never runs) |
//! | more grammar work than a line may take whatever its length (some 8 ms: about 15 KiB of text that is not plain; plain lines — words joined by `&&`, `\|\|`, `;`, `\|` — of any length up to the size limit are split without the grammar) | `limits/step-budget` |
//!
//! The trade-off: no input up to the size limit should take more than
//! about 10 ms, so a line of more than some 15 KiB that needs the grammar
//! (quotes, substitutions, here-documents, braces) is not read whole: it
//! asks, naming the limit, and a deny rule in its unread text asks
//! instead of blocking. A shell line that long from a model is not
//! ordinary work; a person sees it.
//! | `python -c …`, `node -e …`, `ruby build.rb`, `perl x.pl`, `python3 - <<EOF`, `… \| python3` (an interpreter given a program inline, from a file or on standard input) | code the engine does not read: `limits/unread-code`, asks where a person is present (manual, allow-list), runs only confined in auto-run and headless (and, where the host cannot confine, asks / is blocked) |
//!
//! Which languages are read, and how deep: shell text fully (scripts in
//! `-c` strings, `eval`, here-documents and pipes into a shell, up to three
//! levels and the step budget); sed and awk programs for the commands they
//! run and the files they write; perl, python, ruby, node and php
//! one-liners only for literal shell commands (`system("…")`, backticks),
//! vim `-c` and tar checkpoint actions for their commands. Everything else
//! an interpreter runs (python, perl, ruby, node, deno, bun, php, lua,
//! Rscript, julia, pwsh, osascript, … in `shell::unread_code`) is not read.
//!
//! | spelling | read as |
//! |---|---|
//! | `ln -s / r && rm -rf r/*`, `cd /etc && …`, `cd "$X" && …` | later parts read through the link, in the directory, or in any sensitive directory |
//! | `git diff --output=F`, `sort -o F`, `mv -t DIR`, `git -c core.pager=CMD`, `rg --pre CMD`, `git -C DIR` … (rows of the program table, extended by the host through [`CommandOption`]) | files written, scripts run, code loaded ([`Effect`]); no prefix rule approves them ([`Hazard::OptionEffect`]) |
//! | `sed '1e CMD'`, `sed 'w F'`, `awk 'BEGIN{system("CMD")}'`, `awk '{print > "F"}'`, `print … \| "sh"`, `perl -e 'system("CMD")'`, `python -c 'os.system("CMD")'`, `vim -c ':!CMD'`, `expect -c 'spawn CMD'`, `make --eval='x:;CMD'`, `tar --checkpoint-action=exec=CMD` | the command run (parsed like the line) and the file written (a redirection); a command computed at run time (`s///e`, `system($0)`) is a script not on the line |
//! | `VAR=value cmd`, `VAR=value` alone, `for VAR in …`, `env`/`sudo`/`make VAR=…`, `export`/`declare VAR=…`, `read VAR`, `printf -v VAR`, an `env` argument | the variables set (the blacklist's `dangerous-env`, rows of `audit::blacklist::env_rows`), values of a command's assignments as paths |
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
//! A new dangerous command, option or file is one row plus its corpus
//! lines; only what needs code (fork bombs, removal relative to the working
//! directory, reverse shells) is a named check.
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
mod shell;

pub use audit::{
    AuditHit, AuditInput, AuditVerdict, Blacklist, BlacklistEntry, DynamicAudit, GlobalAudit,
    PathScopeAudit,
};
pub use call::CallRef;
pub use call::arguments::{FoundArgument, command_arguments, path_arguments};
pub use decision::{Action, Decision, Evaluation, Level, Partition, Reason};
pub use engine::{
    EXACT_ONLY, HostRule, MAX_POLICY_FILE_BYTES, MAX_SUBCOMMAND_WORDS, PolicyEngine,
    PolicyEngineBuilder, PolicyFile,
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
