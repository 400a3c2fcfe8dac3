//! The `api` tool provider: stored references → compiled API tools.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;
use tool_core::{
    HumanIntervention, Tool,
    assembly::{ProvideError, ToolProvider, ToolReference},
    pipeline::Violation,
};

use crate::credentials::Credentials;
use crate::document::ApiDocument;
use crate::error::Error;
use crate::tool::OpenApiTool;
use tool_core::net::SsrfGuard;

/// The tool id of a reference meaning "every operation of the document".
pub const ALL_OPERATIONS: &str = "*";

#[derive(Debug, Clone)]
struct Registered {
    document: ApiDocument,
    credentials: Credentials,
    headers: Vec<(String, String, bool)>,
}

/// Serves references `{type: "api", provider_id, tool_id, params}`.
///
/// - `provider_id` names a document registered with [`add`](Self::add);
/// - `tool_id` is [`ALL_OPERATIONS`] (`"*"`: one tool with every
///   operation, identifier = `provider_id`) or one operation id (a tool
///   with that operation only, identifier = `provider_id.operationId`);
/// - `params` may hold, each optional (anything else is refused, every
///   problem an `InvalidParams` with its pointer):
///   - `"approval": {"<operationId>": <humanIntervention>}` overrides
///     approval per operation;
///   - `"server": "https://…"` replaces the document's base URL;
///   - `"server_variables": {"<name>": "<value>"}` chooses server variables
///     (each checked against its `enum`; see
///     [`ApiDocument::with_server_variables`]);
///   - `"base_url": "https://…"` resolves a relative or missing server
///     against it (see [`ApiDocument::resolve_server`]; an absolute server
///     is kept).
///
///   They apply in this order: `server` (then `server_variables` is
///   refused), else `server_variables`, then `base_url`. The SSRF guard
///   still judges every address the tool sends to.
///
/// Every tool shares the provider's guard and client (one connection pool).
///
/// ```
/// use tool_core::{assembly::{Assembler, ToolReference}};
/// use tool_openapi::{OpenApiProvider, SsrfGuard, parse_narrow};
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let (doc, _) = parse_narrow(r#"{"server":"https://api.example.com","description":"d",
///   "paths":{"/a":{"get":{"operationId":"a","description":"A."}}}}"#)?;
/// let mut provider = OpenApiProvider::new(SsrfGuard::default())?;
/// provider.add("example", doc);
/// let assembler = Assembler::new().with_provider(provider);
/// let assembly = assembler.assemble(&[ToolReference::new("api", "example", "*")]).await;
/// assert!(assembly.is_complete());
/// # Ok::<(), tool_openapi::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct OpenApiProvider {
    documents: HashMap<String, Registered>,
    guard: SsrfGuard,
    client: reqwest::Client,
}

impl OpenApiProvider {
    /// A provider whose tools send through `guard`'s client.
    pub fn new(guard: SsrfGuard) -> Result<Self, Error> {
        let client = guard.build_client()?;
        Ok(Self {
            documents: HashMap::new(),
            guard,
            client,
        })
    }

    /// Registers (or replaces) a document under `provider_id`.
    pub fn add(&mut self, provider_id: impl Into<String>, document: ApiDocument) -> &mut Self {
        self.add_with(provider_id, document, Credentials::new())
    }

    /// Registers a document with the secrets of its security schemes.
    pub fn add_with(
        &mut self,
        provider_id: impl Into<String>,
        mut document: ApiDocument,
        credentials: Credentials,
    ) -> &mut Self {
        // A stored document does not keep an import's compilations alive
        // (each tool built from it compiles what it offers).
        for operation in &mut document.operations {
            operation.compiled = Default::default();
        }
        self.documents.insert(
            provider_id.into(),
            Registered {
                document,
                credentials,
                headers: Vec::new(),
            },
        );
        self
    }

    /// Adds a provider header to a registered document's requests
    /// (`secret`: redacted wherever a response echoes it).
    pub fn header(
        &mut self,
        provider_id: &str,
        name: &str,
        value: &str,
        secret: bool,
    ) -> Result<&mut Self, Error> {
        let entry = self
            .documents
            .get_mut(provider_id)
            .ok_or_else(|| Error::InvalidConfig {
                field: format!("headers.{name}"),
                message: format!("no document `{provider_id}` is registered"),
            })?;
        entry
            .headers
            .push((name.to_owned(), value.to_owned(), secret));
        Ok(self)
    }

    /// The registered document ids.
    pub fn provider_ids(&self) -> impl Iterator<Item = &str> {
        self.documents.keys().map(String::as_str)
    }

    /// The document registered under `provider_id`.
    pub fn document(&self, provider_id: &str) -> Option<&ApiDocument> {
        self.documents.get(provider_id).map(|r| &r.document)
    }

    fn build(&self, reference: &ToolReference) -> Result<OpenApiTool, ProvideError> {
        let entry = self.documents.get(&reference.provider_id).ok_or_else(|| {
            ProvideError::NotFound(format!("no API document `{}`", reference.provider_id))
        })?;
        let mut document = entry.document.clone();
        let identifier = if reference.tool_id == ALL_OPERATIONS {
            reference.provider_id.clone()
        } else {
            if document.operation(&reference.tool_id).is_none() {
                return Err(ProvideError::NotFound(format!(
                    "API document `{}` has no operation `{}`",
                    reference.provider_id, reference.tool_id
                )));
            }
            document
                .operations
                .retain(|op| op.operation_id == reference.tool_id);
            format!("{}.{}", reference.provider_id, reference.tool_id)
        };
        apply_params(&mut document, &reference.params)?;
        let mut builder = OpenApiTool::builder(document, identifier)
            .credentials(entry.credentials.clone())
            .guard(self.guard.clone())
            .client(self.client.clone());
        for (name, value, secret) in &entry.headers {
            builder = if *secret {
                builder.secret_header(name, value)
            } else {
                builder.header(name, value)
            }
            .map_err(|e| ProvideError::Failed(e.to_string()))?;
        }
        builder
            .build()
            .map_err(|e| ProvideError::Failed(e.to_string()))
    }
}

/// The params a reference may carry.
const PARAMS: [&str; 4] = ["approval", "server", "server_variables", "base_url"];

fn invalid_param(pointer: &str, message: String) -> ProvideError {
    ProvideError::InvalidParams(vec![Violation {
        pointer: pointer.to_owned(),
        message,
    }])
}

/// `server`, `server_variables` and `base_url`, in that order.
fn apply_server(
    document: &mut ApiDocument,
    params: &serde_json::Map<String, Value>,
) -> Result<(), ProvideError> {
    let text = |key: &str| -> Result<Option<&str>, ProvideError> {
        match params.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(_) => Err(invalid_param(&format!("/{key}"), "must be a string".into())),
        }
    };
    let server = text("server")?;
    let base = text("base_url")?;
    if let Some(server) = server {
        if params.contains_key("server_variables") {
            return Err(invalid_param(
                "/server_variables",
                "`server` replaces the server: its variables cannot be chosen too".into(),
            ));
        }
        crate::server::check_server(server).map_err(|m| invalid_param("/server", m))?;
        document.server = server.trim_end_matches('/').to_owned();
    }
    if let Some(variables) = params.get("server_variables") {
        let Value::Object(variables) = variables else {
            return Err(invalid_param(
                "/server_variables",
                "must map variable names to string values".into(),
            ));
        };
        let mut values = Vec::with_capacity(variables.len());
        for (name, value) in variables {
            let Value::String(value) = value else {
                return Err(invalid_param(
                    &format!("/server_variables/{}", crate::pointer::escape(name)),
                    "must be a string".into(),
                ));
            };
            values.push((name.as_str(), value.as_str()));
        }
        document
            .with_server_variables(&values, base)
            .map_err(|e| match e {
                Error::InvalidConfig { field, message } => {
                    let name = field.strip_prefix("server_variables.").unwrap_or("");
                    let pointer = if name.is_empty() {
                        "/server_variables".to_owned()
                    } else {
                        format!("/server_variables/{}", crate::pointer::escape(name))
                    };
                    invalid_param(&pointer, message)
                }
                other => invalid_param("/server_variables", other.to_string()),
            })?;
    }
    if let Some(base) = base {
        document
            .resolve_server(base)
            .map_err(|e| invalid_param("/base_url", e.to_string()))?;
    }
    Ok(())
}

fn apply_params(document: &mut ApiDocument, params: &Value) -> Result<(), ProvideError> {
    let invalid = |pointer: &str, message: String| {
        ProvideError::InvalidParams(vec![Violation {
            pointer: pointer.to_owned(),
            message,
        }])
    };
    let object = match params {
        Value::Null => return Ok(()),
        Value::Object(object) => object,
        _ => return Err(invalid("", "params must be an object".into())),
    };
    for key in object.keys() {
        if !PARAMS.contains(&key.as_str()) {
            return Err(invalid(
                &format!("/{}", crate::pointer::escape(key)),
                format!("unknown param `{key}` (accepted: {})", PARAMS.join(", ")),
            ));
        }
    }
    apply_server(document, object)?;
    let Some(approval) = object.get("approval") else {
        return Ok(());
    };
    let Value::Object(approval) = approval else {
        return Err(invalid(
            "/approval",
            "must map operation ids to approval configs".into(),
        ));
    };
    for (operation_id, config) in approval {
        let pointer = format!("/approval/{}", crate::pointer::escape(operation_id));
        let intervention: HumanIntervention =
            serde_json::from_value(config.clone()).map_err(|e| invalid(&pointer, e.to_string()))?;
        match document.operation_mut(operation_id) {
            Some(op) => op.human_intervention = Some(intervention),
            None => {
                return Err(invalid(
                    &pointer,
                    format!("no operation `{operation_id}` in this tool"),
                ));
            }
        }
    }
    Ok(())
}

#[async_trait]
impl ToolProvider for OpenApiProvider {
    fn kind(&self) -> &str {
        tool_core::ToolKind::Api.as_str()
    }

    async fn provide(&self, reference: &ToolReference) -> Result<Arc<dyn Tool>, ProvideError> {
        Ok(Arc::new(self.build(reference)?))
    }
}
