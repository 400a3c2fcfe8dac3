//! `components.securitySchemes` → the schemes a provider's credentials fill.

use serde_json::Value;
use tool_core::Violation;

use crate::document::{KeyLocation, SchemeKind, SecurityScheme};
use crate::pointer;

use super::refs::Refs;

/// Every scheme that can be represented; the others are warnings.
pub(crate) fn schemes(
    root: &Value,
    refs: Refs<'_>,
    warnings: &mut Vec<Violation>,
) -> Vec<SecurityScheme> {
    let Some(Value::Object(map)) = root.pointer("/components/securitySchemes") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, scheme) in map {
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
        let kind = scheme.get("type").and_then(Value::as_str).unwrap_or("");
        let kind = match kind {
            "apiKey" => {
                let location = match scheme.get("in").and_then(Value::as_str) {
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
                let Some(parameter) = scheme.get("name").and_then(Value::as_str) else {
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
                .and_then(Value::as_str)
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
            name: name.clone(),
            kind,
        });
    }
    out
}

/// The scheme names of a `security` requirement list (every alternative).
pub(crate) fn requirement_names(requirements: &Value) -> Vec<String> {
    let mut names = Vec::new();
    if let Value::Array(list) = requirements {
        for requirement in list {
            if let Value::Object(map) = requirement {
                for name in map.keys() {
                    if !names.contains(name) {
                        names.push(name.clone());
                    }
                }
            }
        }
    }
    names
}
