//! The hash of the engine's own name indexes (program rows, path-class
//! patterns): maps whose keys are fixed when the index is built and are
//! only looked up afterwards.
//!
//! Such a map is never filled from a call, so a word a model writes cannot
//! make it slow (no collisions to plant: a word that collides only walks
//! the fixed keys' probe sequence), and the standard SipHash, built to
//! withstand planting, costs more than the lookups it serves. [`Words`]
//! hashes a name eight bytes at a time: most program names are one step.
//! Sets filled from a call keep the standard hash.

use std::hash::{BuildHasherDefault, Hasher};

/// A map keyed by names fixed at build, hashed with [`Words`].
pub(crate) type NameMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<Words>>;

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

/// A multiply-rotate hash over 8-byte words (the mixing step of the
/// Fx hash), rotated at the end so the table's index bits (the low ones)
/// depend on every byte.
#[derive(Debug, Default)]
pub(crate) struct Words(u64);

impl Words {
    const K: u64 = 0xf135_7aea_2e62_a9c5;

    fn add(&mut self, word: u64) {
        self.0 = (self.0 ^ word).wrapping_mul(Self::K).rotate_left(23);
    }
}

/// The bytes of `rest` (fewer than eight) as a little-endian number.
fn tail(rest: &[u8]) -> u64 {
    let mut value = 0u64;
    let mut at = 0;
    if let Some(four) = rest.get(..4).and_then(|b| <[u8; 4]>::try_from(b).ok()) {
        value = u64::from(u32::from_le_bytes(four));
        at = 4;
    }
    if let Some(two) = rest
        .get(at..at + 2)
        .and_then(|b| <[u8; 2]>::try_from(b).ok())
    {
        value |= u64::from(u16::from_le_bytes(two)) << (8 * at);
        at += 2;
    }
    if let Some(one) = rest.get(at) {
        value |= u64::from(*one) << (8 * at);
    }
    value
}

impl Hasher for Words {
    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(<[u8; 8]>::try_from(chunk).map_or(0, u64::from_le_bytes));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            // The length keeps `ab` and `ab\0` apart: the word is the
            // length, then the bytes from the second byte on (little
            // endian), read four, two and one at a time.
            self.add(rest.len() as u64 | tail(rest) << 8);
        }
    }

    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }
}

#[cfg(test)]
mod tests {
    use std::hash::{BuildHasher, BuildHasherDefault};

    use super::Words;

    #[test]
    fn the_tail_is_read_as_byte_by_byte() {
        for len in 1..8 {
            let rest: Vec<u8> = (0..len).map(|i| 0xa0 + i as u8).collect();
            let mut want = 0u64;
            for (i, b) in rest.iter().enumerate() {
                want |= u64::from(*b) << (8 * i);
            }
            assert_eq!(super::tail(&rest), want, "{len} bytes");
        }
    }

    #[test]
    fn names_hash_apart() {
        let build = BuildHasherDefault::<Words>::default();
        let names = [
            "",
            "a",
            "ab",
            "ab\0",
            "ls",
            "ln",
            "git",
            "gitk",
            "abcdefgh",
            "abcdefghi",
        ];
        let hashes: Vec<u64> = names.iter().map(|n| build.hash_one(n)).collect();
        for (i, a) in hashes.iter().enumerate() {
            for b in hashes.get(i + 1..).unwrap_or_default() {
                assert_ne!(a, b);
            }
        }
    }
}
