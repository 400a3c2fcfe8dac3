//! Tool names on the wire: `identifier____apiName`, valid for every provider.
//!
//! OpenAI requires `^[a-zA-Z0-9_-]{1,64}$`, Anthropic the same character set,
//! and Gemini additionally wants a leading letter or underscore and at most
//! 63 characters on some endpoints. [`wire_name`] therefore produces names of
//! at most [`MAX_WIRE_NAME_LEN`] characters from `[A-Za-z0-9_-]`, starting
//! with a letter.
//!
//! A component that is not already safe (other characters, a `____` inside,
//! a leading/trailing `_`, an identifier not starting with a letter), or a
//! pair that would be too long, is shortened deterministically: a sanitised
//! prefix plus `_` plus ten hex digits of a 64-bit FNV-1a hash of the full
//! original text. The API name is shortened first, then the identifier.
//! Hashing is one-way: names are decoded through
//! [`OfferedTools::resolve`](crate::OfferedTools::resolve), never by guessing.
//!
//! ```
//! use tool_core::export::wire_name;
//! assert_eq!(wire_name("calculator", "evaluate"), "calculator____evaluate");
//! let odd = wire_name("my.server/v2", "files/read");
//! assert!(odd.len() <= 63 && odd.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'));
//! assert_eq!(odd, wire_name("my.server/v2", "files/read")); // deterministic
//! ```

/// The separator between identifier and API name.
pub const WIRE_SEPARATOR: &str = "____";

/// The longest wire name produced.
pub const MAX_WIRE_NAME_LEN: usize = 63;

const HASH_DIGITS: usize = 10;
/// `_` + hash digits.
const HASH_SUFFIX_LEN: usize = HASH_DIGITS + 1;
/// The shortest a shortened component can be: one prefix letter, `_`, hash.
const MIN_SHORTENED_LEN: usize = 1 + HASH_SUFFIX_LEN;

/// The wire name of `identifier`'s API `api`.
pub fn wire_name(identifier: &str, api: &str) -> String {
    let budget = MAX_WIRE_NAME_LEN - WIRE_SEPARATOR.len();
    let mut id_part = if is_safe_component(identifier, true) {
        identifier.to_owned()
    } else {
        shorten(identifier, budget - MIN_SHORTENED_LEN)
    };
    let mut api_part = if is_safe_component(api, false) {
        api.to_owned()
    } else {
        shorten(
            api,
            budget.saturating_sub(id_part.len()).max(MIN_SHORTENED_LEN),
        )
    };
    if id_part.len() + api_part.len() > budget {
        // API name first: give it whatever the identifier leaves.
        let room = budget.saturating_sub(id_part.len());
        if room >= MIN_SHORTENED_LEN {
            api_part = shorten(api, room);
        } else {
            // Then the identifier: keep the API readable where possible.
            let api_room = api_part.len().min(budget / 2);
            if api_part.len() > api_room {
                api_part = shorten(api, api_room.max(MIN_SHORTENED_LEN));
            }
            id_part = shorten(identifier, budget - api_part.len());
        }
    }
    format!("{id_part}{WIRE_SEPARATOR}{api_part}")
}

/// Splits a wire name at its first separator. A diagnostic aid only: the
/// registry is the authority on what a name means.
pub fn split_wire_name(name: &str) -> Option<(&str, &str)> {
    name.split_once(WIRE_SEPARATOR)
}

/// Whether `name` is acceptable as a function name to OpenAI, Anthropic and Gemini.
pub fn is_provider_safe(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_WIRE_NAME_LEN
        && name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn is_safe_component(component: &str, leading_letter: bool) -> bool {
    !component.is_empty()
        && component
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && !component.contains(WIRE_SEPARATOR)
        && !component.starts_with('_')
        && !component.ends_with('_')
        && (!leading_letter || component.as_bytes()[0].is_ascii_alphabetic())
}

/// `prefix_hash` of at most `max_len` (≥ [`MIN_SHORTENED_LEN`]) characters.
fn shorten(component: &str, max_len: usize) -> String {
    let max_len = max_len.max(MIN_SHORTENED_LEN);
    let hash = format!("{:016x}", fnv1a64(component.as_bytes()));
    let mut prefix = String::with_capacity(component.len());
    for c in component.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '-' {
            c
        } else {
            '_'
        };
        if c == '_' && (prefix.is_empty() || prefix.ends_with('_')) {
            continue;
        }
        prefix.push(c);
    }
    if !prefix.starts_with(|c: char| c.is_ascii_alphabetic()) {
        prefix.insert(0, 'h');
    }
    prefix.truncate(max_len - HASH_SUFFIX_LEN);
    let prefix = prefix.trim_end_matches('_');
    format!("{prefix}_{}", &hash[..HASH_DIGITS])
}

/// 64-bit FNV-1a: stable across platforms, versions and runs.
fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_pairs_are_left_alone() {
        assert_eq!(
            wire_name("local-system", "readFile"),
            "local-system____readFile"
        );
    }

    #[test]
    fn unsafe_components_are_hashed_and_provider_safe() {
        for (id, api) in [
            ("a.b", "c"),
            ("9lives", "x"),
            ("_x", "y"),
            ("x", "a____b"),
            ("数据", "读取"),
            ("-", "-"),
            ("", ""),
        ] {
            let name = wire_name(id, api);
            assert!(is_provider_safe(&name), "{id:?}/{api:?} gave {name:?}");
        }
    }

    #[test]
    fn long_pairs_shorten_the_api_first() {
        let id = "tool";
        let api = "a".repeat(100);
        let name = wire_name(id, &api);
        assert!(name.starts_with("tool____a"));
        assert!(name.len() <= MAX_WIRE_NAME_LEN);
    }

    #[test]
    fn long_identifiers_are_shortened_too() {
        let id = "i".repeat(200);
        let api = "b".repeat(200);
        let name = wire_name(&id, &api);
        assert!(is_provider_safe(&name), "{name}");
        assert_ne!(name, wire_name(&id, &"c".repeat(200)));
    }

    #[test]
    fn prefix_never_ends_in_an_underscore_before_the_hash() {
        let name = wire_name("ab", "x_.y");
        assert!(!name.contains("__") || name.contains(WIRE_SEPARATOR));
        assert_eq!(name.matches(WIRE_SEPARATOR).count(), 1);
    }
}
