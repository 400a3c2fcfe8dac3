//! The skill registry: sources in precedence order, shadowing, enable and
//! disable, reload with a diff, and name lookup.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::Serialize;
use tool_core::Partial;

use crate::catalog::{CatalogOptions, SkillCatalog, render_catalog};
use crate::error::{Error, Result};
use crate::finding::{Finding, FindingCode, Severity};
use crate::name::normalize_name;
use crate::skill::{Provenance, Skill};
use crate::source::{LoadOptions, SkillSource, load_source};
use crate::trust::Withheld;

/// A skill that lost to a skill of the same name in a higher source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Shadowed {
    /// The name both define.
    pub name: String,
    /// The skill in use.
    pub winner: Provenance,
    /// The skill not in use.
    pub shadowed: Provenance,
}

/// What a [`SkillRegistry::reload`] changed, by name (sorted).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ReloadDiff {
    /// Names that are new.
    pub added: Vec<String>,
    /// Names that are gone.
    pub removed: Vec<String>,
    /// Names whose skill changed (its `SKILL.md`, folder or source).
    pub changed: Vec<String>,
}

impl ReloadDiff {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

/// The result of looking a name up among the enabled skills.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Lookup {
    /// The name matched exactly.
    Exact(Arc<Skill>),
    /// The name matched one skill ignoring case.
    CaseInsensitive(Arc<Skill>),
    /// The name matched several skills ignoring case.
    Ambiguous(Vec<String>),
    /// Nothing matched; the closest names, best first.
    Missing {
        /// Close matches (at most five).
        close: Vec<String>,
    },
}

/// Skills from several sources, in precedence order: the first source that
/// defines a name wins, and every skill it shadows is reported.
///
/// # Precedence
///
/// 1. Sources are consulted in the order they were added (e.g. project,
///    then user, then builtin).
/// 2. Within a folder source, skills are found in sorted path order; a name
///    found twice keeps the first (`duplicate_skill`).
/// 3. A name already defined by an earlier source is shadowed
///    (`shadowed_skill`, listed in [`SkillRegistry::shadowed`]).
///
/// ```
/// use tool_skills::{BuiltinSkill, LoadOptions, SkillRegistry, SkillSource};
/// let registry = SkillRegistry::load(
///     [
///         SkillSource::builtin("project", [BuiltinSkill::new("a", "review", "Project review rules.", "# Project")]),
///         SkillSource::builtin("builtin", [BuiltinSkill::new("b", "review", "Generic review.", "# Generic")]),
///     ],
///     LoadOptions::default(),
/// );
/// assert_eq!(registry.get("review").unwrap().source, "project");
/// assert_eq!(registry.shadowed()[0].shadowed.source, "builtin");
/// ```
#[derive(Debug, Clone, Default)]
pub struct SkillRegistry {
    sources: Vec<SkillSource>,
    options: LoadOptions,
    skills: BTreeMap<String, Arc<Skill>>,
    shadowed: Vec<Shadowed>,
    findings: Vec<Finding>,
    withheld: Vec<Withheld>,
    disabled: BTreeSet<String>,
    generation: u64,
}

impl SkillRegistry {
    /// Loads `sources` (highest precedence first).
    pub fn load(sources: impl IntoIterator<Item = SkillSource>, options: LoadOptions) -> Self {
        let mut registry = Self {
            sources: sources.into_iter().collect(),
            options,
            ..Self::default()
        };
        registry.reload();
        registry
    }

    /// Lists every remote source ([`SkillSource::relist`]), then loads
    /// `sources` (highest precedence first) as [`load`](Self::load) does.
    /// Only catalogues are asked for: no skill's file is fetched.
    pub async fn load_listed(
        sources: impl IntoIterator<Item = SkillSource>,
        options: LoadOptions,
    ) -> Self {
        let sources: Vec<SkillSource> = sources.into_iter().collect();
        for source in &sources {
            // A failure is kept in the source and reported by the load.
            let _ = source.relist().await;
        }
        Self::load(sources, options)
    }

    /// Re-reads every source and reports what was added, removed or changed.
    /// A remote source is read from its last listing (see
    /// [`SkillSource::relist`]).
    /// Disabled names stay disabled.
    pub fn reload(&mut self) -> ReloadDiff {
        let mut skills: BTreeMap<String, Arc<Skill>> = BTreeMap::new();
        let mut shadowed = Vec::new();
        let mut findings = Vec::new();
        let mut withheld = Vec::new();
        for source in &self.sources {
            let loaded = load_source(source, &self.options);
            findings.extend(loaded.findings);
            withheld.extend(loaded.withheld);
            for skill in loaded.skills {
                if let Some(winner) = skills.get(skill.name()) {
                    findings.push(Finding::new(
                        FindingCode::ShadowedSkill,
                        Severity::Warning,
                        skill.file(),
                        None,
                        format!(
                            "skill {:?} from `{}` is shadowed by the one from `{}` ({})",
                            skill.name(),
                            skill.source,
                            winner.source,
                            winner.file()
                        ),
                    ));
                    shadowed.push(Shadowed {
                        name: skill.name().to_owned(),
                        winner: winner.provenance(None),
                        shadowed: skill.provenance(None),
                    });
                } else {
                    skills.insert(skill.name().to_owned(), Arc::new(skill));
                }
            }
        }
        let mut diff = ReloadDiff::default();
        for (name, skill) in &skills {
            match self.skills.get(name) {
                None => diff.added.push(name.clone()),
                Some(old) if old.digest != skill.digest || old.source != skill.source => {
                    diff.changed.push(name.clone());
                }
                Some(_) => {}
            }
        }
        diff.removed = self
            .skills
            .keys()
            .filter(|name| !skills.contains_key(*name))
            .cloned()
            .collect();
        self.skills = skills;
        self.shadowed = shadowed;
        self.findings = findings;
        self.withheld = withheld;
        self.generation += 1;
        diff
    }

    /// The sources, highest precedence first.
    pub fn sources(&self) -> &[SkillSource] {
        &self.sources
    }

    /// The folder sources not read because they are configuration of a
    /// workspace the host has not trusted ([`LoadOptions::in_workspace`]),
    /// with the skill folders found in them (listed, not read).
    pub fn withheld(&self) -> &[Withheld] {
        &self.withheld
    }

    /// The load options.
    pub fn options(&self) -> &LoadOptions {
        &self.options
    }

    /// Every loaded skill (enabled or not), sorted by name.
    pub fn skills(&self) -> impl Iterator<Item = &Arc<Skill>> {
        self.skills.values()
    }

    /// The enabled skills, sorted by name.
    pub fn enabled(&self) -> impl Iterator<Item = &Arc<Skill>> {
        self.skills
            .values()
            .filter(|s| !self.disabled.contains(s.name()))
    }

    /// The skill called exactly `name`, enabled or not.
    pub fn get(&self, name: &str) -> Option<&Arc<Skill>> {
        self.skills.get(name)
    }

    /// Whether `name` is loaded and enabled.
    pub fn is_enabled(&self, name: &str) -> bool {
        self.skills.contains_key(name) && !self.disabled.contains(name)
    }

    /// Disables a loaded skill; returns whether it was enabled.
    pub fn disable(&mut self, name: &str) -> Result<bool> {
        if !self.skills.contains_key(name) {
            return Err(Error::UnknownSkill { name: name.into() });
        }
        let changed = self.disabled.insert(name.to_owned());
        self.generation += u64::from(changed);
        Ok(changed)
    }

    /// Enables a loaded skill; returns whether it was disabled.
    pub fn enable(&mut self, name: &str) -> Result<bool> {
        if !self.skills.contains_key(name) {
            return Err(Error::UnknownSkill { name: name.into() });
        }
        let changed = self.disabled.remove(name);
        self.generation += u64::from(changed);
        Ok(changed)
    }

    /// Every finding of the last load, in source order.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// The skills shadowed by a higher source.
    pub fn shadowed(&self) -> &[Shadowed] {
        &self.shadowed
    }

    /// A counter that changes whenever what the registry offers may have
    /// changed (reload, enable, disable).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Looks `name` up among the enabled skills: exact, then ignoring case
    /// when that is unambiguous, else the close matches.
    ///
    /// The name is compared in NFKC form ([`normalize_name`]), as skill
    /// names are stored: `cafe\u{301}` finds `café`.
    pub fn lookup(&self, name: &str) -> Lookup {
        let normalized = normalize_name(name);
        let name = normalized.as_str();
        if let Some(skill) = self.skills.get(name)
            && !self.disabled.contains(name)
        {
            return Lookup::Exact(Arc::clone(skill));
        }
        let lower = name.to_lowercase();
        let folded: Vec<&Arc<Skill>> = self
            .enabled()
            .filter(|s| s.name().to_lowercase() == lower)
            .collect();
        match folded.as_slice() {
            [one] => Lookup::CaseInsensitive(Arc::clone(one)),
            [] => Lookup::Missing {
                close: close_matches(name, self.enabled().map(|s| s.name())),
            },
            many => Lookup::Ambiguous(many.iter().map(|s| s.name().to_owned()).collect()),
        }
    }

    /// The last load in tool-core's batch shape: every loaded skill (sorted
    /// by name, enabled or not), and one [`Failed`](tool_core::Failed) per error finding (a
    /// `SKILL.md` that did not load, a source that could not be read), its
    /// `source` the finding's file. Warnings and notes stay in
    /// [`findings`](Self::findings) only.
    ///
    /// ```
    /// use tool_skills::{BuiltinSkill, LoadOptions, SkillRegistry, SkillSource};
    /// let registry = SkillRegistry::load(
    ///     [SkillSource::builtin("builtin", [
    ///         BuiltinSkill::new("ok", "greeting", "Greets.", "Say hello."),
    ///         BuiltinSkill::new("bad", "no-description", "", "Body."),
    ///     ])],
    ///     LoadOptions::default(),
    /// );
    /// let outcome = registry.outcome();
    /// assert_eq!(outcome.loaded()[0].name(), "greeting");
    /// assert_eq!(outcome.failed()[0].source, "builtin:bad");
    /// assert_eq!(outcome.failed()[0].error.code.as_str(), "missing_description");
    /// ```
    pub fn outcome(&self) -> Partial<Arc<Skill>, Finding> {
        let mut outcome = Partial::new();
        outcome.extend(self.skills.values().cloned());
        for finding in self.findings.iter().filter(|f| f.is_error()) {
            outcome.fail(finding.file.clone(), finding.clone());
        }
        outcome
    }

    /// The catalog of the enabled skills.
    pub fn catalog(&self, options: &CatalogOptions) -> SkillCatalog {
        let skills: Vec<&Skill> = self.enabled().map(Arc::as_ref).collect();
        render_catalog(&skills, options)
    }
}

/// Up to five names close to `wanted`, best first: edit distance within a
/// third of the length (at least 2), or containing one another.
pub fn close_matches<'a>(wanted: &str, names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let wanted = wanted.to_lowercase();
    let limit = (wanted.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, String)> = names
        .into_iter()
        .filter_map(|name| {
            let lower = name.to_lowercase();
            let distance = edit_distance(&wanted, &lower);
            let contains =
                !wanted.is_empty() && (lower.contains(&wanted) || wanted.contains(&lower));
            (distance <= limit || contains).then(|| (distance, name.to_owned()))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(5).map(|(_, name)| name).collect()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            current[j + 1] = (previous[j] + cost)
                .min(previous[j + 1] + 1)
                .min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_matches_rank_by_distance() {
        let names = ["pdf-processing", "pdf-forms", "docx", "data-analysis"];
        assert_eq!(close_matches("pdf-procesing", names)[0], "pdf-processing");
        assert!(close_matches("pdf", names).contains(&"pdf-forms".to_owned()));
        assert!(close_matches("zzzzzz", names).is_empty());
    }
}
