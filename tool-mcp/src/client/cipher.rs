//! Secrets at rest: a small cipher trait, and sealing/opening every secret
//! of a configuration with it.
//!
//! A sealed value is stored as `enc:v1:` + hex(nonce ‖ ciphertext ‖ tag). The
//! field path (`transport.env.API_KEY`) is authenticated with it, so a sealed
//! value copied into another field does not open. A configuration whose
//! secrets are still sealed never connects: the error says which field.

use crate::client::config::McpServerConfig;
use crate::client::secret::SEALED_PREFIX;
use crate::error::Error;

/// An authenticated cipher supplied by the host (it owns the key).
///
/// `open` must fail — never return garbage — when the key is wrong or the
/// data was changed. With the `encryption` feature, [`XChaChaCipher`]
/// implements it with XChaCha20-Poly1305.
pub trait SecretCipher: Send + Sync {
    /// Encrypts `plaintext`, authenticating `context` with it.
    fn seal(&self, plaintext: &[u8], context: &[u8]) -> Result<Vec<u8>, String>;
    /// Decrypts what [`seal`](Self::seal) produced with the same `context`.
    fn open(&self, sealed: &[u8], context: &[u8]) -> Result<Vec<u8>, String>;
}

impl McpServerConfig {
    /// A copy with every plain secret sealed by `cipher` (sealed ones are kept).
    pub fn seal_secrets(&self, cipher: &dyn SecretCipher) -> Result<Self, Error> {
        let mut sealed = self.clone();
        let server = self.id.clone();
        for (field, secret) in sealed.transport.secrets_mut() {
            if secret.is_sealed() {
                continue;
            }
            let bytes = cipher
                .seal(secret.expose().as_bytes(), field.as_bytes())
                .map_err(|message| Error::Secret {
                    server: server.clone(),
                    field: field.clone(),
                    message: format!("cannot seal: {message}"),
                })?;
            *secret = format!("{SEALED_PREFIX}{}", to_hex(&bytes)).into();
        }
        Ok(sealed)
    }

    /// A copy with every sealed secret opened by `cipher`. A wrong key or a
    /// tampered value is an error naming the field.
    pub fn open_secrets(&self, cipher: &dyn SecretCipher) -> Result<Self, Error> {
        let mut opened = self.clone();
        let server = self.id.clone();
        for (field, secret) in opened.transport.secrets_mut() {
            let Some(hex) = secret.expose().strip_prefix(SEALED_PREFIX) else {
                continue;
            };
            let fail = |message: String| Error::Secret {
                server: server.clone(),
                field: field.clone(),
                message,
            };
            let bytes = from_hex(hex).ok_or_else(|| fail("the sealed value is not hex".into()))?;
            let plain = cipher
                .open(&bytes, field.as_bytes())
                .map_err(|m| fail(format!("cannot open (wrong key or tampered value): {m}")))?;
            let text = String::from_utf8(plain)
                .map_err(|_| fail("the opened value is not UTF-8".into()))?;
            *secret = text.into();
        }
        Ok(opened)
    }

    /// Errors when a secret is still sealed (it would reach the server as ciphertext).
    pub fn ensure_open(&self) -> Result<(), Error> {
        match self
            .transport
            .secrets()
            .into_iter()
            .find(|(_, s)| s.is_sealed())
        {
            Some((field, _)) => Err(Error::Secret {
                server: self.id.clone(),
                field,
                message: "is still sealed; open the configuration with the host's key first".into(),
            }),
            None => Ok(()),
        }
    }
}

fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    out
}

fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    };
    text.as_bytes()
        .chunks(2)
        .map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?))
        .collect()
}

#[cfg(feature = "encryption")]
pub use xchacha::XChaChaCipher;

#[cfg(feature = "encryption")]
mod xchacha {
    use chacha20poly1305::aead::{Aead, Generate, KeyInit, Payload};
    use chacha20poly1305::{Key, XChaCha20Poly1305, XNonce};

    use super::SecretCipher;

    const NONCE_LEN: usize = 24;

    /// XChaCha20-Poly1305 with a 256-bit key the host supplies; a fresh
    /// random 192-bit nonce per value.
    #[derive(Clone)]
    pub struct XChaChaCipher {
        cipher: XChaCha20Poly1305,
    }

    impl std::fmt::Debug for XChaChaCipher {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("XChaChaCipher(***)")
        }
    }

    impl XChaChaCipher {
        /// A cipher with this key.
        pub fn new(key: [u8; 32]) -> Self {
            Self {
                cipher: XChaCha20Poly1305::new(&Key::from(key)),
            }
        }
    }

    impl SecretCipher for XChaChaCipher {
        fn seal(&self, plaintext: &[u8], context: &[u8]) -> Result<Vec<u8>, String> {
            let nonce = XNonce::generate();
            let sealed = self
                .cipher
                .encrypt(
                    &nonce,
                    Payload {
                        msg: plaintext,
                        aad: context,
                    },
                )
                .map_err(|_| "encryption failed".to_owned())?;
            let mut out = nonce.to_vec();
            out.extend_from_slice(&sealed);
            Ok(out)
        }

        fn open(&self, sealed: &[u8], context: &[u8]) -> Result<Vec<u8>, String> {
            if sealed.len() < NONCE_LEN + 16 {
                return Err("too short".into());
            }
            let (nonce, body) = sealed.split_at(NONCE_LEN);
            let nonce = XNonce::try_from(nonce).map_err(|_| "bad nonce".to_owned())?;
            self.cipher
                .decrypt(
                    &nonce,
                    Payload {
                        msg: body,
                        aad: context,
                    },
                )
                .map_err(|_| "authentication failed".to_owned())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_rejects_bad_digits() {
        assert_eq!(
            from_hex(&to_hex(&[0, 1, 0xab, 0xff])),
            Some(vec![0, 1, 0xab, 0xff])
        );
        assert_eq!(from_hex("abc"), None);
        assert_eq!(from_hex("zz"), None);
    }
}
