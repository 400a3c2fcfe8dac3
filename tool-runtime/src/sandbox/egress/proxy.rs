//! The egress proxy of one command: HTTP/1 with `CONNECT` tunnels, served
//! on the listener the command's namespace handed out, every request
//! checked by [`Rules`] and every refusal recorded in a [`Log`].

use std::convert::Infallible;
use std::net::SocketAddr;
use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full, combinators::BoxBody};
use hyper::body::Incoming;
use hyper::header::{HOST, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::AsyncWriteExt as _;
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

use super::Log;
use super::intercept::Authority;
use super::rules::Rules;
use super::sni;
use tokio_rustls::rustls::pki_types::ServerName;
use tokio_rustls::{TlsAcceptor, TlsConnector};

/// How long a connection to an upstream may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections from one command served at once; more wait in the
/// listener's backlog.
const MAX_CONNECTIONS: usize = 256;
/// Headers that belong to one hop, never forwarded.
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "proxy-connection",
    "keep-alive",
    "proxy-authorization",
    "proxy-authenticate",
    "te",
    "trailer",
    "upgrade",
];

type Body = BoxBody<Bytes, hyper::Error>;

/// A running proxy; stopped (every connection and tunnel with it) when
/// dropped.
#[derive(Debug)]
pub(crate) struct Proxy {
    stop: CancellationToken,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl Proxy {
    /// Starts the proxy on the runtime `handle`: it waits for the
    /// command's listener on `channel`, then serves it under `rules`.
    pub(crate) fn start(
        handle: &tokio::runtime::Handle,
        channel: OwnedFd,
        rules: Rules,
        log: Arc<Log>,
    ) -> Self {
        let stop = CancellationToken::new();
        let token = stop.clone();
        let rules = Arc::new(rules);
        handle.spawn(async move {
            tokio::select! {
                () = token.cancelled() => {}
                () = serve(channel, rules, log, token.clone()) => {}
            }
        });
        Self { stop }
    }
}

/// Receives the listener and accepts connections until stopped.
async fn serve(channel: OwnedFd, rules: Arc<Rules>, log: Arc<Log>, stop: CancellationToken) {
    let Ok(Ok(Some(fd))) =
        tokio::task::spawn_blocking(move || crate::sandbox::syscalls::receive_listener(&channel))
            .await
    else {
        return;
    };
    let listener = std::net::TcpListener::from(fd);
    if listener.set_nonblocking(true).is_err() {
        return;
    }
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    loop {
        let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
            return;
        };
        let Ok((stream, _)) = listener.accept().await else {
            return;
        };
        let rules = Arc::clone(&rules);
        let log = Arc::clone(&log);
        let stop = stop.clone();
        tokio::spawn(async move {
            let service_stop = stop.clone();
            let service = hyper::service::service_fn(move |req| {
                handle(
                    req,
                    Arc::clone(&rules),
                    Arc::clone(&log),
                    service_stop.clone(),
                )
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .preserve_header_case(true)
                .title_case_headers(true)
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades();
            tokio::select! {
                () = stop.cancelled() => {}
                _ = connection => {}
            }
            drop(slot);
        });
    }
}

/// A plain-text response.
fn text(status: StatusCode, body: String) -> Response<Body> {
    let mut response = Response::new(
        Full::new(Bytes::from(body))
            .map_err(|never| match never {})
            .boxed(),
    );
    *response.status_mut() = status;
    response
}

/// An empty `200`.
fn empty() -> Response<Body> {
    Response::new(
        Full::new(Bytes::new())
            .map_err(|never| match never {})
            .boxed(),
    )
}

/// One request from the command.
async fn handle(
    req: Request<Incoming>,
    rules: Arc<Rules>,
    log: Arc<Log>,
    stop: CancellationToken,
) -> Result<Response<Body>, Infallible> {
    let method = req.method().as_str().to_owned();
    let (host, port) = match target(&req) {
        Ok(target) => target,
        Err(message) => return Ok(text(StatusCode::BAD_REQUEST, format!("{message}\n"))),
    };
    let blocked = |reason: String| {
        log.record(&host, port, &reason);
        let mut response = text(
            StatusCode::FORBIDDEN,
            format!("the sandbox's egress proxy refused {host}:{port}: {reason}\n"),
        );
        response
            .headers_mut()
            .insert("x-sandbox-egress", HeaderValue::from_static("blocked"));
        response
    };
    if let Err(reason) = rules.check_name(&host, &method) {
        return Ok(blocked(reason));
    }
    let addresses = match rules.resolve(&host, port).await {
        Ok(addresses) => addresses,
        Err(reason) => return Ok(blocked(reason)),
    };
    let upstream = match connect(&addresses).await {
        Ok(stream) => stream,
        Err(e) => {
            return Ok(text(
                StatusCode::BAD_GATEWAY,
                format!("cannot connect to {host}:{port}: {e}\n"),
            ));
        }
    };
    if req.method() == Method::CONNECT {
        if let Some(authority) = rules.intercepts(&host) {
            // A secret is bound to this host: TLS ends here (the command
            // trusts this command's CA), real TLS goes on upstream.
            return Ok(intercept(req, host, upstream, authority, rules, stop).await);
        }
        tokio::spawn(async move {
            let tunnel = async move {
                if let Ok(upgraded) = hyper::upgrade::on(req).await {
                    let mut client = TokioIo::new(upgraded);
                    // The site inside is chosen by the TLS server name, not
                    // by the CONNECT: it must be the name just checked.
                    let hello = match sni::check(&mut client, &host).await {
                        Ok(hello) => hello,
                        Err(reason) => {
                            log.record(&host, port, &reason);
                            return;
                        }
                    };
                    let mut upstream = upstream;
                    if upstream.write_all(&hello).await.is_ok() {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
                    }
                }
            };
            tokio::select! {
                () = stop.cancelled() => {}
                () = tunnel => {}
            }
        });
        return Ok(empty());
    }
    Ok(forward(req, &host, port, upstream, &rules, stop).await)
}

/// The host and port a request is for: a `CONNECT`'s authority, or an
/// absolute `http://` URL's.
fn target(req: &Request<Incoming>) -> Result<(String, u16), String> {
    let uri = req.uri();
    if req.method() == Method::CONNECT {
        let authority = uri
            .authority()
            .ok_or_else(|| "CONNECT needs host:port".to_owned())?;
        let port = authority
            .port_u16()
            .ok_or_else(|| "CONNECT needs host:port".to_owned())?;
        return Ok((authority.host().to_ascii_lowercase(), port));
    }
    match uri.scheme_str() {
        Some("http") => {}
        Some(other) => return Err(format!("the proxy forwards http:// URLs, not {other}://")),
        None => {
            return Err(
                "the proxy takes absolute URLs (http://host/…) or CONNECT host:port".to_owned(),
            );
        }
    }
    let host = uri
        .host()
        .ok_or_else(|| "the URL has no host".to_owned())?
        .to_ascii_lowercase();
    Ok((host, uri.port_u16().unwrap_or(80)))
}

/// A connection to the first of `addresses` that answers.
async fn connect(addresses: &[SocketAddr]) -> std::io::Result<TcpStream> {
    let mut last = std::io::Error::other("no address");
    for address in addresses {
        match tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(address)).await {
            Ok(Ok(stream)) => return Ok(stream),
            Ok(Err(e)) => last = e,
            Err(_) => last = std::io::Error::new(std::io::ErrorKind::TimedOut, "timed out"),
        }
    }
    Err(last)
}

/// Readies a request for its upstream: origin form, no hop-by-hop
/// headers, `Host` set to the name the proxy checked and connected to
/// (`host`, `port`), the bound secrets' real values put back in the
/// request target and the header values.
fn rewrite(
    parts: &mut hyper::http::request::Parts,
    host: &str,
    port: u16,
    rules: &Rules,
) -> Result<(), String> {
    // The name checked and connected to, whatever `Host` the client
    // wrote: no fronting to another site behind the same address (with a
    // secret bound to this name, that would hand it to the other site).
    let default_port = if parts.uri.scheme_str() == Some("http") {
        80
    } else {
        443
    };
    let authority = if port == default_port {
        host.to_owned()
    } else {
        format!("{host}:{port}")
    };
    let target = parts
        .uri
        .path_and_query()
        .map_or("/".to_owned(), |p| p.as_str().to_owned());
    let target = rules.broker.substitute(host, &target).unwrap_or(target);
    parts.uri = target
        .parse()
        .map_err(|e| format!("bad request target: {e}"))?;
    for name in HOP_BY_HOP {
        parts.headers.remove(name);
    }
    for value in parts.headers.values_mut() {
        if let Some(real) = value
            .to_str()
            .ok()
            .and_then(|v| rules.broker.substitute(host, v))
            .and_then(|v| HeaderValue::from_str(&v).ok())
        {
            *value = real;
        }
    }
    let value = HeaderValue::from_str(&authority).map_err(|e| format!("bad host: {e}"))?;
    parts.headers.insert(HOST, value);
    Ok(())
}

/// Sends a readied request and returns the response without hop-by-hop
/// headers.
async fn send(
    sender: &mut hyper::client::conn::http1::SendRequest<Incoming>,
    request: Request<Incoming>,
) -> Response<Body> {
    match sender.send_request(request).await {
        Ok(response) => {
            let (mut parts, body) = response.into_parts();
            for name in HOP_BY_HOP {
                parts.headers.remove(name);
            }
            Response::from_parts(parts, body.boxed())
        }
        Err(e) => text(StatusCode::BAD_GATEWAY, format!("upstream: {e}\n")),
    }
}

/// Runs an upstream connection's driver until it ends or the proxy stops.
fn drive<F: std::future::Future + Send + 'static>(connection: F, stop: CancellationToken) {
    tokio::spawn(async move {
        tokio::select! {
            () = stop.cancelled() => {}
            _ = connection => {}
        }
    });
}

/// Forwards a plain HTTP request over `upstream`.
async fn forward(
    req: Request<Incoming>,
    host: &str,
    port: u16,
    upstream: TcpStream,
    rules: &Rules,
    stop: CancellationToken,
) -> Response<Body> {
    let (mut parts, body) = req.into_parts();
    if let Err(message) = rewrite(&mut parts, host, port, rules) {
        return text(StatusCode::BAD_REQUEST, format!("{message}\n"));
    }
    let (mut sender, connection) =
        match hyper::client::conn::http1::handshake(TokioIo::new(upstream)).await {
            Ok(pair) => pair,
            Err(e) => return text(StatusCode::BAD_GATEWAY, format!("upstream: {e}\n")),
        };
    drive(connection, stop);
    send(&mut sender, Request::from_parts(parts, body)).await
}

/// A `CONNECT` to a host a secret is bound to: TLS to the upstream first
/// (verified; a failure answers `502`), then `200`, then the command's
/// TLS ended with a certificate of this command's CA and each request
/// inside rewritten as a plain one is.
async fn intercept(
    req: Request<Incoming>,
    host: String,
    upstream: TcpStream,
    authority: Arc<Authority>,
    rules: Arc<Rules>,
    stop: CancellationToken,
) -> Response<Body> {
    let port = req
        .uri()
        .authority()
        .and_then(|a| a.port_u16())
        .unwrap_or(443);
    let failed = |what: &str, e: &dyn std::fmt::Display| {
        text(
            StatusCode::BAD_GATEWAY,
            format!("{what} {host}:{port}: {e}\n"),
        )
    };
    let server = match authority.server_config(&host) {
        Ok(config) => config,
        Err(e) => return failed("cannot present", &e),
    };
    let name = match ServerName::try_from(host.clone()) {
        Ok(name) => name,
        Err(e) => return failed("not a TLS name:", &e),
    };
    let tls = match TlsConnector::from(authority.upstream())
        .connect(name, upstream)
        .await
    {
        Ok(tls) => tls,
        Err(e) => return failed("TLS to", &e),
    };
    let (sender, connection) = match hyper::client::conn::http1::handshake(TokioIo::new(tls)).await
    {
        Ok(pair) => pair,
        Err(e) => return failed("HTTP to", &e),
    };
    drive(connection, stop.clone());
    let session_stop = stop.clone();
    tokio::spawn(async move {
        let session = async move {
            let Ok(upgraded) = hyper::upgrade::on(req).await else {
                return;
            };
            let Ok(client) = TlsAcceptor::from(server)
                .accept(TokioIo::new(upgraded))
                .await
            else {
                return;
            };
            let sender = Arc::new(tokio::sync::Mutex::new(sender));
            let service = hyper::service::service_fn(move |inner: Request<Incoming>| {
                let sender = Arc::clone(&sender);
                let rules = Arc::clone(&rules);
                let host = host.clone();
                async move {
                    let (mut parts, body) = inner.into_parts();
                    if let Err(message) = rewrite(&mut parts, &host, port, &rules) {
                        return Ok::<_, Infallible>(text(
                            StatusCode::BAD_REQUEST,
                            format!("{message}\n"),
                        ));
                    }
                    let mut sender = sender.lock().await;
                    Ok(send(&mut sender, Request::from_parts(parts, body)).await)
                }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(client), service)
                .await;
        };
        tokio::select! {
            () = session_stop.cancelled() => {}
            () = session => {}
        }
    });
    empty()
}
