//! Credentials applied as the document says: which alternative of an
//! operation's security requirement is sent, OAuth2 client credentials
//! exchanged for a token (through the SSRF guard, cached until expiry),
//! and where each credential goes.
//!
//! Choosing, in order:
//! 1. An operation with no requirement (`security: []`, or none in the
//!    document) sends no credential.
//! 2. Otherwise the first alternative whose every scheme the host has a
//!    credential for is sent, all its schemes together.
//! 3. When none is complete, an empty alternative (`{}`, anonymous access)
//!    sends nothing; with none, nothing is sent either, and the server
//!    answers (a `401` reaches the model as `http_status`).
//!
//! An operation stored before alternatives were kept (only
//! [`Operation::security`] names) sends every listed scheme the host has a
//! credential for.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};
use tool_core::ToolError;
use tool_core::net::read_body;

use super::style::{UNRESERVED_SET, encode_with};
use crate::codes;
use crate::credentials::{ApiSecret, Credentials, base64, form_encode};
use crate::document::{KeyLocation, Operation, SchemeKind, SecurityScheme};

/// How long a token whose answer gave no `expires_in` is reused.
const DEFAULT_TOKEN_LIFETIME: Duration = Duration::from_secs(300);
/// A token this close to its expiry is asked for again.
const EXPIRY_MARGIN: Duration = Duration::from_secs(10);
/// The largest token answer read.
const MAX_TOKEN_RESPONSE_BYTES: usize = 64 * 1024;

/// One credential to send: its scheme, its secret and the scopes asked.
pub(crate) struct Chosen<'a> {
    pub scheme: &'a SecurityScheme,
    pub secret: &'a ApiSecret,
    pub scopes: Vec<String>,
}

/// The credentials an operation sends (see the module docs for the order).
pub(crate) fn choose<'a>(
    op: &Operation,
    schemes: &'a [SecurityScheme],
    credentials: &'a Credentials,
) -> Vec<Chosen<'a>> {
    let find = |name: &str| schemes.iter().find(|s| s.name == name);
    if op.security_requirements.is_empty() {
        return op
            .security
            .iter()
            .filter_map(|name| {
                Some(Chosen {
                    scheme: find(name)?,
                    secret: credentials.get(name)?,
                    scopes: Vec::new(),
                })
            })
            .collect();
    }
    for alternative in op.security_requirements.iter().filter(|a| !a.is_empty()) {
        let complete: Option<Vec<Chosen<'a>>> = alternative
            .iter()
            .map(|requirement| {
                Some(Chosen {
                    scheme: find(&requirement.scheme)?,
                    secret: credentials.get(&requirement.scheme)?,
                    scopes: requirement.scopes.clone(),
                })
            })
            .collect();
        if let Some(complete) = complete {
            return complete;
        }
    }
    Vec::new()
}

/// A cached token's key: the scheme's name and the scopes asked, joined.
type TokenKey = (String, String);

/// Access tokens with their expiry, by [`TokenKey`], shared by every call
/// of a tool.
#[derive(Clone, Default)]
pub(crate) struct TokenCache(Arc<Mutex<HashMap<TokenKey, (String, Instant)>>>);

impl std::fmt::Debug for TokenCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenCache([redacted])")
    }
}

impl TokenCache {
    fn get(&self, key: &TokenKey) -> Option<String> {
        let map = self.0.lock().ok()?;
        map.get(key)
            .filter(|(_, expiry)| Instant::now() + EXPIRY_MARGIN < *expiry)
            .map(|(token, _)| token.clone())
    }

    fn put(&self, key: TokenKey, token: String, lifetime: Duration) {
        if let Ok(mut map) = self.0.lock() {
            map.insert(key, (token, Instant::now() + lifetime));
        }
    }

    /// Forgets every token (a call was answered `401`: the next call asks
    /// for a new one).
    pub(crate) fn forget(&self) {
        if let Ok(mut map) = self.0.lock() {
            map.clear();
        }
    }
}

/// Where a token is fetched and with what.
pub(crate) struct TokenSource<'a> {
    pub client: &'a reqwest::Client,
    pub guard: &'a tool_core::net::SsrfGuard,
    pub cache: &'a TokenCache,
    /// The API's base URL, a relative token URL is resolved against.
    pub server: &'a str,
}

/// The secret each chosen credential is sent as: client credentials
/// become a bearer token (cached, else fetched); the others as they are.
pub(crate) async fn resolve<'a>(
    chosen: Vec<Chosen<'a>>,
    source: &TokenSource<'_>,
    what: &str,
) -> Result<Vec<(&'a SecurityScheme, ApiSecret)>, ToolError> {
    let mut out = Vec::with_capacity(chosen.len());
    for Chosen {
        scheme,
        secret,
        scopes,
    } in chosen
    {
        let resolved = match (&scheme.kind, secret) {
            (
                SchemeKind::OAuth2ClientCredentials { token_url },
                ApiSecret::ClientCredentials {
                    client_id,
                    client_secret,
                },
            ) => {
                let key = (scheme.name.clone(), scopes.join(" "));
                let token = match source.cache.get(&key) {
                    Some(token) => token,
                    None => {
                        let (token, lifetime) = fetch_token(
                            source,
                            &scheme.name,
                            token_url,
                            client_id,
                            client_secret,
                            &scopes,
                            what,
                        )
                        .await?;
                        source.cache.put(key, token.clone(), lifetime);
                        token
                    }
                };
                ApiSecret::Token(token)
            }
            (_, secret) => secret.clone(),
        };
        out.push((scheme, resolved));
    }
    Ok(out)
}

/// Asks `token_url` for a client credentials token (RFC 6749 § 4.4): the
/// client authenticates with basic auth; the URL passes the SSRF guard
/// like any request.
async fn fetch_token(
    source: &TokenSource<'_>,
    scheme: &str,
    token_url: &str,
    client_id: &str,
    client_secret: &str,
    scopes: &[String],
    what: &str,
) -> Result<(String, Duration), ToolError> {
    let failed = |message: String| {
        ToolError::new(
            codes::TOKEN_REQUEST_FAILED,
            format!("{what}: the OAuth2 token for `{scheme}` could not be had: {message}. Nothing was sent to the API."),
        )
        .with_details(json!({"scheme": scheme, "tokenUrl": token_url}))
    };
    let base = url::Url::parse(&format!("{}/", source.server.trim_end_matches('/')))
        .map_err(|e| failed(format!("the server URL does not parse: {e}")))?;
    let url = base
        .join(token_url)
        .map_err(|e| failed(format!("the token URL `{token_url}` does not parse: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(failed(format!("the token URL `{url}` is not http(s)")));
    }
    if let Err(blocked) = source.guard.check_parsed(&url) {
        return Err(ToolError::new(
            codes::SSRF_BLOCKED,
            format!("{what}: the OAuth2 token URL of `{scheme}`: {blocked}. Nothing was sent."),
        )
        .with_details(json!({"host": blocked.host(), "address": blocked.address()})));
    }
    let mut form = String::from("grant_type=client_credentials");
    if !scopes.is_empty() {
        form.push_str("&scope=");
        form.push_str(&form_encode(&scopes.join(" ")));
    }
    let basic = format!(
        "Basic {}",
        base64(format!("{}:{}", form_encode(client_id), form_encode(client_secret)).as_bytes())
    );
    let mut authorization = HeaderValue::from_str(&basic)
        .map_err(|_| failed("the client id or secret cannot be sent in a header".into()))?;
    authorization.set_sensitive(true);
    let redactor = super::response::Redactor::new(vec![client_secret.to_owned()]);
    let response = source
        .client
        .post(url.clone())
        .header(http::header::AUTHORIZATION, authorization)
        .header(
            http::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .header(http::header::ACCEPT, "application/json")
        .body(form)
        .send()
        .await
        .map_err(|e| {
            super::response::send_failure(
                &e,
                &format!("{what}: the OAuth2 token request"),
                &redactor,
            )
        })?;
    let status = response.status();
    let bytes = read_body(response, MAX_TOKEN_RESPONSE_BYTES)
        .await
        .map_err(|e| super::response::body_failure(&e, what, &redactor))?;
    if !status.is_success() {
        // The answer names the error (RFC 6749 § 5.2), never a token.
        let error = serde_json::from_slice::<Value>(&bytes)
            .ok()
            .and_then(|v| v.get("error").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_default();
        return Err(failed(format!(
            "the token endpoint answered {status}{}",
            if error.is_empty() {
                String::new()
            } else {
                format!(" (`{}`)", redactor.text(&error))
            }
        )));
    }
    let answer: Value = serde_json::from_slice(&bytes)
        .map_err(|_| failed("the token endpoint's answer is not JSON".into()))?;
    let Some(token) = answer
        .get("access_token")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
    else {
        return Err(failed(
            "the token endpoint's answer has no `access_token`".into(),
        ));
    };
    if let Some(kind) = answer.get("token_type").and_then(Value::as_str)
        && !kind.eq_ignore_ascii_case("bearer")
    {
        return Err(failed(format!(
            "the token type is `{kind}`; only bearer tokens can be sent"
        )));
    }
    let lifetime = answer
        .get("expires_in")
        .and_then(Value::as_u64)
        .map_or(DEFAULT_TOKEN_LIFETIME, Duration::from_secs);
    Ok((token.to_owned(), lifetime))
}

/// Puts one credential where its scheme says: a header, a query pair
/// (`key=value`, encoded), a cookie (encoded) or `Authorization`.
pub(crate) fn apply(
    scheme: &SecurityScheme,
    secret: &ApiSecret,
    headers: &mut HeaderMap,
    query: &mut Vec<String>,
    cookies: &mut Vec<(String, String)>,
) {
    let token = match secret {
        ApiSecret::Token(token) => token.clone(),
        ApiSecret::Basic { username, password } => format!("{username}:{password}"),
        // Only an OAuth2 scheme exchanges these; elsewhere nothing is sent.
        ApiSecret::ClientCredentials { .. } => return,
    };
    let mut sensitive = |name: HeaderName, text: &str| {
        if let Ok(mut value) = HeaderValue::from_str(text) {
            value.set_sensitive(true);
            headers.insert(name, value);
        }
    };
    match &scheme.kind {
        SchemeKind::ApiKey {
            location,
            parameter,
        } => match location {
            KeyLocation::Header => {
                if let Ok(name) = HeaderName::from_bytes(parameter.as_bytes()) {
                    sensitive(name, &token);
                }
            }
            KeyLocation::Query => query.push(format!(
                "{}={}",
                encode_with(parameter, UNRESERVED_SET),
                encode_with(&token, UNRESERVED_SET)
            )),
            KeyLocation::Cookie => cookies.push((
                encode_with(parameter, UNRESERVED_SET),
                encode_with(&token, UNRESERVED_SET),
            )),
        },
        SchemeKind::Bearer | SchemeKind::OAuth2ClientCredentials { .. } => {
            sensitive(http::header::AUTHORIZATION, &format!("Bearer {token}"));
        }
        SchemeKind::Basic => sensitive(
            http::header::AUTHORIZATION,
            &format!("Basic {}", base64(token.as_bytes())),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::SecurityRequirement;
    use crate::narrow::parse_narrow;

    fn operation(alternatives: &[&[&str]], legacy: &[&str]) -> Operation {
        let (doc, _) = parse_narrow(
            r#"{"server":"http://h.test","description":"d","paths":{"/a":{"get":{"operationId":"a","description":"a"}}}}"#,
        )
        .unwrap();
        let mut op = doc.operations[0].clone();
        op.security_requirements = alternatives
            .iter()
            .map(|a| {
                a.iter()
                    .map(|s| SecurityRequirement {
                        scheme: (*s).to_owned(),
                        scopes: Vec::new(),
                    })
                    .collect()
            })
            .collect();
        op.security = legacy.iter().map(|s| (*s).to_owned()).collect();
        op
    }

    fn schemes() -> Vec<SecurityScheme> {
        ["a", "b", "c"]
            .iter()
            .map(|name| SecurityScheme {
                name: (*name).to_owned(),
                kind: SchemeKind::Bearer,
            })
            .collect()
    }

    fn chosen(op: &Operation, credentials: &Credentials) -> Vec<String> {
        let schemes = schemes();
        choose(op, &schemes, credentials)
            .iter()
            .map(|c| c.scheme.name.clone())
            .collect()
    }

    #[test]
    fn the_first_complete_alternative_is_sent_whole() {
        let creds = Credentials::new().token("b", "1").token("c", "2");
        // {a, b} lacks a; {b, c} is complete.
        let op = operation(&[&["a", "b"], &["b", "c"], &["c"]], &["a", "b", "c"]);
        assert_eq!(chosen(&op, &creds), ["b", "c"]);
        // An empty alternative (anonymous) is taken only when none is complete.
        let op = operation(&[&[], &["b"]], &["b"]);
        assert_eq!(chosen(&op, &creds), ["b"]);
        let op = operation(&[&["a"], &[]], &["a"]);
        assert!(chosen(&op, &creds).is_empty());
        // None complete and no anonymous alternative: nothing, not a part.
        let op = operation(&[&["a", "b"]], &["a", "b"]);
        assert!(chosen(&op, &creds).is_empty());
    }

    #[test]
    fn security_none_sends_nothing_and_stored_names_send_what_the_host_has() {
        let creds = Credentials::new().token("a", "1").token("b", "2");
        assert!(chosen(&operation(&[], &[]), &creds).is_empty());
        assert_eq!(chosen(&operation(&[], &["b", "c"]), &creds), ["b"]);
    }
}
