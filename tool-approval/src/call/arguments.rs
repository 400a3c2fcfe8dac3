//! Finds the arguments that are shell commands and file paths.
//!
//! Two sources, both used: the API's JSON Schema (a property with
//! `"format": "path"` or `"x-path": true` is a path, `"format": "shell"` or
//! `"x-shell": true` a shell command, also inside arrays, nested objects and
//! `anyOf`/`oneOf`/`allOf` branches) and the usual parameter names at any
//! depth, so a tool without annotations is still covered. Names match
//! loosely (ASCII case and surrounding spaces ignored: `Path`, `newpath`),
//! as a lenient tool might read them.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::error::push_pointer;
use crate::path_view::{RealFs, stays_inside};

/// Parameter names that hold one path.
pub const PATH_NAMES: &[&str] = &[
    "path",
    "file_path",
    "filePath",
    "filepath",
    "file",
    "filename",
    "directory",
    "dir",
    "scope",
    "oldPath",
    "newPath",
    "old_path",
    "new_path",
    "source",
    "destination",
    "target",
    "cwd",
    "workdir",
    "workingDirectory",
    "working_directory",
    "root",
    "from",
    "to",
    "src",
    "dest",
    "dst",
    "newName",
    "new_name",
    "output",
    "outputPath",
    "output_path",
    "folder",
    "location",
];

/// Parameter names that hold a list of paths.
pub const PATH_LIST_NAMES: &[&str] = &["paths", "files", "filePaths", "file_paths", "directories"];

/// Parameter names that hold a shell command.
pub const COMMAND_NAMES: &[&str] = &[
    "command",
    "cmd",
    "script",
    "commandLine",
    "command_line",
    "shell_command",
];

/// Parameter names that set the environment a command runs in.
pub const ENV_NAMES: &[&str] = &["env", "environment", "envVars", "env_vars"];

/// Parameter names that set the directory a command runs in.
pub const WORKDIR_NAMES: &[&str] = &[
    "cwd",
    "workdir",
    "workingDirectory",
    "working_directory",
    "directory",
];

const MAX_DEPTH: usize = 32;

/// The top-level arguments that change how a shell command runs: a
/// non-empty environment, or a working directory that leaves `cwd` (the
/// host's; without one, anything but `.`).
pub(crate) fn context_overrides<'v>(args: &'v Value, cwd: Option<&Path>) -> Vec<&'v str> {
    let Some(map) = args.as_object() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (key, value) in map {
        let set = match value {
            Value::Null => false,
            Value::Object(m) => !m.is_empty(),
            Value::Array(a) => !a.is_empty(),
            Value::String(s) => !s.is_empty(),
            _ => true,
        };
        if ENV_NAMES.contains(&key.as_str()) && set {
            out.push(key.as_str());
        }
        if WORKDIR_NAMES.contains(&key.as_str()) && set {
            let inside = match (value.as_str(), cwd) {
                (Some(raw), Some(cwd)) => {
                    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
                    stays_inside(&RealFs, raw, cwd, home.as_deref())
                }
                (Some(raw), None) => matches!(raw, "." | "./"),
                _ => false,
            };
            if !inside {
                out.push(key.as_str());
            }
        }
    }
    out
}

/// One argument found in a call, with its JSON pointer.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundArgument<'v> {
    /// Where in the arguments, e.g. `/items/0/oldPath`.
    pub pointer: String,
    /// The value: a string or argv array for commands; a string for paths,
    /// or whatever a path-named argument holds when it is not one (an
    /// object, a number), which cannot be judged.
    pub value: &'v Value,
}

impl FoundArgument<'_> {
    /// The value as a string, when it is one.
    pub fn as_str(&self) -> Option<&str> {
        self.value.as_str()
    }
}

/// The path arguments of a call, schema-annotated ones and well-known names.
///
/// A `pattern` argument counts as a path when it is absolute, starts with
/// `~` or contains `..` (a relative glob stays under the search root).
///
/// ```
/// use serde_json::json;
/// let schema = json!({"type": "object", "properties": {"to": {"type": "string", "format": "path"}}});
/// let args = json!({"to": "/etc", "items": [{"oldPath": "a", "newPath": "../b"}]});
/// let found: Vec<String> = tool_approval::call::arguments::path_arguments(&args, Some(&schema))
///     .into_iter().map(|f| f.pointer).collect();
/// assert_eq!(found, ["/items/0/newPath", "/items/0/oldPath", "/to"]);
/// ```
pub fn path_arguments<'v>(args: &'v Value, schema: Option<&Value>) -> Vec<FoundArgument<'v>> {
    let mut found = BTreeMap::new();
    if let Some(schema) = schema {
        by_schema(schema, args, "", 0, Kind::Path, &mut found);
    }
    by_name(args, "", 0, Kind::Path, &mut found);
    into_list(found)
}

/// The shell-command arguments of a call (strings, or argv arrays of strings).
pub fn command_arguments<'v>(args: &'v Value, schema: Option<&Value>) -> Vec<FoundArgument<'v>> {
    let mut found = BTreeMap::new();
    if let Some(schema) = schema {
        by_schema(schema, args, "", 0, Kind::Command, &mut found);
    }
    by_name(args, "", 0, Kind::Command, &mut found);
    into_list(found)
}

/// True when `name` is a well-known shell-command parameter name, or the
/// schema annotates it as one.
pub(crate) fn is_command_param(name: &str, schema: Option<&Value>) -> bool {
    COMMAND_NAMES.contains(&name)
        || schema
            .and_then(|s| s.get("properties"))
            .and_then(|p| p.get(name))
            .is_some_and(|p| annotated(p, Kind::Command))
}

fn into_list(found: BTreeMap<String, &Value>) -> Vec<FoundArgument<'_>> {
    found
        .into_iter()
        .map(|(pointer, value)| FoundArgument { pointer, value })
        .collect()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Path,
    Command,
}

fn annotated(schema: &Value, kind: Kind) -> bool {
    let format = schema.get("format").and_then(Value::as_str);
    match kind {
        Kind::Path => {
            matches!(format, Some("path" | "file-path" | "directory"))
                || schema.get("x-path").and_then(Value::as_bool) == Some(true)
        }
        Kind::Command => {
            matches!(format, Some("shell" | "shell-command"))
                || schema.get("x-shell").and_then(Value::as_bool) == Some(true)
        }
    }
}

fn accept<'v>(
    value: &'v Value,
    pointer: &str,
    kind: Kind,
    found: &mut BTreeMap<String, &'v Value>,
) {
    match value {
        Value::String(_) => {
            found.insert(pointer.to_owned(), value);
        }
        Value::Array(items) if kind == Kind::Command && items.iter().all(Value::is_string) => {
            found.insert(pointer.to_owned(), value);
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                if item.is_string() || (kind == Kind::Path && !item.is_null()) {
                    found.insert(push_pointer(pointer, i), item);
                }
            }
        }
        // A path-named argument holding an object or a number cannot be
        // judged; it is reported so audits can flag it.
        Value::Object(_) | Value::Number(_) | Value::Bool(_) if kind == Kind::Path => {
            found.insert(pointer.to_owned(), value);
        }
        _ => {}
    }
}

fn by_schema<'v>(
    schema: &Value,
    value: &'v Value,
    pointer: &str,
    depth: usize,
    kind: Kind,
    found: &mut BTreeMap<String, &'v Value>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    if annotated(schema, kind) {
        accept(value, pointer, kind, found);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            for branch in branches {
                by_schema(branch, value, pointer, depth + 1, kind, found);
            }
        }
    }
    match value {
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties").filter(|a| a.is_object());
            for (key, item) in map {
                let sub = properties.and_then(|p| p.get(key)).or(additional);
                if let Some(sub) = sub {
                    by_schema(
                        sub,
                        item,
                        &push_pointer(pointer, key),
                        depth + 1,
                        kind,
                        found,
                    );
                }
            }
        }
        Value::Array(items) => {
            if let Some(sub) = schema.get("items").filter(|i| i.is_object()) {
                for (i, item) in items.iter().enumerate() {
                    by_schema(sub, item, &push_pointer(pointer, i), depth + 1, kind, found);
                }
            }
        }
        _ => {}
    }
}

fn by_name<'v>(
    value: &'v Value,
    pointer: &str,
    depth: usize,
    kind: Kind,
    found: &mut BTreeMap<String, &'v Value>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                // Names are compared as a tool would read them loosely:
                // `Path`, `path `, `newpath` are `path`, `newPath`.
                let loose = key.trim();
                let is = |names: &[&str]| names.iter().any(|n| n.eq_ignore_ascii_case(loose));
                let named = match kind {
                    Kind::Path => {
                        is(PATH_NAMES)
                            || is(PATH_LIST_NAMES)
                            || (is(&["pattern", "glob"])
                                && item.as_str().is_some_and(pattern_is_path))
                    }
                    Kind::Command => is(COMMAND_NAMES),
                };
                let nested = item.is_object() || item.is_array();
                if !named && !nested {
                    continue;
                }
                let here = push_pointer(pointer, key);
                if named {
                    accept(item, &here, kind, found);
                }
                if nested {
                    by_name(item, &here, depth + 1, kind, found);
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                by_name(item, &push_pointer(pointer, i), depth + 1, kind, found);
            }
        }
        _ => {}
    }
}

fn pattern_is_path(pattern: &str) -> bool {
    pattern.starts_with('/')
        || pattern.starts_with('~')
        || pattern.starts_with('\\')
        || pattern.split(['/', '\\']).any(|c| c == "..")
        || pattern.get(1..3) == Some(":\\")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pointers(found: Vec<FoundArgument<'_>>) -> Vec<String> {
        found.into_iter().map(|f| f.pointer).collect()
    }

    #[test]
    fn schema_annotations_find_paths_in_arrays_and_nested_objects() {
        let schema = json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {"out": {"type": "string", "x-path": true}}},
            "inputs": {"type": "array", "items": {"type": "string", "format": "path"}},
            "either": {"anyOf": [{"type": "string", "format": "path"}, {"type": "null"}]}
        }});
        let args = json!({"spec": {"out": "/o"}, "inputs": ["/a", "/b"], "either": "/e"});
        assert_eq!(
            pointers(path_arguments(&args, Some(&schema))),
            ["/either", "/inputs/0", "/inputs/1", "/spec/out"]
        );
    }

    #[test]
    fn well_known_names_are_found_without_a_schema() {
        let args =
            json!({"file_path": "a", "items": [{"oldPath": "b", "newPath": "c"}], "paths": ["d"]});
        assert_eq!(
            pointers(path_arguments(&args, None)),
            [
                "/file_path",
                "/items/0/newPath",
                "/items/0/oldPath",
                "/paths/0"
            ]
        );
    }

    #[test]
    fn only_escaping_patterns_are_paths() {
        let args = json!({"pattern": "*.rs"});
        assert!(path_arguments(&args, None).is_empty());
        for p in ["/etc/*", "~/.ssh/*", "../../x/*"] {
            let args = json!({ "pattern": p });
            assert_eq!(path_arguments(&args, None).len(), 1, "{p}");
        }
    }

    #[test]
    fn commands_are_found_by_name_and_annotation() {
        let schema = json!({"properties": {"line": {"type": "string", "x-shell": true}}});
        let args = json!({"command": "ls", "line": "pwd", "nested": {"cmd": ["rm", "x"]}});
        assert_eq!(
            pointers(command_arguments(&args, Some(&schema))),
            ["/command", "/line", "/nested/cmd"]
        );
    }
}
