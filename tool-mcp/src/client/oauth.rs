//! OAuth 2.1 for streamable HTTP servers, through rmcp's auth support.
//!
//! With [`ManagerOptions::oauth`](crate::ManagerOptions::oauth), a server
//! that answers the handshake with `401` and a `WWW-Authenticate`
//! challenge is authorized, then connected again with its token:
//! protected-resource and authorization-server metadata are discovered
//! (seeded from the challenge), the client registers itself (dynamic
//! client registration) unless the host gave a pre-registered client or a
//! client metadata document URL the server takes (SEP-991), the
//! authorization request carries PKCE (S256), the resource indicator and
//! the scopes the challenge or the metadata name; the host's
//! [`Authorizer`] takes the user to the authorization URL and hands back
//! the URL the browser was redirected to; the code is exchanged for a
//! token, kept in the host's [`TokenStore`] per server (in memory by
//! default, [`InMemoryTokenStore`]) and refreshed when it expires or a
//! server rejects it. A session opened later starts with the stored token.
//!
//! A client that authenticates itself instead
//! ([`OAuthOptions::client_credentials`]; the client credentials extension,
//! `io.modelcontextprotocol/oauth-client-credentials`, SEP-1046) skips the
//! user's step: after the same discovery, its id and secret are exchanged
//! for a token at the token endpoint (`grant_type=client_credentials`,
//! with the resource indicator and the challenge's scopes), sent as
//! `client_secret_basic` when the authorization server advertises that
//! method alone, else as `client_secret_post`; an authorization server
//! whose metadata lists token endpoint methods without either is refused
//! before the secret is sent. The toolhost conformance test runs the
//! suite's `auth/client-credentials-basic` against it.
//!
//! With [`OAuthOptions::dpop`] the tokens are DPoP-bound (RFC 9449): the
//! token request and every MCP request carry a proof signed with the
//! client's own key (`client::dpop`); the toolhost conformance test runs
//! the suite's `auth/dpop` and `auth/dpop-nonce` against it.
//!
//! The discovery, registration and token requests go through the same
//! HTTP client as the session (the host's guard when it gave one).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::client::dpop::{DpopKey, DpopOAuthClient};
use crate::client::oauth_jwt::SigningKey;
use async_trait::async_trait;
use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationRequest, ClientCredentialsConfig,
    CredentialStore, OAuthState, StoredCredentials,
};

/// How the host takes the user through the authorization step.
#[async_trait]
pub trait Authorizer: Send + Sync {
    /// Where the authorization server sends the browser back (registered
    /// with the client), e.g. `http://127.0.0.1:PORT/callback`.
    fn redirect_uri(&self) -> String;

    /// Takes the user to `url` (prints it, opens a browser) and returns the
    /// URL the browser was redirected to, with its `code` and `state`;
    /// `Err` says why there is none (the user gave up, a timeout).
    async fn authorize(&self, server: &str, url: &str) -> Result<String, String>;
}

/// Where tokens are kept between sessions (and processes, for a host that
/// writes them down), per server id.
#[async_trait]
pub trait TokenStore: Send + Sync {
    /// The credentials stored for `server`.
    async fn load(&self, server: &str) -> Result<Option<StoredCredentials>, String>;
    /// Stores `credentials` for `server`.
    async fn save(&self, server: &str, credentials: StoredCredentials) -> Result<(), String>;
    /// Forgets `server`'s credentials (its refresh token was refused).
    async fn clear(&self, server: &str) -> Result<(), String>;
}

/// Tokens kept in memory for the life of the process.
#[derive(Debug, Default)]
pub struct InMemoryTokenStore(Mutex<HashMap<String, StoredCredentials>>);

#[async_trait]
impl TokenStore for InMemoryTokenStore {
    async fn load(&self, server: &str) -> Result<Option<StoredCredentials>, String> {
        Ok(self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(server)
            .cloned())
    }

    async fn save(&self, server: &str, credentials: StoredCredentials) -> Result<(), String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(server.to_owned(), credentials);
        Ok(())
    }

    async fn clear(&self, server: &str) -> Result<(), String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(server);
        Ok(())
    }
}

/// The OAuth side of a manager: who authorizes, where tokens live, how the
/// client names itself.
#[derive(Clone)]
pub struct OAuthOptions {
    authorizer: Arc<dyn Authorizer>,
    store: Arc<dyn TokenStore>,
    client_name: String,
    client_id: Option<(String, Option<String>)>,
    client_metadata_url: Option<String>,
    /// Client credentials grant: the client id and how it proves itself.
    credentials: Option<(String, Proof)>,
    /// DPoP (RFC 9449): the client's key pair, when on.
    dpop: Option<Arc<DpopKey>>,
}

/// How a client using the client credentials grant proves who it is.
#[derive(Clone)]
enum Proof {
    /// `client_secret_basic` / `client_secret_post`.
    Secret(String),
    /// `private_key_jwt` (ES256).
    Key(SigningKey),
}

impl std::fmt::Debug for OAuthOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthOptions")
            .field("client_name", &self.client_name)
            .field("preregistered", &self.client_id.is_some())
            .field(
                "client_credentials",
                &self.credentials.as_ref().map(|(id, _)| id),
            )
            .field("dpop", &self.dpop.is_some())
            .finish_non_exhaustive()
    }
}

/// The authorizer of a client that authenticates itself: there is no user
/// to take anywhere.
struct NoUser;

#[async_trait]
impl Authorizer for NoUser {
    fn redirect_uri(&self) -> String {
        String::new()
    }

    async fn authorize(&self, _server: &str, _url: &str) -> Result<String, String> {
        Err("a client authenticating with client credentials has no user to authorize".into())
    }
}

impl OAuthOptions {
    /// `authorizer` takes the user through authorization; tokens are kept
    /// in memory; the client registers itself as `tool-mcp`.
    pub fn new(authorizer: Arc<dyn Authorizer>) -> Self {
        Self {
            authorizer,
            store: Arc::new(InMemoryTokenStore::default()),
            client_name: "tool-mcp".into(),
            client_id: None,
            client_metadata_url: None,
            credentials: None,
            dpop: None,
        }
    }

    /// A client that authenticates itself with its id and secret (the
    /// client credentials grant; see the module guide): no user, no
    /// browser, no registration; tokens kept in memory unless
    /// [`token_store`](Self::token_store) says otherwise.
    pub fn client_credentials(client_id: impl Into<String>, secret: impl Into<String>) -> Self {
        let mut options = Self::new(Arc::new(NoUser));
        options.credentials = Some((client_id.into(), Proof::Secret(secret.into())));
        options
    }

    /// A client that authenticates itself with a JWT signed by its private
    /// key (`private_key_jwt`, ES256; see the `oauth_jwt` module): `key_pem`
    /// is a PKCS#8 PEM ECDSA P-256 key. `Err` (field `oauth.clientKey`)
    /// when the key is not one, without repeating it.
    pub fn client_credentials_jwt(
        client_id: impl Into<String>,
        key_pem: &str,
    ) -> Result<Self, crate::Error> {
        let key = SigningKey::from_pem(key_pem).map_err(|message| crate::Error::InvalidConfig {
            server: "(oauth options)".into(),
            field: "oauth.clientKey".into(),
            message,
        })?;
        let mut options = Self::new(Arc::new(NoUser));
        options.credentials = Some((client_id.into(), Proof::Key(key)));
        Ok(options)
    }

    /// The HTTPS URL of the host's Client ID Metadata Document (SEP-991):
    /// used as the client id by authorization servers that advertise
    /// `client_id_metadata_document_supported`, instead of registering.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// Keeps tokens in `store`.
    pub fn token_store(mut self, store: Arc<dyn TokenStore>) -> Self {
        self.store = store;
        self
    }

    /// The name sent with dynamic client registration.
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// DPoP (RFC 9449, the MCP DPoP extension; see the `dpop` module): with
    /// `true`, a new ES256 key pair is made for this client (kept in memory
    /// only), the token request carries a proof so the token is bound to
    /// it, and every MCP request sends `Authorization: DPoP <token>` with a
    /// fresh proof (`ath`, the servers' nonces after a `use_dpop_nonce`,
    /// retried once). A token in a host's persistent store is bound to the
    /// key of the process that got it: a new process is refused with it and
    /// authorizes again. `Err` (field `oauth.dpop`) when no key could be made.
    pub fn dpop(mut self, on: bool) -> Result<Self, crate::Error> {
        self.dpop = if on {
            let key = DpopKey::generate().map_err(|message| crate::Error::InvalidConfig {
                server: "(oauth options)".into(),
                field: "oauth.dpop".into(),
                message,
            })?;
            Some(Arc::new(key))
        } else {
            None
        };
        Ok(self)
    }

    /// The client's DPoP key, when DPoP is on.
    pub(crate) fn dpop_key(&self) -> Option<Arc<DpopKey>> {
        self.dpop.clone()
    }

    /// A client registered out of band (no dynamic registration), with its
    /// secret for a confidential client.
    pub fn preregistered(mut self, client_id: impl Into<String>, secret: Option<String>) -> Self {
        self.client_id = Some((client_id.into(), secret));
        self
    }
}

/// One server's slice of the host's token store, as rmcp's credential store.
struct ServerTokens {
    server: String,
    store: Arc<dyn TokenStore>,
}

fn store_error(message: String) -> AuthError {
    AuthError::InternalError(format!("token store: {message}"))
}

#[async_trait]
impl CredentialStore for ServerTokens {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        self.store.load(&self.server).await.map_err(store_error)
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        self.store
            .save(&self.server, credentials)
            .await
            .map_err(store_error)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.store.clear(&self.server).await.map_err(store_error)
    }
}

async fn manager(
    server: &str,
    url: &str,
    client: reqwest::Client,
    options: &OAuthOptions,
) -> Result<AuthorizationManager, AuthError> {
    // The host's HTTP client (its guard) decides which addresses are reached.
    let mut manager = match &options.dpop {
        // Token requests carry proofs: our OAuth HTTP client over the same client.
        Some(key) => {
            AuthorizationManager::new_with_oauth_http_client(
                url,
                Arc::new(DpopOAuthClient {
                    client,
                    key: Arc::clone(key),
                }),
            )
            .await?
        }
        None => {
            let mut manager = AuthorizationManager::new_allowing_private_addresses(url).await?;
            manager.with_client(client)?;
            manager
        }
    };
    manager.set_credential_store(ServerTokens {
        server: server.to_owned(),
        store: Arc::clone(&options.store),
    });
    Ok(manager)
}

/// The manager of a server whose token is in the store already.
pub(crate) async fn stored(
    server: &str,
    url: &str,
    client: reqwest::Client,
    options: &OAuthOptions,
) -> Result<Option<AuthorizationManager>, String> {
    let mut manager = manager(server, url, client, options)
        .await
        .map_err(|e| e.to_string())?;
    match manager.initialize_from_store().await {
        Ok(true) => Ok(Some(manager)),
        Ok(false) => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

/// Authorizes at `url`'s authorization server after `challenge` (the
/// 401's `WWW-Authenticate`): the whole flow, the user's step through the
/// host's authorizer; the token ends up in the store.
pub(crate) async fn authorize(
    server: &str,
    url: &str,
    client: reqwest::Client,
    options: &OAuthOptions,
    challenge: &str,
) -> Result<AuthorizationManager, String> {
    let manager = manager(server, url, client.clone(), options)
        .await
        .map_err(|e| format!("preparing authorization: {e}"))?;
    if let Some((client_id, Proof::Key(key))) = &options.credentials {
        let store = ServerTokens {
            server: server.to_owned(),
            store: Arc::clone(&options.store),
        };
        crate::client::oauth_jwt::exchange(
            &manager,
            &client,
            client_id,
            key,
            url,
            &challenge_scopes(challenge),
            challenge,
            async |credentials| store.save(credentials).await.map_err(|e| e.to_string()),
        )
        .await
        .map_err(|e| format!("client credentials (private_key_jwt): {e}"))?;
        return stored(server, url, client, options)
            .await?
            .ok_or_else(|| "client credentials (private_key_jwt): no token stored".into());
    }
    let mut state = OAuthState::Unauthorized(manager);
    if let Some((client_id, Proof::Secret(secret))) = &options.credentials {
        let config = ClientCredentialsConfig::ClientSecret {
            client_id: client_id.clone(),
            client_secret: secret.clone(),
            scopes: challenge_scopes(challenge),
            resource: Some(url.to_owned()),
        };
        state
            .authenticate_client_credentials(config)
            .await
            .map_err(|e| format!("client credentials: {e}"))?;
        return match state {
            OAuthState::Authorized(manager) => Ok(manager),
            _ => Err("client credentials: authorization did not complete".into()),
        };
    }
    let mut request = AuthorizationRequest::new(options.authorizer.redirect_uri())
        .with_client_name(options.client_name.clone())
        .with_initial_scope_selection()
        .with_challenge(challenge);
    // A step-up (SEP-2350): the new token is asked for what was granted
    // before and what the challenge names, so the operations the old token
    // allowed keep working with the new one.
    let granted = options
        .store
        .load(server)
        .await
        .ok()
        .flatten()
        .map(|credentials| credentials.granted_scopes)
        .unwrap_or_default();
    let challenged = challenge_scopes(challenge);
    if !granted.is_empty() && !challenged.is_empty() {
        request = request.with_scopes(scope_union(granted, challenged));
    }
    if let Some(url) = &options.client_metadata_url {
        request = request.with_client_metadata_url(url.clone());
    }
    if let Some((id, secret)) = &options.client_id {
        request = request.with_preregistered_client(id.clone());
        if let Some(secret) = secret {
            request = request.with_client_secret(secret.clone());
        }
    }
    state
        .start_authorization(request)
        .await
        .map_err(|e| format!("discovery or registration: {e}"))?;
    let authorization_url = state
        .get_authorization_url()
        .await
        .map_err(|e| format!("authorization URL: {e}"))?;
    let callback = options
        .authorizer
        .authorize(server, &authorization_url)
        .await
        .map_err(|e| format!("the user's authorization: {e}"))?;
    state
        .handle_callback_url(&callback)
        .await
        .map_err(|e| format!("token exchange: {e}"))?;
    if matches!(state, OAuthState::Session(_)) {
        state
            .complete_authorization()
            .await
            .map_err(|e| format!("completing authorization: {e}"))?;
    }
    match state {
        OAuthState::Authorized(manager) => Ok(manager),
        _ => Err("authorization did not complete".into()),
    }
}

/// The scopes a `WWW-Authenticate` challenge names (its `scope` parameter,
/// quoted or not; RFC 6750 §3), in order.
fn challenge_scopes(challenge: &str) -> Vec<String> {
    let mut rest = challenge;
    while let Some(at) = find_param(rest, "scope") {
        let value = &rest[at..];
        let scopes = match value.strip_prefix('"') {
            Some(quoted) => quoted.split('"').next().unwrap_or_default(),
            None => value.split([',', ' ']).next().unwrap_or_default(),
        };
        if !scopes.trim().is_empty() {
            return scopes.split_whitespace().map(str::to_owned).collect();
        }
        rest = value;
    }
    Vec::new()
}

/// Where the value of auth-param `name` starts in `header` (the name
/// standing alone before `=`, outside quotes).
fn find_param(header: &str, name: &str) -> Option<usize> {
    let bytes = header.as_bytes();
    let mut quoted = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => quoted = !quoted,
            _ if !quoted
                && (i == 0 || matches!(bytes[i - 1], b' ' | b',' | b'\t'))
                && header[i..].len() > name.len()
                && header.is_char_boundary(i + name.len())
                && header[i..i + name.len()].eq_ignore_ascii_case(name) =>
            {
                let after = header[i + name.len()..].trim_start();
                if let Some(value) = after.strip_prefix('=') {
                    let value = value.trim_start();
                    return Some(header.len() - value.len());
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// `first` then the scopes of `more` it lacks.
fn scope_union(mut first: Vec<String>, more: Vec<String>) -> Vec<String> {
    for scope in more {
        if !first.contains(&scope) {
            first.push(scope);
        }
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_challenge_names_its_scopes_quoted_or_not() {
        let header = r#"Bearer error="insufficient_scope", scope="mcp:write files:read", resource_metadata="https://x/.well-known/oauth-protected-resource""#;
        assert_eq!(challenge_scopes(header), ["mcp:write", "files:read"]);
        assert_eq!(
            challenge_scopes("Bearer scope=mcp:basic, error=x"),
            ["mcp:basic"]
        );
        // Another parameter whose name ends in `scope`, or a `scope=` inside
        // a quoted value, is not the scope.
        assert!(challenge_scopes(r#"Bearer error_description="no scope=admin here""#).is_empty());
        assert!(challenge_scopes(r#"Bearer myscope="a""#).is_empty());
        assert!(challenge_scopes("Bearer").is_empty());
        assert!(challenge_scopes("Bearer scope=").is_empty());
        assert!(challenge_scopes("Bearer scope=\"").is_empty());
    }

    #[test]
    fn client_credentials_options_never_show_the_secret() {
        let options = OAuthOptions::client_credentials("robot", "s3cret-value");
        let shown = format!("{options:?}");
        assert!(shown.contains("robot"), "{shown}");
        assert!(!shown.contains("s3cret-value"), "{shown}");
    }

    #[test]
    fn a_step_up_keeps_the_scopes_granted_before() {
        let union = scope_union(
            vec!["mcp:basic".into(), "offline_access".into()],
            vec!["mcp:write".into(), "mcp:basic".into()],
        );
        assert_eq!(union, ["mcp:basic", "offline_access", "mcp:write"]);
    }
}
