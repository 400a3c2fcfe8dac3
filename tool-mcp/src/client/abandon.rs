//! Telling a server that what a call started was abandoned: a request
//! whose caller went away gets `notifications/cancelled`, a task whose
//! follower went away gets `tasks/cancel` (of either revision). The
//! caller's future may be dropped at any await (a timeout, a cancelled
//! call), so the message is sent from a guard's `Drop`, in the background
//! on the runtime the guard was dropped on (none: nothing is sent).

use std::future::Future;

use rmcp::RoleClient;
use rmcp::service::Peer;

/// Runs `send` on a clone of its peer, in the background, when dropped
/// before [`disarm`](Self::disarm) (the call ended as it should).
pub(crate) struct OnAbandon<F, Fut>
where
    F: FnOnce(Peer<RoleClient>) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    peer: Peer<RoleClient>,
    send: Option<F>,
}

impl<F, Fut> OnAbandon<F, Fut>
where
    F: FnOnce(Peer<RoleClient>) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    /// Armed: dropping it now sends what `send` makes.
    pub(crate) fn new(peer: &Peer<RoleClient>, send: F) -> Self {
        Self {
            peer: peer.clone(),
            send: Some(send),
        }
    }

    /// The call ended: nothing is sent.
    pub(crate) fn disarm(&mut self) {
        self.send = None;
    }
}

impl<F, Fut> Drop for OnAbandon<F, Fut>
where
    F: FnOnce(Peer<RoleClient>) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    fn drop(&mut self) {
        let (Some(send), Ok(runtime)) = (self.send.take(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        runtime.spawn(send(self.peer.clone()));
    }
}
