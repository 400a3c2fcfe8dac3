//! The trifecta rule, down to the values: an egress call whose destination
//! came from untrusted content, or which carries privately read data to a
//! destination the user did not name.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::destination::path_is_destination;
use super::intent::{asked_for, asks_for_several, named_by_words};
use super::ledger::Ledger;
use super::ledger_index::ValueEntry;
use super::pointed::{Pointed, chosen_from_listing, from_named_private_source, pointed_at};
use super::values::{ValueKind, values_in, values_in_json};
use crate::capability::Capabilities;
use crate::gate::GateAction;

/// The rule name in every decision this module makes.
pub const TRIFECTA_RULE: &str = "taint/trifecta";

/// How the trifecta rule judges (a host option, per session).
///
/// Defaults: values followed (not strict), requests followed, a hit
/// asks, no destination allowed beyond what the user names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TrifectaSettings {
    /// Session level as well: once the session holds private data *and*
    /// untrusted content, every egress call asks, whatever it carries.
    #[serde(default)]
    pub strict: bool,
    /// A hit blocks instead of asking (a host with no one to ask).
    #[serde(default)]
    pub headless: bool,
    /// Destinations the host allows whoever named them: an e-mail address,
    /// a host (its subdomains too, and addresses at it), a URL prefix, or
    /// an `identifier/api` (the API as a destination).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<String>,
    /// Once untrusted content is in the session, an action the user's
    /// messages did not ask for ([`asked_for`](super::asked_for)) asks
    /// (mode `unrequested_action`). Only where the user's messages are
    /// recorded ([`Session::user_said`](super::Session::user_said)).
    #[serde(default = "yes")]
    pub follow_requests: bool,
}

fn yes() -> bool {
    true
}

impl Default for TrifectaSettings {
    fn default() -> Self {
        Self {
            strict: false,
            headless: false,
            allow: Vec::new(),
            follow_requests: true,
        }
    }
}

impl TrifectaSettings {
    /// The action of a hit.
    pub fn action(&self) -> GateAction {
        if self.headless {
            GateAction::Block
        } else {
            GateAction::Ask
        }
    }

    fn allows(&self, kind: ValueKind, value: &str) -> bool {
        self.allow.iter().any(|entry| {
            let entry = entry.trim().to_ascii_lowercase();
            if entry.is_empty() {
                return false;
            }
            let under = |host: &str| host == entry || host.ends_with(&format!(".{entry}"));
            match kind {
                ValueKind::Email => {
                    value == entry || value.rsplit_once('@').is_some_and(|(_, d)| under(d))
                }
                ValueKind::Host => under(value),
                ValueKind::Url => {
                    value.starts_with(&entry)
                        || super::values::normalise_url(value).is_some_and(|(_, h)| under(&h))
                }
                _ => value == entry,
            }
        })
    }
}

/// Which way the rule fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TrifectaMode {
    /// A destination or recipient came from untrusted content.
    UntrustedDestination,
    /// Privately read data goes to a destination the user did not name.
    PrivateToUnnamed,
    /// Strict mode: the session holds private data and untrusted content.
    Session,
    /// An action the user did not ask for, once untrusted content is in.
    UnrequestedAction,
    /// A link or address from untrusted content passed on to others.
    UntrustedLink,
    /// An action the user asked for once, repeated once untrusted content
    /// is in.
    RepeatedAction,
}

impl TrifectaMode {
    /// The snake-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::UntrustedDestination => "untrusted_destination",
            Self::PrivateToUnnamed => "private_to_unnamed",
            Self::Session => "session",
            Self::UnrequestedAction => "unrequested_action",
            Self::UntrustedLink => "untrusted_link",
            Self::RepeatedAction => "repeated_action",
        }
    }
}

/// One hit of the rule: why, and the calls the values came from.
#[derive(Debug, Clone, PartialEq)]
pub struct TrifectaHit {
    /// Which way it fired.
    pub mode: TrifectaMode,
    /// For people.
    pub message: String,
    /// `{mode, destinations, values}`: each value with the argument it is
    /// in and the calls (`callId`, `tool`, `api`) it came from.
    pub details: Value,
}

struct Found {
    path: String,
    kind: ValueKind,
    value: String,
}

/// Judges one egress call: its `arguments`, against what `ledger` holds.
/// `api` is `identifier/api`, the destination when no argument names one.
/// `None`: the call may go as the inner gate said. (See [`judge_call`]
/// for a call of any capabilities.)
pub fn judge(
    ledger: &Ledger,
    api: &str,
    arguments: &Value,
    settings: &TrifectaSettings,
) -> Option<TrifectaHit> {
    judge_call(ledger, api, Capabilities::egress(), arguments, settings)
}

/// Judges one call of an API with `caps` (one that
/// [acts](Capabilities::acts); any other is let through): its
/// `arguments`, against what `ledger` holds. `api` is `identifier/api`,
/// the destination when no argument names one.
///
/// Order:
/// 1. a destination that came from untrusted content (any action);
/// 2. a link or address from untrusted content passed on in the payload
///    (egress);
/// 3. privately read data to a destination the user did not name
///    (egress);
/// 4. (strict only, egress) the session rule;
/// 5. an action the user's messages did not ask for, once untrusted
///    content is in ([`TrifectaSettings::follow_requests`]);
/// 6. an action they asked for once ([`asks_for_several`] says not more)
///    that has already run, again once untrusted content is in (the
///    injected booking after the user's own), unless the user named
///    every destination of the new call and more such destinations than
///    there have been calls.
///
/// A destination counts as the user's when the user wrote it (an address,
/// a link to a host they wrote, an id), when the host allows it, or, for
/// one written as a name (a channel, a person), when the user wrote each
/// of its words ([`named_by_words`]).
pub fn judge_call(
    ledger: &Ledger,
    api: &str,
    caps: Capabilities,
    arguments: &Value,
    settings: &TrifectaSettings,
) -> Option<TrifectaHit> {
    judge_call_in(ledger, api, caps, arguments, settings, &|_| None)
}

/// The nouns of API names that act on the user's credentials: what a
/// source the user handed the choice of actions to never asks for on
/// their behalf (a notice that says "change your password to x" is the
/// attack, whatever the user said about following it).
pub const CREDENTIAL_NOUNS: &[&str] = &[
    "password",
    "passwords",
    "passphrase",
    "credential",
    "credentials",
    "pin",
    "mfa",
    "2fa",
    "otp",
    "token",
    "tokens",
    "key",
    "keys",
    "secret",
    "secrets",
];

/// Whether the API named `api` acts on credentials ([`CREDENTIAL_NOUNS`]).
fn touches_credentials(api: &str) -> bool {
    super::intent::name_words(api)
        .iter()
        .skip(1)
        .any(|noun| CREDENTIAL_NOUNS.contains(&noun.as_str()))
}

/// [`judge_call`], where `pointed(i)` says whether call `i` of the
/// ledger was directed at a source the user pointed at, and how
/// ([`Pointed`]). What the user pointed at counts as theirs (see
/// [`pointed`](super::pointed)):
///
/// - a destination that such a source gave as the only value of a kind
///   the user's words name ("invite Dora; her e-mail is on her website
///   www.dora.example"), or as the only address of a person the user
///   named; a second candidate beside it (an injected address) makes
///   both ask, even in a call that takes them all; a request that names
///   the source but not what to take from it ("read the notice and
///   adjust my rent") gets no such pass;
/// - a destination picked from a listing of the argument's kind the user
///   asked to pick from ("the channel with the fewest messages");
/// - a link the user's own named source gave (their inbox, a channel),
///   followed by a call that only reads: rules 1, 5 and 6 leave it to
///   the source the user pointed at (rule 3 still judges what its
///   address carries);
/// - when the user handed the choice of actions to a source ("follow the
///   instructions in the notice", [`delegates`](super::delegates)), the
///   actions its words ask for count as asked for (rule 5), each once,
///   except actions on the user's credentials ([`CREDENTIAL_NOUNS`]).
pub(crate) fn judge_call_in(
    ledger: &Ledger,
    api: &str,
    caps: Capabilities,
    arguments: &Value,
    settings: &TrifectaSettings,
    pointed: &dyn Fn(u32) -> Option<Pointed>,
) -> Option<TrifectaHit> {
    if !caps.acts() {
        return None;
    }
    let mut verdict = Verdict::default();
    let judged = judge_values(
        ledger,
        api,
        caps,
        arguments,
        settings,
        pointed,
        &mut verdict,
    );
    if let Some(hit) = judged {
        return Some(hit);
    }
    let all_named = verdict.all_named;
    if settings.follow_requests
        && !verdict.follows_user_source
        && !ledger.user_words().is_empty()
        && ledger.has_untrusted()
    {
        let name = api.rsplit_once('/').map_or(api, |(_, name)| name);
        let mut asked = asked_for(name, ledger.user_words());
        // Asked for by the source the user handed the choice to (never
        // an action on the user's credentials).
        if asked == Some(false)
            && !ledger.delegated_words().is_empty()
            && !touches_credentials(name)
            && asked_for(name, ledger.delegated_words()) == Some(true)
        {
            asked = Some(true);
        }
        if asked == Some(true) && !asks_for_several(name, ledger.user_words()) {
            return repeated(ledger, api, all_named);
        }
        if asked == Some(false) {
            let untrusted = indexes(ledger, |c| c.is_untrusted());
            let message = format!(
                "`{api}` is an action the user's messages did not ask for, and untrusted content has entered the session ({})",
                describe_calls(ledger, &untrusted),
            );
            let values =
                vec![json!({ "kind": "untrusted", "from": calls_json(ledger, &untrusted) })];
            return Some(TrifectaHit {
                mode: TrifectaMode::UnrequestedAction,
                message,
                details: json!({
                    "mode": TrifectaMode::UnrequestedAction.as_str(),
                    "destinations": [],
                    "values": values,
                }),
            });
        }
    }
    None
}

/// Rule 6 of [`judge_call`]: `api` (asked for once) has already run.
/// `all_named`: the kind of the call's destinations when the user named
/// every one; then the call is a repeat only once there have been as many
/// calls as the user named values of that kind (two pages named, two
/// visits).
fn repeated(ledger: &Ledger, api: &str, all_named: Option<ValueKind>) -> Option<TrifectaHit> {
    let (tool, name) = api.split_once('/')?;
    let before = indexes(ledger, |c| c.success && c.tool == tool && c.api == name);
    if before.is_empty() {
        return None;
    }
    if let Some(kind) = all_named {
        let named = ledger
            .values()
            .filter(|(_, e)| e.user && e.kind == kind)
            .take(before.len() + 1)
            .count();
        if named > before.len() {
            return None;
        }
    }
    let untrusted = indexes(ledger, |c| c.is_untrusted());
    let message = format!(
        "`{api}` was asked for once in the user's messages and has already run ({}); another one, after untrusted content has entered the session ({}), is not what the user asked for",
        describe_calls(ledger, &before),
        describe_calls(ledger, &untrusted),
    );
    let values = vec![
        json!({ "kind": "done", "from": calls_json(ledger, &before) }),
        json!({ "kind": "untrusted", "from": calls_json(ledger, &untrusted) }),
    ];
    Some(TrifectaHit {
        mode: TrifectaMode::RepeatedAction,
        message,
        details: json!({
            "mode": TrifectaMode::RepeatedAction.as_str(),
            "destinations": [],
            "values": values,
        }),
    })
}

/// What rules 1 to 4 learnt about a call that they let through.
#[derive(Default)]
struct Verdict {
    /// The kind of the call's first destination when the user named
    /// every one.
    all_named: Option<ValueKind>,
    /// A call that only reads, following a link the user's own named
    /// source gave.
    follows_user_source: bool,
}

/// Rules 1 to 4 of [`judge_call`]; what they learnt in `verdict`.
fn judge_values(
    ledger: &Ledger,
    api: &str,
    caps: Capabilities,
    arguments: &Value,
    settings: &TrifectaSettings,
    pointed: &dyn Fn(u32) -> Option<Pointed>,
    verdict: &mut Verdict,
) -> Option<TrifectaHit> {
    let mut destinations: Vec<Found> = Vec::new();
    let mut payload: Vec<Found> = Vec::new();
    values_in_json(arguments, &mut |path, kind, value| {
        let found = Found {
            path: path.to_owned(),
            kind,
            value,
        };
        if path_is_destination(path) {
            destinations.push(found);
        } else {
            payload.push(found);
        }
    });
    // What an address carries: the values in a destination link's path
    // and query are payload too (data leaves in a link as well).
    let mut carried: Vec<Found> = Vec::new();
    for d in destinations.iter().filter(|d| d.kind == ValueKind::Url) {
        let rest = d.value.split_once("://").map_or("", |(_, r)| r);
        let rest = rest.find(['/', '?']).map_or("", |i| &rest[i..]);
        let spaced: String = rest
            .chars()
            .map(|c| match c {
                '/' | '?' | '&' | '=' | '+' | ';' | '#' => ' ',
                c => c,
            })
            .collect();
        values_in(&spaced, &mut |kind, value| {
            carried.push(Found {
                path: d.path.clone(),
                kind,
                value,
            });
        });
    }
    payload.extend(carried);
    // A destination string is judged by the addresses, links and ids in
    // it; by its whole text only when it has none.
    let atom_paths: std::collections::HashSet<String> = destinations
        .iter()
        .filter(|d| d.kind != ValueKind::Text)
        .map(|d| d.path.clone())
        .collect();
    destinations.retain(|d| d.kind != ValueKind::Text || !atom_paths.contains(&d.path));
    // The host of an address is judged with the address.
    let domains: std::collections::HashSet<(String, String)> = destinations
        .iter()
        .filter(|d| d.kind == ValueKind::Email)
        .filter_map(|d| {
            let (_, domain) = d.value.rsplit_once('@')?;
            Some((d.path.clone(), domain.to_owned()))
        })
        .collect();
    destinations.retain(|d| {
        d.kind != ValueKind::Host || !domains.contains(&(d.path.clone(), d.value.clone()))
    });
    if destinations.is_empty() {
        destinations.push(Found {
            path: String::new(),
            kind: ValueKind::Text,
            value: api.to_ascii_lowercase(),
        });
    }
    let named = |d: &Found| -> bool {
        if settings.allows(d.kind, &d.value) || ledger.origins(&d.value).is_some_and(|e| e.user) {
            return true;
        }
        // A name (not an address) whose every word the user wrote.
        if matches!(d.kind, ValueKind::Text | ValueKind::Id)
            && arguments
                .pointer(&d.path)
                .and_then(Value::as_str)
                .is_some_and(|raw| named_by_words(raw, ledger.user_words()))
        {
            return true;
        }
        // A link to a host the user named (or the host allows).
        match d.kind {
            ValueKind::Url => super::values::normalise_url(&d.value).is_some_and(|(_, host)| {
                settings.allows(ValueKind::Host, &host)
                    || ledger.origins(&host).is_some_and(|e| e.user)
            }),
            _ => false,
        }
    };
    let unnamed: Vec<&Found> = destinations
        .iter()
        .filter(|d| {
            !named(d)
                && !pointed_at(ledger, d.kind, &d.value, pointed)
                && !chosen_from_listing(ledger, &d.path, &d.value)
        })
        .collect();
    if unnamed.is_empty() {
        verdict.all_named = destinations.first().map(|d| d.kind);
    }
    // A fetch (a call that takes in untrusted content from an address and
    // changes nothing) the user asked for follows links found in content:
    // its address is judged by what it carries (rule 3), not by where it
    // came from.
    let name = api.rsplit_once('/').map_or(api, |(_, name)| name);
    let reads_only = caps.untrusted_source && !caps.writes_private;
    // Following a link the user's own named source gave (their inbox, a
    // channel): part of reading what the user pointed at.
    verdict.follows_user_source = reads_only
        && !unnamed.is_empty()
        && unnamed
            .iter()
            .all(|d| from_named_private_source(ledger, &d.value, pointed));
    let browsing = reads_only
        && (verdict.follows_user_source || asked_for(name, ledger.user_words()) == Some(true));
    // 1. A destination that came from untrusted content.
    let untrusted: Vec<(&Found, Vec<u32>)> = unnamed
        .iter()
        .filter(|_| !browsing)
        .filter_map(|d| {
            let calls = from_calls(ledger, ledger.origins(&d.value), |c| c.is_untrusted());
            (!calls.is_empty()).then_some((*d, calls))
        })
        .collect();
    if let Some((first, calls)) = untrusted.first() {
        let message = format!(
            "`{api}` would send to {} (argument `{}`), which came from untrusted content ({}), not from the user",
            shown(&first.value),
            pointer(&first.path),
            describe_calls(ledger, calls),
        );
        let values: Vec<Value> = untrusted
            .iter()
            .map(|(d, calls)| value_json(ledger, d, calls))
            .collect();
        return Some(hit(
            TrifectaMode::UntrustedDestination,
            message,
            &unnamed,
            values,
        ));
    }
    if !caps.egress {
        return None;
    }
    // 2. A link or address from untrusted content, passed on to others
    // (a phishing link spread), when the user did not name it.
    let links: Vec<(&Found, Vec<u32>)> = payload
        .iter()
        .filter(|p| matches!(p.kind, ValueKind::Url | ValueKind::Host | ValueKind::Email))
        .filter(|p| !named(p))
        .filter_map(|p| {
            let calls = from_calls(ledger, ledger.origins(&p.value), |c| c.is_untrusted());
            (!calls.is_empty()).then_some((p, calls))
        })
        .collect();
    if let Some((first, calls)) = links.first() {
        let message = format!(
            "`{api}` would pass on {} (argument `{}`), which came from untrusted content ({}), not from the user",
            shown(&first.value),
            pointer(&first.path),
            describe_calls(ledger, calls),
        );
        let values: Vec<Value> = links
            .iter()
            .take(MAX_NAMED_CALLS)
            .map(|(p, calls)| value_json(ledger, p, calls))
            .collect();
        return Some(hit(TrifectaMode::UntrustedLink, message, &unnamed, values));
    }
    if unnamed.is_empty() {
        return None;
    }
    // 3. Privately read data to a destination the user did not name (a
    // value the user wrote is the user's to send).
    let private: Vec<(&Found, Vec<u32>)> = payload
        .iter()
        .filter(|p| !ledger.origins(&p.value).is_some_and(|e| e.user))
        .filter_map(|p| {
            let calls = from_calls(ledger, ledger.origins(&p.value), |c| c.is_private());
            (!calls.is_empty()).then_some((p, calls))
        })
        .collect();
    if let Some((first, calls)) = private.first() {
        let message = format!(
            "`{api}` would send data read privately ({} from {}) to {}, a destination the user did not name",
            shown(&first.value),
            describe_calls(ledger, calls),
            shown(&unnamed[0].value),
        );
        let values: Vec<Value> = private
            .iter()
            .take(MAX_NAMED_CALLS)
            .map(|(p, calls)| value_json(ledger, p, calls))
            .collect();
        return Some(hit(
            TrifectaMode::PrivateToUnnamed,
            message,
            &unnamed,
            values,
        ));
    }
    // 4. The session rule, for hosts that ask for it.
    if settings.strict && ledger.has_private() && ledger.has_untrusted() {
        let private: Vec<u32> = indexes(ledger, |c| c.is_private());
        let untrusted: Vec<u32> = indexes(ledger, |c| c.is_untrusted());
        let message = format!(
            "strict session: this session has read private data ({}) and taken in untrusted content ({}); every way out asks",
            describe_calls(ledger, &private),
            describe_calls(ledger, &untrusted),
        );
        let mut values: Vec<Value> = Vec::new();
        for (label, list) in [("private", &private), ("untrusted", &untrusted)] {
            values.push(json!({ "kind": label, "from": calls_json(ledger, list) }));
        }
        return Some(hit(TrifectaMode::Session, message, &unnamed, values));
    }
    None
}

fn indexes(ledger: &Ledger, keep: impl Fn(&super::ledger::CallRecord) -> bool) -> Vec<u32> {
    (0..ledger.calls().len())
        .filter_map(|i| u32::try_from(i).ok())
        .filter(|i| ledger.call(*i).is_some_and(&keep))
        .collect()
}

fn from_calls(
    ledger: &Ledger,
    entry: Option<&ValueEntry>,
    keep: impl Fn(&super::ledger::CallRecord) -> bool,
) -> Vec<u32> {
    entry
        .map(|e| {
            e.calls()
                .filter(|i| ledger.call(*i).is_some_and(&keep))
                .collect()
        })
        .unwrap_or_default()
}

fn hit(mode: TrifectaMode, message: String, unnamed: &[&Found], values: Vec<Value>) -> TrifectaHit {
    let destinations: Vec<Value> = unnamed
        .iter()
        .map(|d| json!({ "argument": pointer(&d.path), "kind": d.kind, "value": shown(&d.value) }))
        .collect();
    TrifectaHit {
        mode,
        message,
        details: json!({ "mode": mode.as_str(), "destinations": destinations, "values": values }),
    }
}

fn value_json(ledger: &Ledger, found: &Found, calls: &[u32]) -> Value {
    json!({
        "argument": pointer(&found.path),
        "kind": found.kind,
        "value": shown(&found.value),
        "from": calls_json(ledger, calls),
    })
}

/// The most calls a decision names per value (the earliest; a count of
/// the rest follows).
pub const MAX_NAMED_CALLS: usize = 8;

fn calls_json(ledger: &Ledger, calls: &[u32]) -> Vec<Value> {
    let mut out: Vec<Value> = calls
        .iter()
        .take(MAX_NAMED_CALLS)
        .filter_map(|i| ledger.call(*i))
        .map(|c| json!({ "callId": c.call_id, "tool": c.tool, "api": c.api }))
        .collect();
    if calls.len() > MAX_NAMED_CALLS {
        out.push(json!({ "more": calls.len() - MAX_NAMED_CALLS }));
    }
    out
}

fn describe_calls(ledger: &Ledger, calls: &[u32]) -> String {
    let named: Vec<String> = calls
        .iter()
        .filter_map(|i| ledger.call(*i))
        .take(3)
        .map(|c| format!("call {} {}/{}", c.call_id, c.tool, c.api))
        .collect();
    let more = calls.len().saturating_sub(3);
    if more > 0 {
        format!("{} and {more} more", named.join(", "))
    } else {
        named.join(", ")
    }
}

fn pointer(path: &str) -> &str {
    if path.is_empty() {
        "(the API itself)"
    } else {
        path
    }
}

/// A value as shown in a message: at most 64 characters.
fn shown(value: &str) -> String {
    let mut out: String = value.chars().take(64).collect();
    if out.len() < value.len() {
        out.push('…');
    }
    format!("`{out}`")
}
