//! Variable names that say their value is a secret (`GITHUB_TOKEN`,
//! `DB_PASSWORD`, `DATABASE_URL`), read by the upload and secret-printing
//! checks: a network client given such a variable sends it, a printer
//! prints it.

use crate::shell::basename;

/// Parts of variable names that say the value is a secret, compared with
/// each `_`-separated part of a name, case aside (`GITHUB_TOKEN`,
/// `db_password`, `API_KEY`); [`SECRET_NAME_WORDS`] match anywhere in it.
pub(crate) const SECRET_NAME_PARTS: &[&str] = &[
    "token",
    "tokens",
    "secret",
    "secrets",
    "password",
    "passwd",
    "pass",
    "pw",
    "apikey",
    "key",
    "credential",
    "credentials",
    "auth",
    "cookie",
    "pat",
    "dsn",
];

/// Pieces that make a name a secret wherever they stand (`GHTOKEN`).
pub(crate) const SECRET_NAME_WORDS: &[&str] = &[
    "token",
    "secret",
    "password",
    "passwd",
    "apikey",
    // Connection strings that carry a password.
    "database_url",
    "db_url",
    "redis_url",
    "mongo_url",
    "mongodb_uri",
    "postgres_url",
    "mysql_url",
    "amqp_url",
];

/// Whether a variable's name says it holds a secret.
pub(crate) fn names_secret(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower
        .split('_')
        .any(|part| SECRET_NAME_PARTS.contains(&part))
        || SECRET_NAME_WORDS.iter().any(|w| lower.contains(w))
}

/// The names of the variables `word` expands (`$NAME`, `${NAME…}`).
pub(super) fn expanded_names(word: &str) -> impl Iterator<Item = &str> {
    word.match_indices('$').filter_map(move |(at, _)| {
        let rest = word.get(at + 1..)?;
        let rest = rest.strip_prefix('{').unwrap_or(rest);
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        rest.get(..end).filter(|n| !n.is_empty())
    })
}

/// Whether a word expands a variable named like a secret.
pub(crate) fn expands_secret(word: &str) -> bool {
    // Most words expand nothing (one byte scan, no searcher).
    crate::shell::words::has_byte(word, b"$") && expanded_names(word).any(names_secret)
}

/// `echo "$GITHUB_TOKEN"`, `printf %s "$DB_PASSWORD"`: a printer whose
/// words expand a variable named like a secret (the caller knows whether
/// the output reaches the model or a pipe).
pub(crate) fn echoes_secret(view: &[String]) -> bool {
    matches!(view.first().map(|w| basename(w)), Some("echo" | "printf"))
        && view.iter().skip(1).any(|w| expands_secret(w))
}
