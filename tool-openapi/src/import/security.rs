//! `components.securitySchemes` → the schemes a provider's credentials fill.

use tool_core::pipeline::Violation;

use crate::document::{KeyLocation, SchemeKind, SecurityRequirement, SecurityScheme};
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
            "oauth2" => match scheme
                .get("flows")
                .and_then(|f| f.get("clientCredentials"))
                .and_then(|f| f.get("tokenUrl"))
                .and_then(Node::as_str)
            {
                Some(token_url) if !token_url.trim().is_empty() => {
                    SchemeKind::OAuth2ClientCredentials {
                        token_url: token_url.trim().to_owned(),
                    }
                }
                _ => {
                    warn(
                        warnings,
                        "oauth2 without a client credentials flow: no token flow is run; a configured token is sent as `Authorization: Bearer`".into(),
                    );
                    SchemeKind::Bearer
                }
            },
            "openIdConnect" => {
                warn(
                    warnings,
                    "openIdConnect: no discovery or login is run; a configured token is sent as `Authorization: Bearer`".into(),
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

/// The alternatives of a `security` requirement list, in order, and the
/// scheme names they use (each once).
pub(crate) fn requirements(
    requirements: &Node<'_>,
) -> (Vec<Vec<SecurityRequirement>>, Vec<String>) {
    let mut names: Vec<String> = Vec::new();
    let mut alternatives = Vec::new();
    if let Some(list) = requirements.as_array() {
        for requirement in list {
            let Some(map) = requirement.as_object() else {
                continue;
            };
            let mut alternative = Vec::with_capacity(map.len());
            for (name, scopes) in map.iter() {
                if !names.iter().any(|n| n == name) {
                    names.push(name.to_owned());
                }
                let scopes = scopes
                    .as_array()
                    .map(|list| {
                        list.iter()
                            .filter_map(Node::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default();
                alternative.push(SecurityRequirement {
                    scheme: name.to_owned(),
                    scopes,
                });
            }
            alternatives.push(alternative);
        }
    }
    (alternatives, names)
}
