//! Turning validated arguments into an HTTP request (pure, no I/O).
//!
//! - **Path, query, header and cookie** values are written by their
//!   parameter's `style` and `explode` (see the style module's table),
//!   percent-encoded (everything but `A-Z a-z 0-9 - . _ ~`, delimiters
//!   aside), so `/`, `?`, `#` cannot change the route; a path expansion of
//!   `.` or `..` (URL parsers treat `%2E%2E` as `..`) or of nothing is
//!   refused. Query pairs keep declaration order; booleans and numbers
//!   are written in their JSON spelling.
//! - **Cookies** go in one `Cookie` header, `name=value; …`.
//! - **Headers**: provider headers first, then header parameters (which
//!   replace a provider header of the same name), then credentials (the
//!   security module chooses which).
//! - **`Content-Type`** is the body's declared media type whenever a body
//!   is sent: a `Content-Type` from the provider's headers or from a
//!   header parameter (a narrow or stored document can hold one; an
//!   imported OpenAPI document's is ignored at import, as OpenAPI says) is
//!   not sent beside it or in its place. A request without a body keeps
//!   what the provider or a header parameter gave.
//! - **Body**: `request_body` arguments form a JSON object (a `body`
//!   argument is the whole body), or form pairs, or multipart parts, by
//!   the operation's [`BodyFormat`](crate::BodyFormat) (see the body
//!   module); sent when at least one was given or the document requires a
//!   body (`{}` then), and only for methods that carry a body. A body's
//!   required properties are required once any of its arguments is given. Text bodies are sent as given; file parts and
//!   binary bodies name workspace files, read when the call is sent.
//! - Optional arguments not given (or `null`) are not sent at all.

use http::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Map, Value};

use super::body::{PartPlan, form_pairs, form_text, multipart_parts};
use super::coerce::coerce;
use super::scalar::scalar_text;
use super::style::{cookie_pairs, header_text, path_text, query_pairs};
use crate::credentials::ApiSecret;
use crate::document::{BodyKind, Location, Operation, Parameter, SecurityScheme};
use crate::method::Method;

/// A request ready to send.
#[derive(Debug, Clone)]
pub(crate) struct PlannedRequest {
    pub method: Method,
    pub url: url::Url,
    pub headers: HeaderMap,
    pub body: Option<PlannedBody>,
}

/// A request body before files are read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PlannedBody {
    /// JSON with its media type (`None`: `application/json`).
    Json(Value, Option<String>),
    /// Form-encoded text.
    Form(String),
    Multipart(Vec<PartPlan>),
    /// Text with its media type.
    Text(String, String),
    /// A workspace path whose bytes are the body, with the media type.
    File(String, String),
}

/// Why the arguments cannot be sent: the argument and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ArgumentProblem {
    pub argument: String,
    pub message: String,
}

pub(crate) struct RequestParts<'a> {
    pub server: &'a str,
    pub operation: &'a Operation,
    pub headers: &'a [(HeaderName, HeaderValue)],
    /// The credentials to send, as the security module chose and resolved them.
    pub security: &'a [(&'a SecurityScheme, ApiSecret)],
    /// The operation's arguments schema, when the parameters do not hold
    /// their schemas (a built tool's: its manifest holds them).
    pub arguments: Option<&'a Value>,
}

impl RequestParts<'_> {
    /// The schema sending reads for `param` (its `type`, see
    /// [`coerce`](crate::coerce)): its property of the arguments schema
    /// when there is one, else its own.
    fn schema_of<'s>(&'s self, param: &'s Parameter) -> &'s Value {
        self.arguments
            .and_then(|schema| schema.get("properties"))
            .and_then(|properties| properties.get(param.argument_name()))
            .unwrap_or(&param.schema)
    }
}

pub(crate) fn plan(
    parts: &RequestParts<'_>,
    args: &Map<String, Value>,
) -> Result<PlannedRequest, Vec<ArgumentProblem>> {
    let op = parts.operation;
    let mut problems = Vec::new();
    let mut path = op.path.clone();
    let mut query: Vec<String> = Vec::new();
    let mut cookies: Vec<(String, String)> = Vec::new();
    let mut header_params: Vec<(HeaderName, HeaderValue)> = Vec::new();
    let mut fields: Vec<(&Parameter, Value)> = Vec::new();
    let mut whole_body: Option<Value> = None;
    let mut missing_with_body: Vec<&Parameter> = Vec::new();

    for param in &op.parameters {
        let arg = param.argument_name();
        let problem = |message: String| ArgumentProblem {
            argument: arg.to_owned(),
            message,
        };
        let value = match args.get(arg) {
            None | Some(Value::Null) => {
                if param.required {
                    problems.push(problem("is required".into()));
                } else if param.required_with_body {
                    missing_with_body.push(param);
                }
                continue;
            }
            Some(value) => match coerce(value.clone(), parts.schema_of(param)) {
                Ok(value) => value,
                Err(message) => {
                    problems.push(problem(message));
                    continue;
                }
            },
        };
        match param.location {
            Location::Path => {
                let text = path_text(param, &value);
                if text == "." || text == ".." {
                    problems.push(problem(format!(
                        "`{text}` cannot be a path segment (it would change the route)"
                    )));
                    continue;
                }
                if text.is_empty() {
                    problems.push(problem("a path value cannot be empty".into()));
                    continue;
                }
                path = path.replace(&format!("{{{}}}", param.name), &text);
            }
            Location::Query => query_pairs(param, &value, &mut query),
            Location::Header => {
                let name = match HeaderName::from_bytes(param.name.as_bytes()) {
                    Ok(name) => name,
                    Err(_) => {
                        problems.push(problem(format!(
                            "`{}` is not a valid header name",
                            param.name
                        )));
                        continue;
                    }
                };
                match HeaderValue::from_str(&header_text(param, &value)) {
                    Ok(v) => header_params.push((name, v)),
                    Err(_) => problems.push(problem(
                        "contains characters a header value cannot carry (control characters or non-ASCII)"
                            .into(),
                    )),
                }
            }
            Location::Cookie => cookie_pairs(param, &value, &mut cookies),
            Location::RequestBody => fields.push((param, value)),
            Location::Body => whole_body = Some(value),
        }
    }
    if !fields.is_empty() {
        for param in missing_with_body {
            problems.push(ArgumentProblem {
                argument: param.argument_name().to_owned(),
                message:
                    "is required when the request body is sent (the body's schema requires it)"
                        .into(),
            });
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }

    let base = parts.server.trim_end_matches('/');
    let mut url = match url::Url::parse(&format!("{base}{path}")) {
        Ok(url) => url,
        Err(e) => {
            return Err(vec![ArgumentProblem {
                argument: String::new(),
                message: format!("the request URL does not parse: {e}"),
            }]);
        }
    };

    let mut headers = HeaderMap::new();
    for (name, value) in parts.headers {
        headers.insert(name.clone(), value.clone());
    }
    for (name, value) in header_params {
        headers.insert(name, value);
    }
    for (scheme, secret) in parts.security {
        super::security::apply(scheme, secret, &mut headers, &mut query, &mut cookies);
    }

    if !query.is_empty() {
        let mut text = url.query().unwrap_or("").to_owned();
        for pair in &query {
            if !text.is_empty() {
                text.push('&');
            }
            text.push_str(pair);
        }
        url.set_query(Some(&text));
    }
    if !cookies.is_empty() {
        let line = cookies
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect::<Vec<_>>()
            .join("; ");
        if let Ok(value) = HeaderValue::from_str(&line) {
            headers.insert(http::header::COOKIE, value);
        }
    }
    let body = if op.method.allows_body() {
        planned_body(op, whole_body, fields)
    } else {
        None
    };
    if body.is_some() {
        // The body's media type is the request's only `Content-Type`.
        headers.remove(http::header::CONTENT_TYPE);
    }
    Ok(PlannedRequest {
        method: op.method,
        url,
        headers,
        body,
    })
}

/// The body of the arguments given, by the operation's body format.
fn planned_body(
    op: &Operation,
    whole: Option<Value>,
    fields: Vec<(&Parameter, Value)>,
) -> Option<PlannedBody> {
    let format = op.body_format.as_ref();
    let kind = format.map_or(BodyKind::Json, |f| f.kind);
    let media = || format.map(|f| f.media_type.clone()).unwrap_or_default();
    let json_media = || format.map(|f| f.media_type.clone());
    let encoding = |name: &str| format.and_then(|f| f.encoding.get(name));
    if let Some(value) = whole {
        return Some(match kind {
            BodyKind::Text => PlannedBody::Text(scalar_text(&value, ","), media()),
            BodyKind::Binary => PlannedBody::File(scalar_text(&value, ","), media()),
            _ => PlannedBody::Json(value, json_media()),
        });
    }
    if fields.is_empty() {
        // A required body is sent empty rather than left out.
        return op.body_required.then(|| match kind {
            BodyKind::Form => PlannedBody::Form(String::new()),
            BodyKind::Multipart => PlannedBody::Multipart(Vec::new()),
            BodyKind::Text => PlannedBody::Text(String::new(), media()),
            _ => PlannedBody::Json(Value::Object(Map::new()), json_media()),
        });
    }
    Some(match kind {
        BodyKind::Form => {
            let mut pairs = Vec::new();
            for (param, value) in &fields {
                form_pairs(&param.name, value, encoding(&param.name), &mut pairs);
            }
            PlannedBody::Form(form_text(&pairs))
        }
        BodyKind::Multipart => {
            let mut parts = Vec::new();
            for (param, value) in &fields {
                multipart_parts(
                    &param.name,
                    value,
                    param.file,
                    encoding(&param.name),
                    &mut parts,
                );
            }
            PlannedBody::Multipart(parts)
        }
        _ => PlannedBody::Json(
            Value::Object(
                fields
                    .into_iter()
                    .map(|(param, value)| (param.name.clone(), value))
                    .collect::<Map<String, Value>>(),
            ),
            json_media(),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::narrow::parse_narrow;
    use serde_json::json;

    fn planned(args: Value) -> Result<PlannedRequest, Vec<ArgumentProblem>> {
        let (doc, _) = parse_narrow(
            r#"{"server":"http://h.test/base/","description":"d","paths":{"/f/{name}":{"post":{
            "operationId":"f","parameters":[
            {"name":"name","in":"path","type":"str"},
            {"name":"n","in":"query","type":"int"},
            {"name":"X-Mode","in":"header","type":"str"},
            {"name":"sid","in":"cookie","type":"str"},
            {"name":"flag","in":"request_body","type":"bool"}]}}}}"#,
        )
        .unwrap();
        let parts = RequestParts {
            server: &doc.server,
            operation: &doc.operations[0],
            headers: &[(
                HeaderName::from_static("x-mode"),
                HeaderValue::from_static("provider"),
            )],
            security: &[],
            arguments: None,
        };
        let Value::Object(args) = args else { panic!() };
        plan(&parts, &args)
    }

    #[test]
    fn path_values_cannot_change_the_route() {
        let r = planned(json!({"name": "a/b?c#d"})).unwrap();
        assert_eq!(r.url.as_str(), "http://h.test/base/f/a%2Fb%3Fc%23d");
        let r = planned(json!({"name": "..%2f x"})).unwrap();
        assert_eq!(r.url.path(), "/base/f/..%252f%20x");
        for dots in ["..", "."] {
            let e = planned(json!({ "name": dots })).unwrap_err();
            assert_eq!(e[0].argument, "name");
        }
    }

    #[test]
    fn optional_arguments_are_not_sent_and_headers_override() {
        let r = planned(json!({"name": "x"})).unwrap();
        assert_eq!(r.url.query(), None);
        assert!(r.body.is_none(), "no body without body arguments");
        assert_eq!(r.headers["x-mode"], "provider");
        assert!(r.headers.get("cookie").is_none());
        let r = planned(
            json!({"name": "x", "n": "5", "X-Mode": "param", "sid": "a b;c", "flag": false}),
        )
        .unwrap();
        assert_eq!(r.url.query(), Some("n=5"));
        assert_eq!(r.headers["x-mode"], "param");
        assert_eq!(r.headers["cookie"], "sid=a%20b%3Bc");
        assert_eq!(
            r.body,
            Some(PlannedBody::Json(json!({"flag": false}), None))
        );
        let e = planned(json!({"name": "x", "n": "five"})).unwrap_err();
        assert_eq!(e[0].argument, "n");
        let e = planned(json!({})).unwrap_err();
        assert_eq!(e[0].message, "is required");
    }

    #[test]
    fn the_body_media_type_replaces_a_content_type_header() {
        let (doc, _) = parse_narrow(
            r#"{"server":"http://h.test","description":"d","paths":{"/f":{"post":{
            "operationId":"f","parameters":[
            {"name":"Content-Type","in":"header","type":"str"},
            {"name":"flag","in":"request_body","type":"bool"}]}}}}"#,
        )
        .unwrap();
        let parts = RequestParts {
            server: &doc.server,
            operation: &doc.operations[0],
            headers: &[(
                http::header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain"),
            )],
            security: &[],
            arguments: None,
        };
        let Value::Object(args) = json!({"Content-Type": "application/x-tar", "flag": true}) else {
            panic!()
        };
        let r = plan(&parts, &args).unwrap();
        assert!(r.headers.get(http::header::CONTENT_TYPE).is_none());
        assert_eq!(r.body, Some(PlannedBody::Json(json!({"flag": true}), None)));
        // No body: the header parameter is what was given.
        let Value::Object(args) = json!({"Content-Type": "application/x-tar"}) else {
            panic!()
        };
        let r = plan(&parts, &args).unwrap();
        assert_eq!(r.headers[http::header::CONTENT_TYPE], "application/x-tar");
    }

    proptest::proptest! {
        #[test]
        fn any_path_value_stays_one_segment_and_decodes_back(value in "\\PC{1,40}") {
            proptest::prop_assume!(value != "." && value != "..");
            let r = planned(json!({ "name": value })).unwrap();
            let path = r.url.path().to_owned();
            let segment = path.strip_prefix("/base/f/").unwrap();
            proptest::prop_assert!(!segment.contains('/'), "{}", path);
            proptest::prop_assert_eq!(r.url.query(), None);
            proptest::prop_assert_eq!(r.url.fragment(), None);
            let decoded = percent_encoding::percent_decode_str(segment).decode_utf8().unwrap();
            proptest::prop_assert_eq!(decoded, value.as_str());
        }
    }
}
