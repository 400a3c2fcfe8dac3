//! Parameter values written by their OpenAPI `style` and `explode`
//! (OpenAPI 3.1.1 § "Style Examples", which follows RFC 6570 level 4).
//!
//! For a parameter `color` holding the string `blue`, the array
//! `["blue", "black", "brown"]` or the object `{"R": 100, "G": 200, "B": 150}`:
//!
//! | style | explode | location | string | array | object |
//! |---|---|---|---|---|---|
//! | matrix | false | path | `;color=blue` | `;color=blue,black,brown` | `;color=R,100,G,200,B,150` |
//! | matrix | true | path | `;color=blue` | `;color=blue;color=black;color=brown` | `;R=100;G=200;B=150` |
//! | label | false | path | `.blue` | `.blue,black,brown` | `.R,100,G,200,B,150` |
//! | label | true | path | `.blue` | `.blue.black.brown` | `.R=100.G=200.B=150` |
//! | simple | false | path, header | `blue` | `blue,black,brown` | `R,100,G,200,B,150` |
//! | simple | true | path, header | `blue` | `blue,black,brown` | `R=100,G=200,B=150` |
//! | form | false | query, cookie | `color=blue` | `color=blue,black,brown` | `color=R,100,G,200,B,150` |
//! | form | true | query, cookie | `color=blue` | `color=blue&color=black&color=brown` | `R=100&G=200&B=150` |
//! | spaceDelimited | false | query | | `color=blue%20black%20brown` | `color=R%20100%20G%20200%20B%20150` |
//! | pipeDelimited | false | query | | `color=blue\|black\|brown` | `color=R\|100\|G\|200\|B\|150` |
//! | deepObject | true | query | | | `color[R]=100&color[G]=200&color[B]=150` |
//!
//! A cookie's exploded pairs are separate cookies (`color=blue; color=black`).
//! `spaceDelimited` and `pipeDelimited` arrays exploded are written as
//! `form` exploded; a primitive in those styles or in `deepObject` is
//! written as `form`.
//!
//! - **Encoding**: names and values are percent-encoded (everything but
//!   RFC 3986 unreserved characters) in paths, queries and cookies; the
//!   delimiters above are written as they are. A query parameter with
//!   `allowReserved` keeps `:/?@!$'()*,;[]` as they are (`#`, `&`, `=` and
//!   `+` stay encoded: they would end the value or the URL). Header values
//!   are not encoded (a header carries text).
//! - **Empty values**: an empty string is `color=` (form), `.` (label),
//!   `;color` (matrix). In a query, `color=` is sent for `""` only where
//!   the document allows it (`allowEmptyValue: true`, OpenAPI 3.0) or the
//!   parameter is required; an optional query string given as `""`
//!   without `allowEmptyValue` is not sent, and a required one's schema
//!   says `minLength: 1` (see [`non_empty_query`](crate::sendable::non_empty_query)), so `""` is refused
//!   before sending unless its `enum`/`const` lists it. An empty array or object not exploded is `color=`;
//!   exploded, it sends nothing unless the parameter is required, then
//!   `color=`. A path value that expands to nothing is refused (the
//!   arguments schema already says `minLength: 1`, see [`sendable`](crate::sendable::sendable)).
//! - A parameter declared with a JSON `content` type (not a `schema`) is
//!   its value's compact JSON text, written as a string
//!   (`filter=%7B%22a%22%3A1%7D`).
//! - Items of an array or values of an object that are themselves arrays
//!   or objects (no style defines them) are written as compact JSON,
//!   except in `deepObject`, where nested objects nest their keys
//!   (`color[a][b]=1`).

use std::borrow::Cow;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Map, Value};

use crate::document::{Parameter, ParameterStyle};

/// Kept as they are in a path segment, a query component or a cookie
/// value: RFC 3986 unreserved.
const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// [`UNRESERVED`] and the reserved characters `allowReserved` keeps.
const RESERVED_KEPT: &AsciiSet = &UNRESERVED
    .remove(b':')
    .remove(b'/')
    .remove(b'?')
    .remove(b'@')
    .remove(b'!')
    .remove(b'$')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b',')
    .remove(b';')
    .remove(b'[')
    .remove(b']');

/// The value as written: for a parameter declared with a JSON `content`
/// type, its compact JSON text (then written as a string by the style).
fn content_value<'v>(param: &Parameter, value: &'v Value) -> Cow<'v, Value> {
    let json = param.content_type.as_deref().is_some_and(|media| {
        let essence = media.split(';').next().unwrap_or("").trim();
        essence.eq_ignore_ascii_case("application/json") || essence.ends_with("+json")
    });
    if json {
        Cow::Owned(Value::String(value.to_string()))
    } else {
        Cow::Borrowed(value)
    }
}

/// The style and explode a parameter is written with.
fn style_of(param: &Parameter) -> (ParameterStyle, bool) {
    let style = param
        .style
        .filter(|s| s.fits(param.location))
        .unwrap_or_else(|| ParameterStyle::default_for(param.location));
    let explode = param.explode.unwrap_or(style == ParameterStyle::Form);
    (style, explode)
}

/// The text of a primitive (strings as they are, numbers and booleans in
/// JSON spelling, null empty; arrays and objects as compact JSON).
fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn encode(text: &str, set: &'static AsciiSet) -> String {
    utf8_percent_encode(text, set).to_string()
}

/// The set [`encode_with`] uses for names and values outside a style
/// (credentials): RFC 3986 unreserved kept.
pub(crate) const UNRESERVED_SET: &AsciiSet = UNRESERVED;

/// `text` percent-encoded with `set`.
pub(crate) fn encode_with(text: &str, set: &'static AsciiSet) -> String {
    encode(text, set)
}

/// The `(key, value)` texts of an object's entries.
fn entries(map: &Map<String, Value>) -> impl Iterator<Item = (String, String)> + '_ {
    map.iter().map(|(k, v)| (k.clone(), text(v)))
}

/// A path value's expansion, encoded (empty: nothing to send).
pub(crate) fn path_text(param: &Parameter, value: &Value) -> String {
    let value = &*content_value(param, value);
    let (style, explode) = style_of(param);
    let e = |t: &str| encode(t, UNRESERVED);
    let name = e(&param.name);
    match style {
        ParameterStyle::Label => {
            let (sep, pairs) = if explode { (".", "=") } else { (",", ",") };
            format!(".{}", joined(value, sep, pairs, &e))
        }
        ParameterStyle::Matrix => match value {
            Value::Array(items) if explode => items
                .iter()
                .map(|i| format!(";{name}={}", e(&text(i))))
                .collect(),
            Value::Object(map) if explode => entries(map)
                .map(|(k, v)| format!(";{}={}", e(&k), e(&v)))
                .collect(),
            Value::String(s) if s.is_empty() => format!(";{name}"),
            other => format!(";{name}={}", joined(other, ",", ",", &e)),
        },
        _ => joined(value, ",", if explode { "=" } else { "," }, &e),
    }
}

/// A header value (simple style; not encoded).
pub(crate) fn header_text(param: &Parameter, value: &Value) -> String {
    let value = &*content_value(param, value);
    let (_, explode) = style_of(param);
    joined(value, ",", if explode { "=" } else { "," }, &|t: &str| {
        t.to_owned()
    })
}

/// A primitive as itself, an array's items joined by `sep`, an object's
/// keys and values joined by `pair` and the entries by `sep`, each text
/// written through `e`.
fn joined(value: &Value, sep: &str, pair: &str, e: &dyn Fn(&str) -> String) -> String {
    match value {
        Value::Array(items) => items
            .iter()
            .map(|i| e(&text(i)))
            .collect::<Vec<_>>()
            .join(sep),
        Value::Object(map) => entries(map)
            .map(|(k, v)| format!("{}{pair}{}", e(&k), e(&v)))
            .collect::<Vec<_>>()
            .join(sep),
        other => e(&text(other)),
    }
}

/// A query parameter's pairs, each `key=value` already encoded, appended
/// to `out`.
pub(crate) fn query_pairs(param: &Parameter, value: &Value, out: &mut Vec<String>) {
    let value = &*content_value(param, value);
    let (style, explode) = style_of(param);
    let set = if param.allow_reserved {
        RESERVED_KEPT
    } else {
        UNRESERVED
    };
    let e = |t: &str| encode(t, set);
    let name = encode(&param.name, UNRESERVED);
    if value.as_str() == Some("") && !param.allow_empty_value && !param.required {
        // An empty value is not one the document allows: nothing to send.
        return;
    }
    let empty = match value {
        Value::Array(items) => items.is_empty(),
        Value::Object(map) => map.is_empty(),
        _ => false,
    };
    if empty {
        if !explode || param.required {
            out.push(format!("{name}="));
        }
        return;
    }
    match (style, value) {
        (ParameterStyle::DeepObject, Value::Object(map)) => {
            deep_pairs(&name, map, &e, out);
        }
        (
            ParameterStyle::SpaceDelimited | ParameterStyle::PipeDelimited,
            Value::Array(_) | Value::Object(_),
        ) if !explode || value.is_object() => {
            let sep = if style == ParameterStyle::SpaceDelimited {
                "%20"
            } else {
                "|"
            };
            out.push(format!("{name}={}", joined(value, sep, sep, &e)));
        }
        (_, Value::Array(items)) if explode => {
            out.extend(items.iter().map(|i| format!("{name}={}", e(&text(i)))));
        }
        (_, Value::Object(map)) if explode => {
            out.extend(entries(map).map(|(k, v)| format!("{}={}", encode(&k, UNRESERVED), e(&v))));
        }
        (_, other) => out.push(format!("{name}={}", joined(other, ",", ",", &e))),
    }
}

/// `name[key]=value` pairs of an object, nested objects nesting their
/// keys, arrays repeating the key.
fn deep_pairs(
    name: &str,
    map: &Map<String, Value>,
    e: &dyn Fn(&str) -> String,
    out: &mut Vec<String>,
) {
    for (key, value) in map {
        let key = format!("{name}[{}]", encode(key, UNRESERVED));
        match value {
            Value::Object(inner) => deep_pairs(&key, inner, e, out),
            Value::Array(items) => {
                out.extend(items.iter().map(|i| format!("{key}={}", e(&text(i)))));
            }
            other => out.push(format!("{key}={}", e(&text(other)))),
        }
    }
}

/// A cookie parameter's cookies, `(name, value)` already encoded,
/// appended to `out` (form style; exploded items are separate cookies).
pub(crate) fn cookie_pairs(param: &Parameter, value: &Value, out: &mut Vec<(String, String)>) {
    let value = &*content_value(param, value);
    let (_, explode) = style_of(param);
    let e = |t: &str| encode(t, UNRESERVED);
    let name = e(&param.name);
    match value {
        Value::Array(items) if explode && !items.is_empty() => {
            out.extend(items.iter().map(|i| (name.clone(), e(&text(i)))));
        }
        Value::Object(map) if explode && !map.is_empty() => {
            out.extend(entries(map).map(|(k, v)| (e(&k), e(&v))));
        }
        other => out.push((name, joined(other, ",", ",", &e))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Location;
    use serde_json::json;
    use std::sync::Arc;

    fn param(
        location: Location,
        style: Option<ParameterStyle>,
        explode: Option<bool>,
    ) -> Parameter {
        Parameter {
            name: "color".into(),
            argument: None,
            location,
            description: None,
            required: false,
            schema: Arc::new(json!({})),
            file: false,
            style,
            explode,
            allow_reserved: false,
            required_with_body: false,
            allow_empty_value: false,
            content_type: None,
        }
    }

    #[test]
    fn empty_query_strings_are_sent_only_where_allowed_or_required() {
        let mut p = param(Location::Query, None, None);
        let mut out = Vec::new();
        query_pairs(&p, &json!(""), &mut out);
        assert!(out.is_empty(), "{out:?}");
        p.allow_empty_value = true;
        query_pairs(&p, &json!(""), &mut out);
        assert_eq!(out, ["color="]);
        out.clear();
        p.allow_empty_value = false;
        p.required = true;
        query_pairs(&p, &json!(""), &mut out);
        assert_eq!(out, ["color="]);
        // Arrays follow their style: not exploded, empty is `color=`.
        out.clear();
        p.required = false;
        p.explode = Some(false);
        query_pairs(&p, &json!([]), &mut out);
        assert_eq!(out, ["color="]);
    }

    #[test]
    fn json_content_parameters_are_sent_as_json_text() {
        let mut p = param(Location::Query, None, None);
        p.content_type = Some("application/json".into());
        let mut out = Vec::new();
        query_pairs(&p, &json!({"a": [1, 2]}), &mut out);
        assert_eq!(out, ["color=%7B%22a%22%3A%5B1%2C2%5D%7D"]);
        p.location = Location::Header;
        assert_eq!(header_text(&p, &json!({"a": 1})), r#"{"a":1}"#);
    }

    #[test]
    fn allow_reserved_keeps_reserved_but_never_pair_or_url_delimiters() {
        let mut p = param(Location::Query, None, None);
        p.allow_reserved = true;
        let mut out = Vec::new();
        query_pairs(&p, &json!("a/b:c,d&e=f#g+h i"), &mut out);
        assert_eq!(out, ["color=a/b:c,d%26e%3Df%23g%2Bh%20i"]);
        p.allow_reserved = false;
        out.clear();
        query_pairs(&p, &json!("a/b"), &mut out);
        assert_eq!(out, ["color=a%2Fb"]);
    }
}
