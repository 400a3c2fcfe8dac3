//! Choosing an imported document's base URL (see the import docs, step 1).
//!
//! 1. [`ImportOptions::server`] replaces `servers` outright.
//! 2. Else `servers[0].url`, each `{variable}` replaced by the value the
//!    host chose ([`ImportOptions::server_variable`], checked against the
//!    variable's `enum`), else its `default`, else its first `enum` value.
//! 3. A relative result (`/v1`, `""`, `//host`) or a missing `servers`
//!    (the specification's `/`) is resolved against
//!    [`ImportOptions::base_url`]; without one, a protocol-relative URL is
//!    taken as `https:`, and anything else is kept relative and reported
//!    at `/servers` as "needs a base URL": the tools still compile, and
//!    their calls fail with `no_base_url` until
//!    [`ApiDocument::resolve_server`](crate::ApiDocument::resolve_server)
//!    gives one.

use tool_core::pipeline::Violation;

use super::node::Node;
use super::{ImportOptions, invalid};
use crate::document::{ServerTemplate, ServerVariable};
use crate::error::Error;
use crate::server::check_server;
use crate::server::{is_relative, resolve};

/// The server template of `servers[0]` when it has variables (and the
/// host did not replace `servers`).
pub(crate) fn template(root: &Node<'_>, options: &ImportOptions) -> Option<ServerTemplate> {
    if options.server.is_some() {
        return None;
    }
    let first = match root.get("servers") {
        Some(Node::Array(servers)) => servers.first(),
        Some(Node::Object(servers)) => servers.get("0"),
        _ => None,
    }?;
    let url = first.get("url").and_then(Node::as_str)?;
    let Some(Node::Object(variables)) = first.get("variables") else {
        return None;
    };
    let variables = variables
        .iter()
        .map(|(name, variable)| {
            let allowed = variable
                .get("enum")
                .and_then(Node::as_array)
                .map(|list| {
                    list.iter()
                        .filter_map(Node::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default();
            let default = variable
                .get("default")
                .and_then(Node::as_str)
                .map(str::to_owned);
            (name.to_owned(), ServerVariable { default, allowed })
        })
        .collect::<std::collections::BTreeMap<_, _>>();
    if variables.is_empty() {
        return None;
    }
    Some(ServerTemplate {
        url: url.to_owned(),
        variables,
        base_url: options.base_url.clone(),
    })
}

/// The document's base URL (possibly still relative, with a warning).
pub(crate) fn choose(
    root: &Node<'_>,
    options: &ImportOptions,
    warnings: &mut Vec<Violation>,
) -> Result<String, Error> {
    if let Some(server) = &options.server {
        check_server(server).map_err(|m| invalid("/servers", m))?;
        return Ok(server.trim_end_matches('/').to_owned());
    }
    let first = match root.get("servers") {
        Some(Node::Array(servers)) => servers.first(),
        Some(Node::Object(servers)) => servers.get("0"),
        _ => None,
    };
    let url = match first {
        None => "/".to_owned(),
        Some(first) => {
            let Some(template) = first.get("url").and_then(Node::as_str) else {
                return Err(invalid("/servers/0/url", "missing `url`"));
            };
            substitute(template, first, options, warnings)?
        }
    };
    if !is_relative(&url) {
        check_server(&url).map_err(|m| invalid("/servers/0/url", m))?;
        return Ok(url.trim_end_matches('/').to_owned());
    }
    let shown = if first.is_none() {
        "no `servers` (the default is `/`)".to_owned()
    } else {
        format!("the server `{url}` is relative")
    };
    if let Some(base) = &options.base_url {
        return resolve(&url, base).map_err(|e| invalid("/servers", format!("{shown}: {e}")));
    }
    if url.starts_with("//") {
        let absolute = format!("https:{url}");
        if check_server(&absolute).is_ok() {
            warnings.push(Violation {
                pointer: "/servers/0/url".into(),
                message: format!("{shown} (protocol-relative): imported as `{absolute}`"),
            });
            return Ok(absolute.trim_end_matches('/').to_owned());
        }
    }
    warnings.push(Violation {
        pointer: "/servers".into(),
        message: format!(
            "{shown}: needs a base URL (ImportOptions::base_url or server); the tools compile, \
             and their calls fail with `no_base_url` until one is given"
        ),
    });
    Ok(url)
}

/// `template` with every declared variable replaced.
fn substitute(
    template: &str,
    server: &Node<'_>,
    options: &ImportOptions,
    warnings: &mut Vec<Violation>,
) -> Result<String, Error> {
    let mut url = template.to_owned();
    if let Some(Node::Object(variables)) = server.get("variables") {
        for (name, variable) in variables.iter() {
            let at = format!("/servers/0/variables/{}", crate::pointer::escape(name));
            let allowed: Vec<&str> = variable
                .get("enum")
                .and_then(Node::as_array)
                .map(|list| list.iter().filter_map(Node::as_str).collect())
                .unwrap_or_default();
            let default = variable.get("default").and_then(Node::as_str);
            let chosen = options
                .server_variables
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str());
            let value = match (chosen, default, allowed.first()) {
                (Some(value), _, _) => {
                    if !allowed.is_empty() && !allowed.contains(&value) {
                        return Err(invalid(
                            &format!("{at}/enum"),
                            format!(
                                "server variable `{name}` cannot be `{value}` (one of: {})",
                                allowed.join(", ")
                            ),
                        ));
                    }
                    value
                }
                (None, Some(default), _) => {
                    if !allowed.is_empty() && !allowed.contains(&default) {
                        warnings.push(Violation {
                            pointer: format!("{at}/default"),
                            message: format!(
                                "the default `{default}` of server variable `{name}` is not in its enum"
                            ),
                        });
                    }
                    default
                }
                (None, None, Some(first)) => {
                    warnings.push(Violation {
                        pointer: format!("{at}/default"),
                        message: format!(
                            "server variable `{name}` has no default: its first enum value `{first}` is used"
                        ),
                    });
                    first
                }
                (None, None, None) => "",
            };
            url = url.replace(&format!("{{{name}}}"), value);
        }
    }
    if url.contains('{') {
        return Err(invalid(
            "/servers/0/url",
            format!(
                "`{template}` has a variable without a value (declare it with a default, or give ImportOptions::server_variable)"
            ),
        ));
    }
    Ok(url)
}
