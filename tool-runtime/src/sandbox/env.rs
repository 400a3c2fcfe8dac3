//! The environment a confined command sees: the host's, without the
//! variables that look secret.
//!
//! A variable is withheld when, in this order:
//!
//! 1. the host passes it through by name
//!    ([`SandboxOptions::env_pass`](super::SandboxOptions::env_pass)): kept;
//! 2. its name is in [`SECRET_NAMES`], starts with one of
//!    [`SECRET_PREFIXES`], or the host named it
//!    ([`SandboxOptions::env_withhold`](super::SandboxOptions::env_withhold)):
//!    withheld;
//! 3. its name is in [`SAFE_NAMES`] (names that hold a secret-looking word
//!    but no secret): kept;
//! 4. its name holds one of the [`SECRET_WORDS`] (ASCII case-insensitive)
//!    or its value starts like a known credential ([`SECRET_VALUES`]):
//!    withheld.
//!
//! Variables the call sets itself are the call's and always kept. The
//! command's state lists the withheld names (never the values) in
//! `sandbox.envWithheld`.

/// Words that mark a variable's name as secret, each with an example.
pub(crate) const SECRET_WORDS: &[(&str, &str)] = &[
    ("KEY", "OPENAI_API_KEY"),
    ("SECRET", "AWS_SECRET_ACCESS_KEY"),
    ("TOKEN", "GITHUB_TOKEN"),
    ("PASSWORD", "PGPASSWORD"),
    ("PASSWD", "MYSQL_PASSWD"),
    ("PASSPHRASE", "GPG_PASSPHRASE"),
    ("CREDENTIAL", "GOOGLE_APPLICATION_CREDENTIALS"),
    ("AUTH", "NPM_CONFIG__AUTH"),
    ("SESSION", "AWS_SESSION_TOKEN"),
    ("COOKIE", "SESSION_COOKIE"),
    ("PRIVATE", "SSH_PRIVATE"),
    ("SIGNING", "SIGNING_CERT"),
    ("DSN", "SENTRY_DSN"),
    ("WEBHOOK", "SLACK_WEBHOOK_URL"),
    ("CONNECTION_STRING", "AZURE_STORAGE_CONNECTION_STRING"),
    ("PAT", "AZURE_DEVOPS_EXT_PAT"),
];

/// Names withheld whole (they hold credentials without saying so).
pub(crate) const SECRET_NAMES: &[&str] = &[
    "DATABASE_URL",
    "REDIS_URL",
    "MONGODB_URI",
    "AMQP_URL",
    "KUBECONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "ACTIONS_RUNTIME_URL",
    "ACTIONS_ID_TOKEN_REQUEST_URL",
    "ACTIONS_CACHE_URL",
    "NETRC",
    "VAULT_ADDR",
];

/// Name prefixes withheld whole (git's configuration from the environment
/// can carry an `extraheader` token).
pub(crate) const SECRET_PREFIXES: &[&str] = &["GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"];

/// Names that hold a secret word but no secret.
pub(crate) const SAFE_NAMES: &[&str] = &[
    "XDG_SESSION_TYPE",
    "XDG_SESSION_CLASS",
    "XDG_SESSION_DESKTOP",
    "XDG_SESSION_ID",
    "DBUS_SESSION_BUS_ADDRESS",
    "TOKENIZERS_PARALLELISM",
    "KEYTIMEOUT",
    "PATH",
    "PATHEXT",
    "GOPATH",
    "PYTHONPATH",
    "NODE_PATH",
    "MANPATH",
    "LD_LIBRARY_PATH",
    "PKG_CONFIG_PATH",
];

/// Value prefixes of well-known credentials, each with an example shape.
pub(crate) const SECRET_VALUES: &[(&str, &str)] = &[
    ("ghp_", "GitHub personal token"),
    ("gho_", "GitHub OAuth token"),
    ("ghs_", "GitHub Actions token"),
    ("ghu_", "GitHub user-to-server token"),
    ("github_pat_", "GitHub fine-grained token"),
    ("glpat-", "GitLab token"),
    ("xoxb-", "Slack bot token"),
    ("xoxp-", "Slack user token"),
    ("sk-", "OpenAI-style key"),
    ("AKIA", "AWS access key id"),
    ("ASIA", "AWS temporary key id"),
    ("AIza", "Google API key"),
    ("npm_", "npm token"),
    ("pypi-", "PyPI token"),
    ("-----BEGIN", "a PEM key"),
];

/// Whether the variable `name` = `value` is withheld, with `pass` and
/// `withhold` the host's extra names.
pub(crate) fn withheld(name: &str, value: &str, pass: &[String], withhold: &[String]) -> bool {
    if pass.iter().any(|p| p == name) {
        return false;
    }
    if SECRET_NAMES.contains(&name)
        || SECRET_PREFIXES.iter().any(|p| name.starts_with(p))
        || withhold.iter().any(|w| w == name)
    {
        return true;
    }
    if SAFE_NAMES.contains(&name) {
        return false;
    }
    let upper = name.to_ascii_uppercase();
    SECRET_WORDS.iter().any(|(word, _)| word_in(&upper, word))
        || SECRET_VALUES
            .iter()
            .any(|(prefix, _)| value.starts_with(prefix))
}

/// Whether `word` appears in `name` as a whole `_`-separated part or run
/// of parts (`API_KEY`, `KEY_ID`), or, for words of five letters and more,
/// anywhere (`APIKEY`, `GITHUBTOKEN`).
fn word_in(name: &str, word: &str) -> bool {
    if word.len() >= 5 {
        return name.contains(word);
    }
    let parts: Vec<&str> = name.split('_').collect();
    let words: Vec<&str> = word.split('_').collect();
    parts.windows(words.len()).any(|w| w == words.as_slice())
}

/// The host's environment for a confined command: what is kept, and the
/// names withheld (sorted).
pub(crate) fn scrub(
    host: impl Iterator<Item = (std::ffi::OsString, std::ffi::OsString)>,
    pass: &[String],
    withhold: &[String],
) -> (Vec<(std::ffi::OsString, std::ffi::OsString)>, Vec<String>) {
    let mut kept = Vec::new();
    let mut gone = Vec::new();
    for (name, value) in host {
        let text = name.to_string_lossy();
        if withheld(&text, &value.to_string_lossy(), pass, withhold) {
            gone.push(text.into_owned());
        } else {
            kept.push((name, value));
        }
    }
    gone.sort();
    (kept, gone)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_secret_word_catches_its_example_and_safe_names_pass() {
        for (word, example) in SECRET_WORDS {
            assert!(withheld(example, "x", &[], &[]), "{word}: {example}");
        }
        for name in SECRET_NAMES {
            assert!(withheld(name, "x", &[], &[]), "{name}");
        }
        for (prefix, what) in SECRET_VALUES {
            assert!(
                withheld("HARMLESS_NAME", &format!("{prefix}abc123"), &[], &[]),
                "{what}"
            );
        }
        for name in SAFE_NAMES {
            assert!(!withheld(name, "/usr/bin", &[], &[]), "{name}");
        }
        for name in [
            "HOME",
            "LANG",
            "TERM",
            "CARGO_HOME",
            "RUST_LOG",
            "KEYBOARD_LAYOUT",
            "MONKEY",
        ] {
            assert!(!withheld(name, "plain", &[], &[]), "{name}");
        }
        assert!(withheld("GIT_CONFIG_VALUE_0", "x", &[], &[]));
        assert!(withheld("GITHUBTOKEN", "x", &[], &[]));
    }

    #[test]
    fn the_host_passes_through_and_withholds_by_name() {
        let pass = vec!["GITHUB_TOKEN".to_owned()];
        let withhold = vec!["MY_PLAIN".to_owned()];
        assert!(!withheld("GITHUB_TOKEN", "ghp_x", &pass, &withhold));
        assert!(withheld("MY_PLAIN", "x", &pass, &withhold));
        let (kept, gone) = scrub(
            [("A_TOKEN", "1"), ("LANG", "C"), ("MY_PLAIN", "2")]
                .into_iter()
                .map(|(n, v)| (n.into(), v.into())),
            &pass,
            &withhold,
        );
        assert_eq!(kept, vec![("LANG".into(), "C".into())]);
        assert_eq!(gone, vec!["A_TOKEN".to_owned(), "MY_PLAIN".to_owned()]);
    }
}
