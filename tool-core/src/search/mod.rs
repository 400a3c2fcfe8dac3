//! Deferred tool definitions and tool search, for every provider and every
//! kind of tool.
//!
//! A host offering hundreds or thousands of APIs shows the model only some
//! of them in full; the rest are searchable.
//!
//! - [`terms`]: how text becomes search terms (the same rules for indexed
//!   text and queries; documented step by step there).
//! - [`SearchIndex`]: a BM25 and regex index over offered APIs of every
//!   kind (it reads manifests only). [`SearchIndex::sync`] follows an
//!   [`OfferedTools`](crate::OfferedTools) snapshot, indexing again only
//!   the tools that changed; [`SearchIndex::search`] ranks by BM25
//!   (k1 = 1.2, b = 0.75; weighted fields: API name ×3, parameter names
//!   ×1.5, description and identifier/title/kind ×1, parameter
//!   descriptions ×0.5); [`SearchIndex::search_regex`] matches a pattern
//!   against the wire name, description and parameters. Ties are broken by
//!   wire name.
//! - [`DeferPolicy`]: which APIs are deferred (manifest `deferLoading`,
//!   per tool, per kind, or over a [`Budget`]; some always loaded), and
//!   whether search is the provider's own or our portable `tool_search`.
//! - [`LoadedSet`]: what searches and calls loaded so far, as data carried
//!   from turn to turn.
//! - [`ToolSearch`]: the three together for one conversation: exports with
//!   an [`ExportReport`] of sizes, answers `tool_search` calls, reads the
//!   provider's own searches, runs calls through the
//!   [`Invoker`](crate::Invoker).
//!
//! Exports per provider:
//!
//! | format | native search | portable search |
//! |---|---|---|
//! | Anthropic | deferred definitions with `defer_loading: true` + `tool_search_tool_bm25_20251119` or `…_regex_20251119` | loaded definitions + `tool_search` |
//! | OpenAI Responses | deferred functions with `defer_loading: true` (optionally in one `namespace` per tool) + `{"type": "tool_search"}` | loaded definitions + `tool_search` |
//! | OpenAI Chat | (none: portable) | loaded definitions + `tool_search` |

mod defer;
mod index;
mod loaded;
mod tokenize;
mod turn;

pub use defer::{
    AnthropicSearch, Budget, CHARS_PER_TOKEN, DeferPolicy, DeferReason, DeferredExport,
    ExportReport, SearchStyle, TOOL_SEARCH_NAME, estimate_tokens,
};
pub use index::{MAX_REGEX_LEN, SearchHit, SearchIndex, SearchQuery, SyncReport};
pub use loaded::{LoadedSet, ProviderSearch, provider_searches};
pub use tokenize::{STOPWORDS, terms};
pub use turn::{DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, ToolSearch};
