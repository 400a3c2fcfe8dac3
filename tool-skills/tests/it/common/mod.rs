//! Helpers shared by the test modules: writing skill files into a temp
//! folder and reading a registry's findings.

use std::fs;
use std::path::Path;

use tool_skills::{FindingCode, SkillRegistry};

/// Writes `contents` to `dir/rel`, creating the folders on the way.
pub fn write(dir: &Path, rel: &str, contents: impl AsRef<[u8]>) {
    let path = dir.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, contents).unwrap();
}

/// The codes of every finding the registry recorded, in order.
pub fn codes(registry: &SkillRegistry) -> Vec<FindingCode> {
    registry.findings().iter().map(|f| f.code).collect()
}
