//! HTTP tools for LLM agents from API descriptions: a narrow OpenAPI-like
//! protocol and real OpenAPI 3.0/3.1 documents become one tool each (one
//! API per operation), called over an SSRF-guarded HTTP client.
//!
//! # Overview of the roles
//!
//! - [`validate_narrow`]: the narrow protocol → every problem with its JSON
//!   pointer, or a normalised [`ApiDocument`] plus warnings.
//! - [`compile_manifest`]: an [`ApiDocument`] → a `tool-core` manifest.
#![deny(missing_docs)]

mod compile;
mod document;
mod error;
mod method;
mod narrow;
mod pointer;

pub use compile::{MANIFEST_KIND, api_definition, compile_manifest, parameters_schema};
pub use document::{
    ApiDocument, KeyLocation, Location, Operation, Parameter, SchemeKind, SecurityScheme,
};
pub use error::Error;
pub use method::Method;
pub use narrow::{Validation, parse_narrow, validate_narrow, validate_narrow_value};
