//! The credential broker: a dummy of the same shape per bound secret for
//! the command's environment, and the real value put back only in plain
//! HTTP requests to the hosts it is bound to.

use std::io::Read as _;

use tool_core::approval::Egress;

use super::CredentialBinding;

/// One bound secret of one command.
#[derive(Clone)]
struct Bound {
    env: String,
    dummy: String,
    real: String,
    hosts: Egress,
}

/// The secrets of one command.
#[derive(Clone, Default)]
pub(crate) struct Broker {
    bound: Vec<Bound>,
}

impl std::fmt::Debug for Broker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.bound.iter().map(|b| &b.env))
            .finish()
    }
}

impl Broker {
    /// The broker of `bindings`: a fresh dummy for each binding whose real
    /// value is known (the others are skipped: nothing to hide).
    pub(crate) fn new(bindings: &[CredentialBinding]) -> Self {
        let bound = bindings
            .iter()
            .filter_map(|b| {
                let real = b.real_value()?;
                Some(Bound {
                    env: b.env.clone(),
                    dummy: dummy_of(&real, &random_bytes(real.len())),
                    real,
                    hosts: Egress::allow(b.hosts.iter().cloned()),
                })
            })
            .collect();
        Self { bound }
    }

    /// The command's variables: each bound name with its dummy.
    pub(crate) fn env(&self) -> Vec<(String, String)> {
        self.bound
            .iter()
            .map(|b| (b.env.clone(), b.dummy.clone()))
            .collect()
    }

    /// The names of the brokered variables.
    pub(crate) fn names(&self) -> Vec<String> {
        self.bound.iter().map(|b| b.env.clone()).collect()
    }

    /// Whether a secret is bound to `host`.
    pub(crate) fn binds(&self, host: &str) -> bool {
        self.bound.iter().any(|b| b.hosts.allows(host))
    }

    /// Whether no secret is bound.
    pub(crate) fn is_empty(&self) -> bool {
        self.bound.is_empty()
    }

    /// `text` with the dummies of the secrets bound to `host` replaced by
    /// their real values (`None`: nothing to replace).
    pub(crate) fn substitute(&self, host: &str, text: &str) -> Option<String> {
        let mut out: Option<String> = None;
        for b in self.bound.iter().filter(|b| b.hosts.allows(host)) {
            let current = out.as_deref().unwrap_or(text);
            if current.contains(&b.dummy) {
                out = Some(current.replace(&b.dummy, &b.real));
            }
        }
        out
    }
}

/// Random bytes from the kernel (falls back to the clock and the process
/// id where `/dev/urandom` cannot be read: a dummy needs to be unguessable
/// only as far as it must not be the real value).
fn random_bytes(n: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; n];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if read.is_err() {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default()
            ^ u128::from(std::process::id());
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (seed >> ((i % 16) * 8)) as u8 ^ (i as u8).wrapping_mul(151);
        }
    }
    bytes
}

/// A dummy of the same shape as `real`: the same length, the same prefix
/// up to its last `_` or `-` among the first eight characters (`ghp_`,
/// `sk-proj-`, `xoxb-`), and each other character replaced by one of its
/// class (digit, lower, upper; others kept), drawn from `random`. Never
/// equal to `real` (one character is changed again if it would be).
pub(crate) fn dummy_of(real: &str, random: &[u8]) -> String {
    let head: Vec<char> = real.chars().take(8).collect();
    let keep = head
        .iter()
        .rposition(|c| matches!(c, '_' | '-'))
        .map_or(0, |i| i + 1);
    let mut out: Vec<char> = real
        .chars()
        .enumerate()
        .map(|(i, c)| {
            if i < keep {
                return c;
            }
            let r = random.get(i).copied().unwrap_or(i as u8);
            match c {
                '0'..='9' => char::from(b'0' + r % 10),
                'a'..='z' => char::from(b'a' + r % 26),
                'A'..='Z' => char::from(b'A' + r % 26),
                other => other,
            }
        })
        .collect();
    if out.iter().copied().eq(real.chars())
        && let Some(c) = out
            .iter_mut()
            .skip(keep)
            .find(|c| c.is_ascii_alphanumeric())
    {
        *c = match *c {
            '9' => '0',
            'z' => 'a',
            'Z' => 'A',
            other => char::from(other as u8 + 1),
        };
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dummy_keeps_the_shape_and_never_equals_the_secret() {
        let real = "ghp_A1b2C3d4E5f6G7h8I9j0KkLlMmNnOoPpQqRr";
        let dummy = dummy_of(real, &random_bytes(real.len()));
        assert_eq!(dummy.len(), real.len());
        assert!(dummy.starts_with("ghp_"));
        assert_ne!(dummy, real);
        for (d, r) in dummy.chars().zip(real.chars()) {
            assert_eq!(d.is_ascii_digit(), r.is_ascii_digit());
            assert_eq!(d.is_ascii_lowercase(), r.is_ascii_lowercase());
            assert_eq!(d.is_ascii_uppercase(), r.is_ascii_uppercase());
        }
        assert!(dummy_of("sk-proj-abc", &[0; 11]).starts_with("sk-proj-"));
        // Randomness that would reproduce the secret still changes it.
        let same: Vec<u8> = "abc".bytes().map(|b| b - b'a').collect();
        assert_ne!(dummy_of("abc", &same), "abc");
        assert_eq!(dummy_of("", &[]), "");
    }

    #[test]
    fn the_real_value_goes_only_to_the_bound_hosts() {
        let broker = Broker::new(&[
            CredentialBinding::new("GITHUB_TOKEN", ["api.github.example"])
                .with_value("ghp_realrealreal"),
        ]);
        let (name, dummy) = broker.env().remove(0);
        assert_eq!(name, "GITHUB_TOKEN");
        let header = format!("Bearer {dummy}");
        assert_eq!(
            broker.substitute("api.github.example", &header).as_deref(),
            Some("Bearer ghp_realrealreal")
        );
        assert_eq!(broker.substitute("evil.example", &header), None);
        assert_eq!(
            broker.substitute("api.github.example", "Bearer other"),
            None
        );
        assert!(!format!("{broker:?}").contains("real"));
    }
}
