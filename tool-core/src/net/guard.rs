//! The guard: checks URLs and addresses, and builds guarded clients.

use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use super::address::classify;
use super::blocked::SsrfBlocked;
use super::policy::{RedirectRule, SsrfPolicy};

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

    /// A guard with this one's policy but `rule` for redirects (for
    /// example an MCP client's guard made from the host's HTTP-tool guard).
    pub fn with_redirect_rule(&self, rule: RedirectRule) -> Self {
        Self::new(self.inner.policy.clone().redirect_rule(rule))
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
