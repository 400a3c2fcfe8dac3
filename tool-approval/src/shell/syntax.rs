//! What a host adds to the shell analysis: its own wrappers (commands that
//! run their arguments as a command) and options that write files or run
//! code. Both extend the built-in tables; nothing built in can be removed.

use super::table::CommandOption;

/// A host's additions to the shell analysis, given to the engine with
/// [`PolicyEngineBuilder::shell_syntax`](crate::PolicyEngineBuilder::shell_syntax).
///
/// ```
/// use tool_approval::{CommandOption, Effect, OptionValue, ShellCommand, ShellSyntax};
/// let syntax = ShellSyntax::new()
///     // `with-vpn --profile work git push` runs `git push`.
///     .with_wrapper("with-vpn", &["--profile"], 0)
///     // `deploy run --hook CMD` runs CMD.
///     .with_option(
///         CommandOption::new("deploy", &["--hook"], OptionValue::Required, Effect::RunsCode)
///             .subcommand("run"),
///     );
/// let cmd = ShellCommand::parse_with("deploy run --hook 'rm -rf /'", &syntax);
/// assert!(cmd.parts().iter().any(|p| p.words == ["rm", "-rf", "/"]));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellSyntax {
    pub(crate) wrappers: Vec<HostWrapper>,
    pub(crate) options: Vec<CommandOption>,
}

/// A host wrapper: its name, the options that take a separate value, and
/// how many positional words come before the wrapped command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HostWrapper {
    pub(crate) name: String,
    pub(crate) valued: Vec<String>,
    pub(crate) positional: usize,
}

impl ShellSyntax {
    /// No additions: the built-in tables only.
    pub fn new() -> Self {
        Self::default()
    }

    pub(crate) const fn empty() -> Self {
        Self {
            wrappers: Vec::new(),
            options: Vec::new(),
        }
    }

    /// A command that runs its arguments as a command, after its options
    /// (`valued_options` take a separate value) and `positional` words (a
    /// duration, a directory). Deny rules and the blacklist look through it.
    pub fn with_wrapper(
        mut self,
        name: impl Into<String>,
        valued_options: &[&str],
        positional: usize,
    ) -> Self {
        self.wrappers.push(HostWrapper {
            name: name.into(),
            valued: valued_options.iter().map(|o| (*o).to_owned()).collect(),
            positional,
        });
        self
    }

    /// An option that writes a file, runs code or changes the configuration
    /// a command runs with.
    pub fn with_option(mut self, option: CommandOption) -> Self {
        self.options.push(option);
        self
    }

    /// True when nothing is added.
    pub fn is_empty(&self) -> bool {
        self.wrappers.is_empty() && self.options.is_empty()
    }
}
