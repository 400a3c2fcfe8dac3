//! `tools/list` served: pages of the offered tools (one per API, under
//! wire or bare names, with their output schemas, their stated hints as
//! annotations, `execution.taskSupport` (a task tool's as this server
//! runs it) and `_meta`, so a proxied tool goes out as its server listed
//! it) and the cursors that link them, made
//! for one list and refused once it changed.

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{CacheScope, ListToolsResult, MetaObject, ToolAnnotations};
use serde_json::{Map, Value, json};
use tool_core::{ApiDefinition, HumanIntervention, InterventionPolicy, OfferedTools, ToolManifest};

use super::serve::{FIXED_LIST_TTL, RegistryServer, Source};
use super::serve_tasks::{ServedTasks, TaskSupport};
use super::wire::EXECUTION_META_KEY;
impl RegistryServer {
    /// One `tools/list` page: the tools from the cursor's offset on.
    pub(super) fn page(&self, cursor: Option<&str>) -> Result<ListToolsResult, ErrorData> {
        let offered = self.inner.registry.offer(&self.inner.ctx);
        let generation = list_stamp(&offered);
        let total: usize = offered.tools().iter().map(|t| t.apis().count()).sum();
        let start = match cursor {
            None => 0,
            Some(cursor) => parse_cursor(cursor, generation, total)?,
        };
        let end = start.saturating_add(self.inner.page_size).min(total);
        let listed = tools(
            &offered,
            start..end,
            self.inner.bare_names,
            &self.inner.tasks,
        );
        let mut result = ListToolsResult::with_all_items(listed);
        if end < total {
            result.next_cursor = Some(format!("{generation}:{end}"));
        }
        Ok(result)
    }

    /// The cache hints of a `tools/list` answer on 2026-07-28 (SEP-2549;
    /// see [`RegistryServer::with_list_ttl`]): `ttlMs` and `cacheScope`.
    pub(super) fn list_cache_hints(&self, result: &mut ListToolsResult) {
        let ttl = self.inner.list_ttl.unwrap_or(match self.inner.registry {
            Source::Fixed(_) => FIXED_LIST_TTL,
            Source::Live(_) => std::time::Duration::ZERO,
        });
        result.ttl_ms = Some(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX));
        result.cache_scope = Some(CacheScope::Private);
    }
}

/// The served tools in `range` (in offer order, one per API), listed
/// under bare names when `bare`. A tool's `execution.taskSupport` is how
/// this server runs it: as `tasks` says for a task tool
/// ([`RegistryServer::with_task_tools`], by the name it is listed under),
/// else as its API states (a proxied tool's is its server's).
fn tools(
    offered: &OfferedTools,
    range: std::ops::Range<usize>,
    bare: bool,
    tasks: &ServedTasks,
) -> Vec<rmcp::model::Tool> {
    let (start, end) = (range.start, range.end);
    let mut tools = Vec::with_capacity(end.saturating_sub(start));
    let mut index = 0;
    for tool in offered.tools() {
        let manifest = tool.manifest();
        for (wire, api) in tool.apis() {
            let here = index;
            index += 1;
            if here < start {
                continue;
            }
            if here >= end {
                return tools;
            }
            let schema = match api.parameters_schema().into_owned() {
                Value::Object(map) => map,
                _ => Map::new(),
            };
            let name = if bare
                && offered
                    .resolve(&api.name)
                    .is_ok_and(|resolved| resolved.wire_name == wire)
            {
                api.name.clone()
            } else {
                wire.to_owned()
            };
            let support = tasks.support(&name).map(TaskSupport::as_str).or_else(|| {
                api.task_support
                    .map(tool_core::manifest::TaskSupport::as_str)
            });
            let mut remote =
                rmcp::model::Tool::new(name, api.description.clone(), Arc::new(schema));
            if let Some(Value::Object(output)) = &api.output_schema {
                remote = remote.with_raw_output_schema(Arc::new(output.clone()));
            }
            if let Some(title) = &manifest.meta.title {
                remote = remote.with_title(format!("{title}: {}", api.name));
            }
            if let Some(annotations) = annotations(manifest, api) {
                remote = remote.with_annotations(annotations);
            }
            let mut meta = api.meta.clone().unwrap_or_default();
            // Only the task support found above travels under this key.
            meta.remove(EXECUTION_META_KEY);
            if let Some(support) = support {
                // Moved to the tool's `execution` on the way out (see the
                // `wire` module): rmcp's `Tool` has no such field.
                meta.insert(EXECUTION_META_KEY.into(), json!({"taskSupport": support}));
            }
            if !meta.is_empty() {
                remote.meta = Some(MetaObject(meta));
            }
            tools.push(remote);
        }
    }
    tools
}

/// The annotations of a served API: its stated hints unchanged (a proxied
/// tool's are its server's); else, for an API that runs without asking,
/// `destructiveHint: false` (derived from the approval policy); else none.
fn annotations(manifest: &ToolManifest, api: &ApiDefinition) -> Option<ToolAnnotations> {
    let mut annotations = ToolAnnotations::default();
    if api.hints.is_empty() {
        let policy = match manifest.intervention_for(&api.name) {
            Some(HumanIntervention::Policy(p)) => Some(*p),
            None => Some(InterventionPolicy::Never),
            _ => None,
        };
        if policy != Some(InterventionPolicy::Never) {
            return None;
        }
        annotations.destructive_hint = Some(false);
    } else {
        annotations.read_only_hint = api.hints.read_only;
        annotations.destructive_hint = api.hints.destructive;
        annotations.idempotent_hint = api.hints.idempotent;
        annotations.open_world_hint = api.hints.open_world;
    }
    Some(annotations)
}

/// What a `tools/list` cursor is made for: a digest of the served names in
/// order. A registry rebuilt with the same tools (a `list_changed` that
/// changed nothing) keeps it, so paging goes on; a list that changed does
/// not, and its old cursors are refused.
fn list_stamp(offered: &OfferedTools) -> u64 {
    use std::hash::{Hash, Hasher};
    // SipHash with fixed keys: the same list gives the same stamp in every
    // process (cursors are not secrets; a forged one only pages).
    let mut hasher = std::hash::DefaultHasher::new();
    for tool in offered.tools() {
        for (wire, _) in tool.apis() {
            wire.hash(&mut hasher);
        }
    }
    hasher.finish()
}

/// The offset a `tools/list` cursor (`stamp:offset`) points at.
fn parse_cursor(cursor: &str, generation: u64, total: usize) -> Result<usize, ErrorData> {
    let shown: String = cursor.chars().take(64).collect();
    let invalid = |why: &str| {
        ErrorData::invalid_params(
            format!("tools/list cursor `{shown}` {why}"),
            Some(json!({"cursor": shown})),
        )
    };
    let (made_at, offset) = cursor
        .split_once(':')
        .and_then(|(g, o)| Some((g.parse::<u64>().ok()?, o.parse::<usize>().ok()?)))
        .filter(|(g, o)| format!("{g}:{o}") == cursor)
        .ok_or_else(|| invalid("is not one this server handed out"))?;
    if made_at != generation {
        return Err(invalid(
            "is from before the tool list changed; list again from the start",
        ));
    }
    if offset == 0 || offset >= total {
        return Err(invalid("is past the end of the tool list"));
    }
    Ok(offset)
}

#[cfg(test)]
mod tests {
    use super::parse_cursor;
    use proptest::prelude::*;

    #[test]
    fn cursors_point_inside_the_list_they_were_made_for() {
        assert_eq!(parse_cursor("7:40", 7, 250).unwrap(), 40);
        assert_eq!(parse_cursor("7:249", 7, 250).unwrap(), 249);
        for (cursor, why) in [
            ("6:40", "before the tool list changed"),
            ("7:250", "past the end"),
            ("7:0", "past the end"),
            ("7:-1", "not one this server"),
            ("7", "not one this server"),
            ("", "not one this server"),
            (":40", "not one this server"),
            ("7:40:1", "not one this server"),
            ("+7:40", "not one this server"),
            ("7:040", "not one this server"),
            ("7:99999999999999999999999", "not one this server"),
        ] {
            let error = parse_cursor(cursor, 7, 250).unwrap_err();
            assert!(error.message.contains(why), "{cursor}: {}", error.message);
        }
        let long = "x".repeat(10_000);
        let error = parse_cursor(&long, 7, 250).unwrap_err();
        assert!(
            error.message.len() < 200,
            "a huge cursor is not echoed whole"
        );
    }

    proptest! {
        #[test]
        fn only_handed_out_cursors_parse(cursor in ".{0,40}", generation in 0u64..4, total in 0usize..300) {
            if let Ok(offset) = parse_cursor(&cursor, generation, total) {
                prop_assert!(offset > 0 && offset < total);
                prop_assert_eq!(cursor, format!("{generation}:{offset}"));
            }
        }
    }
}
