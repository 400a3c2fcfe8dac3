//! The channel that carries [`ChannelMessage`]s to an executor, and the
//! in-process implementation.

use async_trait::async_trait;
use tokio::sync::mpsc;

use super::message::ChannelMessage;
use crate::error::{Error, Result};

/// Carries `tool_execute` and `tool_abort` messages to an executor.
///
/// Hosts implement it over whatever reaches their executors: a WebSocket to
/// a browser, server-sent events, desktop IPC, a queue. The dispatcher never
/// waits for a reply on the channel: results come back through a
/// [`ResultStore`](super::ResultStore), so a channel that cannot reply
/// (SSE, a push notification) works as well as one that can.
///
/// Errors: [`Error::ChannelUnavailable`] when no executor is reachable (the
/// socket is gone, nobody is connected), [`Error::DispatchFailed`] (or any
/// other error) when sending failed.
#[async_trait]
pub trait DispatchChannel: Send + Sync {
    /// Sends one message.
    async fn send(&self, message: ChannelMessage) -> Result<()>;
}

/// The sending half of an in-process channel: executors run as tasks of
/// this process. Cheap to clone.
#[derive(Debug, Clone)]
pub struct InProcessChannel {
    sender: mpsc::Sender<ChannelMessage>,
}

/// The receiving half of an in-process channel, for an
/// [`ExecutorClient`](super::ExecutorClient) to serve.
#[derive(Debug)]
pub struct Inbox {
    receiver: mpsc::Receiver<ChannelMessage>,
}

/// An in-process channel holding up to `capacity` unread messages (at
/// least 1); a sender waits for room when it is full.
pub fn in_process_channel(capacity: usize) -> (InProcessChannel, Inbox) {
    let (sender, receiver) = mpsc::channel(capacity.max(1));
    (InProcessChannel { sender }, Inbox { receiver })
}

impl Inbox {
    /// The next message; `None` when every sender is gone.
    pub async fn recv(&mut self) -> Option<ChannelMessage> {
        self.receiver.recv().await
    }
}

#[async_trait]
impl DispatchChannel for InProcessChannel {
    async fn send(&self, message: ChannelMessage) -> Result<()> {
        self.sender
            .send(message)
            .await
            .map_err(|_| Error::ChannelUnavailable {
                message: "the in-process executor has stopped".into(),
            })
    }
}
