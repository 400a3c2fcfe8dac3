//! How tool text becomes search terms.
//!
//! One function, [`terms`], used for the indexed text and for queries alike:
//!
//! 1. Split on every character that is not alphanumeric (`_`, `-`, `/`,
//!    spaces, punctuation): `repos/list-for_org` → `repos`, `list`, `for`, `org`.
//! 2. Split each word at case changes: a lower-case letter or digit followed
//!    by an upper-case one (`listIssues` → `list`, `Issues`), and an
//!    upper-case run followed by a capitalised word (`HTTPServer` → `HTTP`,
//!    `Server`). Digits stay with their letters (`oauth2`, `v3`).
//! 3. Lower-case.
//! 4. Drop English function words (`the`, `a`, `of`, `to`… the list is
//!    [`STOPWORDS`]) and single characters.
//! 5. Fold the plural of a word of more than three letters: `-ies` → `-y`
//!    (`repositories` → `repository`), `-s` → nothing unless it ends in
//!    `ss`, `us` or `is` (`issues` → `issue`, `status` and `access` stay).
//!
//! ```
//! use tool_core::search::terms;
//! assert_eq!(terms("github____listRepoIssues"), ["github", "list", "repo", "issue"]);
//! assert_eq!(terms("Get the HTTPServer status"), ["get", "http", "server", "status"]);
//! assert_eq!(terms("repositories of an org"), ["repository", "org"]);
//! ```

/// Words dropped from text and queries: they say nothing about what a tool
/// does. Kept short on purpose (BM25's IDF already discounts common words).
pub const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "for", "from", "how", "i", "if", "in",
    "into", "is", "it", "its", "me", "my", "of", "on", "or", "so", "that", "the", "their", "then",
    "there", "these", "this", "to", "was", "we", "what", "when", "which", "will", "with", "you",
    "your",
];

/// The search terms of `text`, in order, with repeats (see the module doc
/// for the rules).
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_term(text, |term| out.push(term.to_owned()));
    out
}

/// Calls `sink` with each search term of `text`, reusing one buffer.
pub(crate) fn each_term(text: &str, mut sink: impl FnMut(&str)) {
    let mut buffer = String::new();
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        if word.is_empty() {
            continue;
        }
        let mut start = 0;
        if word.is_ascii() {
            // The same rules on bytes, without collecting the characters.
            let bytes = word.as_bytes();
            for i in 1..bytes.len() {
                let (prev, c) = (bytes[i - 1], bytes[i]);
                let next_lower = bytes.get(i + 1).is_some_and(u8::is_ascii_lowercase);
                if c.is_ascii_uppercase()
                    && (prev.is_ascii_lowercase()
                        || prev.is_ascii_digit()
                        || (prev.is_ascii_uppercase() && next_lower))
                {
                    emit(&word[start..i], &mut buffer, &mut sink);
                    start = i;
                }
            }
        } else {
            let chars: Vec<(usize, char)> = word.char_indices().collect();
            for i in 1..chars.len() {
                let (at, c) = chars[i];
                let prev = chars[i - 1].1;
                let next_lower = chars.get(i + 1).is_some_and(|(_, n)| n.is_lowercase());
                if c.is_uppercase()
                    && (prev.is_lowercase()
                        || prev.is_ascii_digit()
                        || (prev.is_uppercase() && next_lower))
                {
                    emit(&word[start..at], &mut buffer, &mut sink);
                    start = at;
                }
            }
        }
        emit(&word[start..], &mut buffer, &mut sink);
    }
}

fn emit(piece: &str, buffer: &mut String, sink: &mut impl FnMut(&str)) {
    buffer.clear();
    if piece.is_ascii() {
        if piece.len() < 2 {
            return;
        }
        buffer.push_str(piece);
        buffer.make_ascii_lowercase();
    } else {
        buffer.extend(piece.chars().flat_map(char::to_lowercase));
        if buffer.chars().count() < 2 {
            return;
        }
    }
    if STOPWORDS.binary_search(&buffer.as_str()).is_ok() {
        return;
    }
    fold_plural(buffer);
    sink(buffer);
}

fn fold_plural(word: &mut String) {
    if word.len() <= 3 || !word.is_ascii() {
        return;
    }
    if let Some(stem) = word.strip_suffix("ies") {
        let stem_len = stem.len();
        word.truncate(stem_len);
        word.push('y');
    } else if word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
    {
        word.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stopwords_are_sorted_for_binary_search() {
        let mut sorted = STOPWORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOPWORDS);
    }

    #[test]
    fn snake_kebab_camel_and_acronyms_split_into_words() {
        assert_eq!(terms("list_pull_requests"), ["list", "pull", "request"]);
        assert_eq!(
            terms("create-issue-comment"),
            ["create", "issue", "comment"]
        );
        assert_eq!(terms("getURLForID"), ["get", "url", "id"]);
        assert_eq!(terms("XMLHttpRequest"), ["xml", "http", "request"]);
        assert_eq!(terms("oauth2Token v3"), ["oauth2", "token", "v3"]);
    }

    #[test]
    fn plural_folding_keeps_ss_us_is_and_short_words() {
        assert_eq!(
            terms("access status analysis bus repos"),
            ["access", "status", "analysis", "bus", "repo"]
        );
        assert_eq!(terms("policies"), ["policy"]);
    }

    #[test]
    fn non_ascii_text_is_split_and_lowercased_without_panicking() {
        assert_eq!(terms("Überweisung_prüfen"), ["überweisung", "prüfen"]);
        assert_eq!(terms("日本語 テキスト"), ["日本語", "テキスト"]);
        assert!(terms("").is_empty());
        assert!(terms("__--//").is_empty());
    }
}
