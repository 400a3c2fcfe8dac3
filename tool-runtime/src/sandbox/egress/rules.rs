//! What the egress proxy lets through: the checks of the module guide, in
//! order, and the resolution whose addresses are checked after DNS.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use tool_core::approval::Egress;
use tool_core::net::{SsrfGuard, SsrfPolicy};

use super::EgressOptions;
use super::broker::Broker;
use super::intercept::Authority;
use crate::error::{Error, Result};

/// How long a name may take to resolve.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(10);

/// The rules of one command's proxy.
#[derive(Debug)]
pub(crate) struct Rules {
    egress: Egress,
    guard: SsrfGuard,
    resolve: BTreeMap<String, IpAddr>,
    pub(crate) broker: Broker,
    /// The CA for the bound hosts' TLS, when a secret is bound.
    authority: Option<std::sync::Arc<Authority>>,
}

impl Rules {
    /// The rules for `egress` under the host's `options`; an entry of
    /// `allow_addresses` that is not an address or a range is refused.
    pub(crate) fn new(egress: &Egress, options: &EgressOptions, broker: Broker) -> Result<Self> {
        // A list built in code (not read from JSON, which checks it) is
        // checked here: an entry that can never match is a mistake.
        egress.check().map_err(|e| Error::SandboxSetup {
            path: "egress".into(),
            message: e.to_string(),
        })?;
        let mut policy = SsrfPolicy::default();
        for entry in &options.allow_addresses {
            let bad = |message: String| Error::SandboxSetup {
                path: "egress.allow_addresses".into(),
                message: format!("`{entry}`: {message}"),
            };
            let address = entry.split('/').next().unwrap_or_default();
            if address.trim_matches(['[', ']']).parse::<IpAddr>().is_err() {
                return Err(bad("not an IP address or a range (CIDR)".to_owned()));
            }
            policy = policy.allow(entry).map_err(|e| bad(e.to_string()))?;
        }
        let authority = if broker.is_empty() {
            None
        } else {
            let made =
                Authority::new(&options.upstream_roots).map_err(|message| Error::SandboxSetup {
                    path: "egress.credentials".into(),
                    message: format!("cannot make the interception CA: {message}"),
                })?;
            Some(std::sync::Arc::new(made))
        };
        Ok(Self {
            egress: egress.clone(),
            guard: SsrfGuard::new(policy),
            resolve: options.resolve.clone(),
            broker,
            authority,
        })
    }

    /// The CA to terminate TLS with, when a secret is bound to `host`.
    pub(crate) fn intercepts(&self, host: &str) -> Option<std::sync::Arc<Authority>> {
        self.authority
            .as_ref()
            .filter(|_| self.broker.binds(host))
            .cloned()
    }

    /// The interception CA's certificate (PEM), when there is one.
    pub(crate) fn ca_pem(&self) -> Option<String> {
        self.authority.as_ref().map(|a| a.ca_pem())
    }

    /// Checks 1–3 of the module guide for a request to `host` with
    /// `method` (`CONNECT` for a tunnel): the refusal's reason, if any.
    pub(crate) fn check_name(&self, host: &str, method: &str) -> std::result::Result<(), String> {
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        if bare.parse::<IpAddr>().is_ok() {
            return Err("an IP address, not a name: only allowed names are reached".to_owned());
        }
        if host.is_empty()
            || !host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
        {
            return Err("not a host name".to_owned());
        }
        if !self.egress.allows(host) {
            let mut undenied = self.egress.clone();
            undenied.deny.clear();
            let denied = undenied.allows(host);
            return Err(if denied {
                "denied by the egress rules".to_owned()
            } else {
                "not on the allow-list".to_owned()
            });
        }
        if method == "CONNECT" {
            if !self.egress.methods.is_empty() {
                return Err(format!(
                    "HTTPS tunnel refused: the methods are limited to {} and a tunnel hides them",
                    self.egress.methods.join(", ")
                ));
            }
        } else if !self.egress.allows_method(method) {
            return Err(format!(
                "method {method} not allowed (only {})",
                self.egress.methods.join(", ")
            ));
        }
        Ok(())
    }

    /// Check 4: the addresses of `host` that may be reached on `port`, or
    /// why none may.
    pub(crate) async fn resolve(
        &self,
        host: &str,
        port: u16,
    ) -> std::result::Result<Vec<SocketAddr>, String> {
        let found: Vec<SocketAddr> = match self.resolve.get(&host.to_ascii_lowercase()) {
            Some(ip) => vec![SocketAddr::new(*ip, port)],
            None => {
                match tokio::time::timeout(RESOLVE_TIMEOUT, tokio::net::lookup_host((host, port)))
                    .await
                {
                    Ok(Ok(addresses)) => addresses.collect(),
                    Ok(Err(e)) => return Err(format!("cannot resolve the name: {e}")),
                    Err(_) => return Err("cannot resolve the name: timed out".to_owned()),
                }
            }
        };
        let mut refused = None;
        let allowed: Vec<SocketAddr> = found
            .into_iter()
            .filter(|address| match self.guard.check_ip(host, address.ip()) {
                Ok(()) => true,
                Err(blocked) => {
                    refused.get_or_insert_with(|| {
                        format!(
                            "resolves to a non-public address ({} is {})",
                            blocked.address(),
                            blocked
                                .class()
                                .map_or("refused".to_owned(), |c| c.as_str().to_owned())
                        )
                    });
                    false
                }
            })
            .collect();
        match (allowed.is_empty(), refused) {
            (false, _) => Ok(allowed),
            (true, Some(reason)) => Err(reason),
            (true, None) => Err("cannot resolve the name: no address".to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(egress: Egress, options: EgressOptions) -> Rules {
        Rules::new(&egress, &options, Broker::default()).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn names_are_checked_before_any_resolution_and_deny_wins() {
        let r = rules(
            Egress::allow(["registry.example", "*.cdn.example"]).with_deny(["bad.cdn.example"]),
            EgressOptions::default(),
        );
        assert_eq!(r.check_name("registry.example", "GET"), Ok(()));
        assert_eq!(r.check_name("REGISTRY.example.", "CONNECT"), Ok(()));
        assert_eq!(r.check_name("a.cdn.example", "CONNECT"), Ok(()));
        for (host, why) in [
            ("evil.example", "not on the allow-list"),
            ("registry.example.evil.example", "not on the allow-list"),
            ("xregistry.example", "not on the allow-list"),
            ("bad.cdn.example", "denied"),
            ("127.0.0.1", "IP address"),
            ("[::1]", "IP address"),
            ("169.254.169.254", "IP address"),
            ("registry.example@evil.example", "not a host name"),
            ("", "not a host name"),
        ] {
            let refused = r.check_name(host, "GET").unwrap_err();
            assert!(refused.contains(why), "{host}: {refused}");
        }
    }

    #[test]
    fn a_method_limit_refuses_other_methods_and_tunnels() {
        let r = rules(
            Egress::allow(["registry.example"]).with_methods(["GET", "HEAD"]),
            EgressOptions::default(),
        );
        assert_eq!(r.check_name("registry.example", "GET"), Ok(()));
        assert_eq!(r.check_name("registry.example", "head"), Ok(()));
        assert!(
            r.check_name("registry.example", "POST")
                .unwrap_err()
                .contains("POST")
        );
        assert!(
            r.check_name("registry.example", "CONNECT")
                .unwrap_err()
                .contains("tunnel")
        );
    }

    #[tokio::test]
    async fn private_addresses_are_refused_after_resolution_unless_allowed() {
        let options = EgressOptions::default()
            .with_resolve(
                "inside.example",
                "10.1.2.3".parse().unwrap_or_else(|e| panic!("{e}")),
            )
            .with_resolve(
                "local.example",
                "127.0.0.1".parse().unwrap_or_else(|e| panic!("{e}")),
            );
        let allow = Egress::allow(["inside.example", "local.example"]);
        let strict = rules(allow.clone(), options.clone());
        for host in ["inside.example", "local.example", "localhost"] {
            let refused = strict.resolve(host, 80).await.unwrap_err();
            assert!(refused.contains("non-public"), "{host}: {refused}");
        }
        let test = rules(allow, options.with_allowed_addresses("127.0.0.0/8"));
        assert_eq!(
            test.resolve("local.example", 8080).await,
            Ok(vec![
                "127.0.0.1:8080".parse().unwrap_or_else(|e| panic!("{e}"))
            ])
        );
        assert!(test.resolve("inside.example", 80).await.is_err());
    }

    #[test]
    fn an_allowed_address_entry_must_be_an_address() {
        let bad = Rules::new(
            &Egress::allow(["a.example"]),
            &EgressOptions::default().with_allowed_addresses("localhost"),
            Broker::default(),
        );
        assert!(bad.unwrap_err().to_string().contains("localhost"));
    }

    #[test]
    fn an_allow_list_built_in_code_with_an_address_is_refused_naming_it() {
        let bad = Rules::new(
            &Egress::allow(["a.example", "10.0.0.7"]),
            &EgressOptions::default(),
            Broker::default(),
        );
        let message = bad.unwrap_err().to_string();
        assert!(
            message.contains("/allow/1") && message.contains("10.0.0.7"),
            "{message}"
        );
    }
}
