//! Egress by name: a confined command whose [`tool_core::Confinement`]
//! carries an [`Egress`](tool_core::approval::Egress) allow-list reaches the network
//! only through a proxy the runtime starts for it.
//!
//! The mechanism and the checks are documented on [`EgressOptions`] (this
//! module is private).

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

#[cfg(all(target_os = "linux", feature = "egress"))]
mod broker;
#[cfg(all(target_os = "linux", feature = "egress"))]
mod intercept;
#[cfg(all(target_os = "linux", feature = "egress"))]
mod proxy;
#[cfg(all(target_os = "linux", feature = "egress"))]
mod rules;
#[cfg(all(target_os = "linux", feature = "egress"))]
mod sni;

#[cfg(all(target_os = "linux", feature = "egress"))]
pub(crate) use broker::Broker;
#[cfg(all(target_os = "linux", feature = "egress"))]
pub(crate) use proxy::Proxy;
#[cfg(all(target_os = "linux", feature = "egress"))]
pub(crate) use rules::Rules;

/// The variables that point clients at the command's trust store when the
/// broker intercepts TLS (OpenSSL, curl, Python requests, git, cargo, pip,
/// Node).
#[cfg(all(target_os = "linux", feature = "egress"))]
pub(crate) const TRUST_STORE_VARIABLES: [&str; 7] = [
    "SSL_CERT_FILE",
    "CURL_CA_BUNDLE",
    "REQUESTS_CA_BUNDLE",
    "GIT_SSL_CAINFO",
    "CARGO_HTTP_CAINFO",
    "PIP_CERT",
    "NODE_EXTRA_CA_CERTS",
];

/// Writes the command's trust store in `dir` (a directory its `/tmp`
/// shows at `/tmp`): the system's roots and `ca_pem`. Returns the file
/// (removed when dropped) and its path inside the command.
#[cfg(all(target_os = "linux", feature = "egress"))]
pub(crate) fn trust_store(
    ca_pem: &str,
    dir: &std::path::Path,
) -> Result<(tempfile::NamedTempFile, String), String> {
    use std::io::Write as _;
    let system = std::env::var_os("SSL_CERT_FILE")
        .map(std::path::PathBuf::from)
        .into_iter()
        .chain(
            [
                "/etc/ssl/certs/ca-certificates.crt",
                "/etc/pki/tls/certs/ca-bundle.crt",
                "/etc/ssl/cert.pem",
            ]
            .map(std::path::PathBuf::from),
        )
        .find_map(|p| std::fs::read_to_string(p).ok())
        .unwrap_or_default();
    let mut file = tempfile::Builder::new()
        .prefix("tool-egress-ca-")
        .suffix(".pem")
        .tempfile_in(dir)
        .map_err(|e| format!("cannot write the trust store in {}: {e}", dir.display()))?;
    file.write_all(format!("{system}\n{ca_pem}").as_bytes())
        .and_then(|()| file.flush())
        .map_err(|e| format!("cannot write the trust store: {e}"))?;
    let name = file
        .path()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok((file, format!("/tmp/{name}")))
}

/// The port the proxy listens on inside a command's network namespace.
pub const DEFAULT_PROXY_PORT: u16 = 3128;

/// Host settings of the egress proxy (in
/// [`SandboxOptions::egress`](crate::SandboxOptions::egress)); which names
/// a command may reach is the call's [`tool_core::approval::Egress`].
///
/// | setting | default |
/// |---|---|
/// | `allow_addresses` | none: only public unicast addresses are reached |
/// | `resolve` | none: names are resolved by the host's resolver |
/// | `credentials` | none |
/// | `upstream_roots` | none: the system's roots |
/// | `port` | [`DEFAULT_PROXY_PORT`] |
///
/// # How
///
/// 1. The command gets its own network namespace (beside its user, mount
///    and PID namespaces): loopback only, no route anywhere. Its first
///    process brings loopback up, listens on `127.0.0.1:`[`port`](Self::port)
///    there and hands that listening socket to the host over a Unix socket;
///    then it drops its capabilities as every confined command does.
/// 2. The host's proxy (a task of the host's tokio runtime) accepts the
///    command's connections from that socket and makes the outgoing ones
///    itself, from the host's network. The command's environment names it
///    (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY` and their lower-case forms,
///    `NODE_USE_ENV_PROXY=1`; `NO_PROXY` removed), which curl, wget, git,
///    cargo, pip, npm, Go and Node's fetch follow; a client that ignores
///    them (a JVM without proxy flags) has no network at all.
/// 3. seccomp lets the command make TCP/IP sockets only (`AF_INET`,
///    `AF_INET6`): no Unix-domain socket reaches a host daemon, no netlink.
///    DNS does not work inside (no resolver is reachable): clients hand
///    names to the proxy, which resolves them.
///
/// # What the proxy lets through
///
/// Each request (`CONNECT host:port` for HTTPS, an absolute
/// `http://host/…` URL for plain HTTP) is checked in this order; the first
/// refusal answers `403` and is recorded:
///
/// 1. the host must be a name: an IP address (`10.0.0.1`, `[::1]`) is
///    refused;
/// 2. the name must match an `allow` entry and no `deny` entry (deny wins;
///    `*.cdn.example` matches names below `cdn.example`);
/// 3. with a method limit, a plain request's method must be listed, and an
///    HTTPS tunnel is refused (the proxy cannot see its methods);
/// 4. the name is resolved (or taken from [`resolve`](Self::resolve)) and
///    every address is checked by tool-core's network guard
///    ([`tool_core::net::classify`]): private, loopback, link-local and
///    the other non-public ranges are refused unless
///    [`allow_addresses`](Self::allow_addresses) lists them; the proxy connects
///    only to the addresses that passed, so a name that resolves again
///    differently (DNS rebinding) gains nothing;
/// 5. in an HTTPS tunnel, the command's first bytes must be a TLS
///    ClientHello whose server name (SNI) is the name checked above: one
///    address (a CDN) serves many sites and picks one by that name. Another
///    name, no name, or bytes that are not TLS close the tunnel before
///    anything reaches the upstream.
///
/// A refusal is listed in the command's state (`networkBlocked`: host,
/// port, reason, count) and in one content line.
///
/// # Credential broker
///
/// A host can bind a secret to hosts ([`CredentialBinding`]:
/// `GITHUB_TOKEN` → `api.github.com`). The command's environment then holds
/// a dummy of the same shape (same length, same prefix such as `ghp_`,
/// same character classes), made afresh for each command. The proxy
/// replaces the dummy by the real value in the request target and the
/// header values of requests to a bound host, and nowhere else; a request
/// body is never rewritten.
///
/// | traffic | what the proxy does |
/// |---|---|
/// | plain HTTP to a bound host | forwarded request by request, dummy → real value |
/// | HTTPS (`CONNECT`) to a bound host | **intercepted**: the proxy opens verified TLS to the host itself (system roots and [`upstream_roots`](Self::upstream_roots); a failure answers `502`), then ends the command's TLS with a certificate for that name signed by a certificate authority made for this command (its key stays in the host's memory, gone with the command), and forwards each request inside as for plain HTTP |
/// | plain HTTP to any other allowed host | forwarded untouched (the dummy stays a dummy) |
/// | HTTPS to any other allowed host | **tunnelled**: the ClientHello's server name is checked (step 5), then the bytes pass untouched and the proxy never sees inside |
///
/// The command trusts that authority only through its own environment: a
/// trust store (the system's roots plus the authority) written to its
/// private `/tmp` and named by `SSL_CERT_FILE`, `CURL_CA_BUNDLE`,
/// `REQUESTS_CA_BUNDLE`, `GIT_SSL_CAINFO`, `CARGO_HTTP_CAINFO`, `PIP_CERT`
/// and `NODE_EXTRA_CA_CERTS`; nothing on the host trusts it. A client
/// that pins certificates or ignores those variables fails on a bound
/// host instead of leaking anything.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct EgressOptions {
    /// Address ranges (`127.0.0.0/8`, `10.1.2.3`, as
    /// [`SsrfPolicy::allow`](tool_core::net::SsrfPolicy::allow) reads them)
    /// the proxy may connect to although they are not public: an explicit
    /// host choice (tests standing a local server in for the world, a
    /// registry mirror on the company network).
    pub allow_addresses: Vec<String>,
    /// Names mapped to fixed addresses instead of DNS (as curl's
    /// `--resolve`); the addresses are checked all the same.
    pub resolve: BTreeMap<String, IpAddr>,
    /// Secrets bound to hosts (the credential broker).
    pub credentials: Vec<CredentialBinding>,
    /// PEM files of certificate authorities the proxy trusts, beyond the
    /// system's, when it opens TLS to a bound host itself.
    pub upstream_roots: Vec<std::path::PathBuf>,
    /// The port the proxy listens on inside the command's namespace.
    pub port: u16,
}

impl Default for EgressOptions {
    fn default() -> Self {
        Self {
            allow_addresses: Vec::new(),
            resolve: BTreeMap::new(),
            credentials: Vec::new(),
            upstream_roots: Vec::new(),
            port: DEFAULT_PROXY_PORT,
        }
    }
}

impl EgressOptions {
    /// The same options with `range` allowed although not public.
    pub fn with_allowed_addresses(mut self, range: impl Into<String>) -> Self {
        self.allow_addresses.push(range.into());
        self
    }

    /// The same options with `name` resolved to `address`.
    pub fn with_resolve(mut self, name: impl Into<String>, address: IpAddr) -> Self {
        self.resolve
            .insert(name.into().to_ascii_lowercase(), address);
        self
    }

    /// The same options with one more trusted CA file for upstreams.
    pub fn with_upstream_root(mut self, pem_file: impl Into<std::path::PathBuf>) -> Self {
        self.upstream_roots.push(pem_file.into());
        self
    }

    /// The same options with one more credential binding.
    pub fn with_credential(mut self, binding: CredentialBinding) -> Self {
        self.credentials.push(binding);
        self
    }
}

/// A secret bound to hosts: the command sees a dummy in the environment
/// variable `env`; the proxy puts the real value back only in plain HTTP
/// requests to `hosts` (names, or `*.suffix` patterns).
///
/// The real value is the host's environment variable `env` when the
/// command starts, or the value given with [`with_value`](Self::with_value)
/// (never serialised, never shown by `Debug`).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CredentialBinding {
    /// The environment variable that carries it.
    pub env: String,
    /// The hosts that receive the real value.
    pub hosts: Vec<String>,
    #[serde(skip)]
    value: Option<String>,
}

impl CredentialBinding {
    /// Binds the host's environment variable `env` to `hosts`.
    pub fn new<S: Into<String>>(
        env: impl Into<String>,
        hosts: impl IntoIterator<Item = S>,
    ) -> Self {
        Self {
            env: env.into(),
            hosts: hosts.into_iter().map(Into::into).collect(),
            value: None,
        }
    }

    /// The same binding with its real value given here rather than read
    /// from the host's environment.
    pub fn with_value(mut self, value: impl Into<String>) -> Self {
        self.value = Some(value.into());
        self
    }

    /// The real value: the one given, else the host's variable.
    #[cfg_attr(not(feature = "egress"), allow(dead_code))]
    pub(crate) fn real_value(&self) -> Option<String> {
        self.value
            .clone()
            .or_else(|| std::env::var(&self.env).ok())
            .filter(|v| !v.is_empty())
    }
}

impl std::fmt::Debug for CredentialBinding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CredentialBinding")
            .field("env", &self.env)
            .field("hosts", &self.hosts)
            .field("value", &self.value.as_ref().map(|_| "<hidden>"))
            .finish()
    }
}

/// A connection the egress proxy refused, as the command's state lists it
/// (`networkBlocked`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BlockedConnection {
    /// The host asked for (a name or an address, as the client wrote it).
    pub host: String,
    /// The port asked for.
    pub port: u16,
    /// Why: `not on the allow-list`, `denied`, `an IP address, not a
    /// name`, `resolves to a non-public address (…)`, `method … not
    /// allowed`…
    pub reason: String,
    /// How many times the same refusal happened.
    pub count: u32,
}

/// How many distinct refusals a command's log keeps.
#[cfg_attr(not(feature = "egress"), allow(dead_code))]
const LOG_CAP: usize = 64;

/// The refusals of one command's proxy.
#[derive(Debug, Default)]
pub(crate) struct Log {
    blocked: Mutex<Vec<BlockedConnection>>,
}

impl Log {
    #[cfg_attr(not(feature = "egress"), allow(dead_code))]
    pub(crate) fn record(&self, host: &str, port: u16, reason: &str) {
        let mut blocked = self.blocked.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(seen) = blocked
            .iter_mut()
            .find(|b| b.host == host && b.port == port && b.reason == reason)
        {
            seen.count = seen.count.saturating_add(1);
        } else if blocked.len() < LOG_CAP {
            blocked.push(BlockedConnection {
                host: host.to_owned(),
                port,
                reason: reason.to_owned(),
                count: 1,
            });
        }
    }

    /// The refusals so far.
    pub(crate) fn blocked(&self) -> Vec<BlockedConnection> {
        self.blocked
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}
