//! The normalised document: the internal serde form hosts store.
//!
//! Both the narrow protocol and imported OpenAPI 3 documents end up here.
//! It is plain data (serialisable, comparable; an imported operation also
//! carries its import-time schema compilation, which is neither serialised
//! nor compared and is reused only while the operation is unchanged);
//! compiling it into a tool
//! ([`compile_manifest`](crate::compile_manifest)) and calling it over HTTP
//! ([`OpenApiTool`](crate::OpenApiTool)) read nothing else.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tool_core::{CompiledSchema, HumanIntervention};

use crate::method::Method;

/// A normalised API document: one base URL, one description, operations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiDocument {
    /// Absolute http(s) base URL; operation paths are appended to it.
    pub server: String,
    /// What the API is for, as the model reads it.
    pub description: String,
    /// A human title (OpenAPI `info.title`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The operations, each one API of the compiled tool.
    pub operations: Vec<Operation>,
    /// Authentication schemes the operations may use (from OpenAPI
    /// `securitySchemes`); their secrets live in [`Credentials`](crate::Credentials), never here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub security_schemes: Vec<SecurityScheme>,
}

impl ApiDocument {
    /// The operation whose id is `id`.
    pub fn operation(&self, id: &str) -> Option<&Operation> {
        self.operations.iter().find(|op| op.operation_id == id)
    }

    /// The operation whose id is `id`, to change (for example its approval).
    pub fn operation_mut(&mut self, id: &str) -> Option<&mut Operation> {
        self.operations.iter_mut().find(|op| op.operation_id == id)
    }
}

/// One HTTP operation; compiled into one API.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Operation {
    /// The API name (unique in the document). Names from real documents are
    /// foreign names: they reach the model through the registry's wire naming.
    pub operation_id: String,
    /// The HTTP method.
    pub method: Method,
    /// The path template, `/pets/{petId}`, appended to the server URL.
    pub path: String,
    /// What the operation does, as the model reads it.
    #[serde(default)]
    pub description: String,
    /// Its parameters, in declaration order.
    #[serde(default)]
    pub parameters: Vec<Parameter>,
    /// A host's approval override; `None` means the method's default
    /// ([`Method::default_policy`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub human_intervention: Option<HumanIntervention>,
    /// Names of the security schemes that apply (empty: none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub security: Vec<String>,
    /// Shared and recursive schema definitions the parameter schemas point
    /// into (`#/$defs/<name>`); placed at the root of the arguments schema.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub definitions: serde_json::Map<String, Value>,
    /// The arguments schema as compiled while importing (with the schema it
    /// was compiled from and a fingerprint of what it was built from), so
    /// building a tool does not build or compile it again. Not serialised,
    /// not compared; reused only while the operation's parameters and
    /// definitions are unchanged.
    #[serde(skip)]
    pub(crate) compiled: Compiled,
}

/// An operation's import-time compilation (see [`Operation`]).
#[derive(Clone, Default)]
pub(crate) struct Compiled(pub(crate) Option<(u64, CompiledSchema)>);

impl PartialEq for Compiled {
    /// A cache: never part of what an operation is.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "Compiled" } else { "None" })
    }
}

impl Operation {
    /// The approval config this operation compiles to: the override, else
    /// the method's default.
    pub fn intervention(&self) -> HumanIntervention {
        self.human_intervention
            .clone()
            .unwrap_or(HumanIntervention::Policy(self.method.default_policy()))
    }
}

/// Where a parameter goes in the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Location {
    /// A `{placeholder}` of the path, percent-encoded as one segment.
    Path,
    /// A query-string pair.
    Query,
    /// A request header (overrides a provider header of the same name).
    Header,
    /// A cookie in the `Cookie` header.
    Cookie,
    /// A property of the JSON request body.
    RequestBody,
    /// The whole JSON request body (for bodies that are not objects).
    Body,
}

impl Location {
    /// The spelling used in documents (`request_body`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Path => "path",
            Self::Query => "query",
            Self::Header => "header",
            Self::Cookie => "cookie",
            Self::RequestBody => "request_body",
            Self::Body => "body",
        }
    }
}

/// One parameter of an operation: one argument the model fills in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Parameter {
    /// The name on the wire (query key, header name, body property…).
    pub name: String,
    /// The argument name the model sees, when it differs from `name`
    /// (a body property clashing with a parameter, see the import docs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argument: Option<String>,
    /// Where it goes.
    #[serde(rename = "in")]
    pub location: Location,
    /// What it means, as the model reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether the model must give it.
    #[serde(default)]
    pub required: bool,
    /// Its JSON Schema (narrow types map to `string`, `integer`, `number`, `boolean`).
    pub schema: Value,
}

impl Parameter {
    /// The argument name the model sees.
    pub fn argument_name(&self) -> &str {
        self.argument.as_deref().unwrap_or(&self.name)
    }
}

/// An authentication scheme (OpenAPI `securitySchemes` entry).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SecurityScheme {
    /// The scheme's name in the document.
    pub name: String,
    /// How the credential is sent.
    #[serde(flatten)]
    pub kind: SchemeKind,
}

/// How a credential is sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum SchemeKind {
    /// An API key in a header, the query or a cookie.
    ApiKey {
        /// Where the key goes.
        #[serde(rename = "in")]
        location: KeyLocation,
        /// The header, query or cookie name.
        #[serde(rename = "parameterName")]
        parameter: String,
    },
    /// `Authorization: Bearer <token>`.
    Bearer,
    /// `Authorization: Basic <base64(user:password)>`.
    Basic,
}

/// Where an API key goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeyLocation {
    /// A request header.
    Header,
    /// A query-string pair.
    Query,
    /// A cookie.
    Cookie,
}
