//! Findings: what validation and discovery noticed, each with a stable code,
//! the file and, where known, the line.

use std::fmt;

use serde::{Deserialize, Serialize};

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; nothing is wrong.
    Info,
    /// Something is off, the skill still loads.
    Warning,
    /// The skill (or the file) is not loaded.
    Error,
}

impl Severity {
    /// The wire spelling (`info`, `warning`, `error`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Info => "info",
            Self::Warning => "warning",
            Self::Error => "error",
        }
    }
}

macro_rules! codes {
    ($($(#[$doc:meta])* $variant:ident => $text:literal,)*) => {
        /// A stable finding code. A code never changes meaning once published.
        ///
        /// | code | meaning |
        /// |---|---|
        $(#[doc = concat!("| `", $text, "` | see [`FindingCode::", stringify!($variant), "`] |")])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        #[non_exhaustive]
        pub enum FindingCode {
            $($(#[$doc])* $variant,)*
        }

        impl FindingCode {
            /// Every code, in declaration order.
            pub const ALL: &'static [FindingCode] = &[$(FindingCode::$variant,)*];

            /// The code as text (`snake_case`).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $text,)*
                }
            }
        }
    };
}

codes! {
    /// `SKILL.md` is larger than the file cap; it was not read.
    FileTooLarge => "file_too_large",
    /// `SKILL.md` is not valid UTF-8.
    InvalidUtf8 => "invalid_utf8",
    /// The file does not start with a `---` line.
    MissingFrontmatter => "missing_frontmatter",
    /// The opening `---` has no closing `---` line.
    UnclosedFrontmatter => "unclosed_frontmatter",
    /// The frontmatter block is larger than its cap; it was not parsed.
    FrontmatterTooLarge => "frontmatter_too_large",
    /// The frontmatter is not YAML that can be read (even after repair).
    InvalidYaml => "invalid_yaml",
    /// The frontmatter is YAML, but not a mapping of keys to values.
    FrontmatterNotMapping => "frontmatter_not_mapping",
    /// A mapping of the frontmatter has the same key twice; the line is the
    /// second occurrence's.
    DuplicateKey => "duplicate_key",
    /// A value with an unquoted `: ` was quoted so the YAML could be read.
    ColonRepaired => "colon_repaired",
    /// `name` was written in another Unicode form than NFKC (a decomposed
    /// `é`, a full-width letter); the normalised name is used.
    NameNormalized => "name_normalized",
    /// `name` is missing (lenient mode uses the folder name).
    MissingName => "missing_name",
    /// `name` has characters or hyphens the format does not allow.
    InvalidName => "invalid_name",
    /// `name` is longer than 64 characters.
    NameTooLong => "name_too_long",
    /// `name` differs from the skill's folder name.
    NameFolderMismatch => "name_folder_mismatch",
    /// `description` is missing or empty: the skill is never loaded.
    MissingDescription => "missing_description",
    /// `description` is longer than 1024 characters.
    DescriptionTooLong => "description_too_long",
    /// `compatibility` is empty or longer than 500 characters.
    InvalidCompatibility => "invalid_compatibility",
    /// A known field has the wrong YAML type (e.g. a list where text belongs).
    InvalidFieldType => "invalid_field_type",
    /// `metadata` is not a map of strings to strings.
    InvalidMetadata => "invalid_metadata",
    /// A key the format does not define (kept in `extra`).
    UnknownField => "unknown_field",
    /// The body after the frontmatter is empty.
    EmptyBody => "empty_body",
    /// The body is longer than the 500 lines the format recommends.
    LongBody => "long_body",
    /// A skill of the same name in a higher-precedence source wins over this one.
    ShadowedSkill => "shadowed_skill",
    /// Two skills of one source have the same name; the first (in sorted order) wins.
    DuplicateSkill => "duplicate_skill",
    /// A symbolic link was not followed (policy).
    SymlinkSkipped => "symlink_skipped",
    /// Discovery stopped at a bound (depth, folders or skills).
    DiscoveryLimit => "discovery_limit",
    /// A folder has no `SKILL.md` but a file whose name differs only in case
    /// (`skill.md`, `Skill.md`): lenient mode loads it with a warning (as the
    /// reference validator does), strict mode does not.
    MisnamedSkillFile => "misnamed_skill_file",
    /// A folder's `SKILL.md` is a folder or a special file (or a link to
    /// one): the folder is a broken skill, not searched further.
    SkillFileNotAFile => "skill_file_not_a_file",
    /// A source folder does not exist or is not a folder.
    SourceNotFound => "source_not_found",
    /// A file or folder could not be read.
    IoError => "io_error",
    /// A skills folder is configuration of a workspace the host has not
    /// trusted (or leads out of it): its skills were listed, not read
    /// (see [`SkillRegistry::withheld`](crate::SkillRegistry::withheld)).
    UntrustedWorkspace => "untrusted_workspace",
    /// A remote source could not be listed (or was never listed): none of
    /// its skills is loaded.
    RemoteSourceFailed => "remote_source_failed",
    /// A remote source lists a skill whose address or files break the
    /// rules (no `<folder>/SKILL.md`, a file path that climbs out or is
    /// listed twice): it is not loaded.
    InvalidRemoteEntry => "invalid_remote_entry",
}

impl fmt::Display for FindingCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One thing validation or discovery noticed.
///
/// Serialises as `{"code", "file", "line", "message", "severity"}`; `line`
/// is 1-based and `null` when the finding is about the whole file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Finding {
    /// The stable code.
    pub code: FindingCode,
    /// The file (a path, or `builtin:<identifier>` for an in-memory skill).
    pub file: String,
    /// The 1-based line in `file`, where known.
    pub line: Option<usize>,
    /// What is wrong and, where it helps, what was done about it.
    pub message: String,
    /// How serious it is.
    pub severity: Severity,
}

impl Finding {
    /// A finding.
    pub fn new(
        code: FindingCode,
        severity: Severity,
        file: impl Into<String>,
        line: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            code,
            file: file.into(),
            line,
            message: message.into(),
            severity,
        }
    }

    /// Whether the finding stopped something from loading.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(
            f,
            ": {} {}: {}",
            self.severity.as_str(),
            self.code,
            self.message
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_serialise_as_their_text() {
        for code in FindingCode::ALL {
            let json = serde_json::to_value(code).unwrap();
            assert_eq!(json, code.as_str());
        }
    }

    #[test]
    fn display_names_file_line_and_code() {
        let f = Finding::new(
            FindingCode::InvalidYaml,
            Severity::Error,
            "a/SKILL.md",
            Some(3),
            "bad",
        );
        assert_eq!(f.to_string(), "a/SKILL.md:3: error invalid_yaml: bad");
    }
}
