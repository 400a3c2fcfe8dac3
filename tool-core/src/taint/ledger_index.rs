//! The ledger's values index (which normalised values each call's output
//! delivered) and the outputs still waiting to be read into it.
//!
//! Recording an output keeps it (its text, state, error message and the
//! call's arguments) as [`Pending`]; its values are read into the
//! [`Index`] only when something reads the index (the trifecta judgement
//! of an egress call, a public read, serialisation). The index then reads
//! the pending outputs oldest first, exactly as it would have read each
//! when it was recorded.

use std::hash::BuildHasher;

use hashbrown::hash_table::Entry;
use hashbrown::{DefaultHashBuilder, HashTable};
use serde_json::Value;

use super::values::{ValueKind, scan_json, scan_text};

/// The most values one `record_text` or `record_json` adds to the
/// ledger; the rest of a huge output adds nothing more (its record says
/// `truncated`).
pub const MAX_VALUES_PER_CALL: usize = 4096;

/// The most output bytes (content, error messages, and the strings of
/// states and arguments, 8 bytes counted for every other JSON leaf) a
/// ledger holds unread; past it the pending outputs are read at once, so
/// a session of many reads and no way out holds little.
pub(crate) const MAX_PENDING_BYTES: usize = 256 * 1024;

/// The calls one value came from: the first held inline (most values come
/// from one call), the rest in a list allocated only when there are some.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CallList {
    first: Option<u32>,
    rest: Vec<u32>,
}

impl CallList {
    pub(crate) fn last(&self) -> Option<u32> {
        self.rest.last().copied().or(self.first)
    }

    pub(crate) fn push(&mut self, index: u32) {
        if self.first.is_none() {
            self.first = Some(index);
        } else {
            self.rest.push(index);
        }
    }

    fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.first.into_iter().chain(self.rest.iter().copied())
    }

    fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.rest.len()
    }
}

/// One normalised value and everywhere it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueEntry {
    /// Its kind.
    pub kind: ValueKind,
    /// Whether the user wrote it.
    pub user: bool,
    pub(crate) calls: CallList,
}

impl ValueEntry {
    pub(crate) fn new(kind: ValueKind) -> Self {
        Self {
            kind,
            user: false,
            calls: CallList::default(),
        }
    }

    /// The calls whose outputs delivered it (indexes into
    /// [`Ledger::calls`](super::Ledger::calls)), oldest first.
    pub fn calls(&self) -> impl Iterator<Item = u32> + '_ {
        self.calls.iter()
    }

    /// How many calls delivered it.
    pub fn call_count(&self) -> usize {
        self.calls.len()
    }
}

/// A value as stored: its entry and where its text is in the index's
/// buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Slot {
    start: u32,
    len: u32,
    entry: ValueEntry,
}

/// The values delivered so far: their texts one after the other in one
/// buffer, found by a hash table of their places in it (recording an
/// output allocates nothing per value).
#[derive(Clone, Default)]
pub(crate) struct Index {
    /// Every value's text, one after the other.
    text: String,
    /// The values in the order they first came.
    slots: Vec<Slot>,
    /// Index into `slots`, by the hash of the value's text.
    table: HashTable<u32>,
    hasher: DefaultHashBuilder,
    /// A buffer each value is normalised into before it is looked up.
    scratch: String,
}

impl Index {
    /// How many distinct values are held.
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// Every value held and its entry, in the order they first came.
    pub(crate) fn values(&self) -> impl Iterator<Item = (&str, &ValueEntry)> + '_ {
        self.slots
            .iter()
            .map(|slot| (slot_text(&self.text, slot), &slot.entry))
    }

    /// Where the normalised value `value` came from, if anywhere.
    pub(crate) fn origins(&self, value: &str) -> Option<&ValueEntry> {
        let hash = self.hasher.hash_one(value);
        let (text, slots) = (&self.text, &self.slots);
        self.table
            .find(hash, |&i| {
                slots
                    .get(i as usize)
                    .is_some_and(|s| slot_bytes(text, s) == value.as_bytes())
            })
            .and_then(|&i| slots.get(i as usize))
            .map(|s| &s.entry)
    }

    /// Marks every value of `text` as named by the user.
    pub(crate) fn user_said(&mut self, text: &str) {
        let mut buf = std::mem::take(&mut self.scratch);
        scan_text(text, &mut buf, &mut |kind, value| {
            if let Some(entry) = self.entry(kind, value) {
                entry.user = true;
            }
        });
        self.scratch = buf;
    }

    /// Records `value` as delivered by call `index`.
    pub(crate) fn delivered(&mut self, index: u32, kind: ValueKind, value: &str) {
        if let Some(entry) = self.entry(kind, value)
            && entry.calls.last() != Some(index)
        {
            entry.calls.push(index);
        }
    }

    /// Reads the values of `output` as delivered by call `index` (its
    /// arguments' values left out), up to `budget` of them (counted
    /// down); whether the output had more (the call is then truncated).
    pub(crate) fn read_output(
        &mut self,
        index: u32,
        output: Output<'_>,
        budget: &mut usize,
    ) -> bool {
        let Output {
            content,
            state,
            message,
            arguments,
        } = output;
        let mut buf = std::mem::take(&mut self.scratch);
        // Room for most values at once (a new ledger's buffer would
        // otherwise grow a few times during its first output).
        buf.reserve(128);
        // The values the call sent: a handful (arguments are short), each
        // owned once, only for a call that fed the ledger.
        let mut sent: hashbrown::HashSet<String, DefaultHashBuilder> =
            hashbrown::HashSet::with_hasher(self.hasher.clone());
        if let Some(arguments) = arguments {
            scan_json(arguments, &mut buf, &mut |_, value| {
                if !sent.contains(value) {
                    sent.insert(value.to_owned());
                }
            });
        }
        let mut truncated = false;
        // Grown once for the output, not doubled (and rehashed) a few
        // times: about one value per 16 bytes (a mailbox listing).
        let expected = ((content.len() + message.map_or(0, str::len)) / 16).min(*budget);
        self.slots.reserve(expected);
        self.text.reserve(expected * 16);
        {
            let (slots, text) = (&self.slots, &self.text);
            let hasher = &self.hasher;
            self.table.reserve(expected, |&i| {
                slots
                    .get(i as usize)
                    .map_or(0, |s| hasher.hash_one(slot_text(text, s)))
            });
        }
        {
            let mut add = |kind: ValueKind, value: &str| {
                if !sent.is_empty() && sent.contains(value) {
                    return;
                }
                if *budget == 0 {
                    truncated = true;
                    return;
                }
                *budget -= 1;
                self.delivered(index, kind, value);
            };
            scan_text(content, &mut buf, &mut add);
            if let Some(state) = state {
                scan_json(state, &mut buf, &mut add);
            }
            if let Some(message) = message {
                scan_text(message, &mut buf, &mut add);
            }
        }
        self.scratch = buf;
        truncated
    }

    /// The entry of `value`, made (of `kind`) when new; `None` once the
    /// values pass 4 GiB (the index stops growing).
    pub(crate) fn entry(&mut self, kind: ValueKind, value: &str) -> Option<&mut ValueEntry> {
        let hash = self.hasher.hash_one(value);
        let Self {
            text,
            slots,
            table,
            hasher,
            ..
        } = self;
        let at = match table.entry(
            hash,
            |&i| {
                slots
                    .get(i as usize)
                    .is_some_and(|s| slot_bytes(text, s) == value.as_bytes())
            },
            |&i| {
                slots
                    .get(i as usize)
                    .map_or(0, |s| hasher.hash_one(slot_text(text, s)))
            },
        ) {
            Entry::Occupied(found) => *found.get() as usize,
            Entry::Vacant(vacant) => {
                let at = slots.len();
                let (Ok(start), Ok(len), Ok(index)) = (
                    u32::try_from(text.len()),
                    u32::try_from(value.len()),
                    u32::try_from(at),
                ) else {
                    return None;
                };
                text.push_str(value);
                slots.push(Slot {
                    start,
                    len,
                    entry: ValueEntry::new(kind),
                });
                vacant.insert(index);
                at
            }
        };
        slots.get_mut(at).map(|slot| &mut slot.entry)
    }
}

/// One output as [`Index::read_output`] reads it.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Output<'a> {
    /// Its content.
    pub(crate) content: &'a str,
    /// Its state.
    pub(crate) state: Option<&'a Value>,
    /// Its error message.
    pub(crate) message: Option<&'a str>,
    /// The arguments of the call that made it: their values are not
    /// recorded as delivered by it.
    pub(crate) arguments: Option<&'a Value>,
}

/// An output kept as recorded, its values not yet read.
#[derive(Debug, Clone, Default)]
pub(crate) struct PendingOutput {
    /// The call that delivered it.
    pub(crate) index: u32,
    /// Its content.
    pub(crate) content: String,
    /// Its state.
    pub(crate) state: Option<Value>,
    /// Its error message.
    pub(crate) message: Option<String>,
    /// The call's arguments: values it sent, not read.
    pub(crate) arguments: Option<Value>,
}

impl PendingOutput {
    fn as_output(&self) -> Output<'_> {
        Output {
            content: &self.content,
            state: self.state.as_ref(),
            message: self.message.as_deref(),
            arguments: self.arguments.as_ref(),
        }
    }
}

/// The outputs recorded and not yet read into the index, oldest first.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pending {
    outputs: Vec<PendingOutput>,
    /// Bytes held (see [`MAX_PENDING_BYTES`]).
    bytes: usize,
}

impl Pending {
    /// Whether nothing is pending.
    pub(crate) fn is_empty(&self) -> bool {
        self.outputs.is_empty()
    }

    /// Keeps `output`; whether the pending bytes passed
    /// [`MAX_PENDING_BYTES`] (they are then to be read at once).
    pub(crate) fn push(&mut self, output: PendingOutput) -> bool {
        self.bytes += output.content.len()
            + output.message.as_ref().map_or(0, String::len)
            + output.state.as_ref().map_or(0, json_bytes)
            + output.arguments.as_ref().map_or(0, json_bytes);
        self.outputs.push(output);
        self.bytes > MAX_PENDING_BYTES
    }

    /// Forgets every pending output (they were read).
    pub(crate) fn clear(&mut self) {
        self.outputs.clear();
        self.bytes = 0;
    }

    /// Reads every pending output into `index`, oldest first, each with
    /// a budget of [`MAX_VALUES_PER_CALL`]; calls `truncated` with the
    /// call of each output that had more values.
    pub(crate) fn read_into(&self, index: &mut Index, truncated: &mut dyn FnMut(u32)) {
        for p in &self.outputs {
            let mut budget = MAX_VALUES_PER_CALL;
            if index.read_output(p.index, p.as_output(), &mut budget) {
                truncated(p.index);
            }
        }
    }
}

/// About the bytes `value` holds: its strings (keys too), 8 for every
/// other leaf.
fn json_bytes(value: &Value) -> usize {
    match value {
        Value::String(s) => s.len(),
        Value::Array(items) => items.iter().map(json_bytes).sum(),
        Value::Object(map) => map.iter().map(|(k, v)| k.len() + json_bytes(v)).sum(),
        Value::Null | Value::Bool(_) | Value::Number(_) => 8,
    }
}

/// A slot's text as bytes (a comparison needs no character boundary
/// check: the slot was cut from whole values).
fn slot_bytes<'a>(text: &'a str, slot: &Slot) -> &'a [u8] {
    let start = slot.start as usize;
    text.as_bytes()
        .get(start..start + slot.len as usize)
        .unwrap_or_default()
}

fn slot_text<'a>(text: &'a str, slot: &Slot) -> &'a str {
    let start = slot.start as usize;
    text.get(start..start + slot.len as usize)
        .unwrap_or_default()
}
