//! Finds the arguments that are shell commands and file paths.
//!
//! Two sources, both used: the API's JSON Schema (a property whose
//! tool-core [`ArgRole`] is a path or working directory, `"x-role": "path"`
//! and the older `"format": "path"` / `"x-path": true`, is a path; one whose
//! role is `shell-command` a shell command; also inside arrays, nested
//! objects and `anyOf`/`oneOf`/`allOf` branches) and the usual parameter names at any
//! depth, so a tool without annotations is still covered. Names match
//! loosely (ASCII case and surrounding spaces ignored: `Path`, `newpath`),
//! as a lenient tool might read them.

use std::path::Path;

use serde_json::Value;
use tool_core::approval::ArgRole;

use crate::error::push_pointer;
use crate::path_view::{RealFs, stays_inside};

/// Parameter names that hold one path.
pub(crate) const PATH_NAMES: &[&str] = &[
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
pub(crate) const PATH_LIST_NAMES: &[&str] =
    &["paths", "files", "filePaths", "file_paths", "directories"];

/// Parameter names that hold a shell command.
pub(crate) const COMMAND_NAMES: &[&str] = &[
    "command",
    "cmd",
    "script",
    "commandLine",
    "command_line",
    "shell_command",
];

/// Parameter names that set the environment a command runs in.
pub(crate) const ENV_NAMES: &[&str] = &["env", "environment", "envVars", "env_vars"];

/// Parameter names that set the directory a command runs in.
pub(crate) const WORKDIR_NAMES: &[&str] = &[
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
/// let found: Vec<String> = tool_approval::path_arguments(&args, Some(&schema))
///     .into_iter().map(|f| f.pointer).collect();
/// assert_eq!(found, ["/items/0/newPath", "/items/0/oldPath", "/to"]);
/// ```
pub fn path_arguments<'v>(args: &'v Value, schema: Option<&Value>) -> Vec<FoundArgument<'v>> {
    search(args, schema, Want::PATHS).paths
}

/// The shell-command arguments of a call (strings, or argv arrays of strings).
pub fn command_arguments<'v>(args: &'v Value, schema: Option<&Value>) -> Vec<FoundArgument<'v>> {
    search(args, schema, Want::COMMANDS).commands
}

/// Both kinds of argument, found in one walk over the arguments (and the
/// schema): what [`path_arguments`] and [`command_arguments`] return.
pub(crate) fn paths_and_commands<'v>(args: &'v Value, schema: Option<&Value>) -> Found<'v> {
    search(args, schema, Want::BOTH)
}

/// Path and command arguments of one call, each list sorted by pointer.
#[derive(Debug, Default)]
pub(crate) struct Found<'v> {
    pub(crate) paths: Vec<FoundArgument<'v>>,
    pub(crate) commands: Vec<FoundArgument<'v>>,
    /// The pointer where the arguments nest deeper than the search goes
    /// (`limits/too-deep`): what is below it is not read.
    pub(crate) too_deep: Option<String>,
}

fn search<'v>(args: &'v Value, schema: Option<&Value>, want: Want) -> Found<'v> {
    let mut found = Maps::default();
    if let Some(schema) = schema {
        by_schema(schema, args, &Segment::Root, 0, want, &mut found);
    }
    by_name(args, &Segment::Root, 0, want, &mut found);
    Found {
        paths: into_list(found.paths),
        commands: into_list(found.commands),
        too_deep: found.too_deep,
    }
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

fn into_list(mut found: Vec<(String, &Value)>) -> Vec<FoundArgument<'_>> {
    // In pointer order, once each: a pointer is found twice when the
    // schema and the name both annotate it, and names the same value.
    found.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    found.dedup_by(|later, kept| later.0 == kept.0);
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

/// Which kinds a search looks for.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Want {
    paths: bool,
    commands: bool,
}

impl Want {
    const PATHS: Self = Self {
        paths: true,
        commands: false,
    };
    const COMMANDS: Self = Self {
        paths: false,
        commands: true,
    };
    const BOTH: Self = Self {
        paths: true,
        commands: true,
    };
}

/// What a search has found so far, with the pointers (sorted and made
/// unique at the end).
#[derive(Default)]
struct Maps<'v> {
    paths: Vec<(String, &'v Value)>,
    commands: Vec<(String, &'v Value)>,
    /// Where the arguments nest deeper than [`MAX_DEPTH`] (not searched).
    too_deep: Option<String>,
}

impl<'v> Maps<'v> {
    fn of(&mut self, kind: Kind) -> &mut Vec<(String, &'v Value)> {
        match kind {
            Kind::Path => &mut self.paths,
            Kind::Command => &mut self.commands,
        }
    }
}

/// Where a value sits, as a chain up to the root: the JSON pointer is only
/// written out for a value that is found.
enum Segment<'a> {
    Root,
    Key(&'a Segment<'a>, &'a str),
    Index(&'a Segment<'a>, usize),
}

impl Segment<'_> {
    fn pointer(&self) -> String {
        match self {
            Segment::Root => String::new(),
            Segment::Key(parent, key) => push_pointer(&parent.pointer(), key),
            Segment::Index(parent, i) => push_pointer(&parent.pointer(), i),
        }
    }
}

/// Whether `schema` declares an argument of `kind`: tool-core's
/// [`ArgRole`] (`x-role`, and the older `format` / `x-path` / `x-shell`
/// spellings it reads).
fn annotated(schema: &Value, kind: Kind) -> bool {
    role_is(ArgRole::of(schema), kind)
}

fn role_is(role: Option<ArgRole>, kind: Kind) -> bool {
    match kind {
        Kind::Path => role.is_some_and(ArgRole::is_path),
        Kind::Command => role == Some(ArgRole::ShellCommand),
    }
}

fn accept<'v>(value: &'v Value, at: &Segment<'_>, kind: Kind, found: &mut Maps<'v>) {
    let found = found.of(kind);
    match value {
        Value::String(_) => {
            found.push((at.pointer(), value));
        }
        Value::Array(items) if kind == Kind::Command && items.iter().all(Value::is_string) => {
            found.push((at.pointer(), value));
        }
        Value::Array(items) => {
            let mut pointer = None;
            for (i, item) in items.iter().enumerate() {
                if item.is_string() || (kind == Kind::Path && !item.is_null()) {
                    let base = pointer.get_or_insert_with(|| at.pointer());
                    found.push((push_pointer(base, i), item));
                }
            }
        }
        // A path-named argument holding an object or a number cannot be
        // judged; it is reported so audits can flag it.
        Value::Object(_) | Value::Number(_) | Value::Bool(_) if kind == Kind::Path => {
            found.push((at.pointer(), value));
        }
        _ => {}
    }
}

/// Walks `value` along `schema`, accepting what the schema annotates. The
/// schema object is read in one pass over its entries (no keyed lookups).
fn by_schema<'v>(
    schema: &Value,
    value: &'v Value,
    at: &Segment<'_>,
    depth: usize,
    want: Want,
    found: &mut Maps<'v>,
) {
    if depth > MAX_DEPTH {
        found.too_deep.get_or_insert_with(|| at.pointer());
        return;
    }
    let schema_value = schema;
    let Some(schema) = schema.as_object() else {
        return;
    };
    let mut properties = None;
    let mut additional = None;
    let mut items_schema = None;
    for (key, sub) in schema {
        match key.as_str() {
            "anyOf" | "oneOf" | "allOf" => {
                for branch in sub.as_array().into_iter().flatten() {
                    by_schema(branch, value, at, depth + 1, want, found);
                }
            }
            "properties" => properties = sub.as_object(),
            "additionalProperties" if sub.is_object() => additional = Some(sub),
            "items" if sub.is_object() => items_schema = Some(sub),
            _ => {}
        }
    }
    let role = ArgRole::of(schema_value);
    if want.paths && role_is(role, Kind::Path) {
        accept(value, at, Kind::Path, found);
    }
    if want.commands && role_is(role, Kind::Command) {
        accept(value, at, Kind::Command, found);
    }
    match value {
        Value::Object(map) => {
            if properties.is_none() && additional.is_none() {
                return;
            }
            for (key, item) in map {
                let sub = properties.and_then(|p| p.get(key)).or(additional);
                if let Some(sub) = sub {
                    by_schema(sub, item, &Segment::Key(at, key), depth + 1, want, found);
                }
            }
        }
        Value::Array(items) => {
            if let Some(sub) = items_schema {
                for (i, item) in items.iter().enumerate() {
                    by_schema(sub, item, &Segment::Index(at, i), depth + 1, want, found);
                }
            }
        }
        _ => {}
    }
}

const NAMED_PATH: u8 = 1;
const NAMED_PATH_LIST: u8 = 2;
const NAMED_PATTERN: u8 = 4;
const NAMED_COMMAND: u8 = 8;

/// Which lists of names `key` is in, compared without ASCII case (`Path`
/// is `path`): one lookup of the lower-cased key in a map built once,
/// where every key was compared with every name.
fn name_kinds(key: &str) -> u8 {
    static KINDS: std::sync::OnceLock<crate::name_hash::NameMap<String, u8>> =
        std::sync::OnceLock::new();
    let kinds = KINDS.get_or_init(|| {
        let mut kinds = crate::name_hash::NameMap::default();
        for (names, kind) in [
            (PATH_NAMES, NAMED_PATH),
            (PATH_LIST_NAMES, NAMED_PATH_LIST),
            (&["pattern", "glob"][..], NAMED_PATTERN),
            (COMMAND_NAMES, NAMED_COMMAND),
        ] {
            for name in names {
                *kinds.entry(name.to_ascii_lowercase()).or_default() |= kind;
            }
        }
        kinds
    });
    let key: std::borrow::Cow<'_, str> = if key.bytes().any(|b| b.is_ascii_uppercase()) {
        key.to_ascii_lowercase().into()
    } else {
        key.into()
    };
    kinds.get(key.as_ref()).copied().unwrap_or(0)
}

fn by_name<'v>(value: &'v Value, at: &Segment<'_>, depth: usize, want: Want, found: &mut Maps<'v>) {
    if depth > MAX_DEPTH {
        // Only containers go deeper: a string this deep is still a leaf.
        if value.is_object() || value.is_array() {
            found.too_deep.get_or_insert_with(|| at.pointer());
        }
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                // Names are compared as a tool would read them loosely:
                // `Path`, `path `, `newpath` are `path`, `newPath`.
                let named = name_kinds(key.trim());
                let path_named = want.paths
                    && (named & (NAMED_PATH | NAMED_PATH_LIST) != 0
                        || (named & NAMED_PATTERN != 0
                            && item.as_str().is_some_and(pattern_is_path)));
                let command_named = want.commands && named & NAMED_COMMAND != 0;
                let nested = item.is_object() || item.is_array();
                if !path_named && !command_named && !nested {
                    continue;
                }
                let here = Segment::Key(at, key);
                if path_named {
                    accept(item, &here, Kind::Path, found);
                }
                if command_named {
                    accept(item, &here, Kind::Command, found);
                }
                if nested {
                    by_name(item, &here, depth + 1, want, found);
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                by_name(item, &Segment::Index(at, i), depth + 1, want, found);
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
    fn names_are_found_in_any_ascii_case() {
        let lists = [
            (PATH_NAMES, NAMED_PATH),
            (PATH_LIST_NAMES, NAMED_PATH_LIST),
            (COMMAND_NAMES, NAMED_COMMAND),
        ];
        for (names, kind) in lists {
            for name in names {
                for spelling in [
                    name.to_string(),
                    name.to_ascii_uppercase(),
                    name.to_ascii_lowercase(),
                ] {
                    assert!(name_kinds(&spelling) & kind != 0, "{spelling}");
                }
            }
        }
        assert_eq!(name_kinds("Glob"), NAMED_PATTERN);
        assert_eq!(name_kinds("commands"), 0);
        assert_eq!(name_kinds("pathé"), 0);
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
    fn an_argument_found_by_schema_and_by_name_is_listed_once() {
        let schema = json!({"properties": {
            "path": {"type": "string", "format": "path"},
            "command": {"type": "string", "x-shell": true}
        }});
        let args = json!({"path": "/p", "command": "ls", "b": {"path": "/q"}});
        let found = search(&args, Some(&schema), Want::BOTH);
        assert_eq!(pointers(found.paths), ["/b/path", "/path"]);
        assert_eq!(pointers(found.commands), ["/command"]);
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
