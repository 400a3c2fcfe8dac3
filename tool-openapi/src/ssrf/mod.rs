//! The SSRF guard: a `reqwest::Client` that only reaches public unicast
//! addresses, unless a host allows more.
//!
//! A model can steer what an HTTP tool requests, so the client itself
//! refuses, in four places:
//!
//! 1. **Names** are resolved by the guard's resolver and every address is
//!    checked ([`classify`]); only the allowed ones are handed to the
//!    connector, so a name resolving to `127.0.0.1` or `169.254.169.254`
//!    never connects.
//! 2. **IP literals** skip resolvers. [`SsrfGuard::check_url`] reads a URL's
//!    host the way the URL parser does (decimal `2130706433`, octal
//!    `0177.0.0.1`, hex `0x7f.1`, short `127.1`, percent-encoded, bracketed
//!    IPv6 with a zone) and checks it before sending; behind it, the
//!    client's connector checks the peer address of every new connection,
//!    so a literal still cannot get through a client used directly.
//! 3. **Redirects** are re-checked hop by hop and capped
//!    ([`SsrfPolicy::max_redirects`], default 5).
//! 4. **Proxies** from the environment are not used (a proxy would make
//!    the checks meaningless).
//!
//! Bodies are read through [`read_body`] with a cap
//! ([`SsrfPolicy::max_body_bytes`], default 4 MiB); a cut is an error,
//! never a silent truncation. A refusal is an [`SsrfBlocked`] somewhere in
//! the error's source chain ([`SsrfBlocked::find_in`]), naming the address.
//!
//! ```
//! use tool_openapi::{SsrfGuard, SsrfPolicy};
//! let guard = SsrfGuard::new(SsrfPolicy::default());
//! let blocked = guard.check_url("http://0x7f.1:8080/").unwrap_err();
//! assert_eq!(blocked.address(), "127.0.0.1");
//! assert!(guard.check_url("http://[fe80::1%25eth0]/").is_err());
//! assert!(guard.check_url("https://example.com/").is_ok()); // resolved (and checked) at connect time
//!
//! let local = SsrfGuard::new(SsrfPolicy::default().allow("127.0.0.0/8").unwrap());
//! assert!(local.check_url("http://127.0.0.1:3000/").is_ok());
//! let client: reqwest::Client = local.build_client().unwrap();
//! # let _ = client;
//! ```

mod address;
mod blocked;
mod body;
mod connector;
mod policy;
mod resolver;

use std::net::IpAddr;
use std::sync::{Arc, Mutex};

pub use address::{AddressClass, classify};
pub(crate) use blocked::find_in_chain;
pub use blocked::{DnsFailure, SsrfBlocked, TooManyRedirects};
pub use body::{BodyError, read_body};
pub use policy::{DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_REDIRECTS, SsrfPolicy};

use crate::error::Error;

/// Builds guarded HTTP clients and checks URLs and addresses against an
/// [`SsrfPolicy`]. Cheap to clone; clones share the policy.
#[derive(Debug, Clone)]
pub struct SsrfGuard {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    policy: SsrfPolicy,
    /// Addresses resolved for allowed host names (the connector's check
    /// lets these through).
    allowed_by_name: Mutex<Vec<IpAddr>>,
}

impl Default for SsrfGuard {
    fn default() -> Self {
        Self::new(SsrfPolicy::default())
    }
}

impl SsrfGuard {
    /// A guard enforcing `policy`.
    pub fn new(policy: SsrfPolicy) -> Self {
        Self {
            inner: Arc::new(Inner {
                policy,
                allowed_by_name: Mutex::new(Vec::new()),
            }),
        }
    }

    /// The policy.
    pub fn policy(&self) -> &SsrfPolicy {
        &self.inner.policy
    }

    /// Whether a request may go to `ip` (reached through `host`, for the message).
    pub fn check_ip(&self, host: &str, ip: IpAddr) -> Result<(), SsrfBlocked> {
        self.inner.check_ip(host, ip)
    }

    /// Checks a URL before it is sent: the scheme must be http(s), and a
    /// host that is an IP literal (in any spelling) must be allowed. Host
    /// names pass here; their addresses are checked when resolved.
    pub fn check_url(&self, url: &str) -> Result<url::Url, SsrfBlocked> {
        match url::Url::parse(url) {
            Ok(parsed) => {
                self.check_parsed(&parsed)?;
                Ok(parsed)
            }
            Err(error) => Err(match zoned_ipv6(url) {
                Some((spelled, ip)) => self
                    .inner
                    .check_ip(&spelled, ip)
                    .err()
                    .unwrap_or_else(|| SsrfBlocked::unparsable(url, "an IPv6 zone id")),
                None => SsrfBlocked::unparsable(url, &error.to_string()),
            }),
        }
    }

    /// [`check_url`](Self::check_url) for a parsed URL.
    pub fn check_parsed(&self, url: &url::Url) -> Result<(), SsrfBlocked> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(SsrfBlocked::scheme(url.as_str(), url.scheme()));
        }
        let spelled = url.host_str().unwrap_or_default().to_owned();
        match url.host() {
            Some(url::Host::Ipv4(ip)) => self.inner.check_ip(&spelled, IpAddr::V4(ip)),
            Some(url::Host::Ipv6(ip)) => self.inner.check_ip(&spelled, IpAddr::V6(ip)),
            Some(url::Host::Domain(_)) => Ok(()),
            None => Err(SsrfBlocked::unparsable(url.as_str(), "no host")),
        }
    }

    /// A `reqwest::ClientBuilder` with the guard installed: the filtering
    /// resolver, the peer check on every connection, the redirect policy,
    /// no proxies, and the policy's connect timeout. Add your own settings
    /// (user agent, default headers), but do not set another resolver,
    /// redirect policy or proxy: they would replace the guard's.
    pub fn client_builder(&self) -> reqwest::ClientBuilder {
        let mut builder = reqwest::Client::builder().no_proxy();
        if self.inner.policy.enabled {
            builder = builder
                .dns_resolver(Arc::new(resolver::GuardedResolver::new(self.clone())))
                .connector_layer(connector::PeerCheckLayer::new(self.clone()));
        }
        let guard = self.clone();
        let max = self.inner.policy.max_redirects;
        builder = builder.redirect(reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() > max {
                return attempt.error(TooManyRedirects { limit: max });
            }
            if guard.inner.policy.enabled
                && let Err(blocked) = guard.check_parsed(attempt.url())
            {
                return attempt.error(blocked);
            }
            attempt.follow()
        }));
        if let Some(timeout) = self.inner.policy.connect_timeout {
            builder = builder.connect_timeout(timeout);
        }
        builder
    }

    /// [`client_builder`](Self::client_builder), built.
    pub fn build_client(&self) -> Result<reqwest::Client, Error> {
        self.client_builder()
            .build()
            .map_err(|e| Error::Client(e.to_string()))
    }

    pub(crate) fn host_allowed(&self, host: &str) -> bool {
        self.inner.policy.host_allowed(host)
    }

    pub(crate) fn remember_allowed(&self, ips: impl IntoIterator<Item = IpAddr>) {
        if let Ok(mut known) = self.inner.allowed_by_name.lock() {
            for ip in ips {
                if !known.contains(&ip) {
                    known.push(ip);
                }
            }
        }
    }

    pub(crate) fn check_peer(&self, ip: IpAddr) -> Result<(), SsrfBlocked> {
        let known = self
            .inner
            .allowed_by_name
            .lock()
            .map(|k| k.contains(&ip))
            .unwrap_or(false);
        if known {
            return Ok(());
        }
        self.inner.check_ip(&ip.to_string(), ip)
    }
}

impl Inner {
    fn check_ip(&self, host: &str, ip: IpAddr) -> Result<(), SsrfBlocked> {
        if !self.policy.enabled || self.policy.ip_allowed(ip) {
            return Ok(());
        }
        match classify(ip) {
            None => Ok(()),
            Some(class) => Err(SsrfBlocked::refused(host, ip, class)),
        }
    }
}

/// `http://[fe80::1%25eth0]/` (a zone id, which URL parsers reject): the
/// bracketed text and the address without its zone.
fn zoned_ipv6(url: &str) -> Option<(String, IpAddr)> {
    let open = url.find('[')?;
    let close = url[open..].find(']')? + open;
    let inside = &url[open + 1..close];
    let (address, _zone) = inside.split_once('%')?;
    let ip: std::net::Ipv6Addr = address.parse().ok()?;
    Some((inside.to_owned(), IpAddr::V6(ip)))
}
