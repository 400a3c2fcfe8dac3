//! Operation ids from real documents: generated when missing, sanitised to
//! `[A-Za-z0-9_-]`, de-duplicated.

use std::collections::HashSet;

use crate::method::Method;

/// The longest id kept (the registry's wire naming shortens further).
const MAX_ID_CHARS: usize = 100;

/// An id for an operation without `operationId`: `get_pets_petId`.
pub(crate) fn generated(method: Method, path: &str) -> String {
    let mut id = method.as_str().to_owned();
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        id.push('_');
        id.push_str(segment.trim_matches(['{', '}']));
    }
    if id == method.as_str() {
        id.push_str("_root");
    }
    sanitise(&id)
}

/// `[A-Za-z0-9_-]` only (others become `_`, runs collapse), starting with
/// a letter, at most [`MAX_ID_CHARS`] characters.
pub(crate) fn sanitise(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for c in id.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '-' {
            c
        } else {
            '_'
        };
        if c == '_' && (out.is_empty() || out.ends_with('_')) {
            continue;
        }
        out.push(c);
    }
    let mut out = out.trim_end_matches('_').to_owned();
    if !out.starts_with(|c: char| c.is_ascii_alphabetic()) {
        out.insert_str(0, "op_");
    }
    if out.len() > MAX_ID_CHARS {
        out.truncate(MAX_ID_CHARS);
        out = out.trim_end_matches('_').to_owned();
    }
    out
}

/// Hands out unique ids: a taken id gets `_2`, `_3`, ….
#[derive(Debug, Default)]
pub(crate) struct UniqueIds {
    taken: HashSet<String>,
}

impl UniqueIds {
    pub(crate) fn claim(&mut self, id: String) -> String {
        if self.taken.insert(id.clone()) {
            return id;
        }
        let mut n = 2;
        loop {
            let candidate = format!("{id}_{n}");
            if self.taken.insert(candidate.clone()) {
                return candidate;
            }
            n += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_generated_sanitised_and_unique() {
        assert_eq!(generated(Method::Get, "/pets/{petId}"), "get_pets_petId");
        assert_eq!(generated(Method::Post, "/"), "post_root");
        assert_eq!(sanitise("repos/get-content"), "repos_get-content");
        assert_eq!(sanitise("list all pets!"), "list_all_pets");
        assert_eq!(sanitise("2fa.check"), "op_2fa_check");
        assert_eq!(sanitise("列出"), "op_");
        assert!(sanitise(&"x".repeat(300)).len() <= MAX_ID_CHARS);
        let mut ids = UniqueIds::default();
        assert_eq!(ids.claim("a".into()), "a");
        assert_eq!(ids.claim("a".into()), "a_2");
        assert_eq!(ids.claim("a".into()), "a_3");
    }
}
