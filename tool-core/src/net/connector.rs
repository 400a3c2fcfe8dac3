//! The peer check: every new connection's remote address is checked, so IP
//! literals (which skip the resolver) cannot get through a guarded client.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use hyper_util::client::legacy::connect::{Connection, HttpInfo};

use super::guard::SsrfGuard;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

#[derive(Clone)]
pub(super) struct PeerCheckLayer {
    guard: SsrfGuard,
}

impl PeerCheckLayer {
    pub(super) fn new(guard: SsrfGuard) -> Self {
        Self { guard }
    }
}

impl<S> tower_layer::Layer<S> for PeerCheckLayer {
    type Service = PeerCheck<S>;

    fn layer(&self, inner: S) -> Self::Service {
        PeerCheck {
            inner,
            guard: self.guard.clone(),
        }
    }
}

#[derive(Clone)]
pub(super) struct PeerCheck<S> {
    inner: S,
    guard: SsrfGuard,
}

impl<S, R> tower_service::Service<R> for PeerCheck<S>
where
    S: tower_service::Service<R, Error = BoxError>,
    S::Response: Connection + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: R) -> Self::Future {
        let connecting = self.inner.call(request);
        let guard = self.guard.clone();
        Box::pin(async move {
            let connection = connecting.await?;
            let mut extras = http::Extensions::new();
            connection.connected().get_extras(&mut extras);
            if let Some(info) = extras.get::<HttpInfo>() {
                guard.check_peer(info.remote_addr().ip())?;
            }
            Ok(connection)
        })
    }
}
