//! The host's MAC keys, the canonical JSON digests are computed over, and
//! the streaming of what a MAC covers into the MAC.

use std::fmt;

use hmac::{Hmac, KeyInit, Mac};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::durable::encode::{Sink, encode};
use crate::error::Error;

type HmacSha256 = Hmac<Sha256>;

/// The shortest secret a [`MacKey`] accepts: 32 bytes (HMAC-SHA-256's
/// block-sized security level).
pub const MIN_SECRET_LEN: usize = 32;

/// One HMAC-SHA-256 key with its id. The id travels with every MAC it
/// makes (`keyId`), so a [`KeyRing`] can tell which key to check with.
///
/// The secret is never printed (`Debug` shows the id only).
#[derive(Clone)]
pub struct MacKey {
    id: String,
    /// HMAC-SHA-256 keyed with the secret (its inner and outer pads
    /// hashed once), cloned for each MAC.
    keyed: HmacSha256,
}

impl fmt::Debug for MacKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MacKey")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl MacKey {
    /// A key named `id` (1 to 64 characters of `[A-Za-z0-9._-]`) with at
    /// least [`MIN_SECRET_LEN`] bytes of secret. Generate the secret from
    /// the operating system's random source and keep it out of the data a
    /// client sees.
    pub fn new(id: impl Into<String>, secret: impl Into<Vec<u8>>) -> Result<Self, Error> {
        let id = id.into();
        let secret = secret.into();
        let id_ok = !id.is_empty()
            && id.len() <= 64
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
        if !id_ok {
            return Err(Error::InvalidMacKey {
                key_id: id,
                message: "a key id is 1 to 64 characters of letters, digits, `.`, `_` or `-`"
                    .to_owned(),
            });
        }
        if secret.len() < MIN_SECRET_LEN {
            return Err(Error::InvalidMacKey {
                key_id: id,
                message: format!(
                    "the secret has {} bytes; at least {MIN_SECRET_LEN} are needed",
                    secret.len()
                ),
            });
        }
        let keyed = HmacSha256::new_from_slice(&secret).map_err(|_| Error::InvalidMacKey {
            key_id: id.clone(),
            message: "HMAC refused the secret".to_owned(),
        })?;
        Ok(Self { id, keyed })
    }

    /// The key's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The MAC state with `domain` (and a separator) fed in.
    fn mac(&self, domain: &str) -> HmacSha256 {
        let mut mac = self.keyed.clone();
        mac.update(domain.as_bytes());
        mac.update(&[0]);
        mac
    }
}

/// The keys a host checks MACs with: one current key that signs, and the
/// previous keys that still verify.
///
/// # Rotating keys
///
/// 1. Make a new key with a new id and put it first:
///    `KeyRing::new(new).with_previous(old)`. New pending turns and answers
///    are signed with it; turns stored before still verify with `old`.
/// 2. Once every turn signed with `old` has expired (the longest
///    [`Durable::ttl`](crate::durable::Durable::with_ttl) after the switch),
///    drop `old`. A turn signed with a key the ring no longer holds is
///    refused ([`Error::PendingRefused`] naming the key id).
///
/// ```
/// use tool_core::durable::{KeyRing, MacKey};
/// let old = MacKey::new("2026-11", [7u8; 32])?;
/// let new = MacKey::new("2026-12", [9u8; 32])?;
/// let ring = KeyRing::new(new).with_previous(old);
/// assert_eq!(ring.current().id(), "2026-12");
/// # Ok::<(), tool_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct KeyRing {
    current: MacKey,
    previous: Vec<MacKey>,
}

impl KeyRing {
    /// A ring signing with `current`.
    pub fn new(current: MacKey) -> Self {
        Self {
            current,
            previous: Vec::new(),
        }
    }

    /// The same ring also verifying with `key` (a rotated-out key).
    pub fn with_previous(mut self, key: MacKey) -> Self {
        self.previous.push(key);
        self
    }

    /// The key that signs.
    pub fn current(&self) -> &MacKey {
        &self.current
    }

    /// The MAC of `value` serialised as it is (its caller keeps it
    /// canonical: typed fields in declaration order, every `Value` inside
    /// with sorted keys, see [`sort_keys`]).
    pub(crate) fn sign_serialized<T: serde::Serialize>(&self, domain: &str, value: &T) -> String {
        let mut sink = HashSink::new(self.current.mac(domain));
        encode(value, &mut sink);
        hex(&sink.finish().finalize().into_bytes())
    }

    /// Whether `mac` (hex) is the MAC [`sign_serialized`](Self::sign_serialized)
    /// makes of `value` under `domain` with the key `key_id`; compared in
    /// constant time. `Err` names what is wrong.
    pub(crate) fn verify_serialized<T: serde::Serialize>(
        &self,
        domain: &str,
        key_id: &str,
        value: &T,
        mac: &str,
    ) -> Result<(), String> {
        let key = std::iter::once(&self.current)
            .chain(&self.previous)
            .find(|k| k.id == key_id)
            .ok_or_else(|| format!("no key with id `{key_id}` is held here"))?;
        let expected = unhex(mac).ok_or_else(|| "the MAC is not 64 hex digits".to_owned())?;
        let mut sink = HashSink::new(key.mac(domain));
        encode(value, &mut sink);
        sink.finish().verify_slice(&expected).map_err(|_| {
            "the MAC does not match (forged, altered or signed with another key)".to_owned()
        })
    }
}

/// The SHA-256 of `value`'s canonical JSON, in hex: the digest a binding
/// records for arguments and manifests.
///
/// Object keys are sorted, so the digest does not depend on how a store
/// (a `jsonb` column, a document database) reorders them.
///
/// ```
/// use serde_json::json;
/// let a = tool_core::durable::digest(&json!({"b": 1, "a": [true, null]}));
/// let b = tool_core::durable::digest(&json!({"a": [true, null], "b": 1}));
/// assert_eq!(a, b);
/// assert_eq!(a.len(), 64);
/// ```
pub fn digest(value: &Value) -> String {
    hex(&digest_bytes(value))
}

/// [`digest`] as bytes.
pub(crate) fn digest_bytes(value: &Value) -> [u8; 32] {
    let mut sink = HashSink::new(Sha256::new());
    write_canonical(value, &mut sink);
    sink.finish().finalize().into()
}

/// Whether `hex_digest` is [`digest`] of `value` (without making the hex).
pub(crate) fn digest_is(value: &Value, hex_digest: &str) -> bool {
    unhex(hex_digest).is_some_and(|expected| expected == digest_bytes(value))
}

/// The SHA-256 of `value` in the encoding MACs cover, in hex, written into
/// `out` (no allocation).
pub(crate) fn hash_encoded_hex<T: serde::Serialize>(value: &T, out: &mut [u8; 64]) {
    let mut sink = HashSink::new(Sha256::new());
    encode(value, &mut sink);
    let hash: [u8; 32] = sink.finish().finalize().into();
    hex_into(&hash, out);
}

/// Bytes written into a hash or MAC through a small buffer, so what is
/// hashed is never built as a whole (no allocation, no copy of the JSON).
struct HashSink<H: Update> {
    hash: H,
    buf: [u8; 512],
    len: usize,
}

/// What a [`HashSink`] feeds: a hash or a keyed MAC.
trait Update {
    fn feed(&mut self, bytes: &[u8]);
}

impl Update for Sha256 {
    fn feed(&mut self, bytes: &[u8]) {
        Digest::update(self, bytes);
    }
}

impl Update for HmacSha256 {
    fn feed(&mut self, bytes: &[u8]) {
        Mac::update(self, bytes);
    }
}

impl<H: Update> HashSink<H> {
    fn new(hash: H) -> Self {
        Self {
            hash,
            buf: [0; 512],
            len: 0,
        }
    }

    #[inline]
    fn push(&mut self, bytes: &[u8]) {
        let len = bytes.len();
        // Most of what is encoded is short (tags, lengths, names, ids):
        // copied here with fixed-size moves instead of a call to `memcpy`.
        if len <= 16 && self.len + 16 <= self.buf.len() {
            let at = self.len;
            if len >= 8 {
                self.buf[at..at + 8].copy_from_slice(&bytes[..8]);
                self.buf[at + len - 8..at + len].copy_from_slice(&bytes[len - 8..]);
            } else if len >= 4 {
                self.buf[at..at + 4].copy_from_slice(&bytes[..4]);
                self.buf[at + len - 4..at + len].copy_from_slice(&bytes[len - 4..]);
            } else {
                for (i, b) in bytes.iter().enumerate() {
                    self.buf[at + i] = *b;
                }
            }
            self.len += len;
            return;
        }
        if let Some(room) = self.buf.get_mut(self.len..self.len + len) {
            room.copy_from_slice(bytes);
            self.len += len;
            return;
        }
        self.spill(bytes);
    }

    #[inline]
    fn push_byte(&mut self, byte: u8) {
        if self.len == self.buf.len() {
            self.spill(&[]);
        }
        self.buf[self.len] = byte;
        self.len += 1;
    }

    /// Hashes the buffer, then takes `bytes` (straight into the hash when
    /// they would not fit the buffer).
    #[cold]
    fn spill(&mut self, bytes: &[u8]) {
        self.hash.feed(&self.buf[..self.len]);
        self.len = 0;
        match self.buf.get_mut(..bytes.len()) {
            Some(room) => {
                room.copy_from_slice(bytes);
                self.len = bytes.len();
            }
            None => self.hash.feed(bytes),
        }
    }

    fn finish(mut self) -> H {
        self.hash.feed(&self.buf[..self.len]);
        self.hash
    }
}

impl<H: Update> Sink for HashSink<H> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.push(bytes);
    }

    #[inline]
    fn byte(&mut self, byte: u8) {
        self.push_byte(byte);
    }
}

impl<H: Update> std::io::Write for HashSink<H> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.push(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `value` as canonical JSON text: no whitespace, object keys sorted by
/// their UTF-8 bytes, strings and numbers as `serde_json` writes them.
pub fn canonical_json(value: &Value) -> String {
    String::from_utf8(canonical_bytes(value)).unwrap_or_default()
}

/// Sorts the keys of every object in `value`, at every depth, in place:
/// then `value` serialises as its canonical JSON.
pub(crate) fn sort_keys(value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(sort_keys),
        Value::Object(map) => {
            // A stored turn read back is mostly sorted already.
            if !map.keys().is_sorted() {
                map.sort_keys();
            }
            map.values_mut().for_each(sort_keys);
        }
        _ => {}
    }
}

fn canonical_bytes(value: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    write_canonical(value, &mut out);
    out
}

fn write_canonical<W: std::io::Write>(value: &Value, out: &mut W) {
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            // Scalars cannot fail to serialise.
            let _ = serde_json::to_writer(&mut *out, value);
        }
        Value::Array(items) => {
            let _ = out.write_all(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    let _ = out.write_all(b",");
                }
                write_canonical(item, out);
            }
            let _ = out.write_all(b"]");
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            let _ = out.write_all(b"{");
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    let _ = out.write_all(b",");
                }
                let _ = serde_json::to_writer(&mut *out, key);
                let _ = out.write_all(b":");
                write_canonical(item, out);
            }
            let _ = out.write_all(b"}");
        }
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(HEX[usize::from(b >> 4)]));
        s.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    s
}

fn hex_into(bytes: &[u8; 32], out: &mut [u8; 64]) {
    for (pair, b) in out.chunks_exact_mut(2).zip(bytes) {
        pair[0] = HEX[usize::from(b >> 4)];
        pair[1] = HEX[usize::from(b & 0xf)];
    }
}

fn unhex(text: &str) -> Option<[u8; 32]> {
    let nibble = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    };
    let bytes = text.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (slot, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        *slot = nibble(pair[0])? << 4 | nibble(pair[1])?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn streaming_into_the_hash_equals_hashing_the_whole_bytes_at_any_size() {
        // Sizes around the sink's buffer: a fit, an exact fill, one over,
        // one byte after a full buffer, and many buffers.
        for len in [0usize, 1, 300, 510, 511, 512, 513, 1023, 1024, 1025, 5000] {
            let value = json!({"a": "x".repeat(len), "b": ["y".repeat(len / 3), len]});
            let whole = hex(&Sha256::digest(canonical_bytes(&value)));
            assert_eq!(digest(&value), whole, "canonical digest at {len}");
            let mut expected = Vec::new();
            encode(&value, &mut expected);
            let mut sink = HashSink::new(Sha256::new());
            encode(&value, &mut sink);
            assert_eq!(
                hex(&sink.finish().finalize()),
                hex(&Sha256::digest(&expected)),
                "encoded digest at {len}"
            );
        }
    }

    #[test]
    fn short_pieces_across_the_buffer_edge_hash_as_the_whole_bytes() {
        // Strings of every short length (the inline copies), many times
        // over, so pieces land on and across the buffer's edge.
        let pieces: Vec<String> = (0..2000)
            .map(|i| "abcdefghijklmnopq"[..i % 18].to_owned())
            .collect();
        let value = json!(pieces);
        let mut expected = Vec::new();
        encode(&value, &mut expected);
        let mut sink = HashSink::new(Sha256::new());
        encode(&value, &mut sink);
        assert_eq!(
            hex(&sink.finish().finalize()),
            hex(&Sha256::digest(&expected))
        );
    }

    fn ring() -> KeyRing {
        KeyRing::new(MacKey::new("k1", [1u8; 32]).unwrap())
    }

    #[test]
    fn a_mac_verifies_only_the_value_domain_and_key_it_was_made_for() {
        let ring = ring();
        let value = json!({"a": 1});
        let mac = ring.sign_serialized("d", &value);
        assert!(ring.verify_serialized("d", "k1", &value, &mac).is_ok());
        assert!(ring.verify_serialized("e", "k1", &value, &mac).is_err());
        assert!(
            ring.verify_serialized("d", "k1", &json!({"a": 2}), &mac)
                .is_err()
        );
        assert!(ring.verify_serialized("d", "k2", &value, &mac).is_err());
        let other = KeyRing::new(MacKey::new("k1", [2u8; 32]).unwrap());
        assert!(other.verify_serialized("d", "k1", &value, &mac).is_err());
        assert!(ring.verify_serialized("d", "k1", &value, "zz").is_err());
    }

    #[test]
    fn a_rotated_out_key_still_verifies_and_the_current_one_signs() {
        let old = ring();
        let mac = old.sign_serialized("d", &json!(1));
        let new = KeyRing::new(MacKey::new("k2", [3u8; 32]).unwrap())
            .with_previous(MacKey::new("k1", [1u8; 32]).unwrap());
        assert!(new.verify_serialized("d", "k1", &json!(1), &mac).is_ok());
        assert_ne!(new.sign_serialized("d", &json!(1)), mac);
    }

    #[test]
    fn short_secrets_and_odd_ids_are_refused() {
        assert!(MacKey::new("k", [0u8; 31]).is_err());
        assert!(MacKey::new("", [0u8; 32]).is_err());
        assert!(MacKey::new("a b", [0u8; 32]).is_err());
        assert!(!format!("{:?}", MacKey::new("k", [5u8; 32]).unwrap()).contains('5'));
    }

    #[test]
    fn a_value_with_sorted_keys_serialises_as_its_canonical_json() {
        let mut v = json!({"z": {"b": [1, {"y": 2, "x": 1}], "a": "x"}, "a": null});
        let canonical = canonical_json(&v);
        sort_keys(&mut v);
        assert_eq!(serde_json::to_string(&v).unwrap(), canonical);
    }

    #[test]
    fn canonical_json_sorts_keys_at_every_depth() {
        let v = json!({"z": {"b": 1, "a": "x"}, "a": [{"d": null, "c": 1.5}]});
        assert_eq!(
            canonical_json(&v),
            r#"{"a":[{"c":1.5,"d":null}],"z":{"a":"x","b":1}}"#
        );
    }
}
