//! Decision records (`call --record`, `check --record`) and `toolhost
//! replay`: every recorded call re-decided under another policy, and what
//! would change.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::{Map, Value, json};
use tool_approval::Decision;
use tool_approval::record::{DecisionRecord, JsonLinesFile, Keep, RecordSink, read_records};
use tool_core::{
    export::{split_wire_name, wire_name},
    pipeline::parse_arguments,
};

use crate::Failure;
use crate::host::Host;

/// `--record FILE` and `--record-arguments`.
#[derive(Debug, Clone, Default, Args)]
pub struct RecordArgs {
    /// Append the decision to FILE as a JSON Lines decision record (tool,
    /// API, arguments digest, action, rule, level, policy fingerprint,
    /// time).
    #[arg(long = "record", value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Keep the argument values in the record too (off by default: they
    /// may hold personal data or secrets). `toolhost replay` needs them.
    #[arg(long = "record-arguments", requires = "record")]
    pub arguments: bool,
}

/// Appends the record of `decision` (for the call `name` with `args`, made
/// by the engine with `fingerprint`) to the file `--record` names.
pub fn write(
    options: &RecordArgs,
    host: &Host,
    name: &str,
    args: &str,
    decision: &Decision,
    fingerprint: &str,
) -> Result<(), Failure> {
    let Some(path) = &options.record else {
        return Ok(());
    };
    let offered = host.offered();
    let (identifier, api) = match offered.resolve(name) {
        Ok(resolved) => (resolved.identifier().to_owned(), resolved.api.name.clone()),
        Err(_) => match split_wire_name(name) {
            Some((identifier, api)) => (identifier.to_owned(), api.to_owned()),
            None => (String::new(), name.to_owned()),
        },
    };
    let arguments = Value::Object(parse_arguments(args).unwrap_or_else(|_| Map::new()));
    let call = tool_approval::CallRef::new(&identifier, &api, &arguments);
    let keep = if options.arguments {
        Keep::Arguments
    } else {
        Keep::Digest
    };
    let record = DecisionRecord::of(&call, None, decision, fingerprint, keep);
    let io = |e: std::io::Error| Failure::Source(format!("--record {}: {e}", path.display()));
    JsonLinesFile::append(path)
        .map_err(io)?
        .write(&record)
        .map_err(io)
}

/// `toolhost replay RECORDS`: re-decides every replayable record with
/// `host`'s policy (as `toolhost check` would decide the call now) and
/// reports what changed. See the README for the output's shape.
pub fn replay(host: &Host, records: &Path) -> Result<Value, Failure> {
    let text = std::fs::read_to_string(records)
        .map_err(|e| Failure::Source(format!("{}: {e}", records.display())))?;
    let (records, unreadable) = read_records(&text);
    let offered = host.offered();
    let mut changes = Vec::new();
    let mut not_replayable = Vec::new();
    let mut summary: BTreeMap<String, u64> = BTreeMap::new();
    let mut recorded_under = BTreeSet::new();
    let mut unchanged = 0u64;
    for (line, record) in &records {
        recorded_under.insert(record.policy_fingerprint.clone());
        let who = json!({
            "line": line,
            "callId": record.call_id,
            "tool": record.tool,
            "api": record.api,
        });
        let arguments = match record.replayable() {
            Ok(arguments) => arguments,
            Err(why) => {
                not_replayable.push(with(who, "why", json!(why.as_str())));
                continue;
            }
        };
        if offered.get(&record.tool).is_none() {
            not_replayable.push(with(who, "why", json!("tool_not_offered")));
            continue;
        }
        let name = wire_name(&record.tool, &record.api);
        let now = host.check(&name, &arguments.to_string());
        let before = json!({
            "action": record.action,
            "rule": record.rule,
            "level": record.level,
            "confinement": record.confinement,
        });
        let after = json!({
            "action": now.action,
            "rule": now.reason.rule,
            "level": now.reason.level,
            "confinement": now.confinement,
            "message": now.reason.message,
        });
        let change = if now.action != record.action {
            Some(format!(
                "{}→{}",
                action_str(&before["action"]),
                action_str(&after["action"])
            ))
        } else if now.reason.rule != record.rule {
            Some("rule".to_owned())
        } else if now.confinement != record.confinement {
            Some("confinement".to_owned())
        } else {
            None
        };
        match change {
            Some(change) => {
                *summary.entry(change.clone()).or_default() += 1;
                let mut entry = with(who, "change", json!(change));
                entry["before"] = before;
                entry["after"] = after;
                changes.push(entry);
            }
            None => unchanged += 1,
        }
    }
    Ok(json!({
        "policy": {
            "fingerprint": host.policy_fingerprint(),
            "recordedUnder": recorded_under,
        },
        "records": records.len(),
        "replayed": changes.len() as u64 + unchanged,
        "unchanged": unchanged,
        "changes": changes,
        "summary": summary,
        "notReplayable": not_replayable,
        "unreadable": unreadable
            .iter()
            .map(|u| json!({"line": u.line, "message": u.message}))
            .collect::<Vec<_>>(),
    }))
}

fn with(mut value: Value, key: &str, extra: Value) -> Value {
    value[key] = extra;
    value
}

fn action_str(action: &Value) -> &str {
    action.as_str().unwrap_or("?")
}
