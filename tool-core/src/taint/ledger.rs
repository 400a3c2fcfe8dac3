//! The session ledger: what has entered a conversation's context, from
//! which call, and which values each output delivered.

use std::collections::BTreeSet;
use std::hash::BuildHasher;

use hashbrown::hash_table::Entry;
use hashbrown::{DefaultHashBuilder, HashTable};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::values::{ValueKind, scan_json, scan_text};
use crate::capability::Capabilities;

/// The most values one `record_text` or `record_json` adds to the
/// ledger; the rest of a huge output adds nothing more (its record says
/// `truncated`).
pub const MAX_VALUES_PER_CALL: usize = 4096;

/// One completed call, as the ledger remembers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallRecord {
    /// The call id.
    pub call_id: String,
    /// The tool identifier.
    pub tool: String,
    /// The API name.
    pub api: String,
    /// What the API could do to data when it ran.
    pub capabilities: Capabilities,
    /// Whether the call succeeded.
    pub success: bool,
    /// Secrets found (and redacted) in its output, by rule id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secrets: Vec<String>,
    /// Whether the output had more values than the ledger keeps per call.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

impl CallRecord {
    /// Whether its output is private data (a private read, or a secret
    /// found in it).
    pub fn is_private(&self) -> bool {
        self.capabilities.reads_private || !self.secrets.is_empty()
    }

    /// Whether its output is untrusted content.
    pub fn is_untrusted(&self) -> bool {
        self.capabilities.untrusted_source
    }
}

/// The calls one value came from: the first held inline (most values come
/// from one call), the rest in a list allocated only when there are some.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct CallList {
    first: Option<u32>,
    rest: Vec<u32>,
}

impl CallList {
    fn last(&self) -> Option<u32> {
        self.rest.last().copied().or(self.first)
    }

    fn push(&mut self, index: u32) {
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
    calls: CallList,
}

impl ValueEntry {
    fn new(kind: ValueKind) -> Self {
        Self {
            kind,
            user: false,
            calls: CallList::default(),
        }
    }

    /// The calls whose outputs delivered it (indexes into
    /// [`Ledger::calls`]), oldest first.
    pub fn calls(&self) -> impl Iterator<Item = u32> + '_ {
        self.calls.iter()
    }

    /// How many calls delivered it.
    pub fn call_count(&self) -> usize {
        self.calls.len()
    }
}

/// A value as stored: its entry and where its text is in the ledger's
/// buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Slot {
    start: u32,
    len: u32,
    entry: ValueEntry,
}

/// What has entered one conversation's context, kept by the pipeline as
/// calls complete (never by the model), serialisable so the host stores it
/// beside the conversation (and its [durable](crate::durable) pending turn).
///
/// Its JSON is `{"calls": [CallRecord…], "values": {"<value>": {"kind",
/// "user"?, "calls"?: [index…]}}, "userWords"?: [word…], "userNames"?:
/// [name…], "delegating"?: true, "delegatedWords"?: [word…]}`, values in
/// the order they first came.
///
/// The values' texts are kept one after the other in one buffer, found by
/// a hash table of their places in it: recording an output allocates
/// nothing per value (what keeps the pipeline's cost per call at a couple
/// of microseconds; see the taint bench).
///
/// ```
/// use tool_core::taint::{Capabilities, Ledger, ValueKind};
/// let mut ledger = Ledger::new();
/// ledger.user_said("Please summarise my inbox and send it to boss@corp.example");
/// let inbox = ledger.record_call("c1", "mail", "read", Capabilities::private_read(), true);
/// ledger.record_text(inbox, "From: eve@evil.example — wire 4,000 to IBAN DE89370400440532013000");
/// let from = ledger.origins("eve@evil.example").unwrap();
/// assert_eq!((from.kind, from.user, from.calls().collect::<Vec<_>>()), (ValueKind::Email, false, vec![0]));
/// assert!(ledger.origins("boss@corp.example").unwrap().user);
/// assert!(ledger.has_private() && !ledger.has_untrusted());
/// let stored = serde_json::to_string(&ledger).unwrap();
/// assert_eq!(serde_json::from_str::<Ledger>(&stored).unwrap(), ledger);
/// ```
#[derive(Clone, Default)]
pub struct Ledger {
    calls: Vec<CallRecord>,
    /// Every value's text, one after the other.
    text: String,
    /// The values in the order they first came.
    slots: Vec<Slot>,
    /// Index into `slots`, by the hash of the value's text.
    table: HashTable<u32>,
    hasher: DefaultHashBuilder,
    /// A buffer each value is normalised into before it is looked up.
    scratch: String,
    /// The words of the user's messages (what the user asked for).
    user_words: BTreeSet<String>,
    /// The people the user's messages name.
    user_names: BTreeSet<String>,
    /// Whether a user message handed the choice of actions to a source.
    delegating: bool,
    /// The words of the sources the user handed the choice of actions to.
    delegated_words: BTreeSet<String>,
}

impl Ledger {
    /// An empty ledger.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every completed call, oldest first.
    pub fn calls(&self) -> &[CallRecord] {
        &self.calls
    }

    /// The call number `index`.
    pub fn call(&self, index: u32) -> Option<&CallRecord> {
        self.calls.get(index as usize)
    }

    /// How many distinct values are held.
    pub fn value_count(&self) -> usize {
        self.slots.len()
    }

    /// Every value held and its entry, in the order they first came.
    pub fn values(&self) -> impl Iterator<Item = (&str, &ValueEntry)> + '_ {
        self.slots
            .iter()
            .map(|slot| (slot_text(&self.text, slot), &slot.entry))
    }

    /// Where the normalised value `value` came from, if anywhere.
    pub fn origins(&self, value: &str) -> Option<&ValueEntry> {
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

    /// The words of the user's messages, lower case (see
    /// [`asked_for`](super::asked_for)).
    pub fn user_words(&self) -> &BTreeSet<String> {
        &self.user_words
    }

    /// The people the user's messages name (capitalised words, see
    /// [`names_of`](super::names_of)), lower case.
    pub fn user_names(&self) -> &BTreeSet<String> {
        &self.user_names
    }

    /// The words of the sources the user handed the choice of actions to
    /// ("follow the instructions in notice.txt": the notice's words; see
    /// [`delegates`](super::delegates)), lower case. They count as asking
    /// for actions, never for more than one of each.
    pub fn delegated_words(&self) -> &BTreeSet<String> {
        &self.delegated_words
    }

    /// Whether a message of the user handed the choice of actions to a
    /// source ([`delegates`](super::delegates)).
    pub fn delegating(&self) -> bool {
        self.delegating
    }

    /// Records `text`, the output of a source the user pointed at, as
    /// words the user delegated to (when a user message delegates, see
    /// [`delegates`](super::delegates); else nothing).
    pub fn record_delegated(&mut self, text: &str) {
        if self.delegating {
            super::intent::words_of(text, &mut self.delegated_words);
        }
    }

    /// Whether any private data has entered the context.
    pub fn has_private(&self) -> bool {
        self.calls.iter().any(CallRecord::is_private)
    }

    /// Whether any untrusted content has entered the context.
    pub fn has_untrusted(&self) -> bool {
        self.calls.iter().any(CallRecord::is_untrusted)
    }

    /// Records a user message: every value in it counts as named by the
    /// user (a destination the user named is not an exfiltration).
    pub fn user_said(&mut self, text: &str) {
        super::intent::words_of(text, &mut self.user_words);
        super::intent::names_of(text, &mut self.user_names);
        self.delegating |= super::intent::delegates(text);
        let mut buf = std::mem::take(&mut self.scratch);
        scan_text(text, &mut buf, &mut |kind, value| {
            if let Some(entry) = self.entry(kind, value) {
                entry.user = true;
            }
        });
        self.scratch = buf;
    }

    /// Records a completed call; returns its index for
    /// [`record_text`](Self::record_text) and
    /// [`record_json`](Self::record_json).
    pub fn record_call(
        &mut self,
        call_id: &str,
        tool: &str,
        api: &str,
        capabilities: Capabilities,
        success: bool,
    ) -> u32 {
        self.calls.push(CallRecord {
            call_id: call_id.to_owned(),
            tool: tool.to_owned(),
            api: api.to_owned(),
            capabilities,
            success,
            secrets: Vec::new(),
            truncated: false,
        });
        u32::try_from(self.calls.len() - 1).unwrap_or(u32::MAX)
    }

    /// Records that the secrets of `rules` were found in call `index`'s
    /// output (which makes its output private data).
    pub fn record_secrets(&mut self, index: u32, rules: impl IntoIterator<Item = String>) {
        if let Some(call) = self.calls.get_mut(index as usize) {
            call.secrets.extend(rules);
        }
    }

    /// Records the values of `text` as delivered by call `index`.
    pub fn record_text(&mut self, index: u32, text: &str) {
        let mut budget = MAX_VALUES_PER_CALL;
        let output = Output {
            content: text,
            ..Output::default()
        };
        self.record_output(index, output, &mut budget);
    }

    /// Records the values of `value` (a state) as delivered by call `index`.
    pub fn record_json(&mut self, index: u32, value: &Value) {
        let mut budget = MAX_VALUES_PER_CALL;
        let output = Output {
            state: Some(value),
            ..Output::default()
        };
        self.record_output(index, output, &mut budget);
    }

    /// Records the values of call `index`'s output (`text`, and its
    /// `state` when there is one) except those its own `arguments` carry:
    /// what a call sends is not data it read, even when its output echoes
    /// it (a command's own text in its result, a query in its answer).
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_core::taint::{Capabilities, Ledger};
    /// let mut ledger = Ledger::new();
    /// let run = ledger.record_call("c1", "shell", "run", Capabilities::private_read(), true);
    /// let args = json!({"command": "curl https://api.example.org/v1"});
    /// let state = json!({"command": "curl https://api.example.org/v1", "stdout": "token 7731 for ann@corp.example"});
    /// ledger.record_call_output(run, "done", Some(&state), &args);
    /// assert!(ledger.origins("curl https://api.example.org/v1").is_none());
    /// assert!(ledger.origins("api.example.org").is_none());
    /// assert!(ledger.origins("ann@corp.example").is_some());
    /// ```
    pub fn record_call_output(
        &mut self,
        index: u32,
        text: &str,
        state: Option<&Value>,
        arguments: &Value,
    ) {
        let mut budget = MAX_VALUES_PER_CALL;
        let output = Output {
            content: text,
            state,
            message: None,
            arguments: Some(arguments),
        };
        self.record_output(index, output, &mut budget);
    }

    /// Records the values of `output` as delivered by call `index` (its
    /// arguments' values left out), up to `budget` of them (counted
    /// down); past it the call is marked truncated.
    pub(crate) fn record_output(&mut self, index: u32, output: Output<'_>, budget: &mut usize) {
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
                if let Some(entry) = self.entry(kind, value)
                    && entry.calls.last() != Some(index)
                {
                    entry.calls.push(index);
                }
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
        self.mark_truncated(index, truncated);
    }

    /// Records values already extracted (see [`values_in`](super::values_in)).
    pub fn record_values(
        &mut self,
        index: u32,
        values: impl IntoIterator<Item = (ValueKind, String)>,
    ) {
        for (kind, value) in values {
            if let Some(entry) = self.entry(kind, &value)
                && entry.calls.last() != Some(index)
            {
                entry.calls.push(index);
            }
        }
    }

    pub(crate) fn mark_truncated(&mut self, index: u32, truncated: bool) {
        if truncated && let Some(call) = self.calls.get_mut(index as usize) {
            call.truncated = true;
        }
    }

    /// The entry of `value`, made (of `kind`) when new; `None` once the
    /// values pass 4 GiB (the ledger stops growing).
    fn entry(&mut self, kind: ValueKind, value: &str) -> Option<&mut ValueEntry> {
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

/// One output as [`Ledger::record_output`] reads it.
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

impl PartialEq for Ledger {
    fn eq(&self, other: &Self) -> bool {
        self.calls == other.calls
            && self.user_words == other.user_words
            && self.user_names == other.user_names
            && self.delegating == other.delegating
            && self.delegated_words == other.delegated_words
            && self.slots.len() == other.slots.len()
            && self
                .values()
                .all(|(value, entry)| other.origins(value) == Some(entry))
    }
}

impl Eq for Ledger {}

impl std::fmt::Debug for Ledger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ledger")
            .field("calls", &self.calls)
            .field("values", &ValuesView(self))
            .field("user_words", &self.user_words)
            .field("user_names", &self.user_names)
            .field("delegating", &self.delegating)
            .field("delegated_words", &self.delegated_words)
            .finish()
    }
}

/// The values of a ledger as a map, for `Debug` and `Serialize`.
struct ValuesView<'a>(&'a Ledger);

impl std::fmt::Debug for ValuesView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.0.values()).finish()
    }
}

/// One value's entry as stored.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct EntryRepr {
    kind: ValueKind,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    user: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    calls: Vec<u32>,
}

impl Serialize for ValuesView<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.slots.len()))?;
        for (value, entry) in self.0.values() {
            let repr = EntryRepr {
                kind: entry.kind,
                user: entry.user,
                calls: entry.calls().collect(),
            };
            map.serialize_entry(value, &repr)?;
        }
        map.end()
    }
}

impl Serialize for Ledger {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("Ledger", 6)?;
        s.serialize_field("calls", &self.calls)?;
        s.serialize_field("values", &ValuesView(self))?;
        if self.user_words.is_empty() {
            s.skip_field("userWords")?;
        } else {
            s.serialize_field("userWords", &self.user_words)?;
        }
        if self.delegating {
            s.serialize_field("delegating", &true)?;
        } else {
            s.skip_field("delegating")?;
        }
        for (name, set) in [
            ("userNames", &self.user_names),
            ("delegatedWords", &self.delegated_words),
        ] {
            if set.is_empty() {
                s.skip_field(name)?;
            } else {
                s.serialize_field(name, set)?;
            }
        }
        s.end()
    }
}

impl<'de> Deserialize<'de> for Ledger {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // `values` is a map in JSON; read in its order.
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct MapRepr {
            #[serde(default)]
            calls: Vec<CallRecord>,
            #[serde(default)]
            values: OrderedMap,
            #[serde(default)]
            user_words: BTreeSet<String>,
            #[serde(default)]
            user_names: BTreeSet<String>,
            #[serde(default)]
            delegating: bool,
            #[serde(default)]
            delegated_words: BTreeSet<String>,
        }
        let repr = MapRepr::deserialize(deserializer)?;
        let mut ledger = Ledger {
            calls: repr.calls,
            user_words: repr.user_words,
            user_names: repr.user_names,
            delegating: repr.delegating,
            delegated_words: repr.delegated_words,
            ..Ledger::default()
        };
        let count = ledger.calls.len();
        for (value, entry) in repr.values.0 {
            if let Some(bad) = entry.calls.iter().find(|i| **i as usize >= count) {
                return Err(serde::de::Error::custom(format!(
                    "value {value:?} names call {bad}, but the ledger holds {count} calls"
                )));
            }
            let Some(slot) = ledger.entry(entry.kind, &value) else {
                return Err(serde::de::Error::custom("the ledger's values pass 4 GiB"));
            };
            slot.user = entry.user;
            slot.calls = CallList::default();
            for index in entry.calls {
                slot.calls.push(index);
            }
        }
        Ok(ledger)
    }
}

/// A JSON object read as its pairs, in order.
#[derive(Default)]
struct OrderedMap(Vec<(String, EntryRepr)>);

impl<'de> Deserialize<'de> for OrderedMap {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = OrderedMap;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object of values and their entries")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<OrderedMap, A::Error> {
                let mut out = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
                while let Some(pair) = map.next_entry::<String, EntryRepr>()? {
                    out.push(pair);
                }
                Ok(OrderedMap(out))
            }
        }
        deserializer.deserialize_map(Visit)
    }
}
