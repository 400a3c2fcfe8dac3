//! What a part's words are as program names, read once per part.
//!
//! Several readers of a part ask the same first question of its words: is
//! one of them a program whose own language the engine reads (`sed`,
//! `awk`, the one-liners' interpreters, `shell::programs`), a program of
//! the option table or a loader of commands (`shell::options`), a program
//! the engine knows by name (what an unknown wrapper may run,
//! `wrappers::unknown_wrappers`), a built-in wrapper, an interpreter whose
//! code is not read (`shell::unread_code`)? Each of those tables keeps
//! its names and its own answer; one index built once from all of them
//! answers every question for a word in one lookup (`class_index`).
//!
//! [`PartClasses`] holds those answers for a part's words — the command
//! word's apart from the others' — with the two shapes the readers scan
//! for (a word that is an option, a word holding `IFS`). A part makes it
//! once (the plain split when it finishes the part, else on first use)
//! and keeps it in a private cell of the part, cleared where the part's
//! words change, so no reader scans the words again and no answer can
//! outlive the words it was read from. Each answer is held to the owning
//! table's own function by differential tests (`class_index`'s), so the
//! index cannot drift from the tables.

use std::sync::atomic::{AtomicU64, Ordering};

use super::words::basename;

/// A name `shell::programs` reads the language of (`programs::kind`).
pub(crate) const LANGUAGE: u16 = 1;
/// A loader of commands (`systemctl`, `npm`, a config loader of
/// `shell::options`).
pub(crate) const LOADER: u16 = 1 << 1;
/// A program with a row of the option table, or one that moves files
/// into a place (`mv`, `cp`, `install`, `ln`).
pub(crate) const ROW_OR_MOVER: u16 = 1 << 2;
/// A program the engine knows by name (`unknown_wrappers::is_known_program`).
pub(crate) const KNOWN: u16 = 1 << 3;
/// A built-in wrapper (`sudo`, `timeout`, `env`, …).
pub(crate) const WRAPPER: u16 = 1 << 4;
/// An interpreter whose programs are not read (`unread_code::is_interpreter`).
pub(crate) const INTERPRETER: u16 = 1 << 5;

/// What a part's words are (see the module docs): made by
/// [`PartClasses::from_words`] (through `class_index`), read through its
/// questions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct PartClasses {
    /// The classes of the command word's basename.
    first: u16,
    /// The classes of the other words that are not options, by basename.
    rest: u16,
    /// The classes of every word that is not an option, by basename (the
    /// command word's too, unless it is an option).
    named: u16,
    /// The classes of every word's basename, options included (an option
    /// names a program only through a `/`: `--x=/usr/bin/sed`).
    every: u16,
    /// Some word starts with `-`.
    option: bool,
    /// Some word holds `IFS`.
    ifs: bool,
}

impl PartClasses {
    /// Reads `words` (the command word first) once, each name through
    /// `name_class` (`class_index::name_class`).
    pub(crate) fn from_words(words: &[String], name_class: impl Fn(&str) -> u16) -> Self {
        let mut out = Self::default();
        for (at, word) in words.iter().enumerate() {
            out.ifs |= holds_ifs(word);
            let is_option = word.starts_with('-');
            out.option |= is_option;
            // No indexed name starts with `-`: an option's basename is a
            // name only after a `/` (checked by this module's tests).
            if is_option && !word.contains('/') {
                continue;
            }
            let class = name_class(basename(word));
            out.every |= class;
            if at == 0 {
                out.first = class;
            } else if !is_option {
                out.rest |= class;
            }
            if !is_option {
                out.named |= class;
            }
        }
        out
    }

    /// Classes as given (the differential tests' plain reading).
    #[cfg(test)]
    pub(crate) fn from_fields(
        [first, rest, named, every]: [u16; 4],
        option: bool,
        ifs: bool,
    ) -> Self {
        Self {
            first,
            rest,
            named,
            every,
            option,
            ifs,
        }
    }

    /// The command word is of `class` (any of its bits).
    pub(crate) fn first_is(self, class: u16) -> bool {
        self.first & class != 0
    }

    /// A word after the command word that is not an option is of `class`.
    pub(crate) fn rest_is(self, class: u16) -> bool {
        self.rest & class != 0
    }

    /// A word that is not an option (the command word included) is of
    /// `class`.
    pub(crate) fn named_is(self, class: u16) -> bool {
        self.named & class != 0
    }

    /// Any word, options included, is of `class`.
    pub(crate) fn any_is(self, class: u16) -> bool {
        self.every & class != 0
    }

    /// Some word starts with `-`.
    pub(crate) fn has_option(self) -> bool {
        self.option
    }

    /// Some word holds `IFS`.
    pub(crate) fn holds_ifs(self) -> bool {
        self.ifs
    }

    fn pack(self) -> u64 {
        // Each class set fits in a byte (`ALL`).
        u64::from(self.first & ALL)
            | u64::from(self.rest & ALL) << 8
            | u64::from(self.named & ALL) << 16
            | u64::from(self.every & ALL) << 24
            | u64::from(self.option) << 32
            | u64::from(self.ifs) << 33
            | MADE
    }

    fn unpack(bits: u64) -> Self {
        let byte = |at: u32| ((bits >> at) & 0xff) as u16;
        Self {
            first: byte(0),
            rest: byte(8),
            named: byte(16),
            every: byte(24),
            option: bits & (1 << 32) != 0,
            ifs: bits & (1 << 33) != 0,
        }
    }
}

/// Every class bit.
const ALL: u16 = LANGUAGE | LOADER | ROW_OR_MOVER | KNOWN | WRAPPER | INTERPRETER;
const _: () = assert!(ALL <= 0xff, "a part's classes are kept a byte each");

/// The bit of a filled [`ClassCell`].
const MADE: u64 = 1 << 63;

/// Whether `word` holds `IFS` (a byte scan).
pub(crate) fn holds_ifs(word: &str) -> bool {
    word.as_bytes()
        .windows(3)
        .any(|b| matches!(b, [b'I', b'F', b'S']))
}

/// A part's [`PartClasses`], made on first use and kept: a plain word
/// (no lock; two threads that fill it at once write the same value).
/// Cleared wherever the part's words change.
#[derive(Debug, Default)]
pub(crate) struct ClassCell(AtomicU64);

impl ClassCell {
    /// A cell holding `classes`.
    pub(crate) fn with(classes: PartClasses) -> Self {
        Self(AtomicU64::new(classes.pack()))
    }

    /// The classes kept, or those `make` reads (then kept).
    pub(crate) fn get_or(&self, make: impl FnOnce() -> PartClasses) -> PartClasses {
        let bits = self.0.load(Ordering::Relaxed);
        if bits & MADE != 0 {
            return PartClasses::unpack(bits);
        }
        let classes = make();
        self.0.store(classes.pack(), Ordering::Relaxed);
        classes
    }

    /// Forgets the classes (the words changed).
    pub(crate) fn clear(&mut self) {
        *self.0.get_mut() = 0;
    }
}

/// Cells compare by what they hold (a part's equality leaves them out).
impl PartialEq for ClassCell {
    fn eq(&self, other: &Self) -> bool {
        self.0.load(Ordering::Relaxed) == other.0.load(Ordering::Relaxed)
    }
}

impl Eq for ClassCell {}

impl Clone for ClassCell {
    fn clone(&self) -> Self {
        Self(AtomicU64::new(self.0.load(Ordering::Relaxed)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_keeps_what_it_was_given_until_cleared() {
        let sed = PartClasses::from_fields([LANGUAGE, 0, LANGUAGE, LANGUAGE], true, false);
        let mut cell = ClassCell::with(sed);
        assert_eq!(cell.get_or(PartClasses::default), sed);
        assert_eq!(cell.clone().get_or(PartClasses::default), sed);
        cell.clear();
        assert_eq!(cell.get_or(PartClasses::default), PartClasses::default());
    }
}
