//! The import-time check that an operation's arguments schema compiles,
//! shared across the document.
//!
//! 1. When compilations are kept ([`ImportOptions::keep_compiled`](crate::ImportOptions::keep_compiled)),
//!    an operation whose `$defs` are small (at most [`KEEP_DEFS_CHARS`] of
//!    JSON) is compiled whole and the compilation is kept: building a tool
//!    from it reuses it. So is one without `$defs`.
//! 2. When nothing is kept, an operation whose parts pass a cheap check
//!    is vouched for without compiling anything: each shared definition it
//!    reaches once per document, then each argument's schema, meets the
//!    JSON Schema meta-schema ([`CompiledSchema::meets_meta_schema`], what
//!    compiling refuses a schema for first), each distinct `pattern`
//!    compiles (once per document), and its `required` names are
//!    distinct. Its validator is built on the tool's first call; a schema
//!    that does not compile then (a fault the cheap check does not see,
//!    none in the public corpus) answers that call with `schema_unusable`.
//!    A schema with `patternProperties` (keys that are patterns) or a
//!    `$schema` is never vouched for this way.
//! 3. Any other is checked in parts (one without `$defs` in one part):
//!    each shared definition it reaches once per document
//!    ([`SharedDefs::check`]), then its own schema with its `$defs`
//!    stubbed, each distinct `pattern` compiled once per document
//!    ([`SharedDefs::drop_good_patterns`]). Nothing is kept, and a document of thousands of
//!    operations sharing one web of definitions is checked in time
//!    proportional to its size. The parts passing vouch for the whole: it
//!    compiles on the tool's first call (or, when compilations are kept,
//!    when the tool is registered).
//! 4. When a part fails, the operation is compiled whole after all, so
//!    its ECMA-262 patterns are repaired (see the pattern module) or the
//!    message names the fault.

use std::sync::Arc;

use serde_json::{Map, Value};
use tool_core::pipeline::{CompiledSchema, Violation};

use crate::compile::{parameters_schema, parameters_schema_with};
use crate::pointer;

use super::pattern;
use super::schema::shared::{SharedDefs, object_len};

/// `$defs` up to this many bytes of JSON are compiled with the operation
/// and kept.
pub(crate) const KEEP_DEFS_CHARS: usize = 16_000;

/// Checks `op` (see the module docs): `Ok(Some)` is a compilation to keep.
///
/// An operation reaching the document's shared definitions (`reached`,
/// see [`SharedDefs::shared`]) that is compiled whole gets its own copies
/// first, which a repair may change.
#[allow(clippy::too_many_arguments)]
pub(crate) fn check(
    defs: &mut SharedDefs<'_>,
    op: &mut crate::document::Operation,
    reached: &[(usize, usize)],
    plain: Option<usize>,
    at: &str,
    warnings: &mut Vec<Violation>,
    keep: bool,
) -> Result<Option<CompiledSchema>, String> {
    let shared = !op.shared_definitions.is_empty();
    let defs_len = if let Some(len) = plain {
        // A shortened tool: its plain definitions and `{}` stubs.
        len
    } else if shared {
        defs.json_len_of(reached)
    } else if op.definitions.is_empty() {
        0
    } else {
        object_len(&op.definitions)
    };
    if keep && defs_len <= KEEP_DEFS_CHARS {
        own_copies(defs, op, reached, plain.is_some());
        return compile_check(op, at, warnings, keep).map(Some);
    }
    if !keep && meets_cheap_check(defs, op, reached) {
        return Ok(vouched(keep));
    }
    let names: Vec<String> = if shared {
        reached
            .iter()
            .map(|&(id, _)| defs.entry_name(id).to_owned())
            .collect()
    } else {
        op.definitions
            .iter()
            .filter(|(_, value)| !value.as_object().is_some_and(Map::is_empty))
            .map(|(name, _)| name.clone())
            .collect()
    };
    let parts_ok = names.iter().all(|name| defs.check(name).is_ok());
    if parts_ok {
        let stubs: Map<String, Value> = if shared {
            // A shortened tool's own `{}` stubs, then what it reaches.
            op.definitions
                .keys()
                .cloned()
                .chain(names)
                .map(|name| (name, Value::Bool(true)))
                .collect()
        } else {
            op.definitions
                .keys()
                .map(|name| (name.clone(), Value::Bool(true)))
                .collect()
        };
        let mut own = parameters_schema_with(op, stubs);
        defs.drop_good_patterns(&mut own);
        if CompiledSchema::try_compile(&own).is_ok() {
            return Ok(vouched(keep));
        }
    }
    own_copies(defs, op, reached, plain.is_some());
    compile_check(op, at, warnings, false).map(Some)
}

/// Step 1 of the module docs when nothing is kept: whether every part of
/// `op`'s arguments schema passes the cheap check
/// ([`SharedDefs::schema_meets_cheap_check`]: the meta-schema, and each
/// pattern compiled once per document) and its `required` names are
/// distinct, so that it is vouched for without compiling it.
fn meets_cheap_check(
    defs: &mut SharedDefs<'_>,
    op: &crate::document::Operation,
    reached: &[(usize, usize)],
) -> bool {
    let definitions_pass = if op.shared_definitions.is_empty() {
        op.definitions
            .iter()
            .filter(|(_, value)| !value.as_object().is_some_and(Map::is_empty))
            .all(|(name, _)| defs.meets_cheap_check(name))
    } else {
        reached
            .iter()
            .all(|&(id, _)| defs.entry_meets_cheap_check(id))
    };
    if !definitions_pass {
        return false;
    }
    let mut required = std::collections::HashSet::new();
    op.parameters.iter().all(|parameter| {
        (!parameter.required || required.insert(parameter.argument_name()))
            && defs.schema_meets_cheap_check(&parameter.schema)
    })
}

/// Gives an operation reaching the shared definitions its own copies of
/// them (as an import without shared definitions wrote them); a shortened
/// one (`plain`) its `$defs` written out.
fn own_copies(
    defs: &SharedDefs<'_>,
    op: &mut crate::document::Operation,
    reached: &[(usize, usize)],
    plain: bool,
) {
    if !op.shared_definitions.is_empty() {
        op.definitions = if plain {
            op.complete_definitions()
        } else {
            defs.materialize(reached, usize::MAX, false)
        };
        op.shared_definitions = tool_core::manifest::SharedDefs::default();
    }
}

/// What a schema checked in parts stands on: kept compilations wanted, none
/// (the registry compiles the whole and keeps it); else a checked schema
/// vouching for the whole, which compiles on the tool's first call from the
/// manifest's parameters ([`CompiledSchema::vouched`] keeps nothing and
/// has no source, so it stands for any schema).
fn vouched(keep: bool) -> Option<CompiledSchema> {
    if keep {
        return None;
    }
    Some(CompiledSchema::vouched())
}

/// Compiles an operation's arguments schema (`keep`: keeping the validator
/// and the schema so that building the tool reuses this compilation; else
/// a [`CompiledSchema::checked`] that compiles again on the tool's first
/// call and holds nothing meanwhile); `Err(message)` when
/// `tool-core` would refuse it. A schema that does not compile has its
/// ECMA-262 patterns repaired (see the pattern module; each repair is a
/// warning at `at`) and is compiled again; the repairs go into the
/// operation's parameters and definitions. (Sequential: on a loaded
/// two-core machine a threaded version measured slower.)
pub(crate) fn compile_check(
    op: &mut crate::document::Operation,
    at: &str,
    warnings: &mut Vec<Violation>,
    keep: bool,
) -> Result<CompiledSchema, String> {
    let compile = |schema: Value| {
        if keep {
            CompiledSchema::try_compile_kept(schema)
        } else {
            CompiledSchema::checked(&schema)
        }
    };
    let message = |e: tool_core::Error| match e {
        tool_core::Error::InvalidSchema { message, .. } => message,
        other => other.to_string(),
    };
    let first = match compile(parameters_schema(op)) {
        Ok(compiled) => return Ok(compiled),
        Err(e) => message(e),
    };
    let mut fixed = 0;
    for parameter in &mut op.parameters {
        let arg = parameter.argument_name().to_owned();
        // A repair copies a schema other operations share.
        for fix in pattern::repair(Arc::make_mut(&mut parameter.schema)) {
            fixed += 1;
            warnings.push(pattern_warning(
                at,
                &format!("/properties/{}{}", pointer::escape(&arg), fix.pointer),
                &fix,
            ));
        }
    }
    for (name, schema) in &mut op.definitions {
        for fix in pattern::repair(schema) {
            fixed += 1;
            warnings.push(pattern_warning(
                at,
                &format!("/$defs/{}{}", pointer::escape(name), fix.pointer),
                &fix,
            ));
        }
    }
    if fixed == 0 {
        return Err(first);
    }
    compile(parameters_schema(op)).map_err(message)
}

fn pattern_warning(at: &str, inner: &str, fix: &pattern::PatternFix) -> Violation {
    let outcome = match &fix.replacement {
        Some(replacement) => format!("checked as `{replacement}`"),
        None => "dropped (the server still checks it)".to_owned(),
    };
    Violation {
        pointer: at.to_owned(),
        message: format!(
            "the ECMA-262 pattern `{}` (arguments schema {inner}) does not compile as written: {outcome}",
            fix.original
        ),
    }
}
