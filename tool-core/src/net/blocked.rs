//! The errors the guard puts in a request's error chain.

use std::error::Error as StdError;
use std::fmt;
use std::net::IpAddr;

use super::address::AddressClass;

/// A request the guard refused, naming the host and the address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SsrfBlocked {
    host: String,
    address: String,
    class: Option<AddressClass>,
    reason: String,
}

impl SsrfBlocked {
    pub(crate) fn refused(host: &str, ip: IpAddr, class: AddressClass) -> Self {
        Self {
            host: host.to_owned(),
            address: ip.to_string(),
            class: Some(class),
            reason: format!("{class} address"),
        }
    }

    pub(crate) fn scheme(url: &str, scheme: &str) -> Self {
        Self {
            host: url.to_owned(),
            address: String::new(),
            class: None,
            reason: format!("scheme `{scheme}` is not http or https"),
        }
    }

    pub(crate) fn unparsable(url: &str, why: &str) -> Self {
        Self {
            host: url.to_owned(),
            address: String::new(),
            class: None,
            reason: format!("the URL cannot be checked ({why})"),
        }
    }

    /// The host as the URL spelled it (or the URL when it did not parse).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The refused IP address in canonical form (`127.0.0.1`), empty when
    /// the refusal is about the URL itself.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// The address class, when an address was refused.
    pub fn class(&self) -> Option<AddressClass> {
        self.class
    }

    /// The first `SsrfBlocked` in `error`'s source chain (for example
    /// inside a `reqwest::Error`).
    pub fn find_in<'a>(error: &'a (dyn StdError + 'static)) -> Option<&'a SsrfBlocked> {
        find_source(error)
    }
}

impl fmt::Display for SsrfBlocked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.address.is_empty() {
            write!(f, "request to `{}` refused: {}", self.host, self.reason)
        } else if self.host == self.address {
            write!(
                f,
                "request to {} refused: {} (not a public unicast address)",
                self.address, self.reason
            )
        } else {
            write!(
                f,
                "request to `{}` refused: it is {} {} (not a public unicast address)",
                self.host, self.address, self.reason
            )
        }
    }
}

impl StdError for SsrfBlocked {}

/// A host name that did not resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DnsFailure {
    /// The name.
    pub host: String,
    /// The resolver's message.
    pub message: String,
}

impl fmt::Display for DnsFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot resolve `{}`: {}", self.host, self.message)
    }
}

impl StdError for DnsFailure {}

/// A redirect chain longer than the policy allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooManyRedirects {
    /// The cap.
    pub limit: usize,
}

impl fmt::Display for TooManyRedirects {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "more than {} redirects", self.limit)
    }
}

impl StdError for TooManyRedirects {}

impl TooManyRedirects {
    /// The first `TooManyRedirects` in `error`'s source chain.
    pub fn find_in<'a>(error: &'a (dyn StdError + 'static)) -> Option<&'a TooManyRedirects> {
        find_source(error)
    }
}

impl DnsFailure {
    /// The first `DnsFailure` in `error`'s source chain.
    pub fn find_in<'a>(error: &'a (dyn StdError + 'static)) -> Option<&'a DnsFailure> {
        find_source(error)
    }
}

/// What the guard refused, found in an error chain by [`refusal_in`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal<'a> {
    /// An address or URL the policy does not allow (on the URL, behind a
    /// name, or at a redirect hop).
    Blocked(&'a SsrfBlocked),
    /// A redirect chain past the policy's cap.
    TooManyRedirects(&'a TooManyRedirects),
}

impl fmt::Display for Refusal<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Blocked(blocked) => blocked.fmt(f),
            Self::TooManyRedirects(too_many) => too_many.fmt(f),
        }
    }
}

/// The guard's refusal in `error`'s source chain (for example inside the
/// `reqwest::Error` of a send through a guarded client, or inside a
/// transport error wrapping it): the first [`SsrfBlocked`] or
/// [`TooManyRedirects`], whichever comes first walking from `error` to
/// its sources. `None` for failures the guard did not cause.
pub fn refusal_in<'a>(error: &'a (dyn StdError + 'static)) -> Option<Refusal<'a>> {
    let mut current = Some(error);
    while let Some(e) = current {
        if let Some(blocked) = e.downcast_ref::<SsrfBlocked>() {
            return Some(Refusal::Blocked(blocked));
        }
        if let Some(too_many) = e.downcast_ref::<TooManyRedirects>() {
            return Some(Refusal::TooManyRedirects(too_many));
        }
        current = e.source();
    }
    None
}

/// The first `T` in `error`'s source chain, `error` itself included (for
/// a guarded request: a [`DnsFailure`], an `std::io::Error`…).
pub fn find_source<'a, T: StdError + 'static>(
    error: &'a (dyn StdError + 'static),
) -> Option<&'a T> {
    let mut current = Some(error);
    while let Some(e) = current {
        if let Some(found) = e.downcast_ref::<T>() {
            return Some(found);
        }
        current = e.source();
    }
    None
}
