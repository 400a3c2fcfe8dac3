//! Destination names: the argument names whose values are destinations
//! or recipients (`to`, `recipients`, `webhookUrl`, `iban`), as the
//! trifecta rule reads a call's arguments.

/// One argument name that makes its values destinations.
#[derive(Debug, Clone, Copy)]
pub struct DestinationName {
    /// The name, lower case, without `_` and `-`.
    pub name: &'static str,
    /// Matches names that end with it too (`userEmail`), not only equal.
    pub suffix: bool,
}

/// Argument names whose values are destinations or recipients. Names are
/// compared lower-cased without `_` and `-`; checked by a test against
/// names that must and must not match.
pub const DESTINATION_NAMES: &[DestinationName] = &[
    DestinationName {
        name: "to",
        suffix: false,
    },
    DestinationName {
        name: "cc",
        suffix: false,
    },
    DestinationName {
        name: "bcc",
        suffix: false,
    },
    DestinationName {
        name: "recipient",
        suffix: true,
    },
    DestinationName {
        name: "recipients",
        suffix: true,
    },
    DestinationName {
        name: "receiver",
        suffix: true,
    },
    DestinationName {
        name: "email",
        suffix: true,
    },
    DestinationName {
        name: "emails",
        suffix: true,
    },
    DestinationName {
        name: "address",
        suffix: true,
    },
    DestinationName {
        name: "url",
        suffix: true,
    },
    DestinationName {
        name: "uri",
        suffix: true,
    },
    DestinationName {
        name: "link",
        suffix: false,
    },
    DestinationName {
        name: "endpoint",
        suffix: true,
    },
    DestinationName {
        name: "webhook",
        suffix: true,
    },
    DestinationName {
        name: "host",
        suffix: true,
    },
    DestinationName {
        name: "hostname",
        suffix: true,
    },
    DestinationName {
        name: "domain",
        suffix: true,
    },
    DestinationName {
        name: "destination",
        suffix: true,
    },
    DestinationName {
        name: "target",
        suffix: false,
    },
    DestinationName {
        name: "channel",
        suffix: true,
    },
    DestinationName {
        name: "iban",
        suffix: true,
    },
    DestinationName {
        name: "account",
        suffix: false,
    },
    DestinationName {
        name: "accountnumber",
        suffix: false,
    },
    DestinationName {
        name: "phone",
        suffix: true,
    },
    DestinationName {
        name: "phonenumber",
        suffix: true,
    },
    DestinationName {
        name: "participants",
        suffix: true,
    },
    DestinationName {
        name: "attendees",
        suffix: true,
    },
    DestinationName {
        name: "user",
        suffix: false,
    },
    DestinationName {
        name: "username",
        suffix: false,
    },
    DestinationName {
        name: "remote",
        suffix: false,
    },
];

/// Whether an argument called `name` holds destinations.
pub fn is_destination_name(name: &str) -> bool {
    let norm: String = name
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect();
    DESTINATION_NAMES
        .iter()
        .any(|d| norm == d.name || (d.suffix && norm.ends_with(d.name)))
}

pub(crate) fn path_is_destination(path: &str) -> bool {
    path.split('/')
        .filter(|seg| !seg.is_empty() && !seg.bytes().all(|b| b.is_ascii_digit()))
        .any(is_destination_name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destination_names_match_their_examples_only() {
        for yes in [
            "to",
            "recipients",
            "user_email",
            "webhookUrl",
            "IBAN",
            "recipient-iban",
            "channel",
            "attendees",
            "url",
        ] {
            assert!(is_destination_name(yes), "{yes}");
        }
        for no in [
            "photo",
            "body",
            "subject",
            "content",
            "amount",
            "accountant",
            "targets_met",
            "users_count",
            "title",
        ] {
            assert!(!is_destination_name(no), "{no}");
        }
        for d in DESTINATION_NAMES {
            assert!(d.name.bytes().all(|b| b.is_ascii_lowercase()), "{}", d.name);
        }
    }
}
