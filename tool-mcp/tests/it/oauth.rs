//! OAuth 2.1 against a hand-written authorization server and a
//! `RegistryServer` behind a bearer check, all on 127.0.0.1: the first
//! session is authorized once (discovery, registration, PKCE, token), later
//! sessions and other managers sharing the token store start with the
//! stored token; no OAuth options, or a user who gives up, is
//! `mcp_unauthorized` naming why. (The official suite's `auth/*` client
//! scenarios run in toolhost's conformance test.)

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;
use tokio_util::sync::CancellationToken;
use tool_core::{ApiDefinition, ToolBuilder, ToolOutput, ToolRegistry};
use tool_mcp::{
    Authorizer, Error, InMemoryTokenStore, ManagerOptions, McpManager, McpServerConfig,
    McpTransport, OAuthOptions, TokenStore,
};

const TOKEN: &str = "token-for-tool-mcp";
/// The token a refresh gives.
const REFRESHED: &str = "refreshed-token-for-tool-mcp";

#[derive(Default)]
struct Counts {
    registrations: AtomicUsize,
    tokens: AtomicUsize,
    refreshes: AtomicUsize,
    refused: AtomicUsize,
}

#[derive(Clone)]
struct Auth {
    base: String,
    counts: Arc<Counts>,
    /// Let the handshake through without a token (ask at the first request).
    open_handshake: bool,
    /// Give tokens that expire at once, with a refresh token.
    short_lived: bool,
}

async fn bearer_only(State(auth): State<Auth>, request: Request, next: Next) -> Response {
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    if presented == Some(&format!("Bearer {TOKEN}"))
        || presented == Some(&format!("Bearer {REFRESHED}"))
    {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, 1 << 20).await.unwrap();
    let text = String::from_utf8_lossy(&bytes);
    let handshake = text.contains("\"initialize\"") || text.contains("notifications/initialized");
    if auth.open_handshake && (handshake || parts.method != axum::http::Method::POST) {
        return next
            .run(Request::from_parts(parts, axum::body::Body::from(bytes)))
            .await;
    }
    let request = Request::from_parts(parts, axum::body::Body::empty());
    // rmcp's discovery may probe with an unauthenticated GET; count what
    // carries a JSON-RPC message.
    if request.method() == axum::http::Method::POST {
        auth.counts.refused.fetch_add(1, Ordering::SeqCst);
    }
    let challenge = format!(
        "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
        auth.base
    );
    let mut response = StatusCode::UNAUTHORIZED.into_response();
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_str(&challenge).unwrap(),
    );
    response
}

/// The protected MCP server and its authorization server on one port.
async fn protected() -> (String, Arc<Counts>, CancellationToken) {
    protected_with(false, false).await
}

async fn protected_with(
    open_handshake: bool,
    short_lived: bool,
) -> (String, Arc<Counts>, CancellationToken) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let counts = Arc::new(Counts::default());
    let auth = Auth {
        base: base.clone(),
        counts: Arc::clone(&counts),
        open_handshake,
        short_lived,
    };
    let mut registry = ToolRegistry::new();
    registry
        .register(
            ToolBuilder::new("vault")
                .api(ApiDefinition::new("open", "Opens."), |_, _| async {
                    Ok(ToolOutput::text("opened"))
                })
                .build()
                .unwrap(),
        )
        .unwrap();
    let stop = CancellationToken::new();
    let mcp = crate::common::served(registry)
        .http_router(stop.clone())
        .layer(axum::middleware::from_fn_with_state(
            auth.clone(),
            bearer_only,
        ));
    let prm = {
        let base = base.clone();
        move || async move {
            Json(json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]}))
        }
    };
    let metadata = {
        let base = base.clone();
        move || async move {
            Json(json!({
                "issuer": base,
                "authorization_endpoint": format!("{base}/authorize"),
                "token_endpoint": format!("{base}/token"),
                "registration_endpoint": format!("{base}/register"),
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"],
            }))
        }
    };
    let register = |State(auth): State<Auth>, Json(body): Json<serde_json::Value>| async move {
        auth.counts.registrations.fetch_add(1, Ordering::SeqCst);
        (
            StatusCode::CREATED,
            Json(json!({"client_id": "client-1", "redirect_uris": body["redirect_uris"]})),
        )
    };
    let authorize = |Query(query): Query<HashMap<String, String>>| async move {
        assert_eq!(
            query.get("code_challenge_method").map(String::as_str),
            Some("S256")
        );
        assert!(query.contains_key("code_challenge"), "{query:?}");
        let mut back = url_with(&query["redirect_uri"], "code", "code-1");
        if let Some(state) = query.get("state") {
            back = url_with(&back, "state", state);
        }
        Redirect::to(&back)
    };
    let token = |State(auth): State<Auth>, body: String| async move {
        if body.contains("grant_type=refresh_token") {
            assert!(body.contains("refresh_token=refresh-1"), "{body}");
            auth.counts.refreshes.fetch_add(1, Ordering::SeqCst);
            return Json(
                json!({"access_token": REFRESHED, "token_type": "Bearer", "expires_in": 3600}),
            );
        }
        assert!(body.contains("code_verifier="), "{body}");
        auth.counts.tokens.fetch_add(1, Ordering::SeqCst);
        if auth.short_lived {
            return Json(json!({
                "access_token": TOKEN, "token_type": "Bearer", "expires_in": 1,
                "refresh_token": "refresh-1",
            }));
        }
        Json(json!({"access_token": TOKEN, "token_type": "Bearer", "expires_in": 3600}))
    };
    let app = Router::new()
        .route("/.well-known/oauth-protected-resource/mcp", get(prm))
        .route("/.well-known/oauth-authorization-server", get(metadata))
        .route("/register", post(register))
        .route("/authorize", get(authorize))
        .route("/token", post(token))
        .with_state(auth)
        .merge(mcp);
    let until = stop.clone();
    tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move { until.cancelled_owned().await })
            .await
            .unwrap();
    });
    (format!("{base}/mcp"), counts, stop)
}

fn url_with(url: &str, key: &str, value: &str) -> String {
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}{key}={value}")
}

/// A user who approves at once: follows the authorization URL's redirect.
#[derive(Default)]
struct Approving {
    asked: AtomicUsize,
    give_up: bool,
}

#[async_trait]
impl Authorizer for Approving {
    fn redirect_uri(&self) -> String {
        "http://127.0.0.1/callback".into()
    }

    async fn authorize(&self, _server: &str, url: &str) -> Result<String, String> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        if self.give_up {
            return Err("the user closed the window".into());
        }
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let answer = client.get(url).send().await.map_err(|e| e.to_string())?;
        Ok(answer.headers()[reqwest::header::LOCATION]
            .to_str()
            .unwrap()
            .to_owned())
    }
}

fn manager(url: &str, oauth: Option<OAuthOptions>) -> McpManager {
    let mut options = ManagerOptions::default();
    if let Some(oauth) = oauth {
        options = options.oauth(oauth);
    }
    let manager = McpManager::new(options);
    manager
        .upsert(McpServerConfig::new("vault", McpTransport::http(url)))
        .unwrap();
    manager
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_behind_oauth_is_authorized_once_and_its_token_kept() {
    let (url, counts, stop) = protected().await;
    let user = Arc::new(Approving::default());
    let store = Arc::new(InMemoryTokenStore::default());
    let oauth = OAuthOptions::new(user.clone())
        .token_store(store.clone())
        .client_name("oauth-test");
    let first = manager(&url, Some(oauth.clone()));
    let catalog = first.catalog("vault").await.unwrap();
    assert!(
        catalog.tool("vault____open").is_some(),
        "{:?}",
        catalog.tools
    );
    assert_eq!(user.asked.load(Ordering::SeqCst), 1);
    assert_eq!(counts.registrations.load(Ordering::SeqCst), 1);
    assert_eq!(counts.tokens.load(Ordering::SeqCst), 1);
    let stored = store.load("vault").await.unwrap().unwrap();
    assert_eq!(stored.client_id, "client-1");

    // A new session, and another manager on the same store: the stored token.
    first.disconnect("vault").await;
    let called = first
        .call_tool("vault", "vault____open", serde_json::Map::new())
        .await
        .unwrap();
    assert_eq!(called.is_error, Some(false));
    let second = manager(&url, Some(oauth));
    assert!(second.catalog("vault").await.is_ok());
    assert_eq!(user.asked.load(Ordering::SeqCst), 1, "not asked again");
    assert_eq!(counts.tokens.load(Ordering::SeqCst), 1);
    assert_eq!(
        counts.refused.load(Ordering::SeqCst),
        1,
        "only the first handshake was sent without a token"
    );
    first.shutdown().await;
    second.shutdown().await;
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_oauth_or_a_willing_user_the_server_is_unauthorized() {
    let (url, counts, stop) = protected().await;
    let error = manager(&url, None).catalog("vault").await.unwrap_err();
    assert!(
        matches!(&error, Error::Unauthorized { server, message }
            if server == "vault" && message.contains("401") && message.contains("no OAuth")),
        "{error:?}"
    );
    assert_eq!(error.code(), "mcp_unauthorized");

    let user = Arc::new(Approving {
        give_up: true,
        ..Approving::default()
    });
    let error = manager(&url, Some(OAuthOptions::new(user.clone())))
        .catalog("vault")
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("the user closed the window"),
        "{error}"
    );
    assert_eq!(user.asked.load(Ordering::SeqCst), 1);
    assert_eq!(counts.tokens.load(Ordering::SeqCst), 0);
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_asks_after_the_handshake_is_authorized_and_the_request_sent_again() {
    let (url, counts, stop) = protected_with(true, false).await;
    let user = Arc::new(Approving::default());
    let manager = manager(&url, Some(OAuthOptions::new(user.clone())));
    // The handshake goes through; tools/list gets the 401; the manager
    // authorizes, opens a session with the token and lists there.
    let catalog = manager.catalog("vault").await.unwrap();
    assert!(
        catalog.tool("vault____open").is_some(),
        "{:?}",
        catalog.tools
    );
    assert_eq!(user.asked.load(Ordering::SeqCst), 1);
    assert_eq!(counts.tokens.load(Ordering::SeqCst), 1);
    assert_eq!(
        counts.refused.load(Ordering::SeqCst),
        1,
        "only tools/list was refused"
    );
    let called = manager
        .call_tool("vault", "vault____open", serde_json::Map::new())
        .await
        .unwrap();
    assert_eq!(called.is_error, Some(false));
    manager.shutdown().await;
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_token_is_refreshed_without_asking_the_user() {
    let (url, counts, stop) = protected_with(false, true).await;
    let user = Arc::new(Approving::default());
    let store = Arc::new(InMemoryTokenStore::default());
    let manager = manager(
        &url,
        Some(OAuthOptions::new(user.clone()).token_store(store.clone())),
    );
    manager.catalog("vault").await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let called = manager
        .call_tool("vault", "vault____open", serde_json::Map::new())
        .await
        .unwrap();
    assert_eq!(called.is_error, Some(false));
    assert!(
        counts.refreshes.load(Ordering::SeqCst) >= 1,
        "the token was refreshed"
    );
    assert_eq!(
        user.asked.load(Ordering::SeqCst),
        1,
        "the user was asked once"
    );
    assert_eq!(counts.tokens.load(Ordering::SeqCst), 1);
    let stored = store.load("vault").await.unwrap().unwrap();
    let kept = serde_json::to_value(stored.token_response.unwrap()).unwrap();
    assert_eq!(
        kept["access_token"], REFRESHED,
        "the store has the new token"
    );
    manager.shutdown().await;
    stop.cancel();
}
