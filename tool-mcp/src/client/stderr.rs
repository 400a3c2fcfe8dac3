//! Bounded capture of a stdio server's stderr: the last bytes are kept for
//! error reports, the rest is dropped, and the pipe is always drained so a
//! chatty server never blocks on a full pipe.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::io::AsyncReadExt;
use tokio::process::ChildStderr;

/// Default number of stderr bytes kept per server: 16 KiB.
pub const DEFAULT_STDERR_LIMIT: usize = 16 * 1024;

/// The tail of a process's stderr.
#[derive(Debug, Clone)]
pub(crate) struct StderrTail {
    buffer: Arc<Mutex<VecDeque<u8>>>,
}

impl StderrTail {
    /// Starts draining `stderr` into a buffer of at most `limit` bytes.
    pub(crate) fn spawn(mut stderr: ChildStderr, limit: usize) -> Self {
        let buffer = Arc::new(Mutex::new(VecDeque::with_capacity(limit.min(4096))));
        let sink = Arc::clone(&buffer);
        tokio::spawn(async move {
            let mut chunk = [0u8; 4096];
            loop {
                match stderr.read(&mut chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let mut tail = sink.lock().unwrap_or_else(PoisonError::into_inner);
                        tail.extend(&chunk[..n]);
                        let excess = tail.len().saturating_sub(limit);
                        tail.drain(..excess);
                    }
                }
            }
        });
        Self { buffer }
    }

    /// The captured text (lossy UTF-8) with every secret value replaced by `***`.
    pub(crate) fn text(&self, secrets: &[&str]) -> String {
        let bytes: Vec<u8> = self
            .buffer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .copied()
            .collect();
        scrub(&String::from_utf8_lossy(&bytes), secrets)
    }
}

/// Replaces every occurrence of a secret value (of at least 3 characters,
/// shorter ones would blank ordinary words) with `***`.
pub(crate) fn scrub(text: &str, secrets: &[&str]) -> String {
    let mut out = text.to_owned();
    for secret in secrets {
        if secret.chars().count() >= 3 {
            out = out.replace(secret, "***");
        }
    }
    out
}
