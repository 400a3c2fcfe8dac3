//! `--mcp-oauth browser|follow`: how toolhost takes the user through an
//! MCP server's OAuth authorization (tool-mcp's [`Authorizer`]).
//!
//! - `browser`: prints `{"authorize": {"server", "url"}}` on stderr for
//!   the user to open, and waits (up to five minutes) for the browser's
//!   redirect on a callback listener at `http://127.0.0.1:PORT/callback`.
//! - `follow`: requests the authorization URL itself (through the host's
//!   SSRF guard, no redirect followed) and takes the redirect it answers
//!   with: for authorization servers that grant without a person (test
//!   servers, the conformance suite's).

use std::time::Duration;

use async_trait::async_trait;
use clap::ValueEnum;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tool_mcp::Authorizer;

/// How the user authorizes toolhost at an MCP server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OAuthMode {
    /// Print the authorization URL and wait for the browser on 127.0.0.1.
    Browser,
    /// Request the authorization URL and take its redirect (no person).
    Follow,
    /// No user: toolhost authenticates itself with the client credentials
    /// grant, as `--mcp-oauth-client-id` with the secret from
    /// TOOLHOST_MCP_OAUTH_CLIENT_SECRET, or with a JWT signed by the
    /// PKCS#8 PEM ES256 key in TOOLHOST_MCP_OAUTH_CLIENT_KEY.
    ClientCredentials,
}

/// The longest wait for the browser.
const BROWSER_WAIT: Duration = Duration::from_secs(300);
/// The most of the callback request read.
const MAX_REQUEST_BYTES: usize = 16 * 1024;

/// Waits for the browser's redirect on a listener of its own.
pub struct BrowserAuthorizer {
    listener: std::net::TcpListener,
    port: u16,
    /// One authorization at a time on the listener.
    turn: tokio::sync::Mutex<()>,
}

impl BrowserAuthorizer {
    /// Binds the callback listener on 127.0.0.1 (a free port).
    pub fn bind() -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        Ok(Self {
            listener,
            port,
            turn: tokio::sync::Mutex::new(()),
        })
    }
}

#[async_trait]
impl Authorizer for BrowserAuthorizer {
    fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}/callback", self.port)
    }

    async fn authorize(&self, server: &str, url: &str) -> Result<String, String> {
        crate::report(&serde_json::json!({"authorize": {"server": server, "url": url}}));
        let _turn = self.turn.lock().await;
        let listener = self
            .listener
            .try_clone()
            .and_then(tokio::net::TcpListener::from_std)
            .map_err(|e| format!("callback listener: {e}"))?;
        let wait = async {
            loop {
                let (mut stream, _) = listener
                    .accept()
                    .await
                    .map_err(|e| format!("callback listener: {e}"))?;
                let mut request = Vec::new();
                let mut buf = [0u8; 2048];
                while !request.windows(4).any(|w| w == b"\r\n\r\n")
                    && request.len() < MAX_REQUEST_BYTES
                {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                let text = String::from_utf8_lossy(&request);
                let target = text
                    .lines()
                    .next()
                    .and_then(|line| line.strip_prefix("GET "))
                    .and_then(|rest| rest.split(' ').next())
                    .filter(|target| target.starts_with("/callback?"));
                let Some(target) = target else {
                    let _ = stream
                        .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")
                        .await;
                    continue;
                };
                let body = "Authorized; you can close this window.";
                let _ = stream
                    .write_all(
                        format!(
                            "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\n\r\n{body}",
                            body.len()
                        )
                        .as_bytes(),
                    )
                    .await;
                return Ok(format!("http://127.0.0.1:{}{target}", self.port));
            }
        };
        tokio::time::timeout(BROWSER_WAIT, wait)
            .await
            .map_err(|_| format!("no redirect from the browser within {BROWSER_WAIT:?}"))?
    }
}

/// Requests the authorization URL and takes its redirect.
pub struct FollowAuthorizer {
    client: reqwest::Client,
}

impl FollowAuthorizer {
    /// Requests go through `guard`'s client, following no redirect.
    pub fn new(guard: &tool_core::net::SsrfGuard) -> Result<Self, String> {
        let client = guard
            .client_builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("the HTTP client for OAuth: {e}"))?;
        Ok(Self { client })
    }
}

/// Where a `follow` authorization is sent back (never connected to).
const FOLLOW_REDIRECT: &str = "http://127.0.0.1/callback";

#[async_trait]
impl Authorizer for FollowAuthorizer {
    fn redirect_uri(&self) -> String {
        FOLLOW_REDIRECT.into()
    }

    async fn authorize(&self, _server: &str, url: &str) -> Result<String, String> {
        let answer = self
            .client
            .get(url)
            .send()
            .await
            .map_err(|e| format!("requesting the authorization URL: {e}"))?;
        let status = answer.status();
        let location = answer
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| format!("the authorization URL answered {status} with no redirect"))?;
        if !location.starts_with(&format!("{FOLLOW_REDIRECT}?")) {
            return Err(format!(
                "the authorization URL redirected elsewhere than the redirect URI: {location}"
            ));
        }
        Ok(location.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn get(url: &str) -> (u16, String) {
        let answer = reqwest::get(url).await.unwrap();
        (answer.status().as_u16(), answer.text().await.unwrap())
    }

    #[tokio::test]
    async fn the_browser_redirect_is_taken_on_the_callback_listener() {
        let authorizer = std::sync::Arc::new(BrowserAuthorizer::bind().unwrap());
        let redirect = authorizer.redirect_uri();
        assert!(redirect.starts_with("http://127.0.0.1:") && redirect.ends_with("/callback"));
        let waiting = tokio::spawn({
            let authorizer = std::sync::Arc::clone(&authorizer);
            async move {
                authorizer
                    .authorize("mcp1", "https://auth.example/authorize?x=1")
                    .await
            }
        });
        // Another path is not the callback: 404, and the wait goes on.
        let base = redirect.trim_end_matches("/callback").to_owned();
        assert_eq!(get(&format!("{base}/favicon.ico")).await.0, 404);
        let (status, body) = get(&format!("{redirect}?code=c-1&state=s-1")).await;
        assert_eq!(status, 200);
        assert!(body.contains("close this window"), "{body}");
        let callback = waiting.await.unwrap().unwrap();
        assert_eq!(callback, format!("{redirect}?code=c-1&state=s-1"));
    }

    #[tokio::test]
    async fn follow_refuses_a_redirect_elsewhere() {
        let guard = tool_core::net::SsrfGuard::new(
            tool_core::net::SsrfPolicy::default()
                .allow("127.0.0.1")
                .unwrap(),
        );
        let authorizer = FollowAuthorizer::new(&guard).unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut buf = [0u8; 1024];
            let _ = stream.read(&mut buf).await;
            let _ = stream
                .write_all(
                    b"HTTP/1.1 302 Found\r\nlocation: https://evil.example/?code=x\r\ncontent-length: 0\r\n\r\n",
                )
                .await;
        });
        let error = authorizer
            .authorize("mcp1", &format!("http://{addr}/authorize"))
            .await
            .unwrap_err();
        assert!(error.contains("redirected elsewhere"), "{error}");
    }
}
