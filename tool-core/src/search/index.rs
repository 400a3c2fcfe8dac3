//! The inverted index over offered APIs, ranked by BM25 or matched by a regex.

use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use super::tokenize::each_term;
use crate::declare::{ApiDefinition, ToolManifest};
use crate::error::Error;
use crate::offered::{OfferedTool, OfferedTools};

/// BM25 term-frequency saturation.
const K1: f32 = 1.2;
/// BM25 length normalisation.
const B: f32 = 0.75;
/// Field weights: a word in the API's name counts this many times a word of
/// its description.
const WEIGHT_NAME: f32 = 3.0;
/// Words of the tool identifier, its title and its kind.
const WEIGHT_SOURCE: f32 = 1.0;
/// Words of the description.
const WEIGHT_DESCRIPTION: f32 = 1.0;
/// Parameter names.
const WEIGHT_PARAM_NAME: f32 = 1.5;
/// Parameter descriptions.
const WEIGHT_PARAM_DESCRIPTION: f32 = 0.5;
/// Longest regex a query may hold (the size a model may send, as Anthropic's
/// regex tool search allows).
pub const MAX_REGEX_LEN: usize = 200;
/// Compiled size cap of a query regex, in bytes.
const REGEX_SIZE_LIMIT: usize = 1 << 20;
/// Longest summary (first line of the description) a hit carries, in chars.
const SUMMARY_CHARS: usize = 200;

/// One ranked API.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct SearchHit {
    /// The wire name to call it by.
    pub name: String,
    /// The tool identifier.
    pub identifier: String,
    /// The API name within the tool.
    pub api: String,
    /// The score (BM25, or the regex's weighted field matches); higher is better.
    pub score: f64,
    /// The first line of the description, at most 200 characters.
    pub description: String,
}

/// What [`SearchIndex::sync`] changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SyncReport {
    /// Tools indexed for the first time.
    pub added: usize,
    /// Tools whose manifest changed and were indexed again.
    pub replaced: usize,
    /// Tools no longer offered, dropped from the index.
    pub removed: usize,
    /// Tools left as they were.
    pub unchanged: usize,
}

/// A query: BM25 over words, or a regular expression.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SearchQuery {
    /// Words, tokenised like the indexed text ([`terms`](super::terms)) and
    /// ranked by BM25.
    Words(String),
    /// A regular expression (Rust `regex` syntax, close to Python's `re` for
    /// what models write; add `(?i)` for case-insensitive), matched against
    /// each API's wire name (weight 3), description (1) and parameter names
    /// and descriptions (0.5); at most [`MAX_REGEX_LEN`] characters.
    Regex(String),
}

struct Posting {
    doc: u32,
    tf: f32,
}

struct Doc {
    /// `wire name \n description \n parameter lines`, the regex haystack.
    text: Box<str>,
    name_end: u32,
    description_end: u32,
    identifier: Arc<str>,
    api: Box<str>,
    terms: Box<[u32]>,
}

impl Doc {
    fn name(&self) -> &str {
        &self.text[..self.name_end as usize]
    }

    fn description(&self) -> &str {
        let start = (self.name_end as usize + 1).min(self.description_end as usize);
        &self.text[start..self.description_end as usize]
    }

    fn parameters(&self) -> &str {
        let start = (self.description_end as usize + 1).min(self.text.len());
        &self.text[start..]
    }

    fn hit(&self, score: f64) -> SearchHit {
        let first = self.description().lines().next().unwrap_or_default().trim();
        let description = match first.char_indices().nth(SUMMARY_CHARS) {
            Some((cut, _)) => format!("{}…", &first[..cut]),
            None => first.to_owned(),
        };
        SearchHit {
            name: self.name().to_owned(),
            identifier: self.identifier.to_string(),
            api: self.api.to_string(),
            score,
            description,
        }
    }
}

struct IndexedTool {
    manifest: Arc<ToolManifest>,
    slots: Vec<u32>,
}

/// A search index over the APIs of every kind of tool (builtin, typed, MCP,
/// OpenAPI, skills: it reads only manifests), kept up to date one tool at a
/// time.
///
/// Each API is indexed under its wire name's words (identifier and API
/// name, split at `_`, `-` and case changes), its description, its
/// parameters' names and descriptions, and its tool's identifier, title and
/// kind, with the weights the module states; words are made by
/// [`terms`](super::terms). Queries are BM25-ranked words
/// ([`search`](Self::search)) or a regular expression
/// ([`search_regex`](Self::search_regex)); equal scores are ordered by wire
/// name, so a query always gives the same list.
///
/// [`sync`](Self::sync) brings the index to an [`OfferedTools`] snapshot,
/// indexing again only the tools whose manifest changed (an MCP server's
/// `tools/list_changed`, a replaced tool) and dropping removed ones.
///
/// ```
/// use tool_core::search::SearchIndex;
/// use tool_core::{ApiDefinition, ToolBuilder, ToolContext, ToolOutput, ToolRegistry};
/// let mut registry = ToolRegistry::new();
/// registry.register(
///     ToolBuilder::new("github")
///         .api(ApiDefinition::new("listIssues", "List issues of a repository."), |_, _| async {
///             Ok(ToolOutput::text("[]"))
///         })
///         .api(ApiDefinition::new("createGist", "Create a gist."), |_, _| async {
///             Ok(ToolOutput::text("{}"))
///         })
///         .build()?,
/// )?;
/// let mut index = SearchIndex::new();
/// index.sync(&registry.offer(&ToolContext::new()));
/// let hits = index.search("open issues in a repo", 5)?;
/// assert_eq!(hits[0].name, "github____listIssues");
/// # Ok::<(), tool_core::Error>(())
/// ```
#[derive(Default)]
pub struct SearchIndex {
    terms: HashMap<Box<str>, u32>,
    postings: Vec<Vec<Posting>>,
    docs: Vec<Option<Doc>>,
    /// Weighted length of each slot's document (0 for a free slot).
    lengths: Vec<f32>,
    free: Vec<u32>,
    tools: HashMap<String, IndexedTool>,
    live: usize,
    total_length: f64,
}

impl std::fmt::Debug for SearchIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchIndex")
            .field("apis", &self.live)
            .field("tools", &self.tools.len())
            .field("terms", &self.terms.len())
            .finish()
    }
}

impl SearchIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// An index of every API offered in `offered`.
    pub fn from_offered(offered: &OfferedTools) -> Self {
        let mut index = Self::new();
        index.sync(offered);
        index
    }

    /// Number of indexed APIs.
    pub fn len(&self) -> usize {
        self.live
    }

    /// Whether no API is indexed.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Whether the tool `identifier` is indexed.
    pub fn contains_tool(&self, identifier: &str) -> bool {
        self.tools.contains_key(identifier)
    }

    /// Brings the index to `offered`: tools not seen before are added,
    /// tools whose manifest changed are indexed again, tools no longer
    /// offered are dropped; the others are not touched.
    pub fn sync(&mut self, offered: &OfferedTools) -> SyncReport {
        let mut report = SyncReport::default();
        let gone: Vec<String> = self
            .tools
            .keys()
            .filter(|id| offered.get(id).is_none())
            .cloned()
            .collect();
        for id in &gone {
            self.remove_tool(id);
            report.removed += 1;
        }
        for tool in offered.tools() {
            match self.tools.get(&tool.manifest().identifier) {
                None => report.added += 1,
                Some(known) if same_manifest(&known.manifest, tool.manifest_arc()) => {
                    report.unchanged += 1;
                    continue;
                }
                Some(_) => report.replaced += 1,
            }
            self.upsert(tool);
        }
        report
    }

    /// Indexes one offered tool, replacing what was indexed under its
    /// identifier.
    pub fn upsert(&mut self, tool: &OfferedTool) {
        let manifest = Arc::clone(tool.manifest_arc());
        self.remove_tool(&manifest.identifier);
        let identifier: Arc<str> = Arc::from(manifest.identifier.as_str());
        let source = source_text(&manifest);
        let mut weights: Vec<(u32, f32)> = Vec::new();
        let mut slots = Vec::with_capacity(manifest.api.len());
        for (wire, api) in tool.apis() {
            weights.clear();
            let slot = self.add_doc(wire, api, &identifier, &source, &mut weights);
            slots.push(slot);
        }
        self.tools
            .insert(manifest.identifier.clone(), IndexedTool { manifest, slots });
    }

    /// Drops the tool `identifier` from the index; `false` when it was not
    /// indexed.
    pub fn remove_tool(&mut self, identifier: &str) -> bool {
        let Some(tool) = self.tools.remove(identifier) else {
            return false;
        };
        let mut removed = vec![false; self.docs.len()];
        let mut touched: Vec<u32> = Vec::new();
        for &slot in &tool.slots {
            if let Some(doc) = self.docs[slot as usize].take() {
                removed[slot as usize] = true;
                touched.extend(doc.terms.iter().copied());
                self.total_length -= f64::from(self.lengths[slot as usize]);
                self.lengths[slot as usize] = 0.0;
                self.live -= 1;
                self.free.push(slot);
            }
        }
        touched.sort_unstable();
        touched.dedup();
        for term in touched {
            self.postings[term as usize].retain(|p| !removed[p.doc as usize]);
        }
        true
    }

    fn add_doc(
        &mut self,
        wire: &str,
        api: &ApiDefinition,
        identifier: &Arc<str>,
        source: &str,
        weights: &mut Vec<(u32, f32)>,
    ) -> u32 {
        let mut text = String::with_capacity(wire.len() + api.description.len() + 64);
        text.push_str(wire);
        let name_end = text.len();
        text.push('\n');
        text.push_str(&api.description);
        let description_end = text.len();
        text.push('\n');
        let schema = api.parameters_schema();
        let parameters = parameters(&schema);
        for &(name, description) in &parameters {
            text.push_str(name);
            if let Some(description) = description {
                text.push_str(": ");
                text.push_str(description);
            }
            text.push('\n');
        }
        let mut length = 0.0f32;
        let mut add = |index: &mut Self, piece: &str, weight: f32| {
            each_term(piece, |term| {
                let id = index.term_id(term);
                weights.push((id, weight));
                length += weight;
            });
        };
        add(self, &api.name, WEIGHT_NAME);
        add(self, source, WEIGHT_SOURCE);
        add(self, &api.description, WEIGHT_DESCRIPTION);
        for &(name, description) in &parameters {
            add(self, name, WEIGHT_PARAM_NAME);
            if let Some(description) = description {
                add(self, description, WEIGHT_PARAM_DESCRIPTION);
            }
        }
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => {
                self.docs.push(None);
                self.lengths.push(0.0);
                (self.docs.len() - 1) as u32
            }
        };
        // One posting per distinct term, its weights summed.
        weights.sort_unstable_by_key(|&(term, _)| term);
        let mut terms: Vec<u32> = Vec::with_capacity(weights.len());
        let mut i = 0;
        while i < weights.len() {
            let term = weights[i].0;
            let mut tf = 0.0;
            while i < weights.len() && weights[i].0 == term {
                tf += weights[i].1;
                i += 1;
            }
            self.postings[term as usize].push(Posting { doc: slot, tf });
            terms.push(term);
        }
        self.docs[slot as usize] = Some(Doc {
            text: text.into_boxed_str(),
            name_end: name_end as u32,
            description_end: description_end as u32,
            identifier: Arc::clone(identifier),
            api: api.name.clone().into_boxed_str(),
            terms: terms.into_boxed_slice(),
        });
        self.lengths[slot as usize] = length;
        self.total_length += f64::from(length);
        self.live += 1;
        slot
    }

    fn term_id(&mut self, term: &str) -> u32 {
        if let Some(&id) = self.terms.get(term) {
            return id;
        }
        let id = self.postings.len() as u32;
        self.terms.insert(term.into(), id);
        self.postings.push(Vec::new());
        id
    }

    /// The `limit` best APIs for `query` (see [`SearchQuery`]).
    pub fn query(&self, query: &SearchQuery, limit: usize) -> Result<Vec<SearchHit>, Error> {
        self.query_where(query, limit, |_| true)
    }

    /// [`query`](Self::query) over the APIs whose wire name `keep` accepts
    /// (the deferred ones, say).
    pub fn query_where(
        &self,
        query: &SearchQuery,
        limit: usize,
        keep: impl Fn(&str) -> bool,
    ) -> Result<Vec<SearchHit>, Error> {
        match query {
            SearchQuery::Words(words) => self.bm25(words, limit, keep),
            SearchQuery::Regex(pattern) => self.regex(pattern, limit, keep),
        }
    }

    /// The `limit` best APIs for `words` by BM25. An empty query (no word
    /// left after tokenising) is an [`Error::InvalidSearchQuery`].
    pub fn search(&self, words: &str, limit: usize) -> Result<Vec<SearchHit>, Error> {
        self.bm25(words, limit, |_| true)
    }

    /// The `limit` APIs best matching the regular expression `pattern` (see
    /// [`SearchQuery::Regex`]).
    pub fn search_regex(&self, pattern: &str, limit: usize) -> Result<Vec<SearchHit>, Error> {
        self.regex(pattern, limit, |_| true)
    }

    fn bm25(
        &self,
        words: &str,
        limit: usize,
        keep: impl Fn(&str) -> bool,
    ) -> Result<Vec<SearchHit>, Error> {
        // Distinct query terms in text order of the term (not of its id,
        // which depends on indexing history), so scores are summed in the
        // same order however the index was built.
        let mut known: Vec<(&str, u32)> = Vec::new();
        let mut any = false;
        each_term(words, |term| {
            any = true;
            if let Some((key, &id)) = self.terms.get_key_value(term) {
                known.push((key, id));
            }
        });
        if !any {
            return Err(Error::InvalidSearchQuery {
                query: words.to_owned(),
                message: "no searchable word in the query".into(),
            });
        }
        known.sort_unstable();
        known.dedup();
        let query_terms: Vec<u32> = known.into_iter().map(|(_, id)| id).collect();
        if self.live == 0 || limit == 0 {
            return Ok(Vec::new());
        }
        let n = self.live as f32;
        let average = (self.total_length / self.live as f64).max(f64::MIN_POSITIVE) as f32;
        let mut scores = vec![0.0f32; self.docs.len()];
        let mut touched: Vec<u32> = Vec::new();
        for term in query_terms {
            let postings = &self.postings[term as usize];
            if postings.is_empty() {
                continue;
            }
            let df = postings.len() as f32;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for posting in postings {
                let d = posting.doc as usize;
                let norm = K1 * (1.0 - B + B * self.lengths[d] / average);
                if scores[d] == 0.0 {
                    touched.push(posting.doc);
                }
                scores[d] += idf * posting.tf * (K1 + 1.0) / (posting.tf + norm);
            }
        }
        let ranked = touched
            .into_iter()
            .map(|d| (d, f64::from(scores[d as usize])));
        Ok(self.top(ranked, limit, keep))
    }

    fn regex(
        &self,
        pattern: &str,
        limit: usize,
        keep: impl Fn(&str) -> bool,
    ) -> Result<Vec<SearchHit>, Error> {
        let bad = |message: String| Error::InvalidSearchQuery {
            query: pattern.to_owned(),
            message,
        };
        if pattern.trim().is_empty() {
            return Err(bad("the pattern is empty".into()));
        }
        if pattern.chars().count() > MAX_REGEX_LEN {
            return Err(bad(format!(
                "the pattern is longer than {MAX_REGEX_LEN} characters"
            )));
        }
        let regex = regex::RegexBuilder::new(pattern)
            .size_limit(REGEX_SIZE_LIMIT)
            .dfa_size_limit(REGEX_SIZE_LIMIT)
            .build()
            .map_err(|e| bad(e.to_string()))?;
        if limit == 0 {
            return Ok(Vec::new());
        }
        let ranked = self.docs.iter().enumerate().filter_map(|(slot, doc)| {
            let doc = doc.as_ref()?;
            let mut score = 0.0;
            if regex.is_match(doc.name()) {
                score += 3.0;
            }
            if regex.is_match(doc.description()) {
                score += 1.0;
            }
            if regex.is_match(doc.parameters()) {
                score += 0.5;
            }
            (score > 0.0).then_some((slot as u32, score))
        });
        Ok(self.top(ranked, limit, keep))
    }

    /// The best `limit` of `(slot, score)`, by score then wire name.
    fn top(
        &self,
        ranked: impl Iterator<Item = (u32, f64)>,
        limit: usize,
        keep: impl Fn(&str) -> bool,
    ) -> Vec<SearchHit> {
        let mut candidates: Vec<(f64, &Doc)> = ranked
            .filter_map(|(slot, score)| {
                let doc = self.docs[slot as usize].as_ref()?;
                keep(doc.name()).then_some((score, doc))
            })
            .collect();
        let order = |a: &(f64, &Doc), b: &(f64, &Doc)| {
            b.0.total_cmp(&a.0).then_with(|| a.1.name().cmp(b.1.name()))
        };
        if candidates.len() > limit {
            candidates.select_nth_unstable_by(limit, order);
            candidates.truncate(limit);
        }
        candidates.sort_unstable_by(order);
        candidates
            .into_iter()
            .map(|(score, doc)| doc.hit(score))
            .collect()
    }

    /// Bytes the index holds on the heap (an estimate from capacities; the
    /// manifests it points to are shared with the registry and not counted).
    pub fn heap_bytes(&self) -> usize {
        let mut bytes = self.terms.capacity()
            * (std::mem::size_of::<Box<str>>() + std::mem::size_of::<u32>() + 8);
        bytes += self.terms.keys().map(|k| k.len()).sum::<usize>();
        bytes += self.postings.capacity() * std::mem::size_of::<Vec<Posting>>();
        bytes += self
            .postings
            .iter()
            .map(|p| p.capacity() * std::mem::size_of::<Posting>())
            .sum::<usize>();
        bytes += self.docs.capacity() * std::mem::size_of::<Option<Doc>>();
        bytes += self.lengths.capacity() * 4 + self.free.capacity() * 4;
        for doc in self.docs.iter().flatten() {
            bytes += doc.text.len() + doc.api.len() + doc.terms.len() * 4;
        }
        for (id, tool) in &self.tools {
            bytes += id.len() + tool.slots.capacity() * 4 + std::mem::size_of::<IndexedTool>();
        }
        bytes
    }
}

fn same_manifest(known: &Arc<ToolManifest>, offered: &Arc<ToolManifest>) -> bool {
    Arc::ptr_eq(known, offered) || known == offered
}

/// The words naming where a tool comes from: identifier, title, kind.
fn source_text(manifest: &ToolManifest) -> String {
    let mut text = manifest.identifier.clone();
    if let Some(title) = &manifest.meta.title {
        text.push(' ');
        text.push_str(title);
    }
    if let Some(kind) = manifest.kind {
        text.push(' ');
        text.push_str(kind.as_str());
    }
    text
}

/// `(name, description)` of the schema's top-level properties and of the
/// properties of object-typed ones (one level down), in schema order.
fn parameters(schema: &Value) -> Vec<(&str, Option<&str>)> {
    let mut out = Vec::new();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return out;
    };
    for (name, property) in properties {
        out.push((
            name.as_str(),
            property.get("description").and_then(Value::as_str),
        ));
        if let Some(nested) = property.get("properties").and_then(Value::as_object) {
            for (name, property) in nested {
                out.push((
                    name.as_str(),
                    property.get("description").and_then(Value::as_str),
                ));
            }
        }
    }
    out
}
