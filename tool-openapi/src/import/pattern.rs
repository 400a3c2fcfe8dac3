//! ECMA-262 `pattern`s the validator does not compile, made to compile.
//!
//! OpenAPI patterns are ECMA-262 regular expressions; the validator
//! (`jsonschema`, through `tool-core`) translates the common dialect, but
//! not ECMA's identity escapes (`\p\{C\}` is `p{C}` in ECMA without the `u`
//! flag), lone braces (`a{`), `[` inside a class, and a few more, so an
//! operation with such a pattern would be lost. Only when an operation's
//! arguments schema fails to compile, each pattern in it (and each
//! `patternProperties` key) is checked alone, and one that fails is
//! replaced by the first candidate that compiles:
//!
//! 1. the intended Unicode property: `\p\{Name\}` → `\p{Name}` (documents
//!    generated from other regex dialects escape the braces);
//! 2. the ECMA-262 reading translated escape by escape: identity escapes
//!    become the literal character, lone `{`/`}` and `[`, `&`, `~` inside
//!    a class are escaped, `\0`, `\cX` and `\b` in a class become `\x..`;
//! 3. nothing: the keyword is dropped (the server still checks the value).
//!
//! Every replacement is reported as a warning of the operation.

use serde_json::{Map, Value};
use tool_core::pipeline::CompiledSchema;

use super::schema::{DATA_KEYWORDS, SCHEMA_MAP_KEYWORDS};

/// One pattern that was replaced: where in the arguments schema, what it
/// was, and what it became (`None`: dropped).
pub(crate) struct PatternFix {
    pub pointer: String,
    pub original: String,
    pub replacement: Option<String>,
}

/// Replaces, in `schema`, every pattern that does not compile.
pub(crate) fn repair(schema: &mut Value) -> Vec<PatternFix> {
    let mut fixes = Vec::new();
    walk(schema, String::new(), &mut fixes);
    fixes
}

fn walk(value: &mut Value, at: String, fixes: &mut Vec<PatternFix>) {
    match value {
        Value::Object(object) => {
            if let Some(Value::String(pattern)) = object.get("pattern")
                && !compiles(pattern)
            {
                let original = pattern.clone();
                let replacement = candidates(&original).into_iter().find(|c| compiles(c));
                match &replacement {
                    Some(fixed) => {
                        object.insert("pattern".into(), Value::String(fixed.clone()));
                    }
                    None => {
                        object.remove("pattern");
                    }
                }
                fixes.push(PatternFix {
                    pointer: format!("{at}/pattern"),
                    original,
                    replacement,
                });
            }
            if let Some(Value::Object(properties)) = object.get_mut("patternProperties") {
                repair_keys(properties, &format!("{at}/patternProperties"), fixes);
            }
            for (key, child) in object.iter_mut() {
                let key_at = crate::pointer::join(&at, key);
                match child {
                    // Names of properties are data, even `default` or `enum`.
                    Value::Object(map) if SCHEMA_MAP_KEYWORDS.contains(&key.as_str()) => {
                        for (name, schema) in map.iter_mut() {
                            walk(schema, crate::pointer::join(&key_at, name), fixes);
                        }
                    }
                    _ if DATA_KEYWORDS.contains(&key.as_str()) => {}
                    _ => walk(child, key_at, fixes),
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter_mut().enumerate() {
                walk(item, format!("{at}/{index}"), fixes);
            }
        }
        _ => {}
    }
}

fn repair_keys(properties: &mut Map<String, Value>, at: &str, fixes: &mut Vec<PatternFix>) {
    let broken: Vec<String> = properties
        .keys()
        .filter(|k| !compiles(k))
        .cloned()
        .collect();
    for original in broken {
        let Some(schema) = properties.remove(&original) else {
            continue;
        };
        let replacement = candidates(&original).into_iter().find(|c| compiles(c));
        if let Some(fixed) = &replacement {
            properties.insert(fixed.clone(), schema);
        }
        fixes.push(PatternFix {
            pointer: crate::pointer::join(at, &original),
            original,
            replacement,
        });
    }
}

/// Whether the validator compiles `pattern` (the same check the whole
/// schema gets).
fn compiles(pattern: &str) -> bool {
    let mut schema = Map::new();
    schema.insert("pattern".into(), Value::String(pattern.to_owned()));
    CompiledSchema::compile(&Value::Object(schema)).is_ok()
}

/// The replacements to try, in order.
fn candidates(pattern: &str) -> Vec<String> {
    let intended = unescape_property_braces(pattern);
    let mut out = Vec::with_capacity(3);
    if intended != pattern {
        out.push(intended.clone());
        out.push(translate(&intended));
    }
    out.push(translate(pattern));
    out
}

/// `\p\{Name\}` / `\P\{Name\}` → `\p{Name}` / `\P{Name}`.
fn unescape_property_braces(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut rest = pattern;
    while let Some(start) = rest.find("\\p\\{").or_else(|| rest.find("\\P\\{")) {
        let (before, from) = rest.split_at(start);
        out.push_str(before);
        let name_start = 4;
        match from[name_start..].find("\\}") {
            Some(len)
                if from[name_start..name_start + len]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '=') =>
            {
                out.push_str(&from[..2]);
                out.push('{');
                out.push_str(&from[name_start..name_start + len]);
                out.push('}');
                rest = &from[name_start + len + 2..];
            }
            _ => {
                out.push_str(&from[..name_start]);
                rest = &from[name_start..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The ECMA-262 (non-Unicode) reading of `pattern`, escape by escape.
fn translate(pattern: &str) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut in_class = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                let Some(&next) = chars.get(i + 1) else {
                    out.push_str("\\\\");
                    break;
                };
                i += 2;
                match next {
                    'd' | 'D' | 'w' | 'W' | 's' | 'S' | 'n' | 'r' | 't' | 'f' | 'v' | 'B' => {
                        out.push('\\');
                        out.push(next);
                    }
                    'b' if in_class => out.push_str("\\x08"),
                    'b' => out.push_str("\\b"),
                    '0' if !chars.get(i).is_some_and(char::is_ascii_digit) => out.push_str("\\x00"),
                    '1'..='9' | 'k' => {
                        out.push('\\');
                        out.push(next);
                    }
                    'c' if chars.get(i).is_some_and(char::is_ascii_alphabetic) => {
                        let letter = chars[i] as u32;
                        out.push_str(&format!("\\x{:02X}", letter % 32));
                        i += 1;
                    }
                    'x' if hex_run(&chars, i, 2) => {
                        out.push_str("\\x");
                        out.extend(&chars[i..i + 2]);
                        i += 2;
                    }
                    'u' if hex_run(&chars, i, 4) => {
                        out.push_str("\\u");
                        out.extend(&chars[i..i + 4]);
                        i += 4;
                    }
                    'p' | 'P' if chars.get(i) == Some(&'{') => {
                        out.push('\\');
                        out.push(next);
                    }
                    other => literal(other, &mut out),
                }
                continue;
            }
            '[' if in_class => out.push_str("\\["),
            '[' => {
                in_class = true;
                out.push('[');
                if chars.get(i + 1) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                if chars.get(i + 1) == Some(&']') {
                    // `[]` matches nothing and `[^]` anything in ECMA.
                    out.push_str("\\x{0}&&[^\\x{0}]");
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            '&' | '~' if in_class => {
                out.push('\\');
                out.push(c);
            }
            '{' if !in_class && !quantifier_at(&chars, i) => out.push_str("\\{"),
            '}' if !in_class && !closes_quantifier(&chars, i) => out.push_str("\\}"),
            other => out.push(other),
        }
        i += 1;
    }
    out
}

/// `c` as a literal: escaped when it means something to the regex engine.
fn literal(c: char, out: &mut String) {
    if c.is_ascii_punctuation() && c != '<' && c != '>' {
        out.push('\\');
    }
    out.push(c);
}

fn hex_run(chars: &[char], from: usize, len: usize) -> bool {
    chars.len() >= from + len && chars[from..from + len].iter().all(char::is_ascii_hexdigit)
}

/// Whether `chars[at]` (a `{`) opens `{n}`, `{n,}` or `{n,m}`.
fn quantifier_at(chars: &[char], at: usize) -> bool {
    let mut i = at + 1;
    let digits = |i: &mut usize| {
        let start = *i;
        while chars.get(*i).is_some_and(char::is_ascii_digit) {
            *i += 1;
        }
        *i > start
    };
    if !digits(&mut i) {
        return false;
    }
    if chars.get(i) == Some(&',') {
        i += 1;
        digits(&mut i);
    }
    chars.get(i) == Some(&'}')
}

/// Whether `chars[at]` (a `}`) closes a quantifier.
fn closes_quantifier(chars: &[char], at: usize) -> bool {
    let mut i = at;
    while i > 0 {
        i -= 1;
        match chars[i] {
            '{' => return quantifier_at(chars, i),
            c if c.is_ascii_digit() || c == ',' => {}
            _ => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ecma_patterns_that_do_not_compile_are_translated() {
        for (pattern, expected) in [
            (r"[^\p\{C\}]*", r"[^\p{C}]*"),
            (
                r"^[\p\{L\}\p\{Z\}\p\{N\}_.:/=+\-@]*$",
                r"^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$",
            ),
        ] {
            let fixed = candidates(pattern).into_iter().find(|c| compiles(c));
            assert_eq!(fixed.as_deref(), Some(expected), "{pattern}");
        }
        // Identity escapes and lone braces read as ECMA-262 does.
        assert_eq!(translate(r"a{\e\<"), r"a\{e<");
        assert_eq!(translate(r"x{2,3}}"), r"x{2,3}\}");
        assert_eq!(translate(r"[a[&]\cJ\0"), r"[a\[\&]\x0A\x00");
        for pattern in [r"a{", r"\e+", r"[[]", r"\p\{C\}+"] {
            assert!(
                !compiles(pattern) || pattern == r"[[]",
                "{pattern} compiled as is"
            );
            let fixed = candidates(pattern).into_iter().find(|c| compiles(c));
            assert!(fixed.is_some(), "{pattern}");
        }
    }

    #[test]
    fn repair_rewrites_schemas_but_never_data() {
        let mut schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "pattern": r"[^\p\{C\}]*\+"},
            "ok": {"type": "string", "pattern": "^a+$", "default": {"pattern": "a{"}},
            // Properties named like data keywords are schemas all the same.
            "default": {"type": "string", "pattern": r"\p\{L\}+"}
        }, "patternProperties": {r"^\p\{L\}$": {"type": "string"}}});
        let fixes = repair(&mut schema);
        let mut pointers: Vec<&str> = fixes.iter().map(|f| f.pointer.as_str()).collect();
        pointers.sort_unstable();
        assert_eq!(
            pointers,
            [
                r"/patternProperties/^\p\{L\}$",
                "/properties/default/pattern",
                "/properties/name/pattern"
            ]
        );
        assert_eq!(schema["properties"]["default"]["pattern"], r"\p{L}+");
        assert_eq!(schema["properties"]["name"]["pattern"], r"[^\p{C}]*\+");
        assert_eq!(schema["properties"]["ok"]["default"]["pattern"], "a{");
        assert!(schema["patternProperties"].get(r"^\p{L}$").is_some());
        CompiledSchema::compile(&schema).unwrap();
    }
}
