//! Guarded clients: a `reqwest` client builder with the guard's resolver,
//! peer check, redirect policy and no proxies.

use std::sync::Arc;

use super::guard::SsrfGuard;
use super::{connector, redirect, resolver};
use crate::error::Error;

impl SsrfGuard {
    /// A `reqwest::ClientBuilder` with the guard installed: the filtering
    /// resolver, the peer check on every connection, the redirect policy
    /// (the policy's [`RedirectRule`](super::RedirectRule), every hop
    /// re-checked, at most [`max_redirects`](super::SsrfPolicy::max_redirects)),
    /// no proxies, and the policy's connect timeout. Add your own settings
    /// (user agent, default headers), but do not set another resolver,
    /// redirect policy or proxy: they would replace the guard's.
    pub fn client_builder(&self) -> reqwest::ClientBuilder {
        let mut builder = reqwest::Client::builder().no_proxy();
        if self.policy().is_enabled() {
            builder = builder
                .dns_resolver(Arc::new(resolver::GuardedResolver::new(self.clone())))
                .connector_layer(connector::PeerCheckLayer::new(self.clone()));
        }
        builder = builder.redirect(redirect::policy(self.clone()));
        if let Some(timeout) = self.policy().connect_timeout {
            builder = builder.connect_timeout(timeout);
        }
        builder
    }

    /// [`client_builder`](Self::client_builder), built.
    pub fn build_client(&self) -> Result<reqwest::Client, Error> {
        self.client_builder()
            .build()
            .map_err(|e| Error::HttpClient {
                message: e.to_string(),
            })
    }
}
