//! A host's [`HttpGuard`] applied to streamable HTTP sessions: the URL check
//! runs before anything is sent, the guard's client carries every request,
//! and refusals made inside the client (a name resolving to a refused
//! address, a redirect to one) come back as `Error::UrlRefused` naming the
//! configured URL. The guard here is a small test policy ("only these
//! addresses"); toolhost's tests run the same paths with tool-openapi's
//! `SsrfGuard`. Only 127.0.0.1 is ever connected to.

use std::error::Error as StdError;
use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio_util::sync::CancellationToken;
use tool_core::{ApiDefinition, ToolBuilder, ToolOutput, ToolRegistry};
use tool_mcp::{Error, HttpGuard, ManagerOptions, McpManager, McpServerConfig, McpTransport};

/// Refusal the test guard puts in an error chain.
#[derive(Debug)]
struct Refused(String);

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} is not on the allow list", self.0)
    }
}

impl StdError for Refused {}

/// Only the listed addresses are reachable.
struct AllowOnly {
    allowed: Arc<Vec<IpAddr>>,
    client: reqwest::Client,
}

struct Resolver(Arc<Vec<IpAddr>>);

impl reqwest::dns::Resolve for Resolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let allowed = Arc::clone(&self.0);
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let kept: Vec<SocketAddr> = addrs
                .iter()
                .copied()
                .filter(|a| allowed.contains(&a.ip()))
                .collect();
            if kept.is_empty() {
                let first = addrs.first().map_or(host.clone(), |a| a.ip().to_string());
                return Err(Box::new(Refused(format!("{host} ({first})")))
                    as Box<dyn StdError + Send + Sync>);
            }
            Ok(Box::new(kept.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

impl AllowOnly {
    fn new(allowed: &[&str]) -> Arc<Self> {
        let allowed: Arc<Vec<IpAddr>> =
            Arc::new(allowed.iter().map(|a| a.parse().unwrap()).collect());
        let for_redirects = Arc::clone(&allowed);
        let client = reqwest::Client::builder()
            .no_proxy()
            .dns_resolver(Arc::new(Resolver(Arc::clone(&allowed))))
            .redirect(reqwest::redirect::Policy::custom(
                move |attempt| match literal(attempt.url()) {
                    Some(ip) if !for_redirects.contains(&ip) => {
                        let refused = Refused(ip.to_string());
                        attempt.error(refused)
                    }
                    _ => attempt.follow(),
                },
            ))
            .build()
            .unwrap();
        Arc::new(Self { allowed, client })
    }
}

fn literal(url: &reqwest::Url) -> Option<IpAddr> {
    // The URL parser has already normalised literals (`0x7f.1` → `127.0.0.1`).
    url.host_str()?.trim_matches(['[', ']']).parse().ok()
}

impl HttpGuard for AllowOnly {
    fn client(&self) -> reqwest::Client {
        self.client.clone()
    }

    fn check_url(&self, url: &str) -> Result<(), String> {
        let parsed = reqwest::Url::parse(url).map_err(|e| e.to_string())?;
        match literal(&parsed) {
            Some(ip) if !self.allowed.contains(&ip) => Err(Refused(ip.to_string()).to_string()),
            _ => Ok(()),
        }
    }

    fn refusal(&self, error: &(dyn StdError + 'static)) -> Option<String> {
        let mut current = Some(error);
        while let Some(e) = current {
            if let Some(refused) = e.downcast_ref::<Refused>() {
                return Some(refused.to_string());
            }
            current = e.source();
        }
        None
    }
}

/// A real MCP server on 127.0.0.1 that counts the HTTP requests it gets.
async fn counted_server(stop: CancellationToken) -> (String, Arc<AtomicUsize>) {
    let mut registry = ToolRegistry::new();
    registry
        .register(
            ToolBuilder::new("clock")
                .api(ApiDefinition::new("now", "The time."), |_, _| async {
                    Ok(ToolOutput::text("noon"))
                })
                .build()
                .unwrap(),
        )
        .unwrap();
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&hits);
    let router = crate::common::served(registry)
        .http_router(stop.clone())
        .layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| {
                counter.fetch_add(1, Ordering::SeqCst);
                next.run(request)
            },
        ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(async move { stop.cancelled_owned().await })
            .await;
    });
    (format!("http://{addr}/mcp"), hits)
}

async fn redirector(target: String, stop: CancellationToken) -> String {
    let app = axum::Router::new().fallback(move || {
        let target = target.clone();
        async move {
            (
                axum::http::StatusCode::TEMPORARY_REDIRECT,
                [(axum::http::header::LOCATION, target)],
            )
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app)
            .with_graceful_shutdown(async move { stop.cancelled_owned().await })
            .await;
    });
    format!("http://{addr}/mcp")
}

fn guarded(guard: Arc<AllowOnly>, url: &str) -> McpManager {
    let manager = McpManager::new(ManagerOptions::default().http_guard(guard));
    manager
        .upsert(McpServerConfig::new("remote", McpTransport::http(url)))
        .unwrap();
    manager
}

fn expect_refused(error: Error, url: &str, naming: &str) {
    assert_eq!(error.code(), "mcp_url_refused", "{error}");
    assert!(error.is_refused() && !error.is_unavailable(), "{error}");
    let Error::UrlRefused {
        server,
        url: refused_url,
        reason,
    } = &error
    else {
        panic!("{error:?}")
    };
    assert_eq!(server, "remote");
    assert_eq!(refused_url, url);
    assert!(reason.contains(naming), "{reason}");
    assert!(error.to_string().contains(url), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_literal_is_never_contacted_and_an_allowed_one_works() {
    let stop = CancellationToken::new();
    let (url, hits) = counted_server(stop.clone()).await;

    let refused = guarded(AllowOnly::new(&["10.9.9.9"]), &url);
    expect_refused(
        refused.catalog("remote").await.unwrap_err(),
        &url,
        "127.0.0.1",
    );
    expect_refused(
        refused
            .call_tool("remote", "clock____now", Default::default())
            .await
            .unwrap_err(),
        &url,
        "127.0.0.1",
    );
    assert_eq!(hits.load(Ordering::SeqCst), 0, "nothing was sent");

    let allowed = guarded(AllowOnly::new(&["127.0.0.1"]), &url);
    let catalog = allowed.catalog("remote").await.unwrap();
    assert_eq!(catalog.tools[0].name, "clock____now");
    assert!(hits.load(Ordering::SeqCst) > 0);
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_resolving_to_a_refused_address_is_refused_inside_the_client() {
    let stop = CancellationToken::new();
    let (url, hits) = counted_server(stop.clone()).await;
    let by_name = url.replace("127.0.0.1", "localhost");
    let manager = guarded(AllowOnly::new(&["10.9.9.9"]), &by_name);
    let error = manager.catalog("remote").await.unwrap_err();
    expect_refused(error, &by_name, "localhost");
    assert_eq!(hits.load(Ordering::SeqCst), 0);
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_to_a_refused_address_is_refused() {
    let stop = CancellationToken::new();
    let (target, hits) = counted_server(stop.clone()).await;
    // The redirect goes to a real server on loopback, which the guard refuses.
    let hop = redirector(target.replace("127.0.0.1", "127.0.0.2"), stop.clone()).await;
    let manager = guarded(AllowOnly::new(&["127.0.0.1"]), &hop);
    expect_refused(
        manager.catalog("remote").await.unwrap_err(),
        &hop,
        "127.0.0.2",
    );
    let to_metadata = redirector("http://169.254.169.254/mcp".into(), stop.clone()).await;
    let manager = guarded(AllowOnly::new(&["127.0.0.1"]), &to_metadata);
    expect_refused(
        manager.catalog("remote").await.unwrap_err(),
        &to_metadata,
        "169.254.169.254",
    );
    assert_eq!(hits.load(Ordering::SeqCst), 0);
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_guard_redirects_are_not_followed() {
    let stop = CancellationToken::new();
    let (target, hits) = counted_server(stop.clone()).await;
    let hop = redirector(target, stop.clone()).await;
    let manager = McpManager::default();
    manager
        .upsert(McpServerConfig::new("remote", McpTransport::http(&hop)))
        .unwrap();
    let error = manager.catalog("remote").await.unwrap_err();
    assert!(error.is_unavailable(), "{error}");
    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "the redirect was not followed"
    );
    stop.cancel();
}
