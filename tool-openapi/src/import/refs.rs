//! Local `$ref` resolution (`#/components/...`), cycle-safe.

use std::borrow::Cow;

use crate::pointer;

use super::node::Node;

/// How many `$ref` → `$ref` hops are followed before giving up.
const MAX_HOPS: usize = 32;

/// Resolves local references inside one document.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Refs<'a> {
    root: &'a Node<'a>,
}

impl<'a> Refs<'a> {
    pub(crate) fn new(root: &'a Node<'a>) -> Self {
        Self { root }
    }

    /// The value at a local reference (`#/components/schemas/Pet`).
    pub(crate) fn get(&self, reference: &str) -> Result<&'a Node<'a>, String> {
        let Some(path) = reference.strip_prefix('#') else {
            return Err(format!(
                "`$ref: {reference}` points outside this document (only local `#/...` references are supported)"
            ));
        };
        if path.is_empty() {
            return Ok(self.root);
        }
        if !path.starts_with('/') {
            return Err(format!("`$ref: {reference}` is not a JSON pointer"));
        }
        let decoded = percent_encoding::percent_decode_str(path).decode_utf8_lossy();
        let mut current = self.root;
        for token in decoded[1..].split('/') {
            let token: Cow<'_, str> = if token.contains('~') {
                Cow::Owned(pointer::unescape(token))
            } else {
                Cow::Borrowed(token)
            };
            current = match current {
                Node::Object(map) => map.get(&token),
                Node::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            }
            .ok_or_else(|| format!("`$ref: {reference}` points at nothing"))?;
        }
        Ok(current)
    }

    /// Follows `value` while it is a `{"$ref": …}` object; returns the
    /// target and the last reference followed.
    pub(crate) fn follow(
        &self,
        value: &'a Node<'a>,
    ) -> Result<(&'a Node<'a>, Option<&'a str>), String> {
        let mut current = value;
        let mut last = None;
        for _ in 0..MAX_HOPS {
            match current.get("$ref").and_then(Node::as_str) {
                Some(reference) => {
                    last = Some(reference);
                    current = self.get(reference)?;
                }
                None => return Ok((current, last)),
            }
        }
        Err(format!(
            "more than {MAX_HOPS} `$ref` hops (a reference loop?) from {}",
            last.unwrap_or("?")
        ))
    }
}
