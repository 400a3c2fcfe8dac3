//! The facts of one call, built once per evaluation: its shell-command
//! arguments (each parsed once), its path arguments, and the arguments that
//! change how a command runs. Every audit and rule list reads them.

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use super::arguments::{FoundArgument, context_overrides, paths_and_commands};
use crate::shell::words::shell_quote;
use crate::shell::{Hazard, ShellCommand, ShellSyntax};

/// One shell-command argument and its parse.
#[derive(Debug)]
pub(crate) struct CommandFact<'v> {
    /// Where in the arguments (`/command`).
    pub(crate) pointer: String,
    /// The value as given (a string or an argv array).
    pub(crate) value: &'v Value,
    /// The parse, when the value reads as command text.
    pub(crate) shell: Option<Arc<ShellCommand>>,
}

/// What an evaluation knows about a call's arguments.
#[derive(Debug)]
pub(crate) struct CallFacts<'v> {
    pub(crate) commands: Vec<CommandFact<'v>>,
    pub(crate) paths: Vec<FoundArgument<'v>>,
    /// Top-level arguments that change how a command runs (a non-empty
    /// environment, a working directory outside the host's).
    pub(crate) overrides: Vec<&'v str>,
    /// Where the arguments nest deeper than they are searched.
    pub(crate) args_too_deep: Option<String>,
}

impl<'v> CallFacts<'v> {
    /// Finds and parses everything once.
    pub(crate) fn build(args: &'v Value, schema: Option<&Value>, cwd: Option<&Path>) -> Self {
        Self::build_with(args, schema, cwd, &ShellSyntax::new())
    }

    /// [`build`](Self::build) with a host's shell additions.
    pub(crate) fn build_with(
        args: &'v Value,
        schema: Option<&Value>,
        cwd: Option<&Path>,
        syntax: &ShellSyntax,
    ) -> Self {
        let found = paths_and_commands(args, schema);
        let args_too_deep = found.too_deep.clone();
        let commands = found
            .commands
            .into_iter()
            .map(|found| CommandFact {
                shell: command_text(found.value)
                    .map(|t| Arc::new(ShellCommand::parse_with(&t, syntax))),
                pointer: found.pointer,
                value: found.value,
            })
            .collect();
        Self {
            commands,
            paths: found.paths,
            overrides: context_overrides(args, cwd),
            args_too_deep,
        }
    }

    /// The parse of the top-level command parameter `param`, if it was found.
    pub(crate) fn shell_of(&self, param: &str) -> Option<&Arc<ShellCommand>> {
        self.commands
            .iter()
            .find(|c| c.pointer.strip_prefix('/') == Some(param))
            .and_then(|c| c.shell.as_ref())
    }

    /// The first command that cannot be fully analysed (too long, too
    /// deep, not valid Bash, or a command word computed at run time), with
    /// the hazard.
    pub(crate) fn limit(&self) -> Option<(&CommandFact<'v>, Hazard)> {
        self.commands.iter().find_map(|c| {
            let shell = c.shell.as_deref()?;
            Hazard::BOUNDS
                .into_iter()
                .chain([Hazard::Syntax, Hazard::DynamicCommandWord])
                .find(|h| shell.hazards().contains(h))
                .map(|h| (c, h))
        })
    }
}

/// The value as command text: a string, or an argv array re-quoted.
///
/// Quoted words keep exec semantics; but if a word holds shell syntax, the
/// array is read the way a host that joins it into a shell line would, so
/// nothing can be approved under one reading and run under the other.
pub(crate) fn command_text(value: &Value) -> Option<Cow<'_, str>> {
    match value {
        Value::String(s) => Some(Cow::Borrowed(s)),
        Value::Array(items) => {
            let words: Option<Vec<&str>> = items.iter().map(Value::as_str).collect();
            let words = words?;
            if words.iter().any(|w| w.contains(SHELL_SYNTAX)) {
                Some(Cow::Owned(words.join(" ")))
            } else {
                let quoted: Vec<String> = words.iter().map(|w| shell_quote(w)).collect();
                Some(Cow::Owned(quoted.join(" ")))
            }
        }
        _ => None,
    }
}

/// Characters that make an argv element mean something else to a shell.
const SHELL_SYNTAX: &[char] = &[';', '&', '|', '<', '>', '$', '`', '(', ')', '\n', '{', '}'];
