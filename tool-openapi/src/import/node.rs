//! The document being imported, as a tree that borrows from its text.
//!
//! A 13 MB description parsed into a `serde_json::Value` costs one
//! allocation per string, key and object (an ordered hash map each), and
//! freeing that tree costs about as much as building it. The import only
//! reads the document and copies out the parts it keeps, so it parses JSON
//! text into a [`Node`] instead: strings without escapes point into the
//! text, and every array and object is one slice in an arena ([`Bump`])
//! that is freed as a whole; nothing in a node owns memory, so dropping the
//! tree costs nothing. A document that is already a `Value` (YAML,
//! [`import_value`](crate::import_value)) is viewed the same way with
//! [`Node::from_value`], borrowing its strings.
//!
//! Objects behave exactly like `serde_json::Map` with `preserve_order`:
//! entries keep the order of the text, and a repeated key keeps its first
//! position and its last value.

use std::fmt;

use bumpalo::Bump;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Objects with more entries than this are looked up by binary search
/// over a sorted index instead of a linear scan.
const LINEAR_LOOKUP_MAX: usize = 16;

/// One JSON value of the document. Owns no memory (a `Number` is plain
/// data): the arena it lives in may be dropped without running anything.
#[derive(Debug)]
pub(crate) enum Node<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(&'a str),
    Array(&'a [Node<'a>]),
    Object(Object<'a>),
    /// JSON text not parsed yet: a path item of a document read with
    /// [`parse_lazy`], parsed when it is imported ([`parse_item`]).
    Raw(&'a str),
}

/// A JSON object: entries in document order, keys unique.
#[derive(Debug, Default)]
pub(crate) struct Object<'a> {
    entries: &'a [(&'a str, Node<'a>)],
    /// Entry positions sorted by key (empty for small objects).
    sorted: &'a [u32],
}

/// Parses JSON text exactly as `serde_json::from_str::<Value>` does (same
/// acceptance, same errors), into `arena`.
pub(crate) fn parse<'a>(text: &'a str, arena: &'a Bump) -> Result<Node<'a>, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let node = NodeSeed(arena).deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(node)
}

impl<'a> Node<'a> {
    /// A view of `value` borrowing its strings, its slices in `arena`.
    pub(crate) fn from_value(value: &'a Value, arena: &'a Bump) -> Self {
        match value {
            Value::Null => Self::Null,
            Value::Bool(b) => Self::Bool(*b),
            Value::Number(n) => Self::Number(n.clone()),
            Value::String(s) => Self::String(s),
            Value::Array(items) => Self::Array(
                arena.alloc_slice_fill_iter(items.iter().map(|v| Self::from_value(v, arena))),
            ),
            Value::Object(map) => Self::Object(Object::new(
                arena,
                map.iter()
                    .map(|(k, v)| (k.as_str(), Self::from_value(v, arena)))
                    .collect(),
            )),
        }
    }

    /// An owned copy as a `serde_json::Value`.
    pub(crate) fn to_value(&self) -> Value {
        match self {
            Self::Null => Value::Null,
            Self::Bool(b) => Value::Bool(*b),
            Self::Number(n) => Value::Number(n.clone()),
            Self::String(s) => Value::String((*s).to_owned()),
            Self::Array(items) => Value::Array(items.iter().map(Self::to_value).collect()),
            Self::Object(object) => Value::Object(object.to_map()),
            // Checked JSON (a `parse_lazy` value); never reached by the
            // import, which parses path items before reading them.
            Self::Raw(text) => serde_json::from_str(text).unwrap_or(Value::Null),
        }
    }

    /// The member `key` of an object (`None` for anything else).
    pub(crate) fn get(&self, key: &str) -> Option<&Self> {
        self.as_object()?.get(key)
    }

    pub(crate) fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            Self::Object(object) => Some(object),
            _ => None,
        }
    }

    pub(crate) fn as_array(&self) -> Option<&'a [Self]> {
        match self {
            Self::Array(items) => Some(items),
            _ => None,
        }
    }

    pub(crate) fn as_str(&self) -> Option<&'a str> {
        match self {
            Self::String(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self {
            Self::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub(crate) fn is_boolean(&self) -> bool {
        matches!(self, Self::Bool(_))
    }
}

impl<'a> Object<'a> {
    /// An object from entries in order; a repeated key keeps its first
    /// position and its last value.
    fn new(arena: &'a Bump, mut entries: Vec<(&'a str, Node<'a>)>) -> Self {
        let mut sorted: &'a [u32] = &[];
        if entries.len() <= LINEAR_LOOKUP_MAX {
            let repeated = (1..entries.len())
                .any(|i| entries[..i].iter().any(|(key, _)| *key == entries[i].0));
            if repeated {
                entries = merge_repeated(entries);
            }
        } else {
            let mut positions = sorted_positions(&entries);
            if positions
                .windows(2)
                .any(|w| entries[w[0] as usize].0 == entries[w[1] as usize].0)
            {
                entries = merge_repeated(entries);
                positions = sorted_positions(&entries);
            }
            sorted = arena.alloc_slice_copy(&positions);
        }
        Self {
            entries: arena.alloc_slice_fill_iter(entries),
            sorted,
        }
    }

    pub(crate) fn get(&self, key: &str) -> Option<&Node<'a>> {
        if self.sorted.is_empty() {
            return self.entries.iter().find(|(k, _)| *k == key).map(|(_, v)| v);
        }
        let found = self
            .sorted
            .binary_search_by(|&i| self.entries[i as usize].0.cmp(key))
            .ok()?;
        Some(&self.entries[self.sorted[found] as usize].1)
    }

    pub(crate) fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Entries in document order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&'a str, &'a Node<'a>)> + use<'a> {
        self.entries.iter().map(|(k, v)| (*k, v))
    }

    pub(crate) fn keys(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        self.entries.iter().map(|(k, _)| *k)
    }

    pub(crate) fn values(&self) -> impl Iterator<Item = &'a Node<'a>> + use<'a> {
        self.entries.iter().map(|(_, v)| v)
    }

    /// An owned copy as a `serde_json::Map`.
    pub(crate) fn to_map(&self) -> Map<String, Value> {
        let mut map = Map::with_capacity(self.entries.len());
        for (key, value) in self.entries {
            map.insert((*key).to_owned(), value.to_value());
        }
        map
    }
}

fn sorted_positions(entries: &[(&str, Node<'_>)]) -> Vec<u32> {
    // Positions fit: a document is at most a few hundred MB of text.
    let mut sorted: Vec<u32> = (0..entries.len() as u32).collect();
    sorted.sort_by(|&a, &b| entries[a as usize].0.cmp(entries[b as usize].0));
    sorted
}

/// `serde_json::Map::insert` semantics for a list with repeated keys.
fn merge_repeated<'a>(entries: Vec<(&'a str, Node<'a>)>) -> Vec<(&'a str, Node<'a>)> {
    let mut out: Vec<(&'a str, Node<'a>)> = Vec::with_capacity(entries.len());
    for (key, value) in entries {
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => out.push((key, value)),
        }
    }
    out
}

/// [`parse`], except that the members of the top-level `paths` object are
/// left as [`Node::Raw`] text: a description's paths are most of it
/// (Microsoft Graph: 18 of 20 MB), and the import reads them one path item
/// at a time, each parsed into an arena of its own and dropped after it,
/// so the whole document is never held as a tree.
///
/// The top-level object and `paths` are split by a scan for where each
/// member's text ends, checking the punctuation between them; every other
/// member is parsed with [`parse`] (keys with escapes too), each path item
/// when it is imported ([`parse_item`]). Every byte is checked by one or
/// the other, but the errors are not [`parse`]'s: `None` (here or from
/// `parse_item`) tells the caller to parse the whole text with [`parse`],
/// which accepts and refuses exactly what `serde_json` does. So does a
/// member nesting deeper than [`NESTING_MAX`], which `serde_json`'s limit
/// on the whole text may refuse.
pub(crate) fn parse_lazy<'a>(text: &'a str, arena: &'a Bump) -> Option<Node<'a>> {
    let bytes = text.as_bytes();
    let mut at = skip_ws(bytes, 0);
    let mut entries = Vec::new();
    at = members(text, at, &mut |key, start| {
        if key == "paths" && bytes.get(start) == Some(&b'{') {
            let mut items = Vec::new();
            let end = members(text, start, &mut |path, item_start| {
                let (item_end, nesting) = value_end(bytes, item_start)?;
                if 2 + nesting > NESTING_MAX {
                    return None;
                }
                items.push((path, Node::Raw(&text[item_start..item_end])));
                Some(item_end)
            })?;
            entries.push((key, Node::Object(Object::new(arena, items))));
            return Some(end);
        }
        let (end, nesting) = value_end(bytes, start)?;
        if 1 + nesting > NESTING_MAX {
            return None;
        }
        entries.push((key, parse(&text[start..end], arena).ok()?));
        Some(end)
    })?;
    (skip_ws(bytes, at) == bytes.len()).then(|| Node::Object(Object::new(arena, entries)))
}

/// How deep a member split off by [`parse_lazy`] may nest (by the count of
/// its brackets) to be parsed on its own: `serde_json` refuses nesting
/// deeper than 128 in the whole text, and a path item is two levels into
/// it (the document, then `paths`).
const NESTING_MAX: usize = 100;

/// Parses one [`Node::Raw`] path item (nesting at most [`NESTING_MAX`],
/// as [`parse_lazy`] checked) into `arena`; `None` when it is not JSON.
pub(crate) fn parse_item<'a>(text: &'a str, arena: &'a Bump) -> Option<Node<'a>> {
    parse(text, arena).ok()
}

/// Splits the JSON object starting at `text[at]` into members, calling
/// `member(key, where its value starts)`, which returns where the value
/// ends; returns where the object ends. `None` when the punctuation is not
/// JSON's or a key is not a plain JSON string (or `member` says so).
fn members<'a>(
    text: &'a str,
    at: usize,
    member: &mut dyn FnMut(&'a str, usize) -> Option<usize>,
) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    let mut at = skip_ws(bytes, at + 1);
    if bytes.get(at) == Some(&b'}') {
        return Some(at + 1);
    }
    loop {
        let key_end = string_end(bytes, at)?;
        let key = key_text(&text[at..key_end])?;
        at = skip_ws(bytes, key_end);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        let end = member(key, skip_ws(bytes, at + 1))?;
        at = skip_ws(bytes, end);
        match bytes.get(at) {
            Some(b',') => at = skip_ws(bytes, at + 1),
            Some(b'}') => return Some(at + 1),
            _ => return None,
        }
    }
}

/// The text of a JSON string `quoted` (with its quotes) when it has no
/// escapes or control characters; else `None` (the caller parses the whole
/// text, which decodes or refuses it).
fn key_text(quoted: &str) -> Option<&str> {
    let inner = quoted.get(1..quoted.len().checked_sub(1)?)?;
    inner
        .bytes()
        .all(|b| b != b'\\' && b >= 0x20)
        .then_some(inner)
}

/// Past JSON white space from `at`.
fn skip_ws(bytes: &[u8], mut at: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(at) {
        at += 1;
    }
    at
}

/// Where the string starting at `bytes[at]` (a `"`) ends (past its closing
/// quote).
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let mut i = at + 1;
    loop {
        while *bytes.get(i)? != b'"' && bytes[i] != b'\\' {
            i += 1;
        }
        if bytes[i] == b'"' {
            return Some(i + 1);
        }
        i += 2;
    }
}

/// Bytes that matter outside strings while finding where a value ends.
const STRUCTURAL: [bool; 256] = {
    let mut table = [false; 256];
    table[b'"' as usize] = true;
    table[b'{' as usize] = true;
    table[b'[' as usize] = true;
    table[b'}' as usize] = true;
    table[b']' as usize] = true;
    table
};

/// Where the value starting at `bytes[at]` ends, and how deep its
/// brackets nest. Only the extent is found: the value's text is parsed
/// later, which checks it.
fn value_end(bytes: &[u8], at: usize) -> Option<(usize, usize)> {
    match bytes.get(at)? {
        b'"' => string_end(bytes, at).map(|end| (end, 0)),
        b'{' | b'[' => {
            let (mut depth, mut deepest) = (0usize, 0usize);
            let mut i = at;
            loop {
                while !STRUCTURAL[usize::from(*bytes.get(i)?)] {
                    i += 1;
                }
                match bytes[i] {
                    b'"' => {
                        i = string_end(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => {
                        depth += 1;
                        deepest = deepest.max(depth);
                    }
                    _ => {
                        depth -= 1;
                        if depth == 0 {
                            return Some((i + 1, deepest));
                        }
                    }
                }
                i += 1;
            }
        }
        _ => {
            let end = bytes[at..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .map_or(bytes.len(), |n| at + n);
            (end > at).then_some((end, 0))
        }
    }
}

/// Deserializes one value into the arena.
#[derive(Clone, Copy)]
struct NodeSeed<'a>(&'a Bump);

impl<'de: 'a, 'a> DeserializeSeed<'de> for NodeSeed<'a> {
    type Value = Node<'a>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// An object key: borrowed when the text has no escapes, else copied into
/// the arena.
#[derive(Clone, Copy)]
struct KeySeed<'a>(&'a Bump);

impl<'de: 'a, 'a> DeserializeSeed<'de> for KeySeed<'a> {
    type Value = &'a str;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de: 'a, 'a> Visitor<'de> for KeySeed<'a> {
    type Value = &'a str;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(v)
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(self.0.alloc_str(v))
    }
}

/// Accepts what `serde_json::Value`'s visitor accepts, the same way.
impl<'de: 'a, 'a> Visitor<'de> for NodeSeed<'a> {
    type Value = Node<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Node::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Node::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Node::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Number::from_f64(v).map_or(Node::Null, Node::Number))
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Node::String(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Node::String(self.0.alloc_str(v)))
    }

    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Node::Null)
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Node::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Node::Array(self.0.alloc_slice_fill_iter(items)))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key_seed(KeySeed(self.0))? {
            let value = map.next_value_seed(self)?;
            entries.push((key, value));
        }
        Ok(Node::Object(Object::new(self.0, entries)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip(text: &str) -> Value {
        let arena = Bump::new();
        parse(text, &arena).unwrap().to_value()
    }

    #[test]
    fn parses_like_serde_json_value() {
        let mut text = String::from(
            r#"{"a": [1, -2, 3.5, 1e400000, true, null, "x\"y", "\u00e9"], "b": {}, "big": {"#,
        );
        for i in 0..40 {
            text.push_str(&format!("\"k{i}\": {i},"));
        }
        text.push_str(r#""k3": "again", "k0": "first"}, "a": "last", "c": 18446744073709551615, "e\u0301": 1}"#);
        let arena = Bump::new();
        let theirs: Result<Value, _> = serde_json::from_str(&text);
        // 1e400000 is out of range for both.
        assert_eq!(
            parse(&text, &arena).unwrap_err().to_string(),
            theirs.unwrap_err().to_string()
        );
        let text = text.replace("1e400000", "1e40");
        let theirs: Value = serde_json::from_str(&text).unwrap();
        let ours = round_trip(&text);
        assert_eq!(ours, theirs);
        assert_eq!(
            serde_json::to_string(&ours).unwrap(),
            serde_json::to_string(&theirs).unwrap(),
            "same order, repeated keys in their first position with their last value"
        );
        let node = parse(&text, &arena).unwrap();
        let big = node.get("big").unwrap().as_object().unwrap();
        assert_eq!(big.len(), 40);
        assert_eq!(big.get("k3").unwrap().as_str(), Some("again"));
        assert_eq!(big.get("k39").unwrap().to_value(), json!(39));
        assert!(big.get("k40").is_none());
        assert_eq!(node.get("a").unwrap().as_str(), Some("last"));
        assert_eq!(node.get("e\u{301}").unwrap().to_value(), json!(1));
    }

    #[test]
    fn syntax_errors_match_serde_json() {
        for text in [
            "{\"a\": [1, 2,]}",
            "{\"a\" 1}",
            "{\"a\": \"\\ud800\"}",
            "[1] x",
            "{\"a\": tru}",
            "",
            &"[".repeat(200),
        ] {
            let arena = Bump::new();
            let ours = parse(text, &arena).unwrap_err();
            let theirs = serde_json::from_str::<Value>(text).unwrap_err();
            assert_eq!(ours.to_string(), theirs.to_string(), "{text}");
        }
    }

    #[test]
    fn lazy_paths_give_the_same_tree_or_leave_the_text_to_parse() {
        let head = r#"{"openapi": "3.0.0", "info": {"title": "t", "version": "1"},"#;
        let item = r#"{"get": {"operationId": "a", "description": "} ] \" { [", "responses": {}}}"#;
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        let good = [
            format!(r#"{head} "paths": {{"/a": {item}, "/b": {item}}}}}"#),
            format!(
                "{head}\n \"paths\" :\r\n {{ \"/a\" : {item} ,\t\"/a\": []  }} , \"x\": 1e3 }} \n"
            ),
            format!(r#"{head} "paths": {{}}, "components": {{"k": [1, {{"b": null}}]}}}}"#),
            format!(r#"{head} "paths": [1, 2]}}"#),
            format!(r#"{head} "paths": {{"/a": {}}}}}"#, deep(90)),
        ];
        for text in &good {
            let arena = Bump::new();
            let lazy = parse_lazy(text, &arena).expect(text);
            let whole: Value = serde_json::from_str(text).unwrap();
            assert_eq!(lazy.to_value(), whole, "{text}");
        }
        let bad = [
            format!(r#"{head} "paths": {{"/a": {item},}}}}"#),
            format!(r#"{head} "paths": {{"/a": {item} "/b": {item}}}}}"#),
            format!(r#"{head} "paths": {{"/a": {{"get": [}}}}}}"#),
            format!(r#"{head} "paths": {{"/a": {item}}}}} x"#),
            format!(r#"{head} "paths": {{"/a": {item}"#),
            format!(r#"{head} "x": 01, "paths": {{}}}}"#),
            format!(r#"{head} "paths": {{"/a": {}}}}}"#, deep(127)),
            format!(r#"{head} "x": {}, "paths": {{}}}}"#, deep(128)),
            format!("{head} \"pa\u{1}ths\": {{}}}}"),
        ];
        for text in &bad {
            assert!(serde_json::from_str::<Value>(text).is_err(), "{text}");
            let arena = Bump::new();
            if let Some(root) = parse_lazy(text, &arena) {
                let items = root.get("paths").and_then(Node::as_object).expect(text);
                let scratch = Bump::new();
                assert!(
                    items.values().any(|item| match item {
                        Node::Raw(raw) => parse_item(raw, &scratch).is_none(),
                        _ => false,
                    }),
                    "a text serde_json refuses must not import: {text}"
                );
            }
        }
        // Escaped keys are left to the whole parse, which decodes them.
        let arena = Bump::new();
        assert!(parse_lazy(&format!(r#"{head} "pa\u0074hs": {{}}}}"#), &arena).is_none());
    }

    #[test]
    fn a_value_is_viewed_without_change() {
        let mut value = json!({"z": 1, "a": [null, {"k": "v"}], "m": {"x": 1.5, "y": false}});
        for i in 0..30 {
            value["wide"][format!("w{i}")] = json!(i);
        }
        let arena = Bump::new();
        let node = Node::from_value(&value, &arena);
        assert_eq!(node.to_value(), value);
        assert_eq!(
            serde_json::to_string(&node.to_value()).unwrap(),
            serde_json::to_string(&value).unwrap()
        );
        assert_eq!(
            node.get("wide").unwrap().get("w17").unwrap().to_value(),
            json!(17)
        );
    }
}
