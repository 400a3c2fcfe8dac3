//! The filtering resolver: names resolve only to addresses the policy allows.

use std::net::SocketAddr;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use super::blocked::DnsFailure;
use super::guard::SsrfGuard;

pub(super) struct GuardedResolver {
    guard: SsrfGuard,
}

impl GuardedResolver {
    pub(super) fn new(guard: SsrfGuard) -> Self {
        Self { guard }
    }
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let guard = self.guard.clone();
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let failure = |message: String| DnsFailure {
                host: host.clone(),
                message,
            };
            let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await
                .map_err(|e| failure(e.to_string()))?
                .collect();
            if addrs.is_empty() {
                return Err(failure("no addresses".into()).into());
            }
            if guard.host_allowed(&host) {
                guard.remember_allowed(addrs.iter().map(SocketAddr::ip));
                return Ok(Box::new(addrs.into_iter()) as Addrs);
            }
            let mut allowed = Vec::with_capacity(addrs.len());
            let mut first_refusal = None;
            for addr in addrs {
                match guard.check_ip(&host, addr.ip()) {
                    Ok(()) => allowed.push(addr),
                    Err(blocked) => {
                        first_refusal.get_or_insert(blocked);
                    }
                }
            }
            match (allowed.is_empty(), first_refusal) {
                (true, Some(blocked)) => Err(blocked.into()),
                _ => Ok(Box::new(allowed.into_iter()) as Addrs),
            }
        })
    }
}
