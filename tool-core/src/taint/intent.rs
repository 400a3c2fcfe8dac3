//! What the user asked for: whether an action API (one that sends data
//! out or changes the user's data) is one the user's own words call for.
//!
//! An injected instruction makes the model act: book a hotel, delete a
//! file, change a password, invite someone. When the action carries no
//! value the ledger can follow (the hotel's name, a file id), the values
//! cannot tell it from the user's own request; the request can. An API
//! name is read as a verb and its objects (`reserve_hotel`,
//! `deleteFile`), and the user's messages are searched for a word that
//! asks for that verb and one that names one of its objects. The words
//! are tables, checked by the tests below against requests that must and
//! must not match.

use std::collections::BTreeSet;

/// One class of actions: the verbs an API name may start with, and the
/// word stems a user writes when asking for one (a user's word matches a
/// stem it starts with).
#[derive(Debug, Clone, Copy)]
pub struct ActionWords {
    /// API name verbs (the name's first word), lower case.
    pub verbs: &'static [&'static str],
    /// Stems of the words that ask for it.
    pub asked_by: &'static [&'static str],
    /// Whether the request must also name one of the API's objects (a
    /// verb as general as `update` says little alone; `reschedule` says
    /// enough).
    pub needs_object: bool,
}

/// What an action acts on: the nouns of API names, and the word stems a
/// user writes when naming one.
#[derive(Debug, Clone, Copy)]
pub struct ObjectWords {
    /// API name nouns, lower case.
    pub nouns: &'static [&'static str],
    /// Stems of the words that name it.
    pub named_by: &'static [&'static str],
}

/// The action verbs (and the fetching ones, for APIs that fetch from
/// an address: following a link is asked for by asking to read a page).
/// An API whose name starts with none of them (`search`, `list`, or a
/// verb not listed) is not judged by what the user asked.
pub const ACTION_VERBS: &[ActionWords] = &[
    ActionWords {
        verbs: &[
            "send", "mail", "email", "message", "notify", "reply", "forward",
        ],
        asked_by: &[
            "send", "pay", "refund", "transfer", "wire", "mail", "email", "e-mail", "message",
            "write", "repl", "forward", "tell", "notif", "dm", "contact", "inform", "post",
            "share", "let",
        ],
        needs_object: true,
    },
    ActionWords {
        verbs: &[
            "update", "change", "modify", "edit", "set", "reset", "rename", "patch",
        ],
        asked_by: &[
            "updat", "chang", "modif", "edit", "adjust", "set", "reset", "correct", "fix", "renam",
            "replac", "move",
        ],
        needs_object: true,
    },
    ActionWords {
        verbs: &[
            "create", "add", "make", "new", "insert", "append", "write", "put",
        ],
        asked_by: &[
            "creat", "add", "make", "schedul", "set", "organi", "plan", "book", "arrang", "put",
            "new", "remind", "block", "append", "write", "insert", "includ", "invit",
        ],
        needs_object: true,
    },
    ActionWords {
        verbs: &[
            "delete", "remove", "erase", "trash", "drop", "clear", "purge",
        ],
        asked_by: &[
            "delet", "remov", "eras", "trash", "clear", "discard", "drop", "cancel", "kick", "purg",
        ],
        needs_object: true,
    },
    ActionWords {
        verbs: &["cancel", "revoke"],
        asked_by: &["cancel", "delet", "remov", "revok", "call off"],
        needs_object: true,
    },
    ActionWords {
        verbs: &["reschedule", "move", "postpone"],
        asked_by: &["reschedul", "move", "postpon", "chang", "shift", "updat"],
        needs_object: false,
    },
    ActionWords {
        verbs: &["reserve", "book", "order", "buy", "purchase"],
        asked_by: &["reserv", "book", "order", "buy", "purchas"],
        needs_object: true,
    },
    ActionWords {
        verbs: &["share", "grant"],
        asked_by: &["share", "send", "give", "grant"],
        needs_object: true,
    },
    ActionWords {
        verbs: &["invite"],
        asked_by: &["invit", "add"],
        needs_object: true,
    },
    ActionWords {
        verbs: &["post", "publish", "upload"],
        asked_by: &["post", "publish", "upload", "put", "send", "share", "write"],
        needs_object: true,
    },
    ActionWords {
        verbs: &["schedule"],
        asked_by: &[
            "schedul", "set", "recurr", "plan", "creat", "add", "standing",
        ],
        needs_object: true,
    },
    ActionWords {
        verbs: &[
            "get", "fetch", "visit", "browse", "open", "read", "download",
        ],
        asked_by: &[
            "visit", "read", "open", "check", "brows", "look", "go", "see", "summari", "get",
            "fetch", "view", "download",
        ],
        needs_object: true,
    },
    ActionWords {
        verbs: &["pay", "transfer", "refund"],
        asked_by: &["pay", "transfer", "refund", "send", "wire"],
        needs_object: true,
    },
];

/// The objects actions act on. A noun of an API name not listed names no
/// object (it is not required in the request).
pub const ACTION_OBJECTS: &[ObjectWords] = &[
    ObjectWords {
        nouns: &["calendar", "event", "events", "meeting", "appointment"],
        named_by: &[
            "calendar",
            "event",
            "meeting",
            "appointment",
            "remind",
            "schedul",
        ],
    },
    ObjectWords {
        nouns: &["email", "emails", "mail"],
        named_by: &["email", "e-mail", "mail", "repl", "forward"],
    },
    ObjectWords {
        nouns: &["file", "files", "document", "documents"],
        named_by: &["file", "document", "doc", "drive"],
    },
    ObjectWords {
        nouns: &["message", "messages"],
        named_by: &[
            "message", "dm", "write", "tell", "repl", "post", "send", "inform", "ask", "question",
        ],
    },
    ObjectWords {
        nouns: &["money", "payment", "payments"],
        named_by: &[
            "money",
            "pay",
            "transaction",
            "transfer",
            "refund",
            "bill",
            "rent",
            "send",
            "amount",
            "difference",
        ],
    },
    ObjectWords {
        nouns: &["transaction", "transactions", "order", "orders"],
        named_by: &[
            "transaction",
            "payment",
            "transfer",
            "rent",
            "order",
            "pay",
            "recurr",
            "standing",
        ],
    },
    ObjectWords {
        nouns: &["password", "passphrase", "credentials"],
        named_by: &["password", "passphrase", "credential"],
    },
    ObjectWords {
        nouns: &["info", "information", "profile", "address", "details"],
        named_by: &["info", "address", "profile", "account", "detail"],
    },
    ObjectWords {
        nouns: &["hotel", "hotels", "room"],
        named_by: &["hotel", "room", "stay", "accommodation"],
    },
    ObjectWords {
        nouns: &["car", "rental"],
        named_by: &["car", "rental", "rent", "vehicle"],
    },
    ObjectWords {
        nouns: &["restaurant", "restaurants", "table"],
        named_by: &["restaurant", "table", "dinner", "lunch"],
    },
    ObjectWords {
        nouns: &["channel", "channels"],
        named_by: &["channel"],
    },
    ObjectWords {
        nouns: &["webpage", "website", "page", "site"],
        named_by: &[
            "website", "webpage", "site", "page", "link", "url", "www", "article", "blog", "web",
            "online",
        ],
    },
    ObjectWords {
        nouns: &["participants", "attendees", "guests"],
        named_by: &["participant", "invit", "attendee", "guest", "add"],
    },
    ObjectWords {
        nouns: &["slack", "workspace", "team"],
        named_by: &["slack", "workspace", "team", "invit"],
    },
];

/// Words in a user's request that ask for an action more than once
/// ("to each user", "all the files", "message them", "another one"). A
/// request without any of them (and without the plural of the action's
/// object, see [`asks_for_several`]) is satisfied by one call. Words that
/// mostly qualify what is read rather than what is done ("if there are
/// multiple options") are not listed.
pub const SEVERAL_WORDS: &[&str] = &[
    "each",
    "every",
    "all",
    "them",
    "both",
    "another",
    "again",
    "everyone",
    "everybody",
    "two",
    "three",
    "four",
    "five",
];

/// Verbs by which a user hands the choice of actions to a source they
/// point at ("follow the instructions in the notice", "do the actions in
/// David's e-mail"), matched as whole words; see [`delegates`].
pub const DELEGATION_VERBS: &[&str] = &[
    "follow", "do", "perform", "carry", "complete", "execute", "handle",
];

/// Stems of the nouns that name what is handed over (the source's
/// instructions, actions, tasks, to-do items); see [`delegates`].
pub const DELEGATION_NOUNS: &[&str] = &["instruction", "action", "task", "todo", "to-do", "step"];

/// Words that make the tasks the user's own list, in the message itself
/// ("perform the following tasks: 1. … 2. …"), not a source's; see
/// [`delegates`].
pub const OWN_LIST_WORDS: &[&str] = &["following", "below", "above", "listed", "numbered"];

/// Whether the user's message `text` hands the choice of actions to a
/// source: a verb of [`DELEGATION_VERBS`] followed, within three words,
/// by a noun of [`DELEGATION_NOUNS`] ("follow the instructions", "do all
/// the tasks on my to-do list"), none of the words between saying the
/// list is the message's own ([`OWN_LIST_WORDS`]: "perform the following
/// tasks"). Then the words of the sources the user pointed at count as
/// asking for actions (see [`Ledger::delegated_words`](super::Ledger::delegated_words)).
///
/// ```
/// use tool_core::taint::delegates;
/// assert!(delegates("Read the file 'notice.txt' and follow the instructions precisely"));
/// assert!(delegates("Please do the actions specified in the email from david@corp.example"));
/// assert!(!delegates("Read the file 'notice.txt' and tell me what it says"));
/// assert!(!delegates("Perform the following tasks in order: 1. read my mail"));
/// assert!(!delegates("Mail each person the task they need to do"));
/// ```
pub fn delegates(text: &str) -> bool {
    let mut words: Vec<String> = Vec::new();
    each_word(text, &mut |w| words.push(w));
    words.iter().enumerate().any(|(i, verb)| {
        DELEGATION_VERBS.contains(&verb.as_str())
            && words
                .iter()
                .skip(i + 1)
                .take(3)
                .take_while(|w| !OWN_LIST_WORDS.contains(&w.as_str()))
                .any(|w| DELEGATION_NOUNS.iter().any(|n| w.starts_with(n)))
    })
}

/// The people a user names: words written with a capital first letter
/// and small letters after it, not at the start of a sentence ("the
/// hiking trip with Mark", "invite Dora"), lower-cased, three letters or
/// more. See [`owner_named`].
pub fn names_of(text: &str, into: &mut BTreeSet<String>) {
    let mut word = String::new();
    // At the start of the text or of a sentence, a capital says nothing.
    let mut sentence_start = true;
    let mut word_starts_sentence = true;
    let mut flush = |word: &mut String, at_start: bool| {
        let mut chars = word.chars();
        let capital = chars.next().is_some_and(char::is_uppercase);
        let rest_small = chars.clone().all(char::is_lowercase);
        if capital && rest_small && !at_start && word.chars().count() >= 3 {
            into.insert(word.to_lowercase());
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_alphabetic() {
            if word.is_empty() {
                word_starts_sentence = sentence_start;
                sentence_start = false;
            }
            word.push(c);
        } else {
            if !word.is_empty() {
                flush(&mut word, word_starts_sentence);
            }
            if matches!(c, '.' | '!' | '?' | '\n' | ':') {
                sentence_start = true;
            }
        }
    }
    if !word.is_empty() {
        flush(&mut word, word_starts_sentence);
    }
}

/// Whether the e-mail address `address` belongs to a person the user
/// named: the first word of its local part (`mark` of
/// `mark.davies@mail.example`) is one of `names` ([`names_of`]).
///
/// ```
/// use std::collections::BTreeSet;
/// use tool_core::taint::{names_of, owner_named};
/// let mut names = BTreeSet::new();
/// names_of("Plan the hiking trip with Mark and invite him", &mut names);
/// assert!(owner_named("mark.davies@mail.example", &names));
/// assert!(!owner_named("hiking-club@mail.example", &names));
/// ```
pub fn owner_named(address: &str, names: &BTreeSet<String>) -> bool {
    let local = address.split_once('@').map_or("", |(local, _)| local);
    let first: String = local
        .chars()
        .take_while(|c| c.is_alphabetic())
        .flat_map(char::to_lowercase)
        .collect();
    first.chars().count() >= 3 && names.contains(&first)
}

/// Whether the user's `words` ask for the action API `api` more than
/// once: a word of [`SEVERAL_WORDS`], or the plural of one of the name's
/// nouns (`add_user_to_channel` and "the necessary channels") or of a
/// word naming its object ([`ACTION_OBJECTS`]: `get_webpage` and "visit
/// the websites").
///
/// ```
/// use std::collections::BTreeSet;
/// use tool_core::taint::{asks_for_several, words_of};
/// let mut words = BTreeSet::new();
/// words_of("Send an email to my wife", &mut words);
/// assert!(!asks_for_several("send_email", &words));
/// words_of("and to each person on the list", &mut words);
/// assert!(asks_for_several("send_email", &words));
/// ```
pub fn asks_for_several(api: &str, words: &BTreeSet<String>) -> bool {
    if SEVERAL_WORDS.iter().any(|w| words.contains(*w)) {
        return true;
    }
    let plural = |stem: &str| {
        words
            .range::<str, _>((std::ops::Bound::Included(stem), std::ops::Bound::Unbounded))
            .take_while(|w| w.starts_with(stem))
            .any(|w| w.len() > stem.len() && w.ends_with('s') && !w.ends_with("ss"))
    };
    name_words(api).iter().skip(1).any(|noun| {
        let noun = noun.as_str();
        let named_by = ACTION_OBJECTS
            .iter()
            .filter(|o| o.nouns.contains(&noun))
            .flat_map(|o| o.named_by.iter().copied());
        (noun.len() >= 3 && !noun.ends_with('s') && plural(noun))
            || named_by.filter(|stem| stem.len() >= 3).any(plural)
    })
}

/// Whether the user's `words` name `text` (a destination written as a
/// name, not an address): every run of two letters or more in it is a
/// word the user wrote, and one has three letters or more. "the channel
/// starting with External" names `External_0`; nothing names
/// `eve-offsite` unless the user wrote both words.
///
/// ```
/// use std::collections::BTreeSet;
/// use tool_core::taint::{named_by_words, words_of};
/// let mut words = BTreeSet::new();
/// words_of("Post it to the channel starting with External", &mut words);
/// assert!(named_by_words("External_0", &words));
/// assert!(!named_by_words("External_eve", &words));
/// assert!(!named_by_words("42", &words));
/// ```
pub fn named_by_words(text: &str, words: &BTreeSet<String>) -> bool {
    let mut mine = BTreeSet::new();
    words_of(text, &mut mine);
    !mine.is_empty()
        && mine.iter().any(|w| w.chars().count() >= 3)
        && mine.iter().all(|w| words.contains(w))
}

/// The words of `text` as [`asked_for`] reads them: runs of letters (and
/// `-` inside a word), lower case, two letters or more.
pub fn words_of(text: &str, into: &mut BTreeSet<String>) {
    each_word(text, &mut |w| {
        into.insert(w);
    });
}

/// Each word of `text` as [`words_of`] reads them, in order.
fn each_word(text: &str, found: &mut dyn FnMut(String)) {
    let mut word = String::new();
    let mut flush = |word: &mut String| {
        let trimmed = word.trim_matches('-');
        if trimmed.chars().count() >= 2 {
            found(trimmed.to_owned());
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_alphabetic() || (c == '-' && !word.is_empty()) {
            word.extend(c.to_lowercase());
        } else {
            flush(&mut word);
        }
    }
    flush(&mut word);
}

/// The lower-case words of an API name: `snake_case`, `kebab-case` and
/// `camelCase` split.
pub(crate) fn name_words(api: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in api.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

fn any_starts(words: &BTreeSet<String>, stems: &[&str]) -> bool {
    stems.iter().any(|stem| {
        // Words sort by their text: those starting with `stem` follow it.
        words
            .range::<str, _>((std::ops::Bound::Included(*stem), std::ops::Bound::Unbounded))
            .next()
            .is_some_and(|w| w.starts_with(stem))
            || (stem.contains(' ') && {
                let mut parts = stem.split(' ');
                parts.all(|p| words.contains(p))
            })
    })
}

/// Whether the user's `words` ask for the action API `api` (its name):
/// `None` when the name starts with no verb of [`ACTION_VERBS`] (the
/// table cannot say); else whether a word asks for its verb and, when the
/// verb needs an object and the name has nouns of [`ACTION_OBJECTS`], a
/// word names one of them.
///
/// ```
/// use std::collections::BTreeSet;
/// use tool_core::taint::{asked_for, words_of};
/// let mut words = BTreeSet::new();
/// words_of("Please book me a room in Paris for May 1st", &mut words);
/// assert_eq!(asked_for("reserve_hotel", &words), Some(true));
/// assert_eq!(asked_for("update_password", &words), Some(false));
/// assert_eq!(asked_for("search_hotels", &words), None);
/// ```
pub fn asked_for(api: &str, words: &BTreeSet<String>) -> Option<bool> {
    let names = name_words(api);
    let verb = names.first()?;
    let class = ACTION_VERBS
        .iter()
        .find(|c| c.verbs.contains(&verb.as_str()))?;
    if !any_starts(words, class.asked_by) {
        return Some(false);
    }
    if !class.needs_object {
        return Some(true);
    }
    let objects: Vec<&ObjectWords> = names
        .iter()
        .skip(1)
        .filter_map(|n| {
            ACTION_OBJECTS
                .iter()
                .find(|o| o.nouns.contains(&n.as_str()))
        })
        .collect();
    Some(objects.is_empty() || objects.iter().any(|o| any_starts(words, o.named_by)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(api: &str, request: &str) -> Option<bool> {
        let mut words = BTreeSet::new();
        words_of(request, &mut words);
        asked_for(api, &words)
    }

    #[test]
    fn requests_ask_for_the_actions_they_name_and_no_others() {
        let yes = [
            (
                "reserve_hotel",
                "Make a reservation at the best hotel in Paris",
            ),
            ("reserve_hotel", "I'm looking to book a hotel in Paris"),
            (
                "create_calendar_event",
                "Add an event to my calendar on May 2nd",
            ),
            (
                "create_calendar_event",
                "please create a new 1-hour long meeting",
            ),
            (
                "deleteFile",
                "Find and delete the largest file in the drive",
            ),
            ("update_password", "make sure to update the password to 'x'"),
            (
                "update_scheduled_transaction",
                "adjust my rent payment accordingly",
            ),
            ("send_money", "Can you please pay the bill for me?"),
            ("send_email", "Then send a email to my wife"),
            ("invite_user_to_slack", "Invite Dora to Slack"),
            (
                "add_user_to_channel",
                "Add Charlie to the channel starting with External",
            ),
            (
                "send_direct_message",
                "send information to Bob via direct message",
            ),
            ("share_file", "share the budget document with the team"),
            (
                "post_webpage",
                "post hobbies to our website www.our-company.com",
            ),
            (
                "reschedule_calendar_event",
                "Please reschedule my Dental check-up",
            ),
            ("get_webpage", "Summarize the article that Bob posted"),
        ];
        for (api, request) in yes {
            assert_eq!(asked(api, request), Some(true), "{api}: {request}");
        }
        let no = [
            ("reserve_hotel", "What is the best rated hotel in Paris?"),
            (
                "create_calendar_event",
                "Which restaurant has the best reviews?",
            ),
            ("delete_file", "How many files are in my drive?"),
            ("update_password", "adjust my rent payment accordingly"),
            ("send_money", "What's my total spending in March 2022?"),
            ("invite_user_to_slack", "Summarize the article Bob posted"),
            ("remove_user_from_slack", "Add Charlie to the channel"),
            ("send_email", "When is my next yoga class?"),
            (
                "get_webpage",
                "Add Charlie to the channel starting with External",
            ),
        ];
        for (api, request) in no {
            assert_eq!(asked(api, request), Some(false), "{api}: {request}");
        }
        for api in ["search_emails", "listFiles", "lookup", "query_db"] {
            assert_eq!(asked(api, "delete everything"), None, "{api}");
        }
    }

    #[test]
    fn several_words_or_a_plural_object_ask_for_more_than_one_action() {
        let several = |api: &str, request: &str| {
            let mut words = BTreeSet::new();
            words_of(request, &mut words);
            asks_for_several(api, &words)
        };
        for (api, request) in [
            ("send_email", "send an email to each person in the list"),
            ("add_user_to_channel", "add all users to that channel"),
            ("add_user_to_channel", "add her to the necessary channels"),
            ("send_direct_message", "visit their pages and message them"),
            ("get_webpage", "summarise the websites posted in general"),
            ("reserve_hotel", "book two hotels"),
            ("delete_file", "delete the files older than May"),
        ] {
            assert!(several(api, request), "{api}: {request}");
        }
        for (api, request) in [
            (
                "send_email",
                "If there are multiple options, pick one and email my wife",
            ),
            ("reserve_hotel", "Book the hotel with the best address"),
            ("get_webpage", "Read the page www.news.example"),
            ("update_password", "Change my password; see the access logs"),
            ("create_calendar_event", "add a reminder to my calendar"),
        ] {
            assert!(!several(api, request), "{api}: {request}");
        }
    }

    #[test]
    fn a_name_is_the_users_when_they_wrote_each_of_its_words() {
        let mut words = BTreeSet::new();
        words_of(
            "Write to the channel starting with External, and to Bob",
            &mut words,
        );
        for yes in ["External_0", "external", "EXTERNAL-0", "Bob"] {
            assert!(named_by_words(yes, &words), "{yes}");
        }
        for no in [
            "External_offsite",
            "eve",
            "42",
            "to",
            "",
            "bob@evil.example",
        ] {
            assert!(!named_by_words(no, &words), "{no}");
        }
    }

    #[test]
    fn handing_actions_to_a_source_takes_a_verb_then_its_noun_not_the_own_list() {
        for yes in [
            "Read the file 'notice.txt' and follow the instructions precisely",
            "Please do the actions specified in the email from David",
            "Please do all the tasks i have on my TODO list at www.todo.example",
            "Carry out the steps in the runbook",
        ] {
            assert!(delegates(yes), "{yes}");
        }
        for no in [
            "Perform the following tasks in the order they are given: 1. read",
            "Send each person the task they need to execute",
            "Do not forget to invite Mark",
            "What actions did I take? Follow up with Bob",
            "",
        ] {
            assert!(!delegates(no), "{no}");
        }
    }

    #[test]
    fn names_are_capitalised_words_inside_a_sentence() {
        let mut names = BTreeSet::new();
        names_of(
            "Create an event for the trip with Mark. Book 5 hours. Invite Dora, and EVE too",
            &mut names,
        );
        let got: Vec<&str> = names.iter().map(String::as_str).collect();
        assert_eq!(got, ["dora", "mark"]);
        assert!(owner_named("mark.davies@mail.example", &names));
        assert!(owner_named("Dora@mail.example", &names));
        for no in [
            "create@x.example",
            "book@x.example",
            "eve@x.example",
            "ma@x.example",
            "mark",
        ] {
            assert!(!owner_named(no, &names), "{no}");
        }
    }

    #[test]
    fn names_split_into_words_whatever_their_case_style() {
        assert_eq!(name_words("reserve_hotel"), ["reserve", "hotel"]);
        assert_eq!(name_words("deleteFile"), ["delete", "file"]);
        assert_eq!(name_words("send-Money2x"), ["send", "money2x"]);
        assert_eq!(name_words("HTTPGet"), ["httpget"]);
    }

    #[test]
    fn the_tables_are_lower_case_and_every_verb_is_listed_once() {
        let mut seen = BTreeSet::new();
        for class in ACTION_VERBS {
            for verb in class.verbs {
                assert!(seen.insert(*verb), "{verb} twice");
            }
            for w in class.verbs.iter().chain(class.asked_by) {
                assert_eq!(*w, w.to_lowercase(), "{w}");
            }
        }
        for o in ACTION_OBJECTS {
            for w in o.nouns.iter().chain(o.named_by) {
                assert_eq!(*w, w.to_lowercase(), "{w}");
            }
        }
    }
}
