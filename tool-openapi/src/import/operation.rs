//! One OpenAPI operation → one normalised [`Operation`].

use std::sync::Arc;

use serde_json::{Value, json};
use tool_core::pipeline::Violation;

use crate::document::{Location, Operation, Parameter, ParameterStyle, SecurityScheme};
use crate::method::Method;
use crate::pointer;

use super::description::short;
use super::keys::{Kind, check_lazily, check_node};
use super::node::{Node, Object};
use super::refs::Refs;
use super::schema::SchemaConverter;
use super::schema::shared::SharedDefs;
use super::security::requirements as security_requirements;

/// Header parameters OpenAPI says to ignore (the client sets them).
const IGNORED_HEADERS: [&str; 3] = ["accept", "content-type", "authorization"];

pub(crate) struct Context<'c, 'a> {
    pub refs: Refs<'a>,
    pub root_security: Option<&'c Node<'c>>,
    pub schemes: &'c [SecurityScheme],
    /// The document's `openapi` version (for the unknown-key tables).
    pub version: &'c str,
}

/// An operation converted.
pub(crate) struct Converted {
    pub operation: Operation,
    /// What fitting it to the tool budget cost, when anything.
    pub shortened: Option<super::budget::Shortened>,
    /// The shared definitions it reaches (with their distance), when its
    /// `definitions` are not its own (see the budget module's `Fitted`).
    pub shared: Vec<(usize, usize)>,
    /// When it was shortened: the JSON length of its `$defs` (`shared` are
    /// then the definitions it reaches without descriptions, see the
    /// budget module's `Cut`).
    pub plain: Option<usize>,
    /// The size of its arguments and description as fitted (see the
    /// budget module's `fit`).
    pub own_len: usize,
}

/// Converts the operation at `at`, fitted to `budget` (see the budget
/// module); `Err` says why it cannot be represented.
#[allow(clippy::too_many_arguments)]
pub(crate) fn convert<'a, 'b>(
    cx: &Context<'_, 'a>,
    defs: &mut SharedDefs<'a>,
    reuse: &mut super::Reuse,
    path: &str,
    method: Method,
    path_item: &'b Object<'b>,
    op: &'b Object<'b>,
    at: &str,
    budget: usize,
    warnings: &mut Vec<Violation>,
) -> Result<Converted, String> {
    let mut converter = SchemaConverter::new(defs);
    let mut warn = |pointer: String, message: String| warnings.push(Violation { pointer, message });

    // Path-level parameters (level 0), then operation-level ones (1)
    // replacing them by (name, in). Their pointers are written only for a
    // warning or a failure.
    let list_at = |level: usize| match level {
        0 => pointer::join(&pointer::join("/paths", path), "parameters"),
        _ => pointer::join(at, "parameters"),
    };
    let item_pointer = |level: usize, index: usize| format!("{}/{index}", list_at(level));
    let mut raw: Vec<((usize, usize), &Object<'_>)> = Vec::new();
    for (level, list) in [path_item.get("parameters"), op.get("parameters")]
        .into_iter()
        .enumerate()
    {
        let Some(list) = list else { continue };
        let Some(list) = list.as_array() else {
            return Err(format!("{}: `parameters` must be a list", list_at(level)));
        };
        for (index, item) in list.iter().enumerate() {
            if level == 1
                && let Some(object) = item.as_object()
            {
                // Path-level parameters are checked once with their path item.
                check_lazily(
                    object,
                    Kind::Parameter,
                    &|| item_pointer(level, index),
                    cx.version,
                    &mut warn,
                );
            }
            let (resolved, _) = cx
                .refs
                .follow(item)
                .map_err(|e| format!("{}: {e}", item_pointer(level, index)))?;
            let Some(param) = resolved.as_object() else {
                return Err(format!(
                    "{}: a parameter must be an object",
                    item_pointer(level, index)
                ));
            };
            let this = name_and_location(param);
            raw.retain(|(_, existing)| name_and_location(existing) != this);
            raw.push(((level, index), param));
        }
    }

    let mut parameters: Vec<Parameter> = Vec::new();
    for ((level, index), param) in raw {
        let item_at = || item_pointer(level, index);
        let Some(name) = param
            .get("name")
            .and_then(Node::as_str)
            .filter(|n| !n.is_empty())
        else {
            // Nothing can be sent for it; a path placeholder it was meant
            // for still fails below.
            warn(
                item_at(),
                "a parameter without a `name` cannot be sent: left out".to_owned(),
            );
            continue;
        };
        let location = match param.get("in").and_then(Node::as_str) {
            Some("path") => Location::Path,
            Some("query") => Location::Query,
            Some("header") => Location::Header,
            Some("cookie") => Location::Cookie,
            other => {
                return Err(format!(
                    "{}: parameter `{name}` has `in: {}` (path, query, header or cookie)",
                    item_at(),
                    other.unwrap_or("missing")
                ));
            }
        };
        if location == Location::Header
            && IGNORED_HEADERS.contains(&name.to_ascii_lowercase().as_str())
        {
            warn(
                item_at(),
                format!("header parameter `{name}` is ignored (the client sets it)"),
            );
            continue;
        }
        if location == Location::Header && http::HeaderName::from_bytes(name.as_bytes()).is_err() {
            return Err(format!(
                "{}: `{name}` is not a valid header name",
                item_at()
            ));
        }
        let schema = match (param.get("schema"), param.get("content")) {
            (Some(schema), _) => reuse.arguments.argument(&mut converter, schema),
            (None, Some(Node::Object(content))) => {
                match content.values().next().and_then(|m| m.get("schema")) {
                    Some(schema) => reuse.arguments.argument(&mut converter, schema),
                    None => Arc::new(json!({})),
                }
            }
            _ => Arc::new(json!({"type": "string"})),
        };
        let required = location == Location::Path
            || param
                .get("required")
                .and_then(Node::as_bool)
                .unwrap_or(false);
        let style = match param.get("style").and_then(Node::as_str) {
            None => None,
            Some(text) => match ParameterStyle::parse(text) {
                Some(style) if style.fits(location) => Some(style),
                _ => {
                    warn(
                        item_at(),
                        format!(
                            "`style: {text}` does not fit a {} parameter: its default style is used",
                            location.as_str()
                        ),
                    );
                    None
                }
            },
        };
        let allow_empty_value = location == Location::Query
            && param.get("allowEmptyValue").and_then(Node::as_bool) == Some(true);
        let schema = if matches!(location, Location::Path | Location::Header) {
            Arc::new(crate::sendable::sendable(location, Value::clone(&schema)))
        } else if location == Location::Query && required && !allow_empty_value {
            crate::sendable::non_empty_query(&schema).map_or(schema, Arc::new)
        } else {
            schema
        };
        parameters.push(Parameter {
            name: name.to_owned(),
            argument: None,
            location,
            description: param.get("description").and_then(Node::as_str).map(short),
            required,
            schema,
            file: false,
            style,
            explode: param.get("explode").and_then(Node::as_bool),
            allow_reserved: location == Location::Query
                && param.get("allowReserved").and_then(Node::as_bool) == Some(true),
            required_with_body: false,
            allow_empty_value,
            content_type: match (param.get("schema"), param.get("content")) {
                (None, Some(Node::Object(content))) => content.keys().next().map(str::to_owned),
                _ => None,
            },
        });
    }

    // Every placeholder needs a path parameter.
    let placeholders = pointer::placeholders(path).map_err(|e| format!("path `{path}`: {e}"))?;
    for placeholder in &placeholders {
        if !parameters
            .iter()
            .any(|p| p.location == Location::Path && p.name == *placeholder)
        {
            return Err(format!(
                "the path placeholder `{{{placeholder}}}` has no `in: path` parameter"
            ));
        }
    }
    parameters.retain(|p| p.location != Location::Path || placeholders.contains(&p.name.as_str()));
    distinct_arguments(&mut parameters, at, &mut warn);

    let mut body_format = None;
    let mut body_required = false;
    if let Some(body) = op.get("requestBody") {
        let body_at = pointer::join(at, "requestBody");
        check_node(body, Kind::RequestBody, &body_at, cx.version, &mut warn);
        let (body, _) = cx
            .refs
            .follow(body)
            .map_err(|e| format!("{body_at}: {e}"))?;
        body_format = super::body::request_body(
            &mut converter,
            &mut reuse.splits,
            body,
            &body_at,
            method,
            &mut parameters,
            &mut warn,
        )?;
        // A required body is sent even when none of its arguments is
        // given (one whose schema requires nothing: `{}`).
        body_required = body.get("required").and_then(Node::as_bool) == Some(true)
            && method.allows_body()
            && body
                .get("content")
                .and_then(Node::as_object)
                .is_some_and(|content| content.len() > 0);
    }

    for (code, response) in op
        .get("responses")
        .and_then(Node::as_object)
        .into_iter()
        .flat_map(Object::iter)
    {
        // Its pointer is written only for a warning.
        let response_at = || pointer::join(&pointer::join(at, "responses"), code);
        if let Some(object) = response.as_object() {
            check_lazily(object, Kind::Response, &response_at, cx.version, &mut warn);
        }
        if let Err(e) = cx.refs.follow(response) {
            warn(response_at(), e);
        }
    }

    let (security_requirements, security) = match op.get("security").or(cx.root_security) {
        Some(requirements) => {
            let (alternatives, names) = security_requirements(requirements);
            for name in &names {
                if !cx.schemes.iter().any(|s| &s.name == name) {
                    warn(
                        pointer::join(at, "security"),
                        format!("unknown or unsupported security scheme `{name}`"),
                    );
                }
            }
            (alternatives, names)
        }
        None => (Vec::new(), Vec::new()),
    };

    let (reached, cut, defs) = converter.finish(parameters.iter().map(|p| &*p.schema))?;
    if cut {
        warn(
            at.to_owned(),
            format!(
                "an argument schema nested deeper than {} levels was cut to {{}} (accepts anything there)",
                super::schema::MAX_DEPTH
            ),
        );
    }
    let mut description = match (
        op.get("summary").and_then(Node::as_str),
        op.get("description").and_then(Node::as_str),
    ) {
        (Some(s), Some(d)) if !d.trim().is_empty() && d.trim() != s.trim() => {
            format!("{}\n\n{}", s.trim(), d.trim())
        }
        (Some(s), _) => s.trim().to_owned(),
        (None, Some(d)) => d.trim().to_owned(),
        (None, None) => String::new(),
    };
    description = short(&description);
    // Kept until the tool is dropped: no room for more (pushes doubled it).
    parameters.shrink_to_fit();
    if op.get("deprecated").and_then(Node::as_bool) == Some(true) {
        description.insert_str(0, "(Deprecated) ");
    }
    // Held once before they are measured (measuring holds them).
    for parameter in &mut parameters {
        reuse.interned.share_in_place(&mut parameter.schema);
    }
    let (fitted, own_len) = super::budget::fit(
        defs,
        reached,
        &mut parameters,
        &mut description,
        budget,
        &mut reuse.lengths,
    );
    let (definitions, shortened, shared, plain) = match fitted {
        super::budget::Fitted::Shared(reached) => (Default::default(), None, reached, None),
        super::budget::Fitted::Shortened(cut, shortened) => {
            (cut.stubs, Some(*shortened), cut.reached, Some(cut.len))
        }
    };
    let operation = Operation {
        operation_id: String::new(),
        method,
        path: path.to_owned(),
        description,
        parameters,
        human_intervention: None,
        security,
        security_requirements,
        body_format,
        body_required,
        definitions,
        shared_definitions: Default::default(),
        compiled: Default::default(),
    };
    Ok(Converted {
        operation,
        shortened,
        shared,
        plain,
        own_len,
    })
}

/// What a parameter is unique by: its `name` and `in`.
fn name_and_location<'o>(parameter: &'o Object<'_>) -> (&'o str, &'o str) {
    let text = |key| parameter.get(key).and_then(Node::as_str).unwrap_or("");
    (text("name"), text("in"))
}

/// Parameters are unique by `name` and `in`, arguments by name alone: a
/// parameter whose name an earlier one has (a path `token` and a query
/// `token`) becomes the argument `<in>_<name>` (then `_2`, …), a warning.
fn distinct_arguments(
    parameters: &mut [Parameter],
    at: &str,
    warn: &mut impl FnMut(String, String),
) {
    for index in 1..parameters.len() {
        let (earlier, rest) = parameters.split_at_mut(index);
        let parameter = &mut rest[0];
        let taken = |candidate: &str| earlier.iter().any(|p| p.argument_name() == candidate);
        if !taken(parameter.argument_name()) {
            continue;
        }
        let base = format!("{}_{}", parameter.location.as_str(), parameter.name);
        let mut candidate = base.clone();
        let mut n = 2;
        while taken(&candidate) {
            candidate = format!("{base}_{n}");
            n += 1;
        }
        warn(
            pointer::join(at, "parameters"),
            format!(
                "the {} parameter `{}` shares its name with another parameter: its argument is `{candidate}`",
                parameter.location.as_str(),
                parameter.name
            ),
        );
        parameter.argument = Some(candidate);
    }
}
