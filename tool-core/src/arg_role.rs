//! What an argument *is*, declared in the schema the model sees, so the
//! approval engine and the runtime agree on it without name lists: a path,
//! a shell command, an environment, a working directory, a URL.

use serde_json::Value;

/// The role of one argument, carried in its JSON Schema as
/// `"x-role": "<name>"` (on the items of an array for lists). Tools declare
/// it (on a typed API's parameters with the [`role`](crate::approval::role) schema
/// types, `#[schemars(with = "tool_core::approval::role::Path")]`, or
/// [`ArgRole::annotate`] on a hand-written schema);
/// tool-approval reads it ([`ArgRole::of`]) to find the paths to audit and
/// the commands to parse.
///
/// | role | `x-role` | also read (older schemas) |
/// |---|---|---|
/// | [`Path`](Self::Path) | `path` | `format`: `path`, `file-path`, `directory`; `x-path: true` |
/// | [`WorkingDirectory`](Self::WorkingDirectory) | `working-directory` | — |
/// | [`ShellCommand`](Self::ShellCommand) | `shell-command` | `format`: `shell`, `shell-command`; `x-shell: true` |
/// | [`Environment`](Self::Environment) | `environment` | — |
/// | [`Url`](Self::Url) | `url` | `format`: `uri`, `url` |
///
/// ```
/// use serde_json::json;
/// use tool_core::approval::ArgRole;
/// let mut schema = json!({"type": "string"});
/// ArgRole::Path.annotate(&mut schema);
/// assert_eq!(schema["x-role"], "path");
/// assert_eq!(ArgRole::of(&schema), Some(ArgRole::Path));
/// assert_eq!(ArgRole::of(&json!({"type": "string", "format": "shell"})), Some(ArgRole::ShellCommand));
/// assert_eq!(ArgRole::of(&json!({"type": "string"})), None);
/// assert!(ArgRole::Path.is_path() && ArgRole::WorkingDirectory.is_path());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ArgRole {
    /// A file or directory the call reads or writes.
    Path,
    /// The directory a command runs in (a path, too).
    WorkingDirectory,
    /// A shell command line.
    ShellCommand,
    /// Environment variables given to a process (an object of strings).
    Environment,
    /// A URL the call fetches.
    Url,
}

/// The schema key that carries a role.
pub const ROLE_KEY: &str = "x-role";

struct Row {
    role: ArgRole,
    name: &'static str,
    formats: &'static [&'static str],
    flag: Option<&'static str>,
}

const ROWS: &[Row] = &[
    Row {
        role: ArgRole::Path,
        name: "path",
        formats: &["path", "file-path", "directory"],
        flag: Some("x-path"),
    },
    Row {
        role: ArgRole::WorkingDirectory,
        name: "working-directory",
        formats: &[],
        flag: None,
    },
    Row {
        role: ArgRole::ShellCommand,
        name: "shell-command",
        formats: &["shell", "shell-command"],
        flag: Some("x-shell"),
    },
    Row {
        role: ArgRole::Environment,
        name: "environment",
        formats: &[],
        flag: None,
    },
    Row {
        role: ArgRole::Url,
        name: "url",
        formats: &["uri", "url"],
        flag: None,
    },
];

impl ArgRole {
    /// Every role.
    pub const ALL: [Self; 5] = [
        Self::Path,
        Self::WorkingDirectory,
        Self::ShellCommand,
        Self::Environment,
        Self::Url,
    ];

    fn row(self) -> &'static Row {
        // Every role has a row (checked by the tests); Path's is the first.
        ROWS.iter().find(|r| r.role == self).unwrap_or(&ROWS[0])
    }

    /// The `x-role` spelling.
    pub fn as_str(self) -> &'static str {
        self.row().name
    }

    /// The role named `name` (its `x-role` spelling).
    pub fn parse(name: &str) -> Option<Self> {
        ROWS.iter().find(|r| r.name == name).map(|r| r.role)
    }

    /// The role a schema declares: its `x-role`, else an older spelling
    /// (see the table). `None` for an unannotated schema.
    pub fn of(schema: &Value) -> Option<Self> {
        let Value::Object(map) = schema else {
            return None;
        };
        // The keys read, found in one pass over a small schema (most have
        // a handful of keys; each lookup by key hashed it again).
        let (mut role, mut format, mut flags) = (None, None, Vec::new());
        if map.len() <= 16 {
            for (key, value) in map {
                match key.as_str() {
                    ROLE_KEY => role = value.as_str(),
                    "format" => format = value.as_str(),
                    k if value.as_bool() == Some(true)
                        && ROWS.iter().any(|r| r.flag == Some(k)) =>
                    {
                        flags.push(k);
                    }
                    _ => {}
                }
            }
        } else {
            role = map.get(ROLE_KEY).and_then(Value::as_str);
            format = map.get("format").and_then(Value::as_str);
            flags = ROWS
                .iter()
                .filter_map(|r| r.flag)
                .filter(|flag| map.get(*flag).and_then(Value::as_bool) == Some(true))
                .collect();
        }
        if let Some(role) = role.and_then(Self::parse) {
            return Some(role);
        }
        ROWS.iter()
            .find(|r| {
                format.is_some_and(|f| r.formats.contains(&f))
                    || r.flag.is_some_and(|flag| flags.contains(&flag))
            })
            .map(|r| r.role)
    }

    /// Writes the role into `schema` (an object; other values are left as
    /// they are).
    pub fn annotate(self, schema: &mut Value) {
        if let Value::Object(map) = schema {
            map.insert(ROLE_KEY.to_owned(), Value::String(self.as_str().to_owned()));
        }
    }

    /// Whether arguments of this role name a place on the file system.
    pub fn is_path(self) -> bool {
        matches!(self, Self::Path | Self::WorkingDirectory)
    }
}

/// Schemas of arguments with a role, for the fields of a typed API's
/// parameters: `#[schemars(with = "tool_core::approval::role::Path")]` on a `String`
/// field (`Option<tool_core::approval::role::Path>` on an `Option<String>`) makes its
/// schema a string carrying `"x-role": "path"`, so the role is declared by
/// a type, not spelled as a string at each field. The field keeps its own
/// Rust type; only its schema changes.
///
/// ```
/// #[derive(schemars::JsonSchema, serde::Deserialize)]
/// struct Params {
///     /// File to read.
///     #[schemars(with = "tool_core::approval::role::Path")]
///     path: String,
///     /// Files to compare.
///     #[schemars(with = "tool_core::approval::role::Paths")]
///     others: Vec<String>,
///     /// Directory to run in.
///     #[schemars(with = "Option<tool_core::approval::role::WorkingDirectory>")]
///     cwd: Option<String>,
/// }
/// let schema = serde_json::to_value(schemars::schema_for!(Params)).unwrap();
/// let roles: Vec<_> = ["path", "cwd"]
///     .iter()
///     .map(|p| tool_core::approval::ArgRole::of(&schema["properties"][p]))
///     .collect();
/// assert_eq!(roles, [Some(tool_core::approval::ArgRole::Path), Some(tool_core::approval::ArgRole::WorkingDirectory)]);
/// assert_eq!(tool_core::approval::ArgRole::of(&schema["properties"]["others"]["items"]), Some(tool_core::approval::ArgRole::Path));
/// ```
pub mod role {
    use std::borrow::Cow;

    use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

    use super::{ArgRole, ROLE_KEY};

    fn with_role(mut schema: Schema, role: ArgRole) -> Schema {
        schema.insert(ROLE_KEY.to_owned(), role.as_str().into());
        schema
    }

    fn string(role: ArgRole) -> Schema {
        with_role(json_schema!({ "type": "string" }), role)
    }

    macro_rules! role_schema {
        ($(#[$doc:meta])* $name:ident => $schema:expr) => {
            $(#[$doc])*
            #[derive(Debug, Clone, Copy)]
            pub struct $name;

            impl JsonSchema for $name {
                fn inline_schema() -> bool {
                    true
                }

                fn schema_name() -> Cow<'static, str> {
                    Cow::Borrowed(concat!("role::", stringify!($name)))
                }

                fn json_schema(_: &mut SchemaGenerator) -> Schema {
                    $schema
                }
            }
        };
    }

    role_schema!(
        /// A file or directory the call reads or writes ([`ArgRole::Path`]).
        Path => string(ArgRole::Path)
    );
    role_schema!(
        /// A list of paths: an array whose items are [`Path`]s.
        Paths => json_schema!({ "type": "array", "items": string(ArgRole::Path) })
    );
    role_schema!(
        /// The directory a command runs in ([`ArgRole::WorkingDirectory`]).
        WorkingDirectory => string(ArgRole::WorkingDirectory)
    );
    role_schema!(
        /// A shell command line ([`ArgRole::ShellCommand`]).
        ShellCommand => string(ArgRole::ShellCommand)
    );
    role_schema!(
        /// Environment variables for a process: an object of strings
        /// ([`ArgRole::Environment`]).
        Environment => with_role(
            json_schema!({ "type": "object", "additionalProperties": { "type": "string" } }),
            ArgRole::Environment
        )
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_role_has_one_row_and_reads_back() {
        for role in ArgRole::ALL {
            assert_eq!(
                ROWS.iter().filter(|r| r.role == role).count(),
                1,
                "{role:?}"
            );
            assert_eq!(ArgRole::parse(role.as_str()), Some(role));
            let mut schema = serde_json::json!({"type": "string"});
            role.annotate(&mut schema);
            assert_eq!(ArgRole::of(&schema), Some(role));
        }
    }

    #[test]
    fn older_spellings_are_read() {
        let cases = [
            (serde_json::json!({"format": "file-path"}), ArgRole::Path),
            (serde_json::json!({"x-path": true}), ArgRole::Path),
            (serde_json::json!({"x-shell": true}), ArgRole::ShellCommand),
            (serde_json::json!({"format": "uri"}), ArgRole::Url),
        ];
        for (schema, want) in cases {
            assert_eq!(ArgRole::of(&schema), Some(want), "{schema}");
        }
        assert_eq!(ArgRole::of(&serde_json::json!({"x-path": false})), None);
        assert_eq!(
            ArgRole::of(&serde_json::json!({"x-role": "teleport"})),
            None
        );
    }

    #[test]
    fn large_schemas_are_read_like_small_ones() {
        let cases = [
            // The first row that matches wins (the shell row before the URL row).
            (
                serde_json::json!({"format": "uri", "x-shell": true}),
                Some(ArgRole::ShellCommand),
            ),
            (
                serde_json::json!({"x-role": "url", "x-path": true}),
                Some(ArgRole::Url),
            ),
            (
                serde_json::json!({"x-role": "teleport", "x-shell": true}),
                Some(ArgRole::ShellCommand),
            ),
            (
                serde_json::json!({"format": "shell", "x-path": false}),
                Some(ArgRole::ShellCommand),
            ),
            (serde_json::json!({"type": "string"}), None),
        ];
        for (mut schema, want) in cases {
            assert_eq!(ArgRole::of(&schema), want, "{schema}");
            if let Value::Object(map) = &mut schema {
                for i in 0..20 {
                    map.insert(format!("k{i}"), Value::Null);
                }
            }
            assert_eq!(ArgRole::of(&schema), want, "{schema} with 20 more keys");
        }
    }
}
