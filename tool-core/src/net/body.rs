//! Reading a response body with a cap.

use std::fmt;

/// Why a body could not be read.
#[derive(Debug)]
#[non_exhaustive]
pub enum BodyError {
    /// The body is larger than the cap; nothing past `limit` was read.
    TooLarge {
        /// The cap in bytes.
        limit: usize,
        /// The announced `Content-Length`, when the server sent one.
        announced: Option<u64>,
    },
    /// The connection failed while reading.
    Transport(reqwest::Error),
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooLarge {
                limit,
                announced: Some(length),
            } => write!(
                f,
                "the response body ({length} bytes) is larger than the limit of {limit} bytes"
            ),
            Self::TooLarge { limit, .. } => {
                write!(
                    f,
                    "the response body is larger than the limit of {limit} bytes"
                )
            }
            Self::Transport(error) => write!(f, "reading the response body failed: {error}"),
        }
    }
}

impl std::error::Error for BodyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Transport(error) => Some(error),
            Self::TooLarge { .. } => None,
        }
    }
}

/// Reads `response`'s body, at most `limit` bytes. A larger body (announced
/// or streamed) is [`BodyError::TooLarge`]: reading stops at the cap and
/// the connection is dropped, never a silent cut.
pub async fn read_body(
    mut response: reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, BodyError> {
    let announced = response.content_length();
    if announced.is_some_and(|length| length > limit as u64) {
        return Err(BodyError::TooLarge { limit, announced });
    }
    let mut body = Vec::with_capacity(announced.map_or(0, |l| l as usize).min(limit));
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Transport)? {
        if body.len() + chunk.len() > limit {
            return Err(BodyError::TooLarge { limit, announced });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}
