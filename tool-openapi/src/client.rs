//! One guarded HTTP client per SSRF policy, shared by the tools of a
//! process.
//!
//! Building a `reqwest::Client` loads the platform's root certificates and
//! sets up a connection pool: about 5 % of importing the GitHub REST
//! description into a tool, paid again for every tool built. A tool built
//! without its own client ([`OpenApiToolBuilder::client`](crate::OpenApiToolBuilder::client))
//! takes the one shared by every tool whose guard has an equal
//! [`SsrfPolicy`], with that client's guard (so the URL check before a
//! request and the checks inside the client are the same guard's). The
//! first tool of a policy builds them; later tools, of the same document
//! or another, reuse them and their pooled connections.
//!
//! At most [`MAX_SHARED`] policies are remembered; a tool with yet another
//! policy builds a client of its own, as before.

use std::sync::{Mutex, PoisonError};

use tool_core::net::{SsrfGuard, SsrfPolicy};

use crate::error::Error;

/// How many distinct policies keep a shared client.
pub(crate) const MAX_SHARED: usize = 16;

static SHARED: Mutex<Vec<(SsrfPolicy, SsrfGuard, reqwest::Client)>> = Mutex::new(Vec::new());

/// The guard and client for `guard`'s policy: the shared pair when one was
/// built for an equal policy, else `guard` with a client built from it
/// (shared from now on while fewer than [`MAX_SHARED`] policies are).
pub(crate) fn shared(guard: SsrfGuard) -> Result<(SsrfGuard, reqwest::Client), Error> {
    let mut shared = SHARED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, guard, client)) = shared.iter().find(|(p, _, _)| p == guard.policy()) {
        return Ok((guard.clone(), client.clone()));
    }
    let client = guard.build_client()?;
    if shared.len() < MAX_SHARED {
        shared.push((guard.policy().clone(), guard.clone(), client.clone()));
    }
    Ok((guard, client))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(policy: &SsrfPolicy) -> usize {
        let shared = SHARED.lock().unwrap_or_else(PoisonError::into_inner);
        shared.iter().filter(|(p, _, _)| p == policy).count()
    }

    #[test]
    fn equal_policies_share_one_guard_and_client() {
        let policy = SsrfPolicy::default()
            .max_redirects(3)
            .max_body_bytes(12_345);
        let (first, _) = shared(SsrfGuard::new(policy.clone())).unwrap();
        let (second, _) = shared(SsrfGuard::new(policy.clone())).unwrap();
        assert_eq!(count(&policy), 1);
        assert!(first.policy() == second.policy());
        let other = policy.max_redirects(4);
        shared(SsrfGuard::new(other.clone())).unwrap();
        assert_eq!(count(&other), 1, "another policy gets its own");
    }
}
