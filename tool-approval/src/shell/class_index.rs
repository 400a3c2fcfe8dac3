//! The shared index of program names (`shell::classes`): one lookup per
//! word answers what each table that owns names would, and a part's
//! [`PartClasses`] are read through it once.
//!
//! The index is built once from the owning tables' own lists
//! (`shell::programs`, `shell::options`, `shell::wrappers`,
//! `shell::unread_code`); each owner keeps its own answer, and this
//! module's differential tests hold the index to them on every listed
//! name and its other spellings, and a part's classes to reading each
//! word through each table.

use super::classes::{INTERPRETER, KNOWN, LANGUAGE, LOADER, PartClasses, ROW_OR_MOVER, WRAPPER};
use super::types::SimpleCommand;

/// The index: every name of the owning tables with its classes, and a
/// filter of those names ([`NameFilter`]).
struct Index {
    names: crate::name_hash::NameMap<&'static str, u16>,
    filter: NameFilter,
}

fn index() -> &'static Index {
    static INDEX: std::sync::OnceLock<Index> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| {
        let mut names = crate::name_hash::NameMap::<&'static str, u16>::default();
        let mut add = |list: &mut dyn Iterator<Item = &'static str>, class: u16| {
            for name in list {
                *names.entry(name).or_default() |= class;
            }
        };
        add(&mut super::programs::language_names(), LANGUAGE);
        add(&mut super::options::loader_names(), LOADER);
        add(&mut super::options::row_or_mover_names(), ROW_OR_MOVER);
        add(&mut super::wrappers::known_program_names(), KNOWN);
        add(&mut super::wrappers::builtin_wrapper_names(), WRAPPER);
        add(&mut super::unread_code::interpreter_names(), INTERPRETER);
        let mut filter = NameFilter([0; FILTER_WORDS]);
        for name in names.keys() {
            filter.add(name);
        }
        Index { names, filter }
    })
}

/// The bits of [`NameFilter`], as 64-bit words.
const FILTER_WORDS: usize = 64;

/// One bit per slot of a name's length, first and last byte, set for
/// every indexed name: a name whose slot is clear is no indexed name, so
/// most words no table lists (`src`, `done`, `m0`) are answered without
/// hashing them. (Exact: a clear bit is only ever a name not indexed.)
struct NameFilter([u64; FILTER_WORDS]);

impl NameFilter {
    fn slot(name: &str) -> (usize, u64) {
        let bytes = name.as_bytes();
        let key = u32::from(bytes.first().copied().unwrap_or(0))
            | u32::from(bytes.last().copied().unwrap_or(0)) << 8
            | (bytes.len() as u32) << 16;
        // The top 12 bits of a multiplicative hash: 4 096 slots.
        let slot = (key.wrapping_mul(0x9e37_79b1) >> 20) as usize;
        (slot / 64, 1 << (slot % 64))
    }

    fn add(&mut self, name: &str) {
        let (word, bit) = Self::slot(name);
        if let Some(w) = self.0.get_mut(word) {
            *w |= bit;
        }
    }

    fn may_hold(&self, name: &str) -> bool {
        let (word, bit) = Self::slot(name);
        self.0.get(word).is_some_and(|w| w & bit != 0)
    }
}

/// The classes of `name` (a basename): one lookup, except for the
/// spellings an index of exact names cannot hold — a version suffix
/// (`python3.12`) or capitals (`Python`) — which the owning tables answer
/// themselves.
pub(crate) fn name_class(name: &str) -> u16 {
    let index = index();
    let mut class = if index.filter.may_hold(name) {
        index.names.get(name).copied().unwrap_or(0)
    } else {
        0
    };
    let bytes = name.as_bytes();
    if bytes
        .last()
        .is_some_and(|b| b.is_ascii_digit() || *b == b'.')
        || bytes.iter().any(u8::is_ascii_uppercase)
    {
        if super::programs::is_versioned_interpreter(name) {
            class |= LANGUAGE;
        }
        if super::unread_code::is_interpreter(name) {
            class |= INTERPRETER;
        }
    }
    class
}

/// The classes of `words`, read once.
pub(crate) fn classes_of(words: &[String]) -> PartClasses {
    PartClasses::from_words(words, name_class)
}

/// A part's classes: kept on the part, read on first use.
pub(crate) fn part_classes(part: &SimpleCommand) -> PartClasses {
    part.classes.get_or(|| classes_of(&part.words))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::shell::classes::ClassCell;
    use crate::shell::words::basename;

    /// Each class as its owning table answers it, without the index.
    fn owners(name: &str) -> u16 {
        let mut class = 0;
        if super::super::programs::is_language(name) {
            class |= LANGUAGE;
        }
        let (loader, row) = super::super::options::effect_classes(name);
        if loader {
            class |= LOADER;
        }
        if row {
            class |= ROW_OR_MOVER;
        }
        if super::super::wrappers::unknown_wrappers_is_known(name) {
            class |= KNOWN;
        }
        if super::super::wrappers::is_builtin_wrapper(name) {
            class |= WRAPPER;
        }
        if super::super::unread_code::is_interpreter(name) {
            class |= INTERPRETER;
        }
        class
    }

    /// Every indexed name, with the spellings the owners also accept.
    fn spellings() -> Vec<String> {
        let mut out = Vec::new();
        for name in index().names.keys() {
            out.push((*name).to_owned());
            out.push(format!("{name}3"));
            out.push(format!("{name}3.12"));
            out.push(format!("{name}."));
            out.push(name.to_ascii_uppercase());
            out.push(format!("x{name}"));
            out.push(format!("{name}x"));
        }
        out
    }

    #[test]
    fn no_indexed_name_starts_with_a_dash() {
        assert!(index().names.keys().all(|n| !n.starts_with('-')));
    }

    #[test]
    fn the_filter_lets_every_indexed_name_through() {
        let index = index();
        assert!(index.names.keys().all(|n| index.filter.may_hold(n)));
        // And it keeps most other names from the lookup.
        let others = ["src", "done", "m0", "lib", "tool-core", "README.md"];
        assert!(others.iter().filter(|n| index.filter.may_hold(n)).count() < others.len());
    }

    #[test]
    fn the_index_answers_as_each_table_does_for_every_name() {
        let wrong: Vec<String> = spellings()
            .iter()
            .filter(|n| name_class(n) != owners(n))
            .map(|n| format!("{n}: index {:#b}, tables {:#b}", name_class(n), owners(n)))
            .collect();
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    /// A part's classes as the readers asked them of its words, one word
    /// and one table at a time.
    fn by_words(words: &[String]) -> PartClasses {
        let class = |w: &String| owners(basename(w));
        let named = |w: &&String| !w.starts_with('-');
        PartClasses::from_fields(
            [
                words.first().map_or(0, class),
                words
                    .iter()
                    .skip(1)
                    .filter(named)
                    .fold(0, |c, w| c | class(w)),
                words.iter().filter(named).fold(0, |c, w| c | class(w)),
                words.iter().fold(0, |c, w| c | class(w)),
            ],
            words.iter().any(|w| w.starts_with('-')),
            words.iter().any(|w| w.contains("IFS")),
        )
    }

    fn word() -> impl Strategy<Value = String> {
        let names: Vec<String> = spellings();
        prop_oneof![
            proptest::sample::select(names.clone()),
            proptest::sample::select(names.clone()).prop_map(|n| format!("/usr/bin/{n}")),
            proptest::sample::select(names).prop_map(|n| format!("--x=/bin/{n}")),
            "[-a-zA-Z0-9_./=$]{0,12}",
            Just("$IFS".to_owned()),
            proptest::sample::select(vec![
                "config", "link", "enable", "set", "-f", "-o", "--output", "-la", "deploy",
            ])
            .prop_map(str::to_owned),
        ]
    }

    proptest! {
        #[test]
        fn part_classes_equal_the_tables_read_word_by_word(
            words in proptest::collection::vec(word(), 0..8)
        ) {
            prop_assert_eq!(classes_of(&words), by_words(&words));
            // The question `ShellCommand::effects` asks of a part's words.
            prop_assert_eq!(
                classes_of(&words).any_is(LANGUAGE),
                super::super::programs::may_have_programs(&words)
            );
            let cell = ClassCell::default();
            prop_assert_eq!(cell.get_or(|| classes_of(&words)), by_words(&words));
            prop_assert_eq!(cell.clone().get_or(PartClasses::default), by_words(&words));
        }

        #[test]
        fn may_have_effects_from_classes_equals_reading_each_word(
            words in proptest::collection::vec(word(), 0..6),
            host in proptest::bool::ANY,
        ) {
            use crate::shell::{CommandOption, Effect, OptionValue};
            let extra = if host {
                vec![CommandOption::new("deploy", &["--target"], OptionValue::Required, Effect::WritesFile)]
            } else {
                Vec::new()
            };
            prop_assert_eq!(
                super::super::options::may_have_effects(&words, classes_of(&words), &extra),
                super::super::options::may_have_effects_by_words(&words, &extra)
            );
        }

        #[test]
        fn stored_views_from_classes_equal_reading_the_words(
            words in proptest::collection::vec(word(), 1..6),
        ) {
            prop_assert_eq!(
                super::super::wrappers::stored_views_of(&words, classes_of(&words), &[]),
                super::super::wrappers::stored_views(&words, &[])
            );
        }
    }
}
