//! The catalog shown to a model: names and descriptions of the enabled
//! skills as `<available_skills>` XML, Markdown or JSON, within a character
//! budget.
//!
//! # Degradation under a budget
//!
//! When the full catalog is longer than the budget (counted in characters):
//!
//! 1. every description is cut to the same, largest length that fits (never
//!    below [`CatalogOptions::min_description_chars`]), ending in `…`;
//! 2. if that is not enough, skills lose their description from the end of
//!    the list (names only);
//! 3. if that is not enough, skills are left out from the end of the list,
//!    and a note says how many.
//!
//! The [`SkillCatalog`] says exactly which skills were shortened, reduced to a
//! name or omitted. The list is sorted by name.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::skill::Skill;

/// A catalog rendering.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CatalogFormat {
    /// `<available_skills><skill><name>…` (the default).
    #[default]
    Xml,
    /// A Markdown list.
    Markdown,
    /// A JSON array of `{name, description}`.
    Json,
}

/// How to render a catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CatalogOptions {
    /// The rendering (default XML).
    pub format: CatalogFormat,
    /// The largest catalog, in characters; `None` for no limit (default).
    pub budget: Option<usize>,
    /// Whether each entry gives the skill's location, the path of its
    /// `SKILL.md` as the format's client guide defines it (`builtin:<id>`
    /// for a builtin skill). Default false: `activateSkill`'s result names
    /// the skill folder, so a model using the `skills` tool needs no path.
    pub include_location: bool,
    /// Descriptions are never cut shorter than this (default 48); below it
    /// skills lose their description instead.
    pub min_description_chars: usize,
}

impl Default for CatalogOptions {
    fn default() -> Self {
        Self {
            format: CatalogFormat::Xml,
            budget: None,
            include_location: false,
            min_description_chars: 48,
        }
    }
}

impl CatalogOptions {
    /// Options for `format` with a `budget`.
    pub fn new(format: CatalogFormat, budget: Option<usize>) -> Self {
        Self {
            format,
            budget,
            ..Self::default()
        }
    }

    /// Sets [`include_location`](Self::include_location).
    pub fn with_location(mut self, include: bool) -> Self {
        self.include_location = include;
        self
    }
}

/// What happened to one skill in the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "status")]
pub enum EntryStatus {
    /// Listed with its whole description.
    Full,
    /// Listed with a cut description.
    Shortened {
        /// Characters of the description (whitespace collapsed).
        original_chars: usize,
        /// Characters kept, `…` included.
        kept_chars: usize,
    },
    /// Listed by name only.
    NameOnly,
    /// Left out.
    Omitted,
}

/// One skill's line in the catalog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogEntry {
    /// The skill's name.
    pub name: String,
    /// What happened to it.
    #[serde(flatten)]
    pub status: EntryStatus,
}

/// A rendered catalog of skills and a report of what the budget cost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SkillCatalog {
    /// The text for the prompt (empty when no skill is enabled or nothing fits).
    pub text: String,
    /// The rendering.
    pub format: CatalogFormat,
    /// The length of `text` in characters.
    pub chars: usize,
    /// The budget it was rendered for.
    pub budget: Option<usize>,
    /// Every skill, in catalog order.
    pub entries: Vec<CatalogEntry>,
}

impl SkillCatalog {
    fn names(&self, pick: impl Fn(&EntryStatus) -> bool) -> Vec<&str> {
        self.entries
            .iter()
            .filter(|e| pick(&e.status))
            .map(|e| e.name.as_str())
            .collect()
    }

    /// Skills whose description was cut.
    pub fn shortened(&self) -> Vec<&str> {
        self.names(|s| matches!(s, EntryStatus::Shortened { .. }))
    }

    /// Skills listed by name only.
    pub fn names_only(&self) -> Vec<&str> {
        self.names(|s| matches!(s, EntryStatus::NameOnly))
    }

    /// Skills left out.
    pub fn omitted(&self) -> Vec<&str> {
        self.names(|s| matches!(s, EntryStatus::Omitted))
    }

    /// Whether the budget changed anything.
    pub fn is_degraded(&self) -> bool {
        self.entries.iter().any(|e| e.status != EntryStatus::Full)
    }

    /// A JSON report: `{text, format, chars, budget, shortened, namesOnly, omitted}`.
    pub fn report(&self) -> serde_json::Value {
        json!({
            "text": self.text,
            "format": self.format,
            "chars": self.chars,
            "budget": self.budget,
            "shortened": self.shortened(),
            "namesOnly": self.names_only(),
            "omitted": self.omitted(),
        })
    }
}

/// Escapes text for XML content and attribute values; characters XML 1.0
/// cannot carry (most control characters) are dropped.
pub fn xml_escape(text: &str) -> Cow<'_, str> {
    let needs = text
        .chars()
        .any(|c| matches!(c, '&' | '<' | '>' | '"' | '\'') || !xml_char(c));
    if !needs {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if xml_char(c) => out.push(c),
            _ => {}
        }
    }
    Cow::Owned(out)
}

fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || (!c.is_control() && c != '\u{fffe}' && c != '\u{ffff}')
}

struct Item {
    name: String,
    description: String,
    location: Option<String>,
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn cut(text: &str, limit: usize) -> Cow<'_, str> {
    if text.chars().count() <= limit {
        return Cow::Borrowed(text);
    }
    let keep: String = text.chars().take(limit.saturating_sub(1)).collect();
    Cow::Owned(format!("{}…", keep.trim_end()))
}

fn len(text: &str) -> usize {
    text.chars().count()
}

struct Renderer {
    format: CatalogFormat,
}

impl Renderer {
    fn header(&self) -> &'static str {
        match self.format {
            CatalogFormat::Xml => "<available_skills>\n",
            CatalogFormat::Markdown => "## Available skills\n\n",
            CatalogFormat::Json => "[",
        }
    }

    fn footer(&self) -> &'static str {
        match self.format {
            CatalogFormat::Xml => "</available_skills>",
            CatalogFormat::Markdown => "",
            CatalogFormat::Json => "]",
        }
    }

    fn separator(&self) -> &'static str {
        match self.format {
            CatalogFormat::Json => ",",
            _ => "",
        }
    }

    fn entry(&self, item: &Item, description: Option<&str>) -> String {
        match self.format {
            CatalogFormat::Xml => {
                let mut out = format!("  <skill>\n    <name>{}</name>\n", xml_escape(&item.name));
                if let Some(d) = description {
                    out.push_str(&format!(
                        "    <description>{}</description>\n",
                        xml_escape(d)
                    ));
                }
                if let Some(l) = &item.location {
                    out.push_str(&format!("    <location>{}</location>\n", xml_escape(l)));
                }
                out.push_str("  </skill>\n");
                out
            }
            CatalogFormat::Markdown => {
                let mut out = format!("- **{}**", md_escape(&item.name));
                if let Some(d) = description {
                    out.push_str(": ");
                    out.push_str(d);
                }
                if let Some(l) = &item.location {
                    out.push_str(&format!(" (`{l}`)"));
                }
                out.push('\n');
                out
            }
            CatalogFormat::Json => {
                let mut value = json!({ "name": item.name });
                if let Some(d) = description {
                    value["description"] = json!(d);
                }
                if let Some(l) = &item.location {
                    value["location"] = json!(l);
                }
                value.to_string()
            }
        }
    }

    fn note(&self, omitted: usize) -> String {
        if omitted == 0 {
            return String::new();
        }
        match self.format {
            CatalogFormat::Xml => {
                format!("  <!-- {omitted} more skills left out to fit the catalog budget -->\n")
            }
            CatalogFormat::Markdown => {
                format!("- … {omitted} more skills left out to fit the catalog budget\n")
            }
            CatalogFormat::Json => json!({ "omitted": omitted }).to_string(),
        }
    }
}

fn md_escape(text: &str) -> String {
    text.replace('*', "\\*").replace('_', "\\_")
}

/// Renders the catalog of `skills` (already sorted) under `options`.
pub(crate) fn render_catalog(skills: &[&Skill], options: &CatalogOptions) -> SkillCatalog {
    let items: Vec<Item> = skills
        .iter()
        .map(|s| Item {
            name: s.name().to_owned(),
            description: collapse(s.description()),
            location: options.include_location.then(|| s.file()),
        })
        .collect();
    let r = Renderer {
        format: options.format,
    };
    let n = items.len();
    let mut status = vec![EntryStatus::Full; n];
    let mut lens: Vec<usize> = items
        .iter()
        .map(|i| len(&r.entry(i, Some(&i.description))))
        .collect();
    let fixed = len(r.header()) + len(r.footer());
    let total = |lens: &[usize], kept: usize, omitted: usize| {
        fixed
            + lens.iter().sum::<usize>()
            + kept.saturating_sub(1) * len(r.separator())
            + if omitted > 0 {
                len(&r.note(omitted)) + usize::from(kept > 0) * len(r.separator())
            } else {
                0
            }
    };
    if n > 0
        && let Some(budget) = options.budget
        && total(&lens, n, 0) > budget
    {
        degrade(&items, &r, options, budget, &mut status, &mut lens, &total);
    }
    let text = if n == 0
        || status.iter().all(|s| *s == EntryStatus::Omitted)
            && options.budget.is_some_and(|b| fixed + len(&r.note(n)) > b)
    {
        String::new()
    } else {
        let mut parts: Vec<String> = Vec::new();
        for (item, st) in items.iter().zip(&status) {
            let description: Option<Cow<'_, str>> = match st {
                EntryStatus::Full => Some(Cow::Borrowed(&item.description)),
                EntryStatus::Shortened { kept_chars, .. } => {
                    Some(cut(&item.description, *kept_chars))
                }
                EntryStatus::NameOnly => None,
                EntryStatus::Omitted => continue,
            };
            parts.push(r.entry(item, description.as_deref()));
        }
        let omitted = status
            .iter()
            .filter(|s| **s == EntryStatus::Omitted)
            .count();
        if omitted > 0 {
            parts.push(r.note(omitted));
        }
        format!("{}{}{}", r.header(), parts.join(r.separator()), r.footer())
    };
    SkillCatalog {
        chars: len(&text),
        text,
        format: options.format,
        budget: options.budget,
        entries: items
            .iter()
            .zip(status)
            .map(|(i, status)| CatalogEntry {
                name: i.name.clone(),
                status,
            })
            .collect(),
    }
}

/// Rendered lengths of one entry for any description cut, without
/// rendering it: the entry with an empty description plus the escaped
/// length of the kept prefix (prefix sums), plus `…`.
struct Measure {
    base: usize,
    prefix: Vec<usize>,
    chars: Vec<char>,
}

impl Measure {
    fn new(item: &Item, r: &Renderer) -> Self {
        let chars: Vec<char> = item.description.chars().collect();
        let mut prefix = Vec::with_capacity(chars.len() + 1);
        let mut total = 0;
        prefix.push(0);
        for c in &chars {
            total += escaped_len(*c, r.format);
            prefix.push(total);
        }
        Self {
            base: len(&r.entry(item, Some(""))),
            prefix,
            chars,
        }
    }

    /// Length of the entry with the description as [`cut`] leaves it.
    fn len_at(&self, limit: usize) -> usize {
        if self.chars.len() <= limit {
            return self.base + self.prefix[self.chars.len()];
        }
        let mut keep = limit.saturating_sub(1);
        while keep > 0 && self.chars[keep - 1].is_whitespace() {
            keep -= 1;
        }
        self.base + self.prefix[keep] + 1
    }
}

/// How many characters `c` takes once escaped for `format`.
fn escaped_len(c: char, format: CatalogFormat) -> usize {
    match format {
        CatalogFormat::Xml => match c {
            '&' => 5,
            '<' | '>' => 4,
            '"' | '\'' => 6,
            c if xml_char(c) => 1,
            _ => 0,
        },
        CatalogFormat::Markdown => 1,
        CatalogFormat::Json => match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            c if u32::from(c) < 0x20 => 6,
            _ => 1,
        },
    }
}

fn degrade(
    items: &[Item],
    r: &Renderer,
    options: &CatalogOptions,
    budget: usize,
    status: &mut [EntryStatus],
    lens: &mut [usize],
    total: &dyn Fn(&[usize], usize, usize) -> usize,
) {
    let n = items.len();
    let longest = items.iter().map(|i| len(&i.description)).max().unwrap_or(0);
    let floor = options.min_description_chars.max(2);
    let measures: Vec<Measure> = items.iter().map(|i| Measure::new(i, r)).collect();
    let lens_at =
        |limit: usize| -> Vec<usize> { measures.iter().map(|m| m.len_at(limit)).collect() };
    // Step 1: the largest common description length that fits.
    if longest > floor {
        let (mut lo, mut hi) = (floor, longest - 1);
        let mut best = None;
        while lo <= hi {
            let mid = lo + (hi - lo) / 2;
            if total(&lens_at(mid), n, 0) <= budget {
                best = Some(mid);
                lo = mid + 1;
            } else if mid == 0 {
                break;
            } else {
                hi = mid - 1;
            }
        }
        let limit = best.unwrap_or(floor);
        let cut_lens = lens_at(limit);
        for (index, item) in items.iter().enumerate() {
            let original = len(&item.description);
            if original > limit {
                status[index] = EntryStatus::Shortened {
                    original_chars: original,
                    kept_chars: len(&cut(&item.description, limit)),
                };
            }
        }
        lens.copy_from_slice(&cut_lens);
        if best.is_some() {
            return;
        }
    }
    // Step 2: names only, from the end.
    for index in (0..n).rev() {
        if total(lens, n, 0) <= budget {
            return;
        }
        lens[index] = len(&r.entry(&items[index], None));
        status[index] = EntryStatus::NameOnly;
    }
    // Step 3: leave skills out, from the end.
    let mut kept = n;
    for index in (0..n).rev() {
        if total(&lens[..kept], kept, n - kept) <= budget {
            return;
        }
        kept -= 1;
        status[index] = EntryStatus::Omitted;
    }
}
