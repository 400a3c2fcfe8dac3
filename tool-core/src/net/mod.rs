//! The network guard (feature `net`): a `reqwest::Client` that only reaches
//! public unicast addresses, unless a host allows more. Every crate that
//! sends HTTP for a model (tool-openapi's tools, tool-mcp's streamable HTTP
//! transport) builds its client here, so one [`SsrfPolicy`] holds for all.
//!
//! A model can steer what an HTTP tool requests, so the client itself
//! refuses, in four places:
//!
//! 1. **Names** are resolved by the guard's resolver and every address is
//!    checked ([`classify`]); only the allowed ones are handed to the
//!    connector, so a name resolving to `127.0.0.1` or `169.254.169.254`
//!    never connects.
//! 2. **IP literals** skip resolvers. [`SsrfGuard::check_url`] reads a URL's
//!    host the way the URL parser does (decimal `2130706433`, octal
//!    `0177.0.0.1`, hex `0x7f.1`, short `127.1`, percent-encoded, bracketed
//!    IPv6 with a zone) and checks it before sending; behind it, the
//!    client's connector checks the peer address of every new connection,
//!    so a literal still cannot get through a client used directly.
//! 3. **Redirects** are re-checked hop by hop, capped
//!    ([`SsrfPolicy::max_redirects`], default 5) and followed by the
//!    policy's [`RedirectRule`]: any redirect (HTTP tools), or only
//!    same-origin `307`/`308` ([`RedirectRule::SameOriginKeepMethod`],
//!    for JSON-RPC clients such as MCP's).
//! 4. **Proxies** from the environment are not used (a proxy would make
//!    the checks meaningless).
//!
//! Bodies are read through [`read_body`] with a cap
//! ([`SsrfPolicy::max_body_bytes`], default 4 MiB); a cut is an error,
//! never a silent truncation. A refusal is an [`SsrfBlocked`] (or a
//! [`TooManyRedirects`]) somewhere in the error's source chain:
//! [`refusal_in`] finds either, [`SsrfBlocked::find_in`] the first.
//!
//! ```
//! use tool_core::net::{RedirectRule, SsrfGuard, SsrfPolicy};
//! let guard = SsrfGuard::new(SsrfPolicy::default());
//! let blocked = guard.check_url("http://0x7f.1:8080/").unwrap_err();
//! assert_eq!(blocked.address(), "127.0.0.1");
//! assert!(guard.check_url("http://[fe80::1%25eth0]/").is_err());
//! assert!(guard.check_url("https://example.com/").is_ok()); // resolved (and checked) at connect time
//!
//! let local = SsrfGuard::new(SsrfPolicy::default().allow("127.0.0.0/8")?);
//! assert!(local.check_url("http://127.0.0.1:3000/").is_ok());
//! let client: reqwest::Client = local.build_client()?;
//!
//! // For an MCP (JSON-RPC) client: the same checks, same-origin 307/308 only.
//! let rpc = local.with_redirect_rule(RedirectRule::SameOriginKeepMethod);
//! let rpc_client: reqwest::Client = rpc.build_client()?;
//! # let _ = (client, rpc_client);
//! # Ok::<(), tool_core::Error>(())
//! ```

mod address;
mod blocked;
mod body;
mod client;
mod connector;
mod guard;
mod policy;
mod redirect;
mod resolver;

pub use address::{AddressClass, classify};
pub use blocked::{DnsFailure, Refusal, SsrfBlocked, TooManyRedirects, find_source, refusal_in};
pub use body::{BodyError, read_body};
pub use guard::SsrfGuard;
pub use policy::{DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_REDIRECTS, RedirectRule, SsrfPolicy};
