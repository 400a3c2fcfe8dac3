//! Error codes of the `skills` tool's failed outputs.

use tool_core::ErrorCode;

/// No enabled skill has that name (details: `close`, `available`).
pub const SKILL_NOT_FOUND: ErrorCode = ErrorCode::from_static("skill_not_found");
/// The name matches several skills ignoring case (details: `candidates`).
pub const AMBIGUOUS_SKILL: ErrorCode = ErrorCode::from_static("ambiguous_skill");
/// The path is absolute, climbs out, is encoded to hide either, or
/// leads out of the skill folder through a link.
pub const PATH_NOT_ALLOWED: ErrorCode = ErrorCode::from_static("path_not_allowed");
/// No file matches (details: `files`, the skill's files).
pub const REFERENCE_NOT_FOUND: ErrorCode = ErrorCode::from_static("reference_not_found");
/// Several files match (details: `candidates`).
pub const AMBIGUOUS_REFERENCE: ErrorCode = ErrorCode::from_static("ambiguous_reference");
/// The path is a folder or a special file.
pub const NOT_A_FILE: ErrorCode = ErrorCode::from_static("not_a_file");
/// The file is larger than the cap (details: `bytes`, `limit`).
pub const REFERENCE_TOO_LARGE: ErrorCode = ErrorCode::from_static("reference_too_large");
/// The file exists but could not be read.
pub const READ_FAILED: ErrorCode = ErrorCode::from_static("read_failed");
/// `runScript` was given something outside the skill's `scripts/`.
pub const NOT_A_SCRIPT: ErrorCode = ErrorCode::from_static("not_a_script");
/// A skill (or one of its files) of a remote source could not be fetched;
/// trying again later may help (details: `skill`, `source`, `kind`, `file`).
pub const SKILL_UNAVAILABLE: ErrorCode = ErrorCode::from_static("skill_unavailable");
/// What a remote source handed over for a skill failed a check (size,
/// digest, frontmatter, a cap, the format) and was not used (details:
/// `skill`, `source`, `kind`, `file`).
pub const SKILL_REFUSED: ErrorCode = ErrorCode::from_static("skill_refused");
