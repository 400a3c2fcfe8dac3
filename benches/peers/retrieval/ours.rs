//! Our side of the BFCL retrieval comparison (see `bfcl_recall.py`): the
//! pool registered as tools of 100 APIs each (name, description, each
//! parameter's name and description), indexed by `tool_core::search`, and
//! every query's 5 best. Included with `#[path]` by tool-core's
//! tool_search tests and by the tool_search bench, so there is one copy.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Map, Value, json};
use tool_core::search::SearchIndex;
use tool_core::{
    ApiDefinition, ToolBuilder, ToolContext, ToolOutput, ToolRegistry, manifest::NameRules,
};

/// Recall@1 and recall@5 of a ranking, with the query count.
#[derive(Debug, Clone, Copy)]
pub struct Recall {
    pub at1: f64,
    pub at5: f64,
    pub queries: usize,
}

/// Runs `bfcl_recall.py` with the venv `.ci/setup.d/60-retrieval.sh`
/// installs; returns its document (pool, queries, the reference's recall).
pub fn bfcl_document(repo: &Path, out: &Path) -> Result<Value, String> {
    let dir: PathBuf = repo.join("benches/peers/retrieval");
    let status = Command::new(dir.join(".venv/bin/python"))
        .arg(dir.join("bfcl_recall.py"))
        .arg(out)
        .output()
        .map_err(|e| format!("bfcl_recall.py does not start: {e}"))?;
    if !status.status.success() {
        return Err(format!(
            "bfcl_recall.py failed: {}",
            String::from_utf8_lossy(&status.stderr)
        ));
    }
    let text = std::fs::read_to_string(out).map_err(|e| e.to_string())?;
    serde_json::from_str(&text).map_err(|e| e.to_string())
}

/// The reference's recall from the document.
pub fn reference(document: &Value) -> Recall {
    Recall {
        at1: document["reference"]["recall@1"].as_f64().unwrap_or(0.0),
        at5: document["reference"]["recall@5"].as_f64().unwrap_or(0.0),
        queries: document["queries"].as_array().map_or(0, Vec::len),
    }
}

/// Ours on the same pool and queries.
pub fn ours(document: &Value) -> Result<Recall, String> {
    let pool = document["pool"].as_array().ok_or("no pool")?;
    let mut registry = ToolRegistry::new().with_name_rules(NameRules::Foreign);
    for (n, chunk) in pool.chunks(100).enumerate() {
        let mut builder = ToolBuilder::new(format!("bfcl{n}"));
        for tool in chunk {
            let properties: Map<String, Value> = tool["parameters"]
                .as_object()
                .ok_or("a pool entry without parameters")?
                .iter()
                .map(|(name, description)| (name.clone(), json!({ "description": description })))
                .collect();
            let api = ApiDefinition::new(
                tool["api"].as_str().ok_or("a pool entry without api")?,
                tool["description"].as_str().unwrap_or_default(),
            )
            .with_parameters(json!({"type": "object", "properties": properties}));
            builder = builder.api(api, |_, _| async { Ok(ToolOutput::text("")) });
        }
        registry
            .register(builder.build().map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    }
    let index = SearchIndex::from_offered(&registry.offer(&ToolContext::new()));
    let queries = document["queries"].as_array().ok_or("no queries")?;
    let (mut at1, mut at5) = (0usize, 0usize);
    for query in queries {
        let gold = query["gold"].as_str().ok_or("a query without gold")?;
        // A query with no searchable word finds nothing (a miss).
        let hits = index
            .search(query["query"].as_str().unwrap_or_default(), 5)
            .unwrap_or_default();
        at1 += usize::from(hits.first().is_some_and(|h| h.api == gold));
        at5 += usize::from(hits.iter().any(|h| h.api == gold));
    }
    let n = queries.len().max(1) as f64;
    Ok(Recall {
        at1: at1 as f64 / n,
        at5: at5 as f64 / n,
        queries: queries.len(),
    })
}
