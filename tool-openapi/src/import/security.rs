//! `components.securitySchemes` → the schemes a provider's credentials fill.

use tool_core::Violation;

use crate::document::{KeyLocation, SchemeKind, SecurityScheme};
use crate::pointer;

use super::node::Node;
use super::refs::Refs;

/// Every scheme that can be represented; the others are warnings.
pub(crate) fn schemes(
    root: &Node<'_>,
    refs: Refs<'_>,
    warnings: &mut Vec<Violation>,
) -> Vec<SecurityScheme> {
    let Some(map) = root
        .get("components")
        .and_then(|c| c.get("securitySchemes"))
        .and_then(Node::as_object)
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, scheme) in map.iter() {
        let at = pointer::join("/components/securitySchemes", name);
        let warn = |warnings: &mut Vec<Violation>, message: String| {
            warnings.push(Violation {
                pointer: at.clone(),
                message,
            });
        };
        let scheme = match refs.follow(scheme) {
            Ok((scheme, _)) => scheme,
            Err(message) => {
                warn(warnings, message);
                continue;
            }
        };
        let kind = scheme.get("type").and_then(Node::as_str).unwrap_or("");
        let kind = match kind {
            "apiKey" => {
                let location = match scheme.get("in").and_then(Node::as_str) {
                    Some("header") => KeyLocation::Header,
                    Some("query") => KeyLocation::Query,
                    Some("cookie") => KeyLocation::Cookie,
                    other => {
                        warn(
                            warnings,
                            format!(
                                "apiKey `in` must be header, query or cookie, got {other:?}; scheme skipped"
                            ),
                        );
                        continue;
                    }
                };
                let Some(parameter) = scheme.get("name").and_then(Node::as_str) else {
                    warn(warnings, "apiKey scheme without `name`; skipped".into());
                    continue;
                };
                SchemeKind::ApiKey {
                    location,
                    parameter: parameter.to_owned(),
                }
            }
            "http" => match scheme
                .get("scheme")
                .and_then(Node::as_str)
                .map(str::to_ascii_lowercase)
                .as_deref()
            {
                Some("bearer") => SchemeKind::Bearer,
                Some("basic") => SchemeKind::Basic,
                other => {
                    warn(
                        warnings,
                        format!(
                            "http scheme {other:?} is not supported (bearer and basic are); skipped"
                        ),
                    );
                    continue;
                }
            },
            "oauth2" | "openIdConnect" => {
                warn(
                    warnings,
                    format!(
                        "{kind}: no token flow is run; a configured token is sent as `Authorization: Bearer`"
                    ),
                );
                SchemeKind::Bearer
            }
            other => {
                warn(
                    warnings,
                    format!("security scheme type `{other}` is not supported; skipped"),
                );
                continue;
            }
        };
        out.push(SecurityScheme {
            name: name.to_owned(),
            kind,
        });
    }
    out
}

/// The scheme names of a `security` requirement list (every alternative).
pub(crate) fn requirement_names(requirements: &Node<'_>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    if let Some(list) = requirements.as_array() {
        for requirement in list {
            if let Some(map) = requirement.as_object() {
                for name in map.keys() {
                    if !names.iter().any(|n| n == name) {
                        names.push(name.to_owned());
                    }
                }
            }
        }
    }
    names
}
