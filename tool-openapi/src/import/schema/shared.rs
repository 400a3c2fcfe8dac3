//! The document's shared definitions: every component schema an operation
//! reaches is converted once per import, under one name, and each
//! operation's `$defs` holds exactly the definitions its arguments reach.
//!
//! How a definition is made:
//!
//! 1. A `$ref` met while converting is only *named* (`#/$defs/<Name>`, the
//!    last segment of the reference made `[A-Za-z0-9_-]`, `_2`, `_3`… on a
//!    clash); nothing is followed, so recursion cannot overflow or blow up.
//! 2. When an operation first needs it, the target is converted in that
//!    pointer form, once for the whole document.
//! 3. Its pointers to *small leaves* (definitions without references of
//!    their own, at most [`INLINE_LEAF_CHARS`] of JSON) are replaced by a
//!    copy: an enum or a two-field object reads better in place.
//! 4. An operation's `$defs` are the definitions reachable from its
//!    arguments, in name order; a reference that points at nothing (or
//!    outside the document) fails the operations reaching it. They are
//!    held once for the document ([`SharedDefs::shared`]). A tool
//!    shortened to its budget reaches them without their descriptions,
//!    held once for every shortened tool ([`SharedDefs::plain_shared`]),
//!    and carries of its own only `{}` for each definition it cut.
//!
//! Checking that schemas compile follows the same sharing: each definition
//! is compiled once, alone, with its own references stubbed (see
//! [`SharedDefs::check`]).

use std::collections::{HashMap, VecDeque};

use serde_json::{Map, Value};
use tool_core::pipeline::{CompiledSchema, Violation};

use crate::interned::compact_copy;

pub(crate) use super::json_len::{json_len, object_len};
use crate::import::refs::Refs;

/// A leaf definition at most this long (as JSON) is copied in place.
pub(crate) const INLINE_LEAF_CHARS: usize = 600;

/// How many `$ref`/`allOf` levels an argument's own schema is written out.
const MAX_TOP_INLINE: usize = 8;

struct Entry {
    /// The `$ref` (owned: an operation's references may come from a path
    /// item parsed only while it is imported).
    reference: Box<str>,
    name: String,
    /// Converted (pointer form, then expanded once `expanded`).
    value: Option<Value>,
    expanded: bool,
    leaf: bool,
    /// JSON length (pointer form; once expanded, as expanded).
    size: usize,
    /// JSON length once expanded, without descriptions.
    plain: usize,
    /// Descriptions the plain form lacks.
    descriptions: usize,
    problem: Option<String>,
    deps: Vec<usize>,
    checked: Option<Result<(), String>>,
    /// Whether it passed [`SharedDefs::meets_cheap_check`], once known.
    cheap: Option<bool>,
    /// Whether its value has moved into the definitions held for the
    /// operations ([`SharedDefs::shared`]).
    moved: bool,
}

/// The value of a definition that has none (yet).
static ANYTHING: Value = Value::Bool(true);

/// The definitions of one document (see the module docs).
pub(crate) struct SharedDefs<'a> {
    refs: Refs<'a>,
    openapi30: bool,
    by_ref: HashMap<Box<str>, usize>,
    by_name: HashMap<String, usize>,
    entries: Vec<Entry>,
    /// Cuts inside definitions, each reported once at its component.
    pub(crate) findings: Vec<Violation>,
    /// Whether each `pattern` met by a check compiles (see
    /// [`drop_good_patterns`](Self::drop_good_patterns)).
    patterns: HashMap<String, bool>,
    /// The definitions held for the operations, once made
    /// ([`shared`](Self::shared)): the values of the entries that moved.
    held: tool_core::manifest::SharedDefs,
}

impl<'a> SharedDefs<'a> {
    pub(crate) fn new(refs: Refs<'a>, openapi30: bool) -> Self {
        Self {
            refs,
            openapi30,
            by_ref: HashMap::new(),
            by_name: HashMap::new(),
            entries: Vec::new(),
            findings: Vec::new(),
            patterns: HashMap::new(),
            held: tool_core::manifest::SharedDefs::default(),
        }
    }

    pub(crate) fn openapi30(&self) -> bool {
        self.openapi30
    }

    /// The definition name of `reference` (registered on first use).
    pub(crate) fn name(&mut self, reference: &str) -> &str {
        let id = self.id(reference);
        &self.entries[id].name
    }

    fn id(&mut self, reference: &str) -> usize {
        if let Some(&id) = self.by_ref.get(reference) {
            return id;
        }
        let last = reference.rsplit('/').next().unwrap_or("def");
        let mut base: String = last
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if base.is_empty() {
            base.push_str("def");
        }
        let mut name = base.clone();
        let mut n = 2;
        while self.by_name.contains_key(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        let id = self.entries.len();
        self.entries.push(Entry {
            reference: reference.into(),
            name: name.clone(),
            value: None,
            expanded: false,
            leaf: false,
            size: 0,
            plain: 0,
            descriptions: 0,
            problem: None,
            deps: Vec::new(),
            checked: None,
            cheap: None,
            moved: false,
        });
        self.by_ref.insert(reference.into(), id);
        self.by_name.insert(name, id);
        id
    }

    /// The id a `{"$ref": "#/$defs/<Name>"}` object points at.
    fn pointer_id(&self, value: &Value) -> Option<usize> {
        let name = reference_of(value.as_object()?)?;
        self.by_name.get(name).copied()
    }

    /// Step 2: the target converted in pointer form, once.
    fn convert(&mut self, id: usize) {
        if self.entries[id].value.is_some() || self.entries[id].moved {
            return;
        }
        // Mark first: a definition pointing at itself finds itself in progress.
        self.entries[id].value = Some(Value::Bool(true));
        let found = self.refs.get(&self.entries[id].reference);
        let (value, problem) = match found {
            Ok(node) => {
                let mut cut = false;
                let value = super::convert(self, node, &mut cut);
                if cut {
                    let reference = &self.entries[id].reference;
                    self.findings.push(Violation {
                        pointer: reference.trim_start_matches('#').to_owned(),
                        message: format!(
                            "schema nested deeper than {} levels was cut to {{}} (accepts anything there)",
                            super::MAX_DEPTH
                        ),
                    });
                }
                (value, None)
            }
            Err(message) => (Value::Object(Map::new()), Some(message)),
        };
        let entry = &mut self.entries[id];
        entry.leaf = problem.is_none() && value.is_object() && !has_pointer(&value);
        entry.size = json_len(&value);
        entry.problem = problem;
        entry.value = Some(value);
    }

    /// Step 3, once: the definition with its small leaves in place.
    fn expanded(&mut self, id: usize) -> &Value {
        if self.entries[id].moved {
            return self.value_of(id);
        }
        self.convert(id);
        if !self.entries[id].expanded {
            self.entries[id].expanded = true;
            // A placeholder keeps the entry converted while it is expanded.
            let mut value = self.entries[id]
                .value
                .replace(Value::Bool(true))
                .unwrap_or(Value::Bool(true));
            self.expand(&mut value);
            let mut deps = Vec::new();
            self.pointers(&value, &mut deps);
            let entry = &mut self.entries[id];
            entry.deps = deps;
            entry.size = json_len(&value);
            (entry.plain, entry.descriptions) = super::json_len::plain_len(&value);
            entry.value = Some(value);
        }
        self.entries[id]
            .value
            .as_ref()
            .unwrap_or(&Value::Bool(true))
    }

    /// Replaces pointers to small leaves in `value` by copies of them.
    pub(crate) fn expand(&mut self, value: &mut Value) {
        match value {
            Value::Object(object) => {
                if let Some(id) = self.pointer_id_in(object) {
                    self.convert(id);
                    let entry = &self.entries[id];
                    if entry.leaf
                        && entry.size <= INLINE_LEAF_CHARS
                        && let Some(Value::Object(target)) = &entry.value
                    {
                        *object = over(target, std::mem::take(object));
                    }
                    return;
                }
                for (key, child) in object.iter_mut() {
                    match child {
                        Value::Object(map) if is_schema_map(key) => {
                            map.values_mut().for_each(|s| self.expand(s));
                        }
                        _ if is_data(key) => {}
                        _ => self.expand(child),
                    }
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.expand(item);
                }
            }
            _ => {}
        }
    }

    /// The value of definition `id` (`true` before it is converted),
    /// wherever it is held.
    fn value_of(&self, id: usize) -> &Value {
        let entry = &self.entries[id];
        match &entry.value {
            Some(value) => value,
            None if entry.moved => self.held.get(&entry.name).unwrap_or(&ANYTHING),
            None => &ANYTHING,
        }
    }

    fn pointer_id_in(&self, object: &Map<String, Value>) -> Option<usize> {
        let name = reference_of(object)?;
        self.by_name.get(name).copied()
    }

    /// The ids of the pointers in `value` (not looking into data keywords).
    fn pointers(&self, value: &Value, out: &mut Vec<usize>) {
        match value {
            Value::Object(object) => {
                if let Some(id) = self.pointer_id_in(object) {
                    if !out.contains(&id) {
                        out.push(id);
                    }
                    return;
                }
                for (key, child) in object {
                    match child {
                        Value::Object(map) if is_schema_map(key) => {
                            map.values().for_each(|s| self.pointers(s, out));
                        }
                        _ if is_data(key) => {}
                        _ => self.pointers(child, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|i| self.pointers(i, out)),
            _ => {}
        }
    }

    /// An argument's own schema written out: its `$ref` (and those of its
    /// top `allOf` parts) replaced by the definition, then small leaves put
    /// in place. A reference that points at nothing is a problem.
    pub(crate) fn inline_top(&mut self, value: Value, problems: &mut Vec<String>) -> Value {
        let mut value = self.inline_level(value, 0, problems);
        self.expand(&mut value);
        value
    }

    fn inline_level(
        &mut self,
        mut value: Value,
        depth: usize,
        problems: &mut Vec<String>,
    ) -> Value {
        if depth >= MAX_TOP_INLINE {
            return value;
        }
        if let Some(id) = self.pointer_id(&value) {
            self.expanded(id);
            if let Some(problem) = &self.entries[id].problem {
                problems.push(problem.clone());
                return Value::Object(Map::new());
            }
            if let (Value::Object(target), Value::Object(siblings)) =
                (self.value_of(id), &mut value)
            {
                let merged = over(target, std::mem::take(siblings));
                value = self.inline_level(Value::Object(merged), depth + 1, problems);
            }
        }
        if let Some(Value::Array(parts)) = value.get_mut("allOf") {
            let taken = std::mem::take(parts);
            let inlined: Vec<Value> = taken
                .into_iter()
                .map(|part| self.inline_level(part, depth + 1, problems))
                .collect();
            if let Some(Value::Array(parts)) = value.get_mut("allOf") {
                *parts = inlined;
            }
        }
        value
    }

    /// Step 4: the definitions reachable from `roots` with their distance
    /// (1: pointed at by an argument), nearest first; the first problem of
    /// one of them fails the operation.
    pub(crate) fn reach<'v>(
        &mut self,
        roots: impl IntoIterator<Item = &'v Value>,
    ) -> Result<Vec<(usize, usize)>, String> {
        let mut first = Vec::new();
        for root in roots {
            self.pointers(root, &mut first);
        }
        let mut seen: std::collections::HashSet<usize> = first.iter().copied().collect();
        let mut queue: VecDeque<(usize, usize)> = first.into_iter().map(|id| (id, 1)).collect();
        let mut out = Vec::new();
        while let Some((id, distance)) = queue.pop_front() {
            self.expanded(id);
            if let Some(problem) = &self.entries[id].problem {
                return Err(problem.clone());
            }
            out.push((id, distance));
            for &dep in &self.entries[id].deps {
                if seen.insert(dep) {
                    queue.push_back((dep, distance + 1));
                }
            }
        }
        Ok(out)
    }

    /// What definition `id` adds to a `$defs` object, as JSON.
    pub(crate) fn entry_len(&self, id: usize, plain: bool) -> usize {
        let entry = &self.entries[id];
        entry.name.len() + 4 + if plain { entry.plain } else { entry.size }
    }

    /// How many descriptions definition `id` loses in its plain form.
    pub(crate) fn description_count(&self, id: usize) -> usize {
        self.entries[id].descriptions
    }

    /// The name of definition `id`.
    pub(crate) fn entry_name(&self, id: usize) -> &str {
        &self.entries[id].name
    }

    /// The `$defs` of `reached`, by name: definitions at distance `cut_at`
    /// become `{}` (accepting anything), farther ones are left out (only
    /// those point at them), `plain` ones lose their descriptions.
    pub(crate) fn materialize(
        &self,
        reached: &[(usize, usize)],
        cut_at: usize,
        plain: bool,
    ) -> Map<String, Value> {
        // Left-out ones first: a cut operation may reach thousands.
        let mut ids: Vec<(usize, usize)> =
            reached.iter().copied().filter(|r| r.1 <= cut_at).collect();
        ids.sort_unstable_by(|a, b| self.entries[a.0].name.cmp(&self.entries[b.0].name));
        let mut out = Map::with_capacity(ids.len());
        for (id, distance) in ids {
            let entry = &self.entries[id];
            let value = if distance == cut_at {
                Value::Object(Map::new())
            } else {
                let mut value = compact_copy(self.value_of(id));
                if plain {
                    strip_descriptions(&mut value);
                }
                value
            };
            out.insert(entry.name.clone(), value);
        }
        out
    }

    /// The definitions reached by any of `reached` (each as [`reach`](Self::reach)
    /// gives them), held once: what an operation within its budget refers
    /// to instead of carrying copies. Their values move there (compact, as
    /// [`materialize`](Self::materialize) writes them) and are read from
    /// there afterwards, so the document's definitions are never held twice.
    /// Called once, when every operation is converted.
    pub(crate) fn shared<'r>(
        &mut self,
        reached: impl IntoIterator<Item = &'r [(usize, usize)]>,
    ) -> tool_core::manifest::SharedDefs {
        let mut ids: Vec<usize> = reached
            .into_iter()
            .flat_map(|r| r.iter().map(|&(id, _)| id))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids.sort_unstable_by(|a, b| self.entries[*a].name.cmp(&self.entries[*b].name));
        let mut held = Map::with_capacity(ids.len());
        for id in ids {
            let entry = &mut self.entries[id];
            if entry.moved {
                continue;
            }
            let value = entry.value.take().unwrap_or(Value::Bool(true));
            entry.moved = true;
            held.insert(entry.name.clone(), compact_copy(&value));
        }
        self.held = tool_core::manifest::SharedDefs::new(held);
        self.held.clone()
    }

    /// The definitions the shortened tools reach whole (each
    /// [`Cut::reached`](crate::import::budget::Cut::reached)), without
    /// their descriptions, held once for all of them.
    pub(crate) fn plain_shared<'r>(
        &self,
        reached: impl IntoIterator<Item = &'r [(usize, usize)]>,
    ) -> tool_core::manifest::SharedDefs {
        let mut ids: Vec<(usize, usize)> = reached
            .into_iter()
            .flat_map(|r| r.iter().map(|&(id, _)| (id, 1)))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        if ids.is_empty() {
            return tool_core::manifest::SharedDefs::default();
        }
        tool_core::manifest::SharedDefs::new(self.materialize(&ids, usize::MAX, true))
    }

    /// The JSON length of the `$defs` object holding `reached` whole (0 for
    /// none), as [`json_len`] of [`materialize`](Self::materialize)'s map
    /// would count it.
    pub(crate) fn json_len_of(&self, reached: &[(usize, usize)]) -> usize {
        if reached.is_empty() {
            return 0;
        }
        1 + reached
            .iter()
            .map(|&(id, _)| self.entry_len(id, false))
            .sum::<usize>()
    }

    /// Whether definition `name` compiles, checked once per document: the
    /// definition alone, its references stubbed with `true` (each is
    /// checked on its own). Unknown names pass (nothing shared to check).
    pub(crate) fn check(&mut self, name: &str) -> Result<(), String> {
        let Some(&id) = self.by_name.get(name) else {
            return Ok(());
        };
        if let Some(result) = &self.entries[id].checked {
            return result.clone();
        }
        let value = self.expanded(id).clone();
        let mut stubs = Map::new();
        for &dep in &self.entries[id].deps {
            stubs.insert(self.entries[dep].name.clone(), Value::Bool(true));
        }
        let mut value = value;
        self.drop_good_patterns(&mut value);
        let mut schema = Map::new();
        schema.insert("$defs".into(), Value::Object(stubs));
        schema.insert("allOf".into(), Value::Array(vec![value]));
        let result = CompiledSchema::try_compile(&Value::Object(schema))
            .map(|_| ())
            .map_err(|e| match e {
                tool_core::Error::InvalidSchema { message, .. } => message,
                other => other.to_string(),
            });
        self.entries[id].checked = Some(result.clone());
        result
    }
}

impl SharedDefs<'_> {
    /// The import's cheap check of definition `name` (see
    /// [`schema_meets_cheap_check`](Self::schema_meets_cheap_check)), once
    /// per document. Unknown names pass, as in [`check`](Self::check).
    pub(crate) fn meets_cheap_check(&mut self, name: &str) -> bool {
        match self.by_name.get(name) {
            Some(&id) => self.entry_meets_cheap_check(id),
            None => true,
        }
    }

    /// [`meets_cheap_check`](Self::meets_cheap_check) of definition `id`.
    pub(crate) fn entry_meets_cheap_check(&mut self, id: usize) -> bool {
        if let Some(known) = self.entries[id].cheap {
            return known;
        }
        self.expanded(id);
        let known = if self.entries[id].moved {
            let held = self.held.clone();
            let name = self.entries[id].name.clone();
            self.schema_meets_cheap_check(held.get(&name).unwrap_or(&ANYTHING))
        } else {
            // Taken out while it is checked (nothing else reads it meanwhile).
            let value = self.entries[id].value.take().unwrap_or(Value::Bool(true));
            let known = self.schema_meets_cheap_check(&value);
            self.entries[id].value = Some(value);
            known
        };
        self.entries[id].cheap = Some(known);
        known
    }

    /// Whether `schema` passes what compiling it checks, without building
    /// a validator: it meets the meta-schema
    /// ([`CompiledSchema::meets_meta_schema`]) and each `pattern` in it
    /// compiles (each distinct one compiled once per document, as for
    /// [`drop_good_patterns`](Self::drop_good_patterns)). `false` (compile
    /// it to know) also for a schema with `patternProperties`, whose keys
    /// are patterns too.
    pub(crate) fn schema_meets_cheap_check(&mut self, schema: &Value) -> bool {
        let patterns = &mut self.patterns;
        let mut good = true;
        each_schema_ref(schema, &mut |object| {
            if !good {
                return;
            }
            if object.contains_key("patternProperties") {
                good = false;
                return;
            }
            if let Some(Value::String(pattern)) = object.get("pattern") {
                good = pattern_compiles(patterns, pattern);
            }
        });
        good && CompiledSchema::meets_meta_schema(schema)
    }

    /// Removes from `schema` (a copy about to be compiled only to check
    /// it) every `pattern` known to compile: each distinct pattern is
    /// compiled once per document, alone, instead of once in every schema
    /// carrying it (the same parameter patterns recur in thousands of
    /// operations). A pattern that does not compile stays, so the check
    /// fails as before.
    pub(crate) fn drop_good_patterns(&mut self, schema: &mut Value) {
        let patterns = &mut self.patterns;
        each_schema(schema, &mut |object| {
            let Some(Value::String(pattern)) = object.get("pattern") else {
                return;
            };
            if pattern_compiles(patterns, pattern) {
                object.remove("pattern");
            }
        });
    }
}

/// The definition name a `{"$ref": "#/$defs/<Name>"}` object points at.
/// Schema objects are small: their keys are compared in order rather than
/// hashed (every object of every schema is asked, most have no `$ref`).
fn reference_of(object: &Map<String, Value>) -> Option<&str> {
    let reference = if object.len() <= 8 {
        object
            .iter()
            .find_map(|(key, value)| (key == "$ref").then_some(value))
    } else {
        object.get("$ref")
    };
    reference?.as_str()?.strip_prefix("#/$defs/")
}

/// A copy of `target` (a definition) with the siblings of the `$ref` that
/// pointed at it (`reference`, its other keys) written over it: in
/// `target`'s order, new keys last, with room for exactly its entries
/// (see [`compact_copy`]: a definition written into thousands of arguments
/// schemas is copied compact).
fn over(target: &Map<String, Value>, reference: Map<String, Value>) -> Map<String, Value> {
    let mut copy = Map::with_capacity(target.len() + reference.len().saturating_sub(1));
    for (key, value) in target {
        copy.insert(key.clone(), compact_copy(value));
    }
    for (key, sibling) in reference {
        if key != "$ref" {
            copy.insert(key, sibling);
        }
    }
    copy
}

/// Whether `pattern` compiles (alone, as a schema's `pattern`), from
/// `known` or compiled once and remembered there.
fn pattern_compiles(known: &mut HashMap<String, bool>, pattern: &str) -> bool {
    if let Some(&good) = known.get(pattern) {
        return good;
    }
    let alone = Value::Object(Map::from_iter([(
        "pattern".to_owned(),
        Value::String(pattern.to_owned()),
    )]));
    let good = CompiledSchema::try_compile(&alone).is_ok();
    known.insert(pattern.to_owned(), good);
    good
}

/// Removes `description` from a schema and every schema inside it;
/// returns how many.
pub(crate) fn strip_descriptions(schema: &mut Value) -> usize {
    let mut removed = 0;
    each_schema(schema, &mut |object| {
        if object.get("description").is_some_and(Value::is_string) {
            object.remove("description");
            removed += 1;
        }
    });
    removed
}

/// Calls `f` on `schema` (when an object) and every subschema inside it,
/// outermost first.
pub(crate) fn each_schema(schema: &mut Value, f: &mut impl FnMut(&mut Map<String, Value>)) {
    let Value::Object(object) = schema else {
        return;
    };
    f(object);
    for (key, child) in object.iter_mut() {
        match key.as_str() {
            key if super::SCHEMA_MAP_KEYWORDS.contains(&key) => {
                if let Value::Object(map) = child {
                    map.values_mut().for_each(|s| each_schema(s, f));
                }
            }
            key if super::SUBSCHEMA_KEYWORDS.contains(&key)
                || super::SCHEMA_LIST_KEYWORDS.contains(&key) =>
            {
                match child {
                    Value::Array(list) => list.iter_mut().for_each(|s| each_schema(s, f)),
                    other => each_schema(other, f),
                }
            }
            _ => {}
        }
    }
}

/// [`each_schema`] without changing anything.
pub(crate) fn each_schema_ref(schema: &Value, f: &mut impl FnMut(&Map<String, Value>)) {
    let Value::Object(object) = schema else {
        return;
    };
    f(object);
    for (key, child) in object {
        match key.as_str() {
            key if super::SCHEMA_MAP_KEYWORDS.contains(&key) => {
                if let Value::Object(map) = child {
                    map.values().for_each(|s| each_schema_ref(s, f));
                }
            }
            key if super::SUBSCHEMA_KEYWORDS.contains(&key)
                || super::SCHEMA_LIST_KEYWORDS.contains(&key) =>
            {
                match child {
                    Value::Array(list) => list.iter().for_each(|s| each_schema_ref(s, f)),
                    other => each_schema_ref(other, f),
                }
            }
            _ => {}
        }
    }
}

/// Keywords whose values are data, not schemas.
fn is_data(key: &str) -> bool {
    super::DATA_KEYWORDS.contains(&key)
}

/// Keywords whose values map names (data) to schemas.
fn is_schema_map(key: &str) -> bool {
    super::SCHEMA_MAP_KEYWORDS.contains(&key)
}

fn has_pointer(value: &Value) -> bool {
    match value {
        Value::Object(object) => {
            reference_of(object).is_some()
                || object.iter().any(|(key, child)| match child {
                    Value::Object(map) if is_schema_map(key) => map.values().any(has_pointer),
                    _ => !is_data(key) && has_pointer(child),
                })
        }
        Value::Array(items) => items.iter().any(has_pointer),
        _ => false,
    }
}
