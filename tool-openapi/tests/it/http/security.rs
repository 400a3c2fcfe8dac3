//! Credentials applied as the document says, checked by a server that
//! refuses anything else: API keys in a header, the query and a cookie,
//! HTTP basic and bearer, OAuth2 client credentials (token fetched through
//! the SSRF guard, cached, refreshed), OpenID Connect tokens, alternatives
//! and `security: []`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use tool_core::{Invoker, ToolCall, ToolContext, ToolOutput, ToolRegistry, manifest::NameRules};
use tool_openapi::{
    Credentials, ImportOptions, OpenApiTool, SsrfGuard, SsrfPolicy, import_openapi,
};

const HEADER_KEY: &str = "hk-1f2e";
const QUERY_KEY: &str = "qk-9a8b";
const COOKIE_KEY: &str = "ck-7c6d";
const BEARER: &str = "bearer-5e4f";
const OIDC: &str = "oidc-3a2b";
const CLIENT_ID: &str = "client-1";
const CLIENT_SECRET: &str = "cc-s3cret:with/odd chars";

#[derive(Clone, Default)]
struct Counts {
    tokens: Arc<AtomicUsize>,
    api: Arc<AtomicUsize>,
}

/// `Basic base64(form(id):form(secret))`, as RFC 6749 § 2.3.1 writes it.
fn client_basic() -> String {
    let form = |t: &str| url::form_urlencoded::byte_serialize(t.as_bytes()).collect::<String>();
    format!(
        "Basic {}",
        base64(format!("{}:{}", form(CLIENT_ID), form(CLIENT_SECRET)).as_bytes())
    )
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                char::from(A[((n >> (18 - 6 * i)) & 63) as usize])
            } else {
                '='
            });
        }
    }
    out
}

/// The token endpoint: client authenticated by basic auth, the grant in
/// the form; each token numbered, living `lifetime` seconds.
async fn token(
    State((counts, lifetime)): State<(Counts, u64)>,
    headers: HeaderMap,
    body: String,
) -> Response {
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if auth != client_basic() || !body.starts_with("grant_type=client_credentials") {
        return (
            StatusCode::UNAUTHORIZED,
            axum::Json(json!({"error": "invalid_client"})),
        )
            .into_response();
    }
    let n = counts.tokens.fetch_add(1, Ordering::SeqCst) + 1;
    axum::Json(
        json!({"access_token": format!("at-{n}"), "token_type": "Bearer",
        "expires_in": lifetime, "scope": body}),
    )
    .into_response()
}

/// 200 when the request carries the credential `kind` needs (and no
/// other), 401 otherwise; the body says what was seen.
async fn check(
    State(counts): State<Counts>,
    Path(kind): Path<String>,
    request: Request,
) -> Response {
    counts.api.fetch_add(1, Ordering::SeqCst);
    let headers = request.headers();
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned()
    };
    let query = request.uri().query().unwrap_or("").to_owned();
    let seen = json!({"authorization": header("authorization"), "x-api-key": header("x-api-key"),
        "cookie": header("cookie"), "query": query});
    let bearer = |token: &str| header("authorization") == format!("Bearer {token}");
    let ok = match kind.as_str() {
        "apikey-header" => header("x-api-key") == HEADER_KEY,
        "apikey-query" => query == format!("api_key={QUERY_KEY}"),
        "apikey-cookie" => header("cookie") == format!("session={COOKIE_KEY}"),
        "basic" => header("authorization") == format!("Basic {}", base64(b"ann:pa:ss word")),
        "bearer" => bearer(BEARER),
        "oidc" => bearer(OIDC),
        "oauth" | "oauth-short" => header("authorization").starts_with("Bearer at-"),
        "open" => seen == json!({"authorization": "", "x-api-key": "", "cookie": "", "query": ""}),
        _ => false,
    };
    // Only the credential asked for: nothing else rides along.
    let extra = match kind.as_str() {
        "bearer" | "oauth" | "oauth-short" | "oidc" | "basic" => {
            !header("x-api-key").is_empty() || !query.is_empty()
        }
        _ => false,
    };
    let status = if ok && !extra {
        StatusCode::OK
    } else {
        StatusCode::UNAUTHORIZED
    };
    (status, axum::Json(json!({"kind": kind, "seen": seen}))).into_response()
}

async fn start(counts: Counts) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = Router::new()
        .route("/token", post(token).with_state((counts.clone(), 3600)))
        .route("/token-short", post(token).with_state((counts.clone(), 0)))
        .route("/check/{kind}", get(check).with_state(counts));
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    addr
}

fn document(addr: SocketAddr) -> String {
    let op = |id: &str, security: Value| json!({"get": {"operationId": id, "security": security, "responses": {"200": {"description": "ok"}}}});
    json!({
        "openapi": "3.0.3",
        "info": {"title": "Secured", "version": "1"},
        "servers": [{"url": format!("http://{addr}")}],
        "security": [{"headerKey": []}],
        "components": {"securitySchemes": {
            "headerKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
            "queryKey": {"type": "apiKey", "in": "query", "name": "api_key"},
            "cookieKey": {"type": "apiKey", "in": "cookie", "name": "session"},
            "basicAuth": {"type": "http", "scheme": "basic"},
            "bearerAuth": {"type": "http", "scheme": "bearer"},
            "cc": {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "/token", "scopes": {"read": "r"}}}},
            "ccShort": {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": format!("http://{addr}/token-short"), "scopes": {}}}},
            "ccPrivate": {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "http://10.0.0.1/token", "scopes": {}}}},
            "ccMetadata": {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "http://169.254.169.254/latest/token", "scopes": {}}}},
            "oidc": {"type": "openIdConnect", "openIdConnectUrl": format!("http://{addr}/.well-known/openid-configuration")}
        }},
        "paths": {
            "/check/apikey-header": {"get": {"operationId": "headerKey", "responses": {"200": {"description": "ok"}}}},
            "/check/apikey-query": op("queryKey", json!([{"queryKey": []}])),
            "/check/apikey-cookie": op("cookieKey", json!([{"cookieKey": []}])),
            "/check/basic": op("basic", json!([{"basicAuth": []}])),
            "/check/bearer": op("bearer", json!([{"queryKey": [], "notGiven": []}, {"bearerAuth": []}])),
            "/check/oauth": op("oauth", json!([{"cc": ["read"]}])),
            "/check/oauth-short": op("oauthShort", json!([{"ccShort": []}])),
            "/check/oauth-private": op("oauthPrivate", json!([{"ccPrivate": []}])),
            "/check/oauth-metadata": op("oauthMetadata", json!([{"ccMetadata": []}])),
            "/check/oidc": op("oidc", json!([{"oidc": ["openid"]}])),
            "/check/open": op("open", json!([]))
        }
    })
    .to_string()
}

fn credentials() -> Credentials {
    let mut credentials = Credentials::new()
        .token("headerKey", HEADER_KEY)
        .token("queryKey", QUERY_KEY)
        .token("cookieKey", COOKIE_KEY)
        .basic("basicAuth", "ann", "pa:ss word")
        .token("bearerAuth", BEARER)
        .token("oidc", OIDC);
    for scheme in ["cc", "ccShort", "ccPrivate", "ccMetadata"] {
        credentials = credentials.client_credentials(scheme, CLIENT_ID, CLIENT_SECRET);
    }
    credentials
}

async fn setup() -> (Counts, ToolRegistry) {
    let counts = Counts::default();
    let addr = start(counts.clone()).await;
    let import = import_openapi(&document(addr), &ImportOptions::new()).unwrap();
    assert!(import.failures.is_empty(), "{:?}", import.failures);
    // 127.0.0.1 is allowed (the test server); 10.0.0.1 and the metadata
    // address stay refused.
    let tool = OpenApiTool::builder(import.document, "secured")
        .guard(SsrfGuard::new(
            SsrfPolicy::default().allow("127.0.0.1").unwrap(),
        ))
        .credentials(credentials())
        .build()
        .unwrap();
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    registry.register(tool).unwrap();
    (counts, registry)
}

async fn call(registry: &ToolRegistry, api: &str) -> ToolOutput {
    Invoker::default()
        .invoke_in(
            registry,
            &ToolCall::new(format!("secured____{api}"), "{}"),
            &ToolContext::new(),
        )
        .await
}

fn no_secret_in(out: &ToolOutput) {
    let text = serde_json::to_string(out).unwrap();
    for secret in [
        HEADER_KEY,
        QUERY_KEY,
        COOKIE_KEY,
        BEARER,
        OIDC,
        "pa:ss word",
        "cc-s3cret",
        "at-1",
        "at-2",
    ] {
        assert!(!text.contains(secret), "`{secret}` leaked: {text}");
    }
}

#[tokio::test]
async fn each_scheme_kind_is_sent_where_the_document_says_and_only_there() {
    let (_, registry) = setup().await;
    for api in [
        "headerKey",
        "queryKey",
        "cookieKey",
        "basic",
        "bearer",
        "oauth",
        "oidc",
        "open",
    ] {
        let out = call(&registry, api).await;
        assert!(out.success, "{api}: {out:?}");
        no_secret_in(&out);
    }
}

#[tokio::test]
async fn client_credentials_tokens_are_cached_until_expiry_then_asked_again() {
    let (counts, registry) = setup().await;
    for _ in 0..3 {
        assert!(call(&registry, "oauth").await.success);
    }
    assert_eq!(
        counts.tokens.load(Ordering::SeqCst),
        1,
        "one token for three calls"
    );
    // A token living 0 s is expired at once: each call asks again.
    for _ in 0..2 {
        let out = call(&registry, "oauthShort").await;
        assert!(out.success, "{out:?}");
    }
    assert_eq!(counts.tokens.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_token_url_on_a_private_address_is_refused_and_nothing_is_sent() {
    let (counts, registry) = setup().await;
    for api in ["oauthPrivate", "oauthMetadata"] {
        let out = call(&registry, api).await;
        assert_eq!(out.error_code().unwrap(), "ssrf_blocked", "{api}: {out:?}");
        assert!(out.content.contains("token URL"), "{}", out.content);
        no_secret_in(&out);
    }
    assert_eq!(
        counts.api.load(Ordering::SeqCst),
        0,
        "the API was never called"
    );
    assert_eq!(counts.tokens.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_refused_client_is_a_typed_failure_naming_the_scheme_not_the_secret() {
    let counts = Counts::default();
    let addr = start(counts.clone()).await;
    let import = import_openapi(&document(addr), &ImportOptions::new()).unwrap();
    let tool = OpenApiTool::builder(import.document, "secured")
        .guard(SsrfGuard::new(
            SsrfPolicy::default().allow("127.0.0.1").unwrap(),
        ))
        .credentials(Credentials::new().client_credentials("cc", CLIENT_ID, "wrong-secret-77"))
        .build()
        .unwrap();
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    registry.register(tool).unwrap();
    let out = call(&registry, "oauth").await;
    assert_eq!(out.error_code().unwrap(), "token_request_failed", "{out:?}");
    assert!(
        out.content.contains("`cc`") && out.content.contains("invalid_client"),
        "{}",
        out.content
    );
    assert!(
        !serde_json::to_string(&out)
            .unwrap()
            .contains("wrong-secret-77")
    );
    assert_eq!(counts.api.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn credentials_stay_out_of_the_schema_the_model_sees() {
    let (_, registry) = setup().await;
    let manifest = serde_json::to_string(registry.get("secured").unwrap().manifest()).unwrap();
    for secret in [
        HEADER_KEY,
        QUERY_KEY,
        COOKIE_KEY,
        BEARER,
        OIDC,
        CLIENT_ID,
        "cc-s3cret",
    ] {
        assert!(!manifest.contains(secret), "{secret}");
    }
    assert!(
        !manifest.contains("api_key"),
        "the key's query name is no argument"
    );
}
