//! Secrets a host configures on a provider: never in a schema, a content,
//! a state or a log.

use std::collections::BTreeMap;
use std::fmt;

/// One secret for one security scheme. Named `ApiSecret` so it does not
/// clash with tool-mcp's `McpSecret` in a host that imports both.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ApiSecret {
    /// An API key or a bearer token.
    Token(String),
    /// HTTP basic credentials.
    Basic {
        /// The user name.
        username: String,
        /// The password.
        password: String,
    },
    /// An OAuth2 client's id and secret, exchanged for an access token at
    /// the scheme's token URL (client credentials flow).
    ClientCredentials {
        /// The client id.
        client_id: String,
        /// The client secret.
        client_secret: String,
    },
}

/// The old name of [`ApiSecret`].
#[deprecated(note = "renamed `ApiSecret` (a name unique across the tool-* crates)")]
pub type Secret = ApiSecret;

impl fmt::Debug for ApiSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Token(_) => f.write_str("Token([redacted])"),
            Self::Basic { username, .. } => {
                write!(
                    f,
                    "Basic {{ username: {username:?}, password: [redacted] }}"
                )
            }
            Self::ClientCredentials { client_id, .. } => write!(
                f,
                "ClientCredentials {{ client_id: {client_id:?}, client_secret: [redacted] }}"
            ),
        }
    }
}

/// Secrets by security-scheme name (the document's `securitySchemes` keys).
///
/// `Debug` never prints a secret; an operation sends the secrets of the
/// schemes it lists, in the way each scheme says (header, query, cookie,
/// `Authorization: Bearer`/`Basic`).
///
/// ```
/// use tool_openapi::Credentials;
/// let creds = Credentials::new().token("api_key", "s3cret").basic("basic", "me", "pw");
/// assert!(!format!("{creds:?}").contains("s3cret"));
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Credentials {
    secrets: BTreeMap<String, ApiSecret>,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.secrets.iter()).finish()
    }
}

impl Credentials {
    /// No secrets.
    pub fn new() -> Self {
        Self::default()
    }

    /// An API key or bearer token for `scheme`.
    pub fn token(mut self, scheme: impl Into<String>, token: impl Into<String>) -> Self {
        self.secrets
            .insert(scheme.into(), ApiSecret::Token(token.into()));
        self
    }

    /// Basic credentials for `scheme`.
    pub fn basic(
        mut self,
        scheme: impl Into<String>,
        username: impl Into<String>,
        password: impl Into<String>,
    ) -> Self {
        self.secrets.insert(
            scheme.into(),
            ApiSecret::Basic {
                username: username.into(),
                password: password.into(),
            },
        );
        self
    }

    /// OAuth2 client credentials for `scheme` (a scheme with a client
    /// credentials flow): exchanged for an access token when a call needs
    /// one, the token cached until it expires.
    pub fn client_credentials(
        mut self,
        scheme: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        self.secrets.insert(
            scheme.into(),
            ApiSecret::ClientCredentials {
                client_id: client_id.into(),
                client_secret: client_secret.into(),
            },
        );
        self
    }

    /// Sets the secret for `scheme` (replacing one it had).
    pub fn insert(&mut self, scheme: impl Into<String>, secret: ApiSecret) {
        self.secrets.insert(scheme.into(), secret);
    }

    /// The names of the schemes with a secret.
    pub fn schemes(&self) -> impl Iterator<Item = &str> {
        self.secrets.keys().map(String::as_str)
    }

    /// The secret for `scheme`.
    pub fn get(&self, scheme: &str) -> Option<&ApiSecret> {
        self.secrets.get(scheme)
    }

    /// Whether no secret is configured.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// The texts to redact wherever a response could echo them.
    pub(crate) fn redaction_texts(&self) -> Vec<String> {
        let mut texts = Vec::new();
        for secret in self.secrets.values() {
            match secret {
                ApiSecret::Token(token) => texts.push(token.clone()),
                ApiSecret::Basic { username, password } => {
                    texts.push(password.clone());
                    texts.push(base64(format!("{username}:{password}").as_bytes()));
                }
                ApiSecret::ClientCredentials {
                    client_id,
                    client_secret,
                } => {
                    texts.push(client_secret.clone());
                    texts.push(base64(
                        format!("{}:{}", form_encode(client_id), form_encode(client_secret))
                            .as_bytes(),
                    ));
                }
            }
        }
        texts.retain(|t| !t.is_empty());
        texts
    }
}

/// `application/x-www-form-urlencoded` encoding of one value (RFC 6749
/// § 2.3.1 encodes the client id and secret so before basic auth).
pub(crate) fn form_encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// Standard base64 with padding (for `Authorization: Basic`).
pub(crate) fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::base64;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (input, expected) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), expected);
        }
    }
}
