//! Local `$ref` resolution (`#/components/...`), cycle-safe.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;

use bumpalo::Bump;

use crate::pointer;

use super::node::{self, Node};

/// How many `$ref` → `$ref` hops are followed before giving up.
const MAX_HOPS: usize = 32;

/// Resolves local references inside one document.
#[derive(Clone, Copy)]
pub(crate) struct Refs<'a> {
    root: &'a Node<'a>,
    /// Where path items left as text are parsed when a reference points
    /// into one (see [`Node::Raw`]).
    lazy: Option<&'a Lazy<'a>>,
}

/// The path items parsed for references, once each, in the document's
/// arena.
pub(crate) struct Lazy<'a> {
    arena: &'a Bump,
    /// By the address of their text.
    parsed: RefCell<HashMap<usize, &'a Node<'a>>>,
}

impl<'a> Lazy<'a> {
    /// Parses into `arena`, the arena of the document's tree.
    pub(crate) fn new(arena: &'a Bump) -> Self {
        Self {
            arena,
            parsed: RefCell::new(HashMap::new()),
        }
    }
}

impl<'a> Refs<'a> {
    /// References in `root`; its path items left as text are parsed in
    /// `lazy` when a reference reaches into one.
    pub(crate) fn new(root: &'a Node<'a>, lazy: Option<&'a Lazy<'a>>) -> Self {
        Self { root, lazy }
    }

    /// `node`, parsed first if it is text (a path item, see [`Node::Raw`]).
    /// A path item that does not parse on its own fails the reference;
    /// the import parses the whole document when it reaches that item,
    /// and reports the error as the document's.
    fn parsed(&self, node: &'a Node<'a>, reference: &str) -> Result<&'a Node<'a>, String> {
        let Node::Raw(text) = node else {
            return Ok(node);
        };
        let unparsable =
            || format!("`$ref: {reference}` points into a path item that is not valid JSON");
        let lazy = self.lazy.ok_or_else(unparsable)?;
        let key = text.as_ptr() as usize;
        if let Some(found) = lazy.parsed.borrow().get(&key) {
            return Ok(found);
        }
        let item = node::parse_item(text, lazy.arena).ok_or_else(unparsable)?;
        let item: &'a Node<'a> = lazy.arena.alloc(item);
        lazy.parsed.borrow_mut().insert(key, item);
        Ok(item)
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
            current = self.parsed(current, reference)?;
        }
        Ok(current)
    }

    /// Follows `value` while it is a `{"$ref": …}` object; returns the
    /// target and the last reference followed.
    pub(crate) fn follow<'b>(
        &self,
        value: &'b Node<'b>,
    ) -> Result<(&'b Node<'b>, Option<&'b str>), String>
    where
        'a: 'b,
    {
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
