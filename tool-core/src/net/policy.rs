//! What the guard allows.

use std::net::IpAddr;
use std::time::Duration;

use ipnet::IpNet;

use crate::error::Error;

/// The default cap on a response body: 4 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;
/// The default cap on redirects: 5.
pub const DEFAULT_MAX_REDIRECTS: usize = 5;

/// What a guarded client may reach.
///
/// Defaults: on; only public unicast addresses; at most
/// [`DEFAULT_MAX_REDIRECTS`] redirects, each re-checked, of any status and
/// origin ([`RedirectRule::Any`]); bodies up to
/// [`DEFAULT_MAX_BODY_BYTES`]; a 10 s connect timeout. Allowed hosts and
/// networks ([`allow`](Self::allow)) are exceptions a host makes on purpose
/// (tests use `127.0.0.1`); they never come from a model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SsrfPolicy {
    pub(crate) enabled: bool,
    hosts: Vec<String>,
    nets: Vec<IpNet>,
    pub(crate) max_redirects: usize,
    pub(crate) max_body_bytes: usize,
    pub(crate) connect_timeout: Option<Duration>,
    pub(crate) redirect_rule: RedirectRule,
}

impl Default for SsrfPolicy {
    fn default() -> Self {
        Self {
            enabled: true,
            hosts: Vec::new(),
            nets: Vec::new(),
            max_redirects: DEFAULT_MAX_REDIRECTS,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            connect_timeout: Some(Duration::from_secs(10)),
            redirect_rule: RedirectRule::Any,
        }
    }
}

impl SsrfPolicy {
    /// The default policy (see the type's docs).
    pub fn new() -> Self {
        Self::default()
    }

    /// No address checks at all (redirect and body caps still apply). For
    /// hosts that run tools only against their own trusted network.
    pub fn unrestricted() -> Self {
        Self {
            enabled: false,
            ..Self::default()
        }
    }

    /// Allows a host name (`localhost`, exact, case-insensitive), an IP
    /// address (`127.0.0.1`, `::1`) or a CIDR (`10.0.0.0/8`).
    pub fn allow(mut self, entry: &str) -> Result<Self, Error> {
        let trimmed = entry.trim();
        let bad = |message: &str| Error::InvalidAllowEntry {
            entry: entry.to_owned(),
            message: message.to_owned(),
        };
        if trimmed.is_empty() {
            return Err(bad("empty"));
        }
        if let Ok(net) = trimmed.parse::<IpNet>() {
            self.nets.push(net.trunc());
        } else if let Ok(ip) = trimmed.trim_matches(['[', ']']).parse::<IpAddr>() {
            self.nets.push(IpNet::from(ip));
        } else if trimmed.contains('/') {
            return Err(bad("not a valid CIDR (address/prefix)"));
        } else {
            match url::Host::parse(trimmed) {
                Ok(url::Host::Domain(name)) => self.hosts.push(name.to_ascii_lowercase()),
                Ok(url::Host::Ipv4(ip)) => self.nets.push(IpNet::from(IpAddr::V4(ip))),
                Ok(url::Host::Ipv6(ip)) => self.nets.push(IpNet::from(IpAddr::V6(ip))),
                Err(e) => return Err(bad(&format!("not a host name, address or CIDR: {e}"))),
            }
        }
        Ok(self)
    }

    /// Caps the redirects followed (each one is re-checked).
    pub fn max_redirects(mut self, max: usize) -> Self {
        self.max_redirects = max;
        self
    }

    /// Caps the bytes of a response body read through [`read_body`](super::read_body).
    pub fn max_body_bytes(mut self, max: usize) -> Self {
        self.max_body_bytes = max;
        self
    }

    /// The body cap.
    pub fn body_limit(&self) -> usize {
        self.max_body_bytes
    }

    /// Which redirects are followed (default [`RedirectRule::Any`]; MCP
    /// clients want [`RedirectRule::SameOriginKeepMethod`]).
    pub fn redirect_rule(mut self, rule: RedirectRule) -> Self {
        self.redirect_rule = rule;
        self
    }

    /// The redirect rule.
    pub fn redirects(&self) -> RedirectRule {
        self.redirect_rule
    }

    /// Sets (or with `None` removes) the connect timeout.
    pub fn connect_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Whether address checks are on.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    pub(crate) fn host_allowed(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.');
        self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
    }

    pub(crate) fn ip_allowed(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        self.nets.iter().any(|net| net.contains(&ip))
    }
}

/// Which redirects a guarded client follows ([`SsrfPolicy::redirect_rule`]).
///
/// Under every rule, each hop is checked by the guard before it is
/// followed (a refused address is an [`SsrfBlocked`](super::SsrfBlocked)
/// in the error chain) and the chain is capped at
/// [`max_redirects`](SsrfPolicy::max_redirects) hops
/// ([`TooManyRedirects`](super::TooManyRedirects) past it). A redirect the rule does not follow is
/// not an error: the 3xx response itself comes back to the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum RedirectRule {
    /// Every redirect (any status, any origin). The default, for HTTP
    /// tools whose calls are mostly GETs.
    #[default]
    Any,
    /// Only `307` and `308` to the origin (scheme, host, port) of the first
    /// request. For JSON-RPC over HTTP (MCP's streamable HTTP): another
    /// origin would be handed the session id and the configured headers,
    /// and `301`/`302`/`303` would turn the POST into a GET.
    SameOriginKeepMethod,
}
