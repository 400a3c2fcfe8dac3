//! The normalised document: the internal serde form hosts store.
//!
//! Both the narrow protocol and imported OpenAPI 3 documents end up here.
//! It is plain data (serialisable, comparable; an imported operation also
//! carries its import-time schema compilation, which is neither serialised
//! nor compared and is reused only while the operation is unchanged);
//! compiling it into a tool
//! ([`compile_manifest`](crate::compile_manifest)) and calling it over HTTP
//! ([`OpenApiTool`](crate::OpenApiTool)) read nothing else.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tool_core::{HumanIntervention, pipeline::CompiledSchema};

use crate::method::Method;

/// A normalised API document: one base URL, one description, operations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiDocument {
    /// The http(s) base URL operation paths are appended to. Normally
    /// absolute; an import without a usable base leaves it empty or
    /// relative (`/v1`), and calls then fail with
    /// [`codes::NO_BASE_URL`](crate::codes::NO_BASE_URL) until
    /// [`resolve_server`](Self::resolve_server) gives it one.
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
    /// The server URL template [`server`](Self::server) was made from, when
    /// it has variables (OpenAPI `servers[0]`), so a host can choose other
    /// values later ([`with_server_variables`](Self::with_server_variables)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_template: Option<ServerTemplate>,
}

/// A server URL with `{variables}` (OpenAPI server object).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerTemplate {
    /// `https://{region}.api.example.com/{version}`.
    pub url: String,
    /// The variables, by name.
    pub variables: std::collections::BTreeMap<String, ServerVariable>,
    /// The base a relative URL was resolved against at import, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
}

/// One server variable: its default and allowed values.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerVariable {
    /// The value used when none is chosen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// The allowed values (empty: any).
    #[serde(default, rename = "enum", skip_serializing_if = "Vec::is_empty")]
    pub allowed: Vec<String>,
}

impl ApiDocument {
    /// The operation whose id is `id`.
    pub fn operation(&self, id: &str) -> Option<&Operation> {
        self.operations.iter().find(|op| op.operation_id == id)
    }

    /// Whether [`server`](Self::server) is an absolute http(s) URL a call
    /// can be sent to.
    pub fn has_base_url(&self) -> bool {
        crate::server::check_server(&self.server).is_ok()
    }

    /// Gives a document without an absolute server one: an empty or
    /// relative [`server`](Self::server) (`/v1`, `//host/v1`) is resolved
    /// against `base` (an absolute http(s) URL: where the document was
    /// fetched, or the host's choice); an absolute server is kept.
    ///
    /// ```
    /// use tool_openapi::{ImportOptions, import_openapi};
    /// let text = r#"{"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "servers": [{"url": "/v1"}],
    ///   "paths": {"/pets": {"get": {"operationId": "list", "responses": {"200": {"description": "ok"}}}}}}"#;
    /// let mut import = import_openapi(text, &ImportOptions::new())?;
    /// assert!(!import.document.has_base_url()); // reported as a warning at /servers
    /// import.document.resolve_server("https://api.example.com/docs/openapi.json")?;
    /// assert_eq!(import.document.server, "https://api.example.com/v1");
    /// # Ok::<(), tool_openapi::Error>(())
    /// ```
    pub fn resolve_server(&mut self, base: &str) -> Result<(), crate::Error> {
        if self.has_base_url() {
            return Ok(());
        }
        self.server = crate::server::resolve(&self.server, base)?;
        Ok(())
    }

    /// Chooses server variable values (`name → value`, each checked against
    /// its `enum`; the others keep their default) and rebuilds
    /// [`server`](Self::server) from [`server_template`](Self::server_template),
    /// resolving a relative result against `base` (else the import's base).
    ///
    /// ```
    /// use tool_openapi::{ImportOptions, import_openapi};
    /// let text = r#"{"openapi": "3.0.3", "info": {"title": "T", "version": "1"},
    ///   "servers": [{"url": "https://{region}.api.example.com", "variables": {"region": {"default": "eu", "enum": ["eu", "us"]}}}],
    ///   "paths": {"/pets": {"get": {"operationId": "list", "responses": {}}}}}"#;
    /// let mut doc = import_openapi(text, &ImportOptions::new())?.document;
    /// assert_eq!(doc.server, "https://eu.api.example.com");
    /// doc.with_server_variables(&[("region", "us")], None)?;
    /// assert_eq!(doc.server, "https://us.api.example.com");
    /// assert!(doc.with_server_variables(&[("region", "mars")], None).is_err());
    /// # Ok::<(), tool_openapi::Error>(())
    /// ```
    pub fn with_server_variables(
        &mut self,
        values: &[(&str, &str)],
        base: Option<&str>,
    ) -> Result<(), crate::Error> {
        let invalid =
            |field: String, message: String| crate::Error::InvalidConfig { field, message };
        let Some(template) = &self.server_template else {
            return Err(invalid(
                "server_variables".into(),
                "the document's server has no variables".into(),
            ));
        };
        for (name, value) in values {
            let Some(variable) = template.variables.get(*name) else {
                let known: Vec<&str> = template.variables.keys().map(String::as_str).collect();
                return Err(invalid(
                    format!("server_variables.{name}"),
                    format!("no server variable `{name}` (known: {})", known.join(", ")),
                ));
            };
            if !variable.allowed.is_empty() && !variable.allowed.iter().any(|a| a == value) {
                return Err(invalid(
                    format!("server_variables.{name}"),
                    format!(
                        "server variable `{name}` cannot be `{value}` (one of: {})",
                        variable.allowed.join(", ")
                    ),
                ));
            }
        }
        let mut url = template.url.clone();
        for (name, variable) in &template.variables {
            let value = values
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| *v)
                .or(variable.default.as_deref())
                .or(variable.allowed.first().map(String::as_str))
                .unwrap_or("");
            url = url.replace(&format!("{{{name}}}"), value);
        }
        let base = base.or(template.base_url.as_deref());
        self.server = if crate::server::is_relative(&url) {
            match base {
                Some(base) => crate::server::resolve(&url, base)?,
                None => url,
            }
        } else {
            crate::server::check_server(&url).map_err(|m| invalid("server_variables".into(), m))?;
            url.trim_end_matches('/').to_owned()
        };
        Ok(())
    }

    /// The operation whose id is `id`, to change (for example its approval).
    pub fn operation_mut(&mut self, id: &str) -> Option<&mut Operation> {
        self.operations.iter_mut().find(|op| op.operation_id == id)
    }
}

/// One HTTP operation; compiled into one API.
///
/// Serialised self-contained: `definitions` is written with the
/// [`shared_definitions`](Self::shared_definitions) the arguments schema
/// reaches (read back, they are the operation's own).
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
    /// Names of the security schemes that apply (empty: none): every
    /// scheme any alternative of [`security_requirements`](Self::security_requirements)
    /// names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub security: Vec<String>,
    /// The operation's security requirement alternatives (OpenAPI
    /// `security`), in order: each alternative is a set of schemes sent
    /// together; a call sends the first alternative the host has every
    /// credential for (an empty alternative, anonymous access, only when
    /// none other is complete). Empty, with `security` not empty (a
    /// document stored before alternatives were kept): each listed scheme
    /// the host has a credential for is sent. Both empty (`security: []`):
    /// nothing is sent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub security_requirements: Vec<Vec<SecurityRequirement>>,
    /// How the request body is encoded; `None` is JSON (the narrow
    /// protocol's only kind) sent as `application/json`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_format: Option<BodyFormat>,
    /// Whether the document requires a body (`requestBody.required`): a
    /// call that gives none of its arguments still sends one (`{}` for
    /// JSON, an empty form or multipart body).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub body_required: bool,
    /// Shared and recursive schema definitions the parameter schemas point
    /// into (`#/$defs/<name>`); placed at the root of the arguments schema.
    /// The operation's own: an imported operation reaches the document's
    /// definitions through [`shared_definitions`](Self::shared_definitions)
    /// instead; one whose tool was shortened to fit the size budget holds
    /// here only `{}` for each definition it cut (and reaches the rest
    /// without their descriptions, shared).
    #[serde(default)]
    pub definitions: serde_json::Map<String, Value>,
    /// Definitions held once for every operation of an imported document
    /// (the definitions of Microsoft Graph's 11 422 operations, copied per
    /// operation, are 27 MB of JSON). The arguments schema
    /// ([`parameters_schema`](crate::parameters_schema)) adds those its
    /// parameters and `definitions` reach (`definitions` win on a name);
    /// the compiled API keeps them shared
    /// ([`ApiDefinition::with_shared_defs`](tool_core::ApiDefinition::with_shared_defs)).
    /// Empty for the narrow protocol and for a deserialised operation.
    #[serde(skip)]
    pub shared_definitions: tool_core::manifest::SharedDefs,
    /// The arguments schema as compiled while importing (with the schema it
    /// was compiled from and a fingerprint of what it was built from), so
    /// building a tool does not build or compile it again. Not serialised,
    /// not compared; reused only while the operation's parameters and
    /// definitions are unchanged.
    #[serde(skip)]
    pub(crate) compiled: Compiled,
}

impl Serialize for Operation {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Written<'a> {
            operation_id: &'a str,
            method: Method,
            path: &'a str,
            description: &'a str,
            parameters: &'a [Parameter],
            #[serde(skip_serializing_if = "Option::is_none")]
            human_intervention: &'a Option<HumanIntervention>,
            #[serde(skip_serializing_if = "<[String]>::is_empty")]
            security: &'a [String],
            #[serde(skip_serializing_if = "<[Vec<SecurityRequirement>]>::is_empty")]
            security_requirements: &'a [Vec<SecurityRequirement>],
            #[serde(skip_serializing_if = "Option::is_none")]
            body_format: &'a Option<BodyFormat>,
            #[serde(skip_serializing_if = "std::ops::Not::not")]
            body_required: bool,
            #[serde(skip_serializing_if = "serde_json::Map::is_empty")]
            definitions: &'a serde_json::Map<String, Value>,
        }
        let complete;
        let definitions = if self.shared_definitions.is_empty() {
            &self.definitions
        } else {
            complete = self.complete_definitions();
            &complete
        };
        Written {
            operation_id: &self.operation_id,
            method: self.method,
            path: &self.path,
            description: &self.description,
            parameters: &self.parameters,
            human_intervention: &self.human_intervention,
            security: &self.security,
            security_requirements: &self.security_requirements,
            body_format: &self.body_format,
            body_required: self.body_required,
            definitions,
        }
        .serialize(serializer)
    }
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
    /// `definitions` with the shared definitions the parameters and
    /// `definitions` reach (`definitions` first, then the shared ones by
    /// name): what the arguments schema's `$defs` holds.
    pub(crate) fn complete_definitions(&self) -> serde_json::Map<String, Value> {
        let mut reach = serde_json::Map::with_capacity(2);
        reach.insert(
            "properties".into(),
            Value::Array(
                self.parameters
                    .iter()
                    .map(|p| Value::clone(&p.schema))
                    .collect(),
            ),
        );
        reach.insert("$defs".into(), Value::Object(self.definitions.clone()));
        let reach = Value::Object(reach);
        let complete = self.shared_definitions.complete(&reach);
        match complete.get("$defs") {
            Some(Value::Object(definitions)) => definitions.clone(),
            _ => self.definitions.clone(),
        }
    }

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
    /// A property of the request body (a JSON property, a form field or a
    /// multipart part, by the operation's [`BodyFormat`]).
    RequestBody,
    /// The whole request body (a JSON body that is not an object, a text
    /// body, or a workspace file sent as a binary body).
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
    /// Its JSON Schema (narrow types map to `string`, `integer`, `number`,
    /// `boolean`), shared: an import holds each distinct argument schema of
    /// a document once (change one with `Arc::make_mut`, which copies it
    /// when shared). Serialised as the schema.
    #[serde(with = "shared_schema")]
    pub schema: Arc<Value>,
    /// Whether the argument names workspace files (a path, or a list of
    /// paths, with the role [`ArgRole::Path`](tool_core::approval::ArgRole::Path),
    /// `"x-role": "path"`, in its schema) whose bytes are sent:
    /// multipart file parts and binary bodies.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub file: bool,
    /// How the value is written (OpenAPI `style`); `None` is the
    /// location's default (`form` for query and cookie, `simple` for path
    /// and header). Read for path, query, header and cookie parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<ParameterStyle>,
    /// Whether arrays and objects are exploded (OpenAPI `explode`); `None`
    /// is the style's default (`true` for `form`, else `false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explode: Option<bool>,
    /// Whether a query value keeps RFC 3986 reserved characters
    /// (`:/?#[]@!$&'()*+,;=`) as they are (OpenAPI `allowReserved`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_reserved: bool,
    /// Whether a query parameter may be sent with an empty value, `name=`
    /// (OpenAPI 3.0 `allowEmptyValue`, default `false`). Without it an
    /// optional query string given as `""` is not sent, and a required
    /// one's schema says `minLength: 1`; empty arrays and objects follow
    /// their style (see the execute module's style table).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_empty_value: bool,
    /// A body property the body's schema requires while the body itself
    /// is optional: required as soon as any body argument is given (the
    /// arguments schema says so with `dependentRequired`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required_with_body: bool,
    /// The media type of a parameter declared with `content` instead of a
    /// `schema` (OpenAPI): a JSON type (`application/json`, `*+json`)
    /// sends the value as compact JSON text, in place of the style.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
}

/// How a parameter value is written (OpenAPI 3 `style`, see the execute
/// module's style table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum ParameterStyle {
    /// `name=value` pairs (query, cookie): arrays `a=1&a=2` exploded,
    /// `a=1,2` not.
    Form,
    /// Comma-separated (path, header): `1,2`.
    Simple,
    /// Path, `.` prefixed: `.1.2` exploded, `.1,2` not.
    Label,
    /// Path, `;name=` prefixed: `;a=1;a=2` exploded, `;a=1,2` not.
    Matrix,
    /// Query arrays joined by `%20`.
    SpaceDelimited,
    /// Query arrays joined by `|`.
    PipeDelimited,
    /// Query objects as `name[key]=value`.
    DeepObject,
}

impl ParameterStyle {
    /// The style named `text` in a document (`deepObject`…).
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "form" => Self::Form,
            "simple" => Self::Simple,
            "label" => Self::Label,
            "matrix" => Self::Matrix,
            "spaceDelimited" => Self::SpaceDelimited,
            "pipeDelimited" => Self::PipeDelimited,
            "deepObject" => Self::DeepObject,
            _ => return None,
        })
    }

    /// The default style of `location`.
    pub fn default_for(location: Location) -> Self {
        match location {
            Location::Path | Location::Header => Self::Simple,
            _ => Self::Form,
        }
    }

    /// Whether `location` can carry this style (OpenAPI 3.1 § Style Values).
    pub fn fits(self, location: Location) -> bool {
        match self {
            Self::Simple => matches!(location, Location::Path | Location::Header),
            Self::Label | Self::Matrix => location == Location::Path,
            Self::Form => matches!(location, Location::Query | Location::Cookie),
            Self::SpaceDelimited | Self::PipeDelimited | Self::DeepObject => {
                location == Location::Query
            }
        }
    }
}

/// One scheme of a security requirement alternative, with the OAuth2
/// scopes it asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SecurityRequirement {
    /// The scheme's name ([`SecurityScheme::name`]).
    pub scheme: String,
    /// The scopes (OAuth2 and OpenID Connect; empty for the others).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
}

/// A parameter's [`schema`](Parameter::schema) (de)serialised as the JSON it holds.
mod shared_schema {
    use std::sync::Arc;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use serde_json::Value;

    pub(super) fn serialize<S: Serializer>(schema: &Arc<Value>, out: S) -> Result<S::Ok, S::Error> {
        Value::serialize(schema, out)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(input: D) -> Result<Arc<Value>, D::Error> {
        Value::deserialize(input).map(Arc::new)
    }
}

impl Parameter {
    /// The argument name the model sees.
    pub fn argument_name(&self) -> &str {
        self.argument.as_deref().unwrap_or(&self.name)
    }
}

/// How a request body is encoded (see [`Operation::body_format`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BodyFormat {
    /// The encoding.
    pub kind: BodyKind,
    /// The `Content-Type` sent (`application/x-www-form-urlencoded`,
    /// `application/xml`, `image/png`…; for multipart the boundary is added).
    pub media_type: String,
    /// Per-field encodings of form and multipart bodies (OpenAPI
    /// `encoding`), by wire name.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub encoding: std::collections::BTreeMap<String, FieldEncoding>,
}

/// The encodings of a request body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum BodyKind {
    /// JSON (`application/json`, `*+json`).
    Json,
    /// `application/x-www-form-urlencoded`: one pair per field.
    Form,
    /// `multipart/form-data`: one part per field; file fields read
    /// workspace files.
    Multipart,
    /// Text sent as given (`text/*`, XML, YAML…): one string argument.
    Text,
    /// Bytes of one workspace file (`application/octet-stream`, images…).
    Binary,
}

/// How one form or multipart field is encoded (OpenAPI `encoding` entry).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldEncoding {
    /// The part's (or an object field's) content type: `application/json`
    /// sends an object or array as JSON text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// `form` (default), `spaceDelimited`, `pipeDelimited` or `deepObject`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<String>,
    /// Whether arrays and objects are exploded (default: `true` for `form`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explode: Option<bool>,
    /// Headers sent with each multipart part of the field (OpenAPI
    /// `encoding.headers`), by name: those whose value the document fixes
    /// (the header schema's `const`, one-value `enum` or `default`).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub headers: std::collections::BTreeMap<String, String>,
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
    /// OAuth2 with a client credentials flow: the host's client id and
    /// secret ([`Credentials::client_credentials`](crate::Credentials::client_credentials))
    /// are exchanged at `token_url` (through the tool's SSRF guard) for an
    /// access token, cached until it expires and sent as
    /// `Authorization: Bearer`. A host may give a token instead
    /// ([`Credentials::token`](crate::Credentials::token)), sent as it is.
    #[serde(rename = "oauth2ClientCredentials", rename_all = "camelCase")]
    OAuth2ClientCredentials {
        /// Where tokens are asked for (absolute, or relative to the server).
        token_url: String,
    },
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
