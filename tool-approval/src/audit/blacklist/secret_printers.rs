//! Commands that print a credential or a secret store's content
//! (`read-secrets`), as rows: a credential helper asked for a password, a
//! CLI asked for its token, a secret manager asked for a value, an
//! infrastructure state pulled whole. Reading such output is reading the
//! secret, whatever file it lives in (a keyring, a server, a socket).
//!
//! A row names the programs, the subcommand words in order (each with its
//! aliases), and, when only some invocations print secrets, the options one
//! of which must be present (`kubectl config view --raw`). A new command is
//! one row with its examples, checked by the crate's tests.

use crate::shell::{SimpleCommand, basename};

/// One group of secret-printing invocations.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Printer {
    /// Program names (basenames).
    pub(crate) programs: &'static [&'static str],
    /// Subcommand words in order, each with its aliases; options may sit
    /// between them.
    pub(crate) path: &'static [&'static [&'static str]],
    /// One of these options must be given (empty: none needed).
    pub(crate) needs_option: &'static [&'static str],
    /// Command lines that must match.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) examples: &'static [&'static str],
    /// Command lines that must not.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) counter_examples: &'static [&'static str],
}

const fn printer(
    programs: &'static [&'static str],
    path: &'static [&'static [&'static str]],
    needs_option: &'static [&'static str],
    examples: &'static [&'static str],
    counter_examples: &'static [&'static str],
) -> Printer {
    Printer {
        programs,
        path,
        needs_option,
        examples,
        counter_examples,
    }
}

/// The rows.
pub(crate) const PRINTERS: &[Printer] = &[
    printer(
        &["git"],
        &[&["credential"], &["fill"]],
        &[],
        &["git credential fill"],
        &["git credential approve", "git config user.name"],
    ),
    // A remote's URL may carry user info (`https://user:token@host/…`);
    // whether it does is in the repository's configuration, not on the
    // line, so printing one is reading a credential.
    printer(
        &["git"],
        &[&["remote"], &["get-url", "show"]],
        &[],
        &[
            "git remote get-url origin",
            "git remote get-url --push origin",
            "git -C sub remote show origin",
        ],
        &[
            "git remote",
            "git remote add upstream ../up",
            "git remote rename a b",
        ],
    ),
    printer(
        &["git"],
        &[&["remote"]],
        &["-v", "--verbose"],
        &["git remote -v", "git remote --verbose"],
        &["git remote", "git remote prune origin"],
    ),
    printer(
        &["git"],
        &[&["ls-remote"]],
        &["--get-url"],
        &["git ls-remote --get-url origin"],
        &["git ls-remote --tags ."],
    ),
    printer(
        &[
            "git-credential-manager",
            "git-credential-store",
            "git-credential-libsecret",
            "git-credential-osxkeychain",
        ],
        &[&["get"]],
        &[],
        &["git-credential-store get"],
        &["git-credential-store erase"],
    ),
    printer(
        &["gh", "glab"],
        &[&["auth"], &["token"]],
        &[],
        &["gh auth token", "glab auth token"],
        &["gh auth status", "gh auth login"],
    ),
    printer(
        &["gh", "glab"],
        &[&["auth"], &["status"]],
        &["-t", "--show-token"],
        &["gh auth status --show-token"],
        &["gh auth status"],
    ),
    printer(
        &["aws"],
        &[&["configure"], &["export-credentials", "get"]],
        &[],
        &[
            "aws configure export-credentials",
            "aws configure get aws_secret_access_key",
        ],
        &["aws configure list"],
    ),
    printer(
        &["aws"],
        &[
            &["secretsmanager"],
            &["get-secret-value", "batch-get-secret-value"],
        ],
        &[],
        &["aws secretsmanager get-secret-value --secret-id prod/db"],
        &["aws secretsmanager list-secrets"],
    ),
    printer(
        &["aws"],
        &[
            &["ssm"],
            &["get-parameter", "get-parameters", "get-parameters-by-path"],
        ],
        &["--with-decryption"],
        &["aws ssm get-parameter --name db --with-decryption"],
        &["aws ssm get-parameter --name db"],
    ),
    printer(
        &["aws"],
        &[
            &["sts"],
            &["get-session-token", "assume-role", "get-federation-token"],
        ],
        &[],
        &["aws sts get-session-token"],
        &["aws sts get-caller-identity"],
    ),
    printer(
        &["gcloud"],
        &[
            &["auth"],
            &[
                "print-access-token",
                "print-identity-token",
                "application-default",
            ],
        ],
        &[],
        &[
            "gcloud auth print-access-token",
            "gcloud auth application-default print-access-token",
        ],
        &["gcloud auth list"],
    ),
    printer(
        &["gcloud"],
        &[&["secrets"], &["versions"], &["access"]],
        &[],
        &["gcloud secrets versions access latest --secret=db"],
        &["gcloud secrets versions list db"],
    ),
    printer(
        &["az"],
        &[&["account"], &["get-access-token"]],
        &[],
        &["az account get-access-token"],
        &["az account show"],
    ),
    printer(
        &["az"],
        &[&["keyvault"], &["secret"], &["show", "download"]],
        &[],
        &["az keyvault secret show --name db --vault-name v"],
        &["az keyvault secret list --vault-name v"],
    ),
    printer(
        &["kubectl", "oc"],
        &[&["config"], &["view"]],
        &["--raw", "--flatten"],
        &["kubectl config view --raw"],
        &["kubectl config view", "kubectl config get-contexts"],
    ),
    printer(
        &["kubectl", "oc"],
        &[&["get", "describe"], &["secret", "secrets"]],
        &[],
        &[
            "kubectl get secret db -o yaml",
            "kubectl -n prod get secrets",
        ],
        &["kubectl get pods", "kubectl get configmap x"],
    ),
    printer(
        &["terraform", "tofu"],
        &[&["output"]],
        &["-json", "-raw"],
        &["terraform output -json", "tofu output -raw db_password"],
        &["terraform output"],
    ),
    printer(
        &["terraform", "tofu"],
        &[&["state"], &["pull"]],
        &[],
        &["terraform state pull"],
        &["terraform state list"],
    ),
    printer(
        &["pulumi"],
        &[&["stack"], &["export", "output"]],
        &["--show-secrets"],
        &["pulumi stack export --show-secrets"],
        &["pulumi stack export"],
    ),
    printer(
        &["vault", "bao"],
        &[&["kv"], &["get"]],
        &[],
        &["vault kv get secret/db"],
        &["vault kv list secret"],
    ),
    printer(
        &["vault", "bao"],
        &[&["read"]],
        &[],
        &["vault read database/creds/app"],
        &["vault status"],
    ),
    printer(
        &["vault", "bao"],
        &[&["print"], &["token"]],
        &[],
        &["vault print token"],
        &["vault token lookup"],
    ),
    printer(
        &["op"],
        &[&["read"]],
        &[],
        &["op read op://vault/db/password"],
        &["op vault list"],
    ),
    printer(
        &["op"],
        &[&["item"], &["get"]],
        &["--reveal", "--fields"],
        &["op item get db --reveal"],
        &["op item get db"],
    ),
    printer(
        &["bw"],
        &[&["get"]],
        &[],
        &["bw get password db"],
        &["bw list folders"],
    ),
    printer(
        &["pass", "gopass"],
        &[&["show"]],
        &[],
        &["pass show db", "gopass show db"],
        &["pass ls"],
    ),
    printer(
        &["secret-tool"],
        &[&["lookup"]],
        &[],
        &["secret-tool lookup service github"],
        &["secret-tool search service github"],
    ),
    printer(
        &["security"],
        &[&["find-generic-password", "find-internet-password"]],
        &["-w", "-g"],
        &["security find-generic-password -s github -w"],
        &["security find-generic-password -s github"],
    ),
    printer(
        &["sops"],
        &[],
        &["-d", "--decrypt"],
        &["sops -d secrets.enc.yaml"],
        &["sops -e secrets.yaml"],
    ),
    printer(
        &["sops"],
        &[&["decrypt", "exec-env", "exec-file"]],
        &[],
        &["sops decrypt secrets.enc.yaml"],
        &["sops encrypt x"],
    ),
    printer(
        &["ansible-vault"],
        &[&["view", "decrypt"]],
        &[],
        &["ansible-vault view group_vars/all/vault.yml"],
        &["ansible-vault encrypt x"],
    ),
    printer(
        &["doppler"],
        &[&["secrets"]],
        &[],
        &["doppler secrets", "doppler secrets get DB"],
        &["doppler setup"],
    ),
    printer(
        &["heroku"],
        &[&["config", "auth:token", "config:get"]],
        &[],
        &["heroku auth:token", "heroku config -a app"],
        &["heroku logs"],
    ),
    printer(
        &["npm", "pnpm", "yarn"],
        &[&["token"], &["list", "ls"]],
        &[],
        &["npm token list"],
        &["npm token revoke x"],
    ),
    printer(
        &["docker", "podman"],
        &[&["secret"], &["inspect"]],
        &[],
        &["docker secret inspect db"],
        &["docker secret ls"],
    ),
];

/// Printing a variable named like a secret by name (`printenv
/// AWS_SECRET_ACCESS_KEY`): the value is the secret. A named check beside
/// the rows (the variable's name decides, see
/// `secret_names::SECRET_NAME_PARTS`). `echo "$GITHUB_TOKEN"` is judged where
/// the part's output is known ([`echoes_secret`](super::secret_names::echoes_secret)): to the model it is a
/// read, into a pipe the next stage decides (`| wc -c` prints a count).
pub(crate) const VARIABLE_PRINTER: Printer = printer(
    &["printenv"],
    &[],
    &[],
    &["printenv NPM_TOKEN", "printenv -0 GITHUB_TOKEN"],
    &["printenv PATH", "printenv HOME"],
);

/// Printing the whole environment (every secret in it): `printenv`, `env`
/// without a command, `export`/`declare -x`/`set` without operands, jq's
/// `env` and `$ENV`, and git configuration values that hold credentials
/// (the `http.<url>.extraheader` CI checkouts store, `credential.*`, a
/// remote's URL, a whole listing). A named check beside the rows, with its examples.
pub(crate) const ENVIRONMENT_DUMP: Printer = printer(
    &[
        "printenv", "env", "export", "declare", "typeset", "set", "jq", "git",
    ],
    &[],
    &[],
    &[
        "printenv",
        "printenv -0",
        "env",
        "env -0",
        "env -u PATH",
        "env A=1",
        "export",
        "export -p",
        "declare -x",
        "declare -p",
        "typeset -x",
        "set",
        "jq -n env",
        "jq -n $ENV",
        "jq -n $ENV.OPENAI_API_KEY",
        "jq -n env.AWS_SECRET_ACCESS_KEY",
        "jq -r [env] package.json",
        "git config --get http.https://github.com/.extraheader",
        "git config http.https://github.com/.extraHeader",
        "git config --get-all http.extraheader",
        "git config --get-regexp extraheader",
        "git config --get-regexp .*",
        "git config --list",
        "git config -l",
        "git config list",
        "git config --get credential.helper",
        "git config get http.https://x/.extraheader",
        "git config --get remote.origin.url",
        "git config remote.upstream.pushurl",
    ],
    &[
        "printenv PATH",
        "env A=1 cargo test",
        "env -u X make",
        "export A=1",
        "declare -x A=1",
        "set -e",
        "set -euo pipefail",
        "jq .env package.json",
        "jq .environment config.json",
        "jq -r .envs[] x.json",
        "git config --get user.name",
        "git config --get remote.origin.fetch",
        "git config --get-regexp ^alias",
        "git config user.name ada",
    ],
);

/// Whether `program` with `args` prints the whole environment or a git
/// credential (see [`ENVIRONMENT_DUMP`]).
fn dumps_environment(program: &str, args: &[String]) -> bool {
    let operands = || args.iter().filter(|a| !a.starts_with('-'));
    match program {
        "printenv" => operands().next().is_none(),
        // `env [-0] [-u NAME]… [NAME=VALUE]…` without a command prints.
        "env" => {
            let mut words = args.iter();
            while let Some(w) = words.next() {
                if matches!(w.as_str(), "-u" | "--unset" | "-C" | "--chdir") {
                    words.next();
                } else if !(w.starts_with('-') || w.contains('=')) {
                    return false;
                }
            }
            true
        }
        "export" | "declare" | "typeset" => {
            operands().next().is_none()
                && args
                    .iter()
                    .all(|a| matches!(a.as_str(), "-p" | "-x" | "-px" | "-xp" | "-g"))
        }
        "set" => args.is_empty(),
        "jq" => operands().any(|a| jq_reads_environment(a)),
        // Most git commands are not `git config`: no reading for them.
        "git" => args.iter().any(|a| a == "config") && git_config_credential(args),
        _ => false,
    }
}

/// A jq program that reads the environment: `$ENV` or the `env` builtin
/// (a name, not a field `.env` or part of a longer name).
fn jq_reads_environment(program: &str) -> bool {
    if program.contains("$ENV") || program.contains("$__prog_args") {
        return true;
    }
    let bytes = program.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'.';
    program.match_indices("env").any(|(at, _)| {
        let before = at.checked_sub(1).and_then(|i| bytes.get(i)).copied();
        let after = bytes.get(at + 3).copied();
        !before.is_some_and(word) && !after.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
    })
}

/// `git config` asked for a credential value or for every value: keys
/// `http.*.extraheader`, `credential.*`, `remote.*.url`/`pushurl`,
/// `--list`, and `--get-regexp`
/// with a pattern that can match those keys.
fn git_config_credential(args: &[String]) -> bool {
    let inv = crate::shell::table::Invocation::read_args("git", args, &[]);
    if inv.subcommand != Some("config") {
        return false;
    }
    let listed = inv
        .options
        .iter()
        .any(|o| o.long == "list" || (!o.before_subcommand && o.letters == "l"));
    let regexp = inv.options.iter().any(|o| o.long == "get-regexp");
    let operands: Vec<&str> = inv.operands.iter().skip(1).copied().collect();
    if listed || operands.first() == Some(&"list") {
        return true;
    }
    let keys = match operands.first() {
        Some(&("get" | "get-all" | "get-regexp")) => &operands[1..],
        _ => &operands[..],
    };
    let Some(key) = keys.first().map(|k| k.to_ascii_lowercase()) else {
        return false;
    };
    // A remote's URL may carry user info (see `PRINTERS`).
    let credential = |k: &str| {
        k.ends_with(".extraheader")
            || k.starts_with("credential.")
            || (k.starts_with("remote.") && (k.ends_with(".url") || k.ends_with(".pushurl")))
    };
    if regexp || operands.first() == Some(&"get-regexp") {
        // A pattern: anything that can match a credential key.
        return ["extra", "header", "cred", "http", ".", "*"]
            .iter()
            .any(|p| key.contains(p))
            && !key.starts_with("^alias")
            && !key.starts_with("^user");
    }
    credential(&key)
}

/// Whether `program` with `args` prints a variable named like a secret.
fn prints_secret_variable(program: &str, args: &[String]) -> bool {
    program == "printenv"
        && args
            .iter()
            .any(|a| !a.starts_with('-') && super::secret_names::names_secret(a))
}

/// Variables whose lines a filter may keep from an environment dump: none
/// holds a secret, and no usual secret's name contains one of them.
const HARMLESS_VARIABLES: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "SHELL",
    "LANG",
    "LC_ALL",
    "TERM",
    "PWD",
    "TMPDIR",
    "EDITOR",
    "HOSTNAME",
    "GOPATH",
    "GOROOT",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "JAVA_HOME",
    "PYTHONPATH",
    "NODE_ENV",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "LD_LIBRARY_PATH",
];

/// grep's options that change neither which lines are kept nor add others
/// around them (`-A`/`-B`/`-C` print neighbours, `-v` the rest, `-f`/`-e`
/// other patterns).
const NARROW_GREP_FLAGS: &[&str] = &[
    "--ignore-case",
    "--word-regexp",
    "--line-regexp",
    "--fixed-strings",
    "--extended-regexp",
    "--basic-regexp",
    "--line-number",
    "--count",
    "--only-matching",
    "--no-messages",
    "--quiet",
    "--silent",
    "--color",
    "--colour",
    "--color=auto",
    "--color=always",
    "--color=never",
];

/// Whether `part` (a pipeline's next stage, reading the previous one's
/// output) keeps only lines naming one of [`HARMLESS_VARIABLES`]: `grep`
/// with narrow options (short ones of `iwxFEGncosq`, or
/// [`NARROW_GREP_FLAGS`]) and one pattern, that variable's name (`PATH`,
/// `^PATH=`, `-i path`), and no file. Anything else (`grep -v PATH`,
/// `grep -A9 PATH`, `grep -i key`, `grep AWS`, `sed`, `awk`) is no such
/// filter, and the dump before it stays a secret read.
pub(crate) fn keeps_harmless_variables(part: &SimpleCommand) -> bool {
    let Some((first, args)) = part.words.split_first() else {
        return false;
    };
    if !part.pipe_in || !matches!(basename(first), "grep" | "egrep" | "fgrep") {
        return false;
    }
    let mut patterns = args.iter().filter(|a| !a.starts_with('-'));
    let narrow = args.iter().filter(|a| a.starts_with('-')).all(|o| {
        NARROW_GREP_FLAGS.contains(&o.as_str())
            || o.strip_prefix('-').is_some_and(|letters| {
                !letters.is_empty()
                    && !letters.starts_with('-')
                    && letters.bytes().all(|b| b"iwxFEGncosq".contains(&b))
            })
    });
    let (Some(pattern), None) = (patterns.next(), patterns.next()) else {
        return false;
    };
    let name = pattern.strip_prefix('^').unwrap_or(pattern);
    let name = name.strip_suffix('=').unwrap_or(name);
    narrow
        && HARMLESS_VARIABLES
            .iter()
            .any(|v| v.eq_ignore_ascii_case(name))
        && !super::secret_names::names_secret(name)
}

/// The programs a row of [`PRINTERS`] names, and `printenv`.
pub(crate) fn printer_programs() -> impl Iterator<Item = &'static str> {
    PRINTERS
        .iter()
        .flat_map(|row| row.programs.iter().copied())
        .chain(ENVIRONMENT_DUMP.programs.iter().copied())
}

/// The row `words` (a command's words, program first) matches.
pub(crate) fn prints_secret(words: &[String]) -> Option<&'static Printer> {
    prints_secret_into(words, None)
}

/// [`prints_secret`] for a command whose output goes into `next` (a
/// pipeline's next stage): a whole-environment dump into a filter that
/// keeps only lines of harmless variables ([`keeps_harmless_variables`]) is
/// no secret read (`env | grep PATH`); every other row still is.
pub(crate) fn prints_secret_into(
    words: &[String],
    next: Option<&SimpleCommand>,
) -> Option<&'static Printer> {
    let (first, args) = words.split_first()?;
    let program = basename(first);
    if prints_secret_variable(program, args) {
        return Some(&VARIABLE_PRINTER);
    }
    if dumps_environment(program, args) && !next.is_some_and(keeps_harmless_variables) {
        return Some(&ENVIRONMENT_DUMP);
    }
    // Most commands name no printer (every part's every reading asks).
    crate::name_hash::rows_named!(PRINTERS: Printer, |r| r.programs, program)
        .iter()
        .copied()
        .find(|row| row_matches(row, args))
}

fn row_matches(row: &Printer, args: &[String]) -> bool {
    let mut operands = args
        .iter()
        .map(String::as_str)
        .filter(|w| !w.starts_with('-'));
    // The subcommand words must come in order among the words that are
    // not options: the first among the first four (global options' values,
    // `kubectl --context prod -n db get`, look like operands), each next
    // one right after or one word later (`secrets versions access`). Each
    // search goes on from the word after the last one found.
    for (i, step) in row.path.iter().enumerate() {
        let window = if i == 0 { 4 } else { 2 };
        if operands
            .by_ref()
            .take(window)
            .position(|w| step.contains(&w))
            .is_none()
        {
            return false;
        }
    }
    row.needs_option.is_empty()
        || args.iter().any(|w| {
            row.needs_option.iter().any(|o| {
                w == o
                    || w.strip_prefix(o).is_some_and(|rest| rest.starts_with('='))
                    || (!o.starts_with("--") && w.starts_with(o) && w.len() > o.len())
            })
        })
}

/// Checks every row's examples; the message names the row and the example.
pub(crate) fn check_rows() -> Result<(), String> {
    let words = |line: &str| crate::shell::words::tokenize(line);
    for example in ENVIRONMENT_DUMP.examples {
        if prints_secret(&words(example)).is_none() {
            return Err(format!(
                "environment dump: example `{example}` does not match"
            ));
        }
    }
    for example in ENVIRONMENT_DUMP.counter_examples {
        if prints_secret(&words(example)).is_some() {
            return Err(format!(
                "environment dump: counter example `{example}` matches"
            ));
        }
    }
    for example in VARIABLE_PRINTER.examples {
        if prints_secret(&words(example)).is_none() {
            return Err(format!(
                "secret variable printer: example `{example}` does not match"
            ));
        }
    }
    for example in VARIABLE_PRINTER.counter_examples {
        if prints_secret(&words(example)).is_some() {
            return Err(format!(
                "secret variable printer: counter example `{example}` matches"
            ));
        }
    }
    for row in PRINTERS {
        for example in row.examples {
            if !row_matches(row, words(example).get(1..).unwrap_or_default()) {
                return Err(format!(
                    "secret printer `{}`: example `{example}` does not match",
                    row.programs[0]
                ));
            }
        }
        for example in row.counter_examples {
            if prints_secret(&words(example)).is_some() {
                return Err(format!(
                    "secret printer `{}`: counter example `{example}` matches a row",
                    row.programs[0]
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_meets_its_examples() {
        assert_eq!(check_rows(), Ok(()));
    }

    #[test]
    fn options_and_values_between_subcommands_are_skipped() {
        let words = |line: &str| {
            line.split_whitespace()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        assert!(prints_secret(&words("/usr/bin/gh --hostname x auth token")).is_some());
        assert!(
            prints_secret(&words("kubectl --context prod -n db get secret pw -o json")).is_some()
        );
        assert!(prints_secret(&words("kubectl get pods -l app=secret")).is_none());
        assert!(prints_secret(&words("gh")).is_none());
        assert!(prints_secret(&[]).is_none());
    }
}
