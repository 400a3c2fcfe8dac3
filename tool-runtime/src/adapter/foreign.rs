//! The anti-corruption layer: our typed requests and responses ↔ a foreign
//! executor's method names and field names.
//!
//! A foreign executor (a desktop app's IPC, a device daemon) speaks its own
//! dialect: other method names (`readLocalFile`), snake_case fields
//! (`file_path`, `old_string`, `shell_id`, `exit_code`), flags spelled like
//! command-line switches (`-i`, `-A`), a range packed as `loc: [start, end]`.
//! A [`ForeignProtocol`] holds that whole mapping, so when the dialect
//! changes only the protocol changes; the runtime above it and the tool
//! above that never know.
//!
//! Mapping rules, applied in this order:
//!
//! 1. the operation's method name comes from its table row;
//! 2. top-level fields listed in the row's `params` / `result` renames use
//!    the listed foreign name;
//! 3. every other key, at any depth, is converted camelCase ↔ snake_case,
//!    except inside opaque fields (`env`), whose keys are user data;
//! 4. fields listed as enum values (`outputMode`) also have their *value*
//!    converted (`filesWithMatches` ↔ `files_with_matches`);
//! 5. readFile's `startLine`/`endLine` travel as `loc: [start, end]`.

use async_trait::async_trait;
use serde_json::{Map, Value, json};
use tool_core::ToolContext;

use crate::error::{Error, Result};
use crate::request::Request;
use crate::response::Response;
use crate::runtime::ComputerRuntime;

/// A call in the foreign dialect.
#[derive(Debug, Clone, PartialEq)]
pub struct ForeignCall {
    /// The foreign method name.
    pub method: String,
    /// The parameters, in foreign field names.
    pub params: Value,
}

/// One operation's row of the mapping table.
#[derive(Debug, Clone, Copy)]
pub struct OperationMap {
    /// Our API name (`readFile`).
    pub operation: &'static str,
    /// The foreign method name (`readLocalFile`).
    pub method: &'static str,
    /// Top-level parameter renames, ours → theirs.
    pub params: &'static [(&'static str, &'static str)],
    /// Top-level result renames, ours → theirs.
    pub result: &'static [(&'static str, &'static str)],
}

/// The mapping between our shapes and a foreign executor's.
#[derive(Debug, Clone)]
pub struct ForeignProtocol {
    table: Vec<OperationMap>,
    opaque: &'static [&'static str],
    enum_values: &'static [&'static str],
}

const GREP_PARAMS: &[(&str, &str)] = &[
    ("caseInsensitive", "-i"),
    ("lineNumbers", "-n"),
    ("contextBefore", "-B"),
    ("contextAfter", "-A"),
    ("context", "-C"),
    ("limit", "head_limit"),
];

const FILE_PATH: &[(&str, &str)] = &[("path", "file_path")];

impl ForeignProtocol {
    /// The snake_case desktop-IPC dialect described in the seed: `*LocalFile`
    /// method names, `file_path`, `old_string`/`new_string`, `shell_id`,
    /// `exit_code`, grep flags as `-i`/`-n`/`-A`/`-B`/`-C`, `loc` ranges.
    pub fn snake_case_ipc() -> Self {
        let row = |operation, method, params, result| OperationMap {
            operation,
            method,
            params,
            result,
        };
        Self {
            table: vec![
                row("listFiles", "listLocalFiles", &[("path", "directory")], &[]),
                row("readFile", "readLocalFile", FILE_PATH, FILE_PATH),
                row("readFiles", "readLocalFiles", &[], &[]),
                row("writeFile", "writeLocalFile", FILE_PATH, FILE_PATH),
                row("editFile", "editLocalFile", FILE_PATH, FILE_PATH),
                row("moveFiles", "moveLocalFiles", &[], &[]),
                row("renameFile", "renameLocalFile", &[], &[]),
                row(
                    "searchFiles",
                    "searchLocalFiles",
                    &[("directory", "scope")],
                    &[],
                ),
                row("globFiles", "globLocalFiles", &[], &[]),
                row("grepContent", "grepContent", GREP_PARAMS, &[]),
                row("runCommand", "runCommand", &[], &[]),
                row("getCommandOutput", "getCommandOutput", &[], &[]),
                row("killCommand", "killCommand", &[], &[]),
            ],
            opaque: &["env"],
            enum_values: &["outputMode", "sortBy", "kind"],
        }
    }

    /// The row of `operation`, or of the foreign `method` when `foreign`.
    fn row(&self, name: &str, foreign: bool) -> Result<&OperationMap> {
        self.table
            .iter()
            .find(|r| {
                if foreign {
                    r.method == name
                } else {
                    r.operation == name
                }
            })
            .ok_or_else(|| Error::Unsupported {
                operation: name.to_owned(),
            })
    }

    /// Our request → a foreign call.
    pub fn encode_request(&self, request: &Request) -> Result<ForeignCall> {
        let row = self.row(request.operation(), false)?;
        let mut params = request.params_json();
        if row.operation == "readFile" {
            pack_loc(&mut params);
        }
        Ok(ForeignCall {
            method: row.method.to_owned(),
            params: self.to_foreign(params, row.params),
        })
    }

    /// A foreign call → our request (for serving our runtime to a foreign caller).
    pub fn decode_request(&self, call: &ForeignCall) -> Result<Request> {
        let row = self.row(&call.method, true)?;
        let mut params = self.to_ours(call.params.clone(), row.params);
        if row.operation == "readFile" {
            unpack_loc(&mut params);
        }
        Request::from_api(row.operation, params).map_err(|e| Error::Protocol {
            message: format!(
                "`{}` parameters do not fit `{}`: {e}",
                call.method, row.operation
            ),
        })
    }

    /// Our response → the foreign result value.
    pub fn encode_response(&self, response: &Response) -> Result<Value> {
        let row = self.row(response.operation(), false)?;
        let value = match serde_json::to_value(response) {
            Ok(Value::Object(mut map)) => map.remove("result").unwrap_or(Value::Null),
            Ok(_) => Value::Null,
            Err(e) => {
                return Err(Error::Protocol {
                    message: e.to_string(),
                });
            }
        };
        Ok(self.to_foreign(value, row.result))
    }

    /// A foreign result for `operation` → our response. A foreign error
    /// envelope (`{"success": false, "error": …}`) becomes [`Error::Remote`].
    pub fn decode_response(&self, operation: &str, value: Value) -> Result<Response> {
        let row = self.row(operation, false)?;
        if value.get("success") == Some(&Value::Bool(false)) {
            let error = value.get("error");
            let message = error
                .and_then(|e| e.get("message").or(Some(e)))
                .and_then(Value::as_str)
                .unwrap_or("the foreign executor reported a failure without a message");
            let code = error
                .and_then(|e| e.get("code"))
                .and_then(Value::as_str)
                .unwrap_or("foreign_error");
            return Err(Error::Remote {
                code: code.to_owned(),
                message: message.to_owned(),
            });
        }
        let ours = self.to_ours(value, row.result);
        serde_json::from_value(json!({ "op": row.operation, "result": ours })).map_err(|e| {
            Error::Protocol {
                message: format!("`{}` result does not fit `{operation}`: {e}", row.method),
            }
        })
    }

    fn to_foreign(&self, value: Value, renames: &[(&str, &str)]) -> Value {
        self.convert(value, renames, true, true)
    }

    fn to_ours(&self, value: Value, renames: &[(&str, &str)]) -> Value {
        self.convert(value, renames, false, true)
    }

    fn convert(&self, value: Value, renames: &[(&str, &str)], out: bool, top: bool) -> Value {
        match value {
            Value::Object(map) => {
                let mut converted = Map::with_capacity(map.len());
                for (key, inner) in map {
                    let renamed = top
                        .then(|| {
                            renames.iter().find_map(|(ours, theirs)| {
                                let (from, to) = if out { (ours, theirs) } else { (theirs, ours) };
                                (*from == key).then(|| (*to).to_owned())
                            })
                        })
                        .flatten()
                        .unwrap_or_else(|| if out { snake(&key) } else { camel(&key) });
                    let ours_key = if out { key.as_str() } else { renamed.as_str() };
                    let inner = if self.opaque.contains(&ours_key) {
                        inner
                    } else if self.enum_values.contains(&ours_key) {
                        match inner {
                            Value::String(s) => {
                                Value::String(if out { snake(&s) } else { camel(&s) })
                            }
                            other => other,
                        }
                    } else {
                        self.convert(inner, renames, out, false)
                    };
                    converted.insert(renamed, inner);
                }
                Value::Object(converted)
            }
            Value::Array(items) => Value::Array(
                items
                    .into_iter()
                    .map(|item| self.convert(item, renames, out, false))
                    .collect(),
            ),
            other => other,
        }
    }
}

fn pack_loc(params: &mut Value) {
    if let Value::Object(map) = params {
        let start = map.remove("startLine");
        let end = map.remove("endLine");
        if start.is_some() || end.is_some() {
            map.insert(
                "loc".into(),
                json!([start.unwrap_or(Value::Null), end.unwrap_or(Value::Null)]),
            );
        }
    }
}

fn unpack_loc(params: &mut Value) {
    if let Value::Object(map) = params
        && let Some(Value::Array(loc)) = map.remove("loc")
    {
        for (key, value) in ["startLine", "endLine"].into_iter().zip(loc) {
            if !value.is_null() {
                map.insert(key.into(), value);
            }
        }
    }
}

/// `startLine` → `start_line`.
pub fn snake(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `start_line` → `startLine`.
pub fn camel(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        if c == '_' && !out.is_empty() {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// A foreign executor: takes a method name and foreign params, returns the
/// foreign result (or its error envelope).
#[async_trait]
pub trait ForeignExecutor: Send + Sync {
    /// Invokes `method`.
    async fn invoke(&self, method: &str, params: Value) -> Result<Value>;
}

/// A [`ComputerRuntime`] whose executor speaks a foreign dialect.
#[derive(Debug, Clone)]
pub struct ForeignComputer<E> {
    protocol: ForeignProtocol,
    executor: E,
}

impl<E: ForeignExecutor> ForeignComputer<E> {
    /// Talks to `executor` through `protocol`.
    pub fn new(protocol: ForeignProtocol, executor: E) -> Self {
        Self { protocol, executor }
    }
}

#[async_trait]
impl<E: ForeignExecutor> ComputerRuntime for ForeignComputer<E> {
    async fn call_service(&self, request: Request, _ctx: &ToolContext) -> Result<Response> {
        let call = self.protocol.encode_request(&request)?;
        let reply = self.executor.invoke(&call.method, call.params).await?;
        self.protocol.decode_response(request.operation(), reply)
    }
}

/// Serves `runtime` to a foreign caller: decodes the call, runs it, encodes
/// the reply (a failure as `{"success": false, "error": {code, message}}`).
pub async fn serve_foreign<R: ComputerRuntime + ?Sized>(
    protocol: &ForeignProtocol,
    runtime: &R,
    call: &ForeignCall,
    ctx: &ToolContext,
) -> Value {
    let outcome = match protocol.decode_request(call) {
        Ok(request) => runtime.call_service(request, ctx).await,
        Err(e) => Err(e),
    };
    match outcome.and_then(|response| protocol.encode_response(&response)) {
        Ok(value) => value,
        Err(e) => json!({
            "success": false,
            "error": { "code": e.code().as_str(), "message": e.to_string() },
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_conversion_round_trips() {
        for key in ["startLine", "path", "oldPath", "stdoutTotalBytes", "type"] {
            assert_eq!(camel(&snake(key)), key);
        }
        assert_eq!(snake("shellId"), "shell_id");
        assert_eq!(camel("exit_code"), "exitCode");
    }
}
