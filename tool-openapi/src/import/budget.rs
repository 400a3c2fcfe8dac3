//! The tool size budget: no tool above it reaches a model unannounced.
//!
//! A tool's size is its arguments schema as JSON (with its `$defs`) plus
//! its description, in bytes. Over [`ImportOptions::max_tool_chars`](crate::ImportOptions::max_tool_chars)
//! the import shortens it in this
//! order, stopping as soon as it fits:
//!
//! 1. descriptions inside `$defs` are removed;
//! 2. long descriptions are shortened: nested ones in the arguments to
//!    [`NESTED_DESCRIPTION`] characters, an argument's own to
//!    [`ARGUMENT_DESCRIPTION`], the tool's to [`TOOL_DESCRIPTION`];
//! 3. the deepest `$defs` are cut, farthest from the arguments first: a cut
//!    definition becomes `{}` (it accepts anything, so a valid call is never
//!    refused; the server still checks it) and the ones only it reached
//!    are left out;
//! 4. argument schemas are cut (optional arguments first, largest first)
//!    to their type, format and role, with a note in their description.
//!
//! Each shortened tool is a [`Shortened`] in [`Import::shortened`](crate::Import::shortened) and a warning at its operation. Examples are
//! always dropped (see the schema module). A tool still over the budget
//! after every step is reported as such.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::document::Parameter;

use super::schema::shared::{SharedDefs, each_schema, json_len, object_len};

/// Nested descriptions are shortened to this many characters (step 2).
pub const NESTED_DESCRIPTION: usize = 120;
/// An argument's own description is shortened to this (step 2).
pub const ARGUMENT_DESCRIPTION: usize = 300;
/// A tool's description is shortened to this (step 2).
pub const TOOL_DESCRIPTION: usize = 500;

/// The note a cut argument's description ends with.
const CUT_NOTE: &str = "(schema cut to fit the tool size budget)";

/// What the size budget cost one tool (see the budget steps on
/// [`ImportOptions::max_tool_chars`](crate::ImportOptions::max_tool_chars)).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Shortened {
    /// The operation (its imported id).
    pub operation_id: String,
    /// JSON pointer of the operation.
    pub pointer: String,
    /// The tool's size before (bytes of schema JSON and description).
    pub before: usize,
    /// Its size after.
    pub after: usize,
    /// The budget it was fitted to.
    pub budget: usize,
    /// Descriptions removed from `$defs` (step 1).
    pub descriptions_removed: usize,
    /// Descriptions shortened (step 2).
    pub descriptions_shortened: usize,
    /// `$defs` cut to `{}` (step 3), by name.
    pub cut_definitions: Vec<String>,
    /// `$defs` left out because only cut ones reached them (step 3).
    pub dropped_definitions: usize,
    /// Arguments whose schema was cut (step 4).
    pub cut_arguments: Vec<String>,
}

impl Shortened {
    /// Whether the tool fits its budget now.
    pub fn fits(&self) -> bool {
        self.after <= self.budget
    }

    /// One line saying what was done.
    pub fn summary(&self) -> String {
        let mut done = Vec::new();
        if self.descriptions_removed > 0 {
            done.push(format!(
                "removed {} descriptions in $defs",
                self.descriptions_removed
            ));
        }
        if self.descriptions_shortened > 0 {
            done.push(format!(
                "shortened {} descriptions",
                self.descriptions_shortened
            ));
        }
        if !self.cut_definitions.is_empty() {
            done.push(format!(
                "cut {} $defs to {{}} (accepting anything; farthest first: {}){}",
                self.cut_definitions.len(),
                list(&self.cut_definitions),
                if self.dropped_definitions > 0 {
                    format!(
                        " and left out {} only they reached",
                        self.dropped_definitions
                    )
                } else {
                    String::new()
                }
            ));
        }
        if !self.cut_arguments.is_empty() {
            done.push(format!(
                "cut the schemas of arguments {}",
                list(&self.cut_arguments)
            ));
        }
        format!(
            "the tool was {} bytes, over the tool budget of {}: {}; now {} bytes{}",
            self.before,
            self.budget,
            done.join(", "),
            self.after,
            if self.fits() {
                ""
            } else {
                " (still over the budget)"
            }
        )
    }
}

fn list(names: &[String]) -> String {
    let shown: Vec<&str> = names.iter().take(8).map(String::as_str).collect();
    if names.len() > shown.len() {
        format!("{}, … {} more", shown.join(", "), names.len() - shown.len())
    } else {
        shown.join(", ")
    }
}

/// About the JSON length of the arguments schema without `$defs` (an upper
/// bound: escapes aside, every byte is counted).
pub(crate) fn arguments_len(parameters: &[Parameter]) -> usize {
    arguments_len_by(parameters, &mut |schema| json_len(schema))
}

/// JSON lengths of argument schemas, once per schema (an import's
/// operations share their argument schemas).
pub(crate) type Lengths = crate::fingerprint::ByAddress<usize>;

/// [`arguments_len`], each schema's length from `len_of`.
fn arguments_len_by(
    parameters: &[Parameter],
    len_of: &mut dyn FnMut(&Arc<Value>) -> usize,
) -> usize {
    let mut len = 48;
    for p in parameters {
        let name = p.argument_name().len();
        len += len_of(&p.schema) + name + 4;
        if let Some(d) = &p.description
            && p.schema.get("description").is_none()
        {
            len += d.len() + 20;
        }
        if p.required {
            len += name + 3;
        }
    }
    len
}

/// How a tool's `$defs` come out of [`fit`].
pub(crate) enum Fitted {
    /// Within the budget: the document's shared definitions it reaches
    /// (with their distance), written once for every such tool.
    Shared(Vec<(usize, usize)>),
    /// Shortened, and what was shortened.
    Shortened(Cut, Box<Shortened>),
}

/// The `$defs` of a shortened tool: `{}` of its own for each definition
/// cut (step 3), and the definitions it still reaches whole (`reached`,
/// with their distance) without their descriptions (step 1), which every
/// shortened tool of the document shares
/// ([`SharedDefs::plain_shared`]). Written out, that is the `$defs` the
/// tool would carry, in name order.
pub(crate) struct Cut {
    /// The definitions cut to `{}`, by name.
    pub(crate) stubs: Map<String, Value>,
    /// The definitions reached whole (plain).
    pub(crate) reached: Vec<(usize, usize)>,
    /// The JSON length of the whole `$defs` object (0 when it is empty).
    pub(crate) len: usize,
}

/// Fits one tool to `budget` (see the module docs); with the size of its
/// arguments and description as fitted ([`arguments_len`] and the
/// description's length), which the document budget counts again only
/// for a tool changed since.
pub(crate) fn fit(
    defs: &mut SharedDefs<'_>,
    mut reached: Vec<(usize, usize)>,
    parameters: &mut [Parameter],
    description: &mut String,
    budget: usize,
    lengths: &mut Lengths,
) -> (Fitted, usize) {
    let defs_len = |defs: &SharedDefs<'_>, reached: &[(usize, usize)], cut_at: usize, plain| {
        reached
            .iter()
            .map(|&(id, distance)| match distance.cmp(&cut_at) {
                std::cmp::Ordering::Less => defs.entry_len(id, plain),
                std::cmp::Ordering::Equal => defs.entry_name(id).len() + 6,
                std::cmp::Ordering::Greater => 0,
            })
            .sum::<usize>()
    };
    // The arguments and the description, counted again only when a step
    // changes them.
    let own_len = |p: &[Parameter], d: &str| arguments_len(p) + d.len();
    let mut own = arguments_len_by(parameters, &mut |schema| lengths.of(schema, json_len))
        + description.len();
    let before = own + defs_len(defs, &reached, usize::MAX, false);
    if before <= budget {
        return (Fitted::Shared(reached), own);
    }
    let mut report = Shortened {
        operation_id: String::new(),
        pointer: String::new(),
        before,
        after: before,
        budget,
        descriptions_removed: 0,
        descriptions_shortened: 0,
        cut_definitions: Vec::new(),
        dropped_definitions: 0,
        cut_arguments: Vec::new(),
    };
    // Step 1: descriptions inside $defs (counted when they are written).
    let plain = !reached.is_empty();
    let mut cut_at = usize::MAX;
    let fits = |defs: &SharedDefs<'_>, reached: &[(usize, usize)], own: usize, cut_at| {
        own + defs_len(defs, reached, cut_at, plain) <= budget
    };
    // Step 2: long descriptions.
    if !fits(defs, &reached, own, cut_at) {
        report.descriptions_shortened += shorten_descriptions(parameters, description);
        own = own_len(parameters, description);
    }
    // Step 3: the deepest $defs first.
    let deepest = reached.iter().map(|r| r.1).max().unwrap_or(0);
    let mut level = deepest;
    while level >= 1 && !fits(defs, &reached, own, cut_at) {
        cut_at = level;
        level -= 1;
    }
    // Step 4: argument schemas, optional and largest first.
    if !fits(defs, &reached, own, cut_at) {
        let mut order: Vec<usize> = (0..parameters.len()).collect();
        order.sort_by_key(|&i| {
            (
                parameters[i].required,
                std::cmp::Reverse(json_len(&parameters[i].schema)),
            )
        });
        for i in order {
            if fits(defs, &reached, own, cut_at) {
                break;
            }
            cut_argument(&mut parameters[i]);
            own = own_len(parameters, description);
            report
                .cut_arguments
                .push(parameters[i].argument_name().to_owned());
            reached = defs
                .reach(parameters.iter().map(|p| &*p.schema))
                .unwrap_or_default();
        }
    }
    // The $defs written out: the plain definitions before the cut, `{}`
    // for those at it (nothing when none is left).
    let mut stubs = Map::new();
    let mut kept = Vec::new();
    for &(id, distance) in &reached {
        match distance.cmp(&cut_at) {
            std::cmp::Ordering::Less => kept.push((id, distance)),
            std::cmp::Ordering::Equal => {
                stubs.insert(defs.entry_name(id).to_owned(), Value::Object(Map::new()));
            }
            std::cmp::Ordering::Greater => {}
        }
    }
    let len = match defs_len(defs, &reached, cut_at, plain) {
        0 => 0,
        entries => 1 + entries,
    };
    if plain {
        // Count what step 1 removed, on what is written.
        report.descriptions_removed = reached
            .iter()
            .filter(|r| r.1 < cut_at)
            .map(|&(id, _)| defs.description_count(id))
            .sum();
    }
    for &(id, distance) in &reached {
        if distance == cut_at {
            report.cut_definitions.push(defs.entry_name(id).to_owned());
        } else if distance > cut_at {
            report.dropped_definitions += 1;
        }
    }
    // An empty `$defs` is not written, but counted as `{}`, as before.
    report.after = own + len.max(2);
    stubs.sort_keys();
    (
        Fitted::Shortened(
            Cut {
                stubs,
                reached: kept,
                len,
            },
            Box::new(report),
        ),
        own,
    )
}

/// Step 2 on the arguments and the tool's description; how many.
fn shorten_descriptions(parameters: &mut [Parameter], description: &mut String) -> usize {
    let mut count = 0;
    if shorten(description, TOOL_DESCRIPTION) {
        count += 1;
    }
    for p in parameters.iter_mut() {
        if let Some(d) = &mut p.description
            && shorten(d, ARGUMENT_DESCRIPTION)
        {
            count += 1;
        }
        let mut top = true;
        each_schema(Arc::make_mut(&mut p.schema), &mut |object| {
            let limit = if std::mem::take(&mut top) {
                ARGUMENT_DESCRIPTION
            } else {
                NESTED_DESCRIPTION
            };
            if let Some(Value::String(d)) = object.get_mut("description")
                && shorten(d, limit)
            {
                count += 1;
            }
        });
    }
    count
}

fn shorten(text: &mut String, limit: usize) -> bool {
    if text.chars().count() <= limit {
        return false;
    }
    let mut short: String = text.chars().take(limit.saturating_sub(1)).collect();
    short.push('…');
    *text = short;
    true
}

/// Step 4 on one argument: its type, format and role kept, with a note.
fn cut_argument(parameter: &mut Parameter) {
    let mut cut = Map::new();
    if let Value::Object(object) = &*parameter.schema {
        for key in ["type", "format", "x-role"] {
            if let Some(value) = object.get(key)
                && !value.is_object()
            {
                cut.insert(key.to_owned(), value.clone());
            }
        }
    }
    let description = match parameter
        .description
        .as_deref()
        .or_else(|| parameter.schema.get("description").and_then(Value::as_str))
    {
        Some(d) if !d.trim().is_empty() => {
            let mut d = d.trim().to_owned();
            shorten(&mut d, NESTED_DESCRIPTION);
            format!("{d} {CUT_NOTE}")
        }
        _ => CUT_NOTE.to_owned(),
    };
    cut.insert("description".into(), Value::String(description));
    parameter.description = None;
    parameter.schema = Arc::new(Value::Object(cut));
}

/// The document budget: over `options.max_document_chars`, one warning at
/// `/paths` with the total and the largest tools.
///
/// `shared[i]` is the JSON length of the shared definitions operation `i`
/// reaches, as its `$defs` would write them (0 for an operation with
/// definitions of its own).
pub(crate) fn document(
    operations: &[crate::document::Operation],
    shared: &[usize],
    own: &[usize],
    options: &super::ImportOptions,
    warnings: &mut Vec<tool_core::pipeline::Violation>,
) {
    let mut sizes: Vec<(usize, &str)> = operations
        .iter()
        .zip(shared.iter().zip(own))
        .map(|(op, (&shared, &own))| {
            // Definitions held shared (a shortened tool's plain ones with
            // its own `{}` stubs too) are counted as written out.
            let size = own
                + if op.definitions.is_empty() || !op.shared_definitions.is_empty() {
                    shared
                } else {
                    object_len(&op.definitions)
                };
            (size, op.operation_id.as_str())
        })
        .collect();
    let total: usize = sizes.iter().map(|s| s.0).sum();
    if total <= options.max_document_chars {
        return;
    }
    sizes.sort_by_key(|s| std::cmp::Reverse(s.0));
    let largest: Vec<String> = sizes
        .iter()
        .take(5)
        .map(|(size, id)| format!("{id} ({size})"))
        .collect();
    warnings.push(tool_core::pipeline::Violation {
        pointer: "/paths".into(),
        message: format!(
            "the {} tools total about {total} bytes, over the document budget of {}: offer fewer at once (filter by tags, paths, methods or operation ids); the largest: {}",
            operations.len(),
            options.max_document_chars,
            largest.join(", ")
        ),
    });
}
