//! The `id` of a JSON-RPC message read in pieces: for a line too long to
//! keep, so that the request it answers can fail at once with
//! `mcp_message_too_large` instead of waiting out its timeout.
//!
//! A streaming scan over the bytes (nothing is kept but a short key or id):
//! it follows strings, escapes and nesting, and takes the value of the
//! member `id` of the top-level object, wherever it stands in the line.

use rmcp::model::{NumberOrString, RequestId};

/// Longest id kept (longer string ids are not ours: we send numbers).
const MAX_ID: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Nothing of interest.
    Other,
    /// Reading a member name of the top-level object.
    Key,
    /// Just read the member name `id`; a `:` follows.
    AfterIdKey,
    /// After `"id":`, before its value.
    IdValue,
    /// Inside a string id.
    IdString,
    /// Inside a number id.
    IdNumber,
}

/// The scan; feed it every byte of the line, then ask [`IdScan::id`].
#[derive(Debug)]
pub(crate) struct IdScan {
    depth: u32,
    in_string: bool,
    escaped: bool,
    expect_key: bool,
    role: Role,
    text: Vec<u8>,
    found: Option<RequestId>,
}

impl Default for IdScan {
    fn default() -> Self {
        Self {
            depth: 0,
            in_string: false,
            escaped: false,
            expect_key: false,
            role: Role::Other,
            text: Vec::new(),
            found: None,
        }
    }
}

impl IdScan {
    /// Reads the next piece of the line.
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            if self.found.is_some() {
                return;
            }
            self.byte(byte);
        }
    }

    /// The top-level `id`, when one was seen.
    pub(crate) fn id(mut self) -> Option<RequestId> {
        if self.role == Role::IdNumber {
            self.finish_number();
        }
        self.found
    }

    fn keep(&mut self, byte: u8) {
        if self.text.len() < MAX_ID {
            self.text.push(byte);
        }
    }

    fn finish_number(&mut self) {
        self.role = Role::Other;
        self.found = std::str::from_utf8(&self.text)
            .ok()
            .and_then(|t| t.parse::<i64>().ok())
            .map(NumberOrString::Number);
    }

    fn byte(&mut self, byte: u8) {
        if self.in_string {
            let capturing = matches!(self.role, Role::Key | Role::IdString);
            if self.escaped {
                self.escaped = false;
            } else if byte == b'\\' {
                self.escaped = true;
            } else if byte == b'"' {
                self.in_string = false;
                match self.role {
                    Role::Key => {
                        self.role = if self.text == b"id" {
                            Role::AfterIdKey
                        } else {
                            Role::Other
                        };
                    }
                    Role::IdString => {
                        self.role = Role::Other;
                        self.found = String::from_utf8(std::mem::take(&mut self.text))
                            .ok()
                            .map(|s| NumberOrString::String(s.into()));
                    }
                    _ => {}
                }
                return;
            }
            if capturing {
                self.keep(byte);
            }
            return;
        }
        if self.role == Role::IdNumber {
            if byte.is_ascii_digit() || byte == b'-' {
                self.keep(byte);
                return;
            }
            self.finish_number();
            return;
        }
        match byte {
            b' ' | b'\t' | b'\r' | b'\n' => {}
            b'"' => {
                self.in_string = true;
                self.text.clear();
                if self.depth == 1 && self.expect_key {
                    self.expect_key = false;
                    self.role = Role::Key;
                } else if self.role == Role::IdValue {
                    self.role = Role::IdString;
                } else {
                    self.role = Role::Other;
                }
            }
            b'{' | b'[' => {
                self.role = Role::Other;
                self.depth = self.depth.saturating_add(1);
                self.expect_key = self.depth == 1 && byte == b'{';
            }
            b'}' | b']' => {
                self.role = Role::Other;
                self.depth = self.depth.saturating_sub(1);
            }
            b':' => {
                self.role = if self.role == Role::AfterIdKey {
                    Role::IdValue
                } else {
                    Role::Other
                };
            }
            b',' => {
                self.role = Role::Other;
                self.expect_key = self.depth == 1;
            }
            b'0'..=b'9' | b'-' if self.role == Role::IdValue => {
                self.role = Role::IdNumber;
                self.text.clear();
                self.keep(byte);
            }
            _ => self.role = Role::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(line: &str, piece: usize) -> Option<RequestId> {
        let mut scan = IdScan::default();
        for chunk in line.as_bytes().chunks(piece.max(1)) {
            scan.feed(chunk);
        }
        scan.id()
    }

    #[test]
    fn the_top_level_id_is_found_wherever_it_stands_and_however_the_line_is_cut() {
        let long = "x".repeat(10_000);
        let cases = [
            (
                format!(r#"{{"jsonrpc":"2.0","id":7,"result":{{"t":"{long}"}}}}"#),
                Some(NumberOrString::Number(7)),
            ),
            (
                format!(r#"{{"result":{{"t":"{long}","id":9}},"jsonrpc":"2.0","id":12}}"#),
                Some(NumberOrString::Number(12)),
            ),
            (
                r#"{ "result" : ["id", {"id": 3}, "\"id\":4"], "id" : "abc" }"#.to_string(),
                Some(NumberOrString::String("abc".into())),
            ),
            (
                format!(r#"{{"result":"{long}\\\",\"id\":5","id":-2}}"#),
                Some(NumberOrString::Number(-2)),
            ),
            (
                r#"{"method":"notifications/message","params":{"id":1}}"#.to_owned(),
                None,
            ),
            (r#"{"id":null,"error":{}}"#.to_owned(), None),
            (
                r#"{"jsonrpc":"2.0","id":42"#.to_owned(),
                Some(NumberOrString::Number(42)),
            ),
            ("not json at all".to_owned(), None),
        ];
        for (line, id) in cases {
            for piece in [1, 2, 3, 7, 64, usize::MAX] {
                assert_eq!(
                    scan(&line, piece.min(line.len())),
                    id,
                    "{piece}: {}",
                    &line[..line.len().min(80)]
                );
            }
        }
    }
}
