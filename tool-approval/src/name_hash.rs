//! The hash of the engine's own name indexes (program rows, path-class
//! patterns): maps whose keys are fixed when the index is built and are
//! only looked up afterwards.
//!
//! Such a map is never filled from a call, so a word a model writes cannot
//! make it slow (no collisions to plant), and the standard SipHash, built
//! to withstand that, costs more than the lookups it serves. FNV-1a hashes
//! a short name in a few instructions per byte. Sets filled from a call
//! keep the standard hash.

use std::hash::{BuildHasherDefault, Hasher};

/// A map keyed by names fixed at build, hashed with [`Fnv`].
pub(crate) type NameMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<Fnv>>;

/// The rows of `table` for each name `names` gives them, in table order (a
/// row naming a program twice is listed once): the index the engine's
/// program tables are looked up through (most words name no row).
pub(crate) fn index_by_name<T>(
    table: &'static [T],
    names: impl Fn(&'static T) -> &'static [&'static str],
) -> NameMap<&'static str, Vec<&'static T>> {
    let mut index: NameMap<&'static str, Vec<&'static T>> = NameMap::default();
    for row in table {
        for name in names(row) {
            let rows = index.entry(*name).or_default();
            if !rows.iter().any(|r| std::ptr::eq(*r, row)) {
                rows.push(row);
            }
        }
    }
    index
}

/// The rows of a static `table` (of rows of type `T`) whose names
/// (`names` of a row) include `name`, in table order, through an index
/// built on first use: `rows_named!(TABLE: Row, |row| row.programs, name)`.
/// One lookup answers the names no row lists (most command words), where a
/// scan compared the name with every row's.
macro_rules! rows_named {
    ($table:ident : $row:ty, $names:expr, $name:expr) => {{
        static INDEX: std::sync::OnceLock<
            $crate::name_hash::NameMap<&'static str, Vec<&'static $row>>,
        > = std::sync::OnceLock::new();
        INDEX
            .get_or_init(|| $crate::name_hash::index_by_name($table, $names))
            .get($name)
            .map_or(&[][..], Vec::as_slice)
    }};
}
pub(crate) use rows_named;

/// The FNV-1a hash (64 bits).
#[derive(Debug)]
pub(crate) struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}
