//! HTTP methods an operation can use.

use std::fmt;

use serde::{Deserialize, Serialize};
use tool_core::InterventionPolicy;

/// The HTTP method of an operation.
///
/// The narrow protocol accepts `get` and `post`, and `put`, `patch`,
/// `delete` as an extension; imported OpenAPI documents may use every
/// method OpenAPI names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// `GET`.
    Get,
    /// `POST`.
    Post,
    /// `PUT`.
    Put,
    /// `PATCH`.
    Patch,
    /// `DELETE`.
    Delete,
    /// `HEAD`.
    Head,
    /// `OPTIONS`.
    Options,
    /// `TRACE`.
    Trace,
}

impl Method {
    /// Methods the narrow protocol accepts, in the order error messages name them.
    pub const NARROW: [Method; 5] = [
        Method::Get,
        Method::Post,
        Method::Put,
        Method::Patch,
        Method::Delete,
    ];

    /// Every method, as OpenAPI path items name them.
    pub const ALL: [Method; 8] = [
        Method::Get,
        Method::Put,
        Method::Post,
        Method::Delete,
        Method::Options,
        Method::Head,
        Method::Patch,
        Method::Trace,
    ];

    /// The lowercase name (`get`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Get => "get",
            Self::Post => "post",
            Self::Put => "put",
            Self::Patch => "patch",
            Self::Delete => "delete",
            Self::Head => "head",
            Self::Options => "options",
            Self::Trace => "trace",
        }
    }

    /// Parses a lowercase method name as OpenAPI spells it.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.as_str() == name)
    }

    /// The approval policy an operation gets unless the host overrides it:
    /// reads (`get`, `head`) run without asking, everything else asks.
    pub fn default_policy(self) -> InterventionPolicy {
        match self {
            Self::Get | Self::Head => InterventionPolicy::Never,
            _ => InterventionPolicy::Required,
        }
    }

    /// Whether a request with this method may carry a body.
    pub fn allows_body(self) -> bool {
        !matches!(self, Self::Get | Self::Head | Self::Trace)
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Method {
    pub(crate) fn to_reqwest(self) -> reqwest::Method {
        match self {
            Self::Get => reqwest::Method::GET,
            Self::Post => reqwest::Method::POST,
            Self::Put => reqwest::Method::PUT,
            Self::Patch => reqwest::Method::PATCH,
            Self::Delete => reqwest::Method::DELETE,
            Self::Head => reqwest::Method::HEAD,
            Self::Options => reqwest::Method::OPTIONS,
            Self::Trace => reqwest::Method::TRACE,
        }
    }
}
