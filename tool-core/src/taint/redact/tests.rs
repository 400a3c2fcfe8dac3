//! Tests of secret redaction: the built-in table's examples, the keyword
//! prefilter and SIMD search held to running every rule, in-token runs,
//! host secrets, and bad rules refused.

use super::*;

fn table() -> Vec<SecretRule> {
    serde_json::from_str::<Value>(BUILTIN_SECRET_RULES)
        .ok()
        .and_then(|v| serde_json::from_value(v["rules"].clone()).ok())
        .unwrap_or_default()
}

#[test]
fn the_builtin_table_loads_and_each_rule_redacts_its_examples_and_spares_its_counter_examples() {
    let redactor = Redactor::builtin().unwrap();
    let rules = table();
    assert!(rules.len() >= 15, "{}", rules.len());
    for rule in &rules {
        for example in &rule.examples {
            let (text, found) = redactor
                .redact(example)
                .unwrap_or_else(|| panic!("{}: {example}", rule.id));
            assert!(
                found.counts.contains_key(&rule.id),
                "{}: {example} → {found:?}",
                rule.id
            );
            assert!(text.contains(&format!("[REDACTED:{}]", rule.id)), "{text}");
        }
        for counter in &rule.counter_examples {
            if let Some((_, found)) = redactor.redact(counter) {
                assert!(
                    !found.counts.contains_key(&rule.id),
                    "{}: {counter}",
                    rule.id
                );
            }
        }
    }
}

/// Every keyword and example of the built-in table, cut into pieces
/// the generated texts are made of (so keywords meet and overlap).
fn pieces() -> Vec<String> {
    let mut out: Vec<String> = vec![" ".into(), "\n".into(), "=".into(), ":".into(), "@".into()];
    for rule in table() {
        out.extend(rule.keywords.iter().cloned());
        out.extend(rule.keywords.iter().map(|k| k.to_ascii_uppercase()));
        for example in rule.examples.iter().chain(&rule.counter_examples) {
            out.push(example.clone());
            let cut = example.len() / 2;
            if let (Some(a), Some(b)) = (example.get(..cut), example.get(cut..)) {
                out.push(a.to_owned());
                out.push(b.to_owned());
            }
        }
    }
    out
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]
    #[test]
    fn the_keyword_prefilter_redacts_exactly_what_every_rule_run_would(
        picks in proptest::collection::vec(proptest::prelude::any::<proptest::sample::Index>(), 0..12),
    ) {
        let pieces = pieces();
        let text: String = picks.iter().map(|i| i.get(&pieces).as_str()).collect();
        let redactor = Redactor::builtin().unwrap();
        let all = vec![true; redactor.rule_ids().len()];
        let everything = redactor.redact_opened(&text, Vec::new(), &all, &[], true);
        proptest::prop_assert_eq!(redactor.redact(&text), everything, "{:?}", text);
    }
}

/// The built-in redactor with its keyword search replaced: the
/// automaton (`None`) or the SIMD search `chunk` bytes at a time.
fn with_search(chunk: Option<usize>) -> Redactor {
    let redactor = Redactor::builtin().unwrap();
    let mut inner = (*redactor.inner).clone();
    inner.packed = match chunk {
        None => None,
        Some(n) => Some(inner.packed.take().unwrap().with_chunk(n)),
    };
    Redactor {
        inner: Arc::new(inner),
    }
}

#[test]
fn the_builtin_keywords_take_the_simd_search() {
    // Where the machine has no SIMD search, the automaton does it; on
    // the machines this project targets (x86_64, aarch64) it has.
    if cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
        assert!(Redactor::builtin().unwrap().inner.packed.is_some());
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]
    #[test]
    fn the_simd_keyword_search_redacts_exactly_what_the_automaton_and_every_rule_do(
        picks in proptest::collection::vec(proptest::prelude::any::<proptest::sample::Index>(), 0..40),
        chunk in 1usize..48,
    ) {
        let pieces = pieces();
        let text: String = picks.iter().map(|i| i.get(&pieces).as_str()).collect();
        let simd = with_search(Some(chunk));
        let automaton = with_search(None);
        let all = vec![true; simd.rule_ids().len()];
        let everything = simd.redact_opened(&text, Vec::new(), &all, &[], true);
        let found = simd.redact(&text);
        proptest::prop_assert_eq!(&found, &automaton.redact(&text), "{:?}", text);
        proptest::prop_assert_eq!(&found, &everything, "{:?}", text);
        proptest::prop_assert_eq!(&found, &Redactor::builtin().unwrap().redact(&text), "{:?}", text);
    }

    #[test]
    fn the_simd_keyword_search_reports_or_overlaps_every_occurrence(
        picks in proptest::collection::vec(proptest::prelude::any::<proptest::sample::Index>(), 0..40),
        chunk in 1usize..48,
    ) {
        let pieces = pieces();
        let text: String = picks.iter().map(|i| i.get(&pieces).as_str()).collect();
        let redactor = with_search(Some(chunk));
        let inner = &*redactor.inner;
        let mut hits: Vec<(usize, usize, usize)> = Vec::new();
        inner.packed.as_ref().unwrap().each(text.as_bytes(), &mut |p, s, e| hits.push((p, s, e)));
        let lower = text.to_ascii_lowercase();
        for pair in hits.windows(2) {
            proptest::prop_assert!(pair[0].2 <= pair[1].1, "{:?} in {:?}", pair, text);
        }
        // Every occurrence (the automaton, overlapping) is reported,
        // or starts inside one reported.
        let mut every = Vec::new();
        for m in inner.keywords.find_overlapping_iter(&text) {
            every.push((m.pattern().as_usize(), m.start(), m.end()));
            proptest::prop_assert!(
                hits.iter().any(|h| *h == (m.pattern().as_usize(), m.start(), m.end()) || (h.1 <= m.start() && m.start() < h.2)),
                "{:?} missed in {:?}: {:?}", m, text, hits
            );
        }
        // And each reported is one.
        for h in &hits {
            proptest::prop_assert!(every.contains(h), "{:?} in {:?}", h, lower);
        }
    }
}

#[test]
fn the_simd_keyword_search_finds_keywords_across_chunk_edges_of_a_long_output() {
    let redactor = Redactor::builtin().unwrap();
    // 3 chunks and more; a token and a password cut by each edge.
    let mut text = String::new();
    let token = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
    let mut want = 0;
    while text.len() < 3 * 4096 + 100 {
        let edge = (text.len() / 4096 + 1) * 4096;
        let pad = (edge - text.len()).saturating_sub(2);
        text.push_str(&"x ".repeat(pad / 2));
        text.push_str(" PassWord=");
        text.push_str(token);
        text.push(' ');
        want += 1;
    }
    let (out, found) = redactor.redact(&text).unwrap();
    assert!(!out.contains(token), "{out}");
    assert_eq!(found.total(), want, "{found:?}");
    assert_eq!(Some((out, found)), with_search(None).redact(&text));
}

#[test]
fn in_token_rules_search_only_the_runs_around_their_keywords_and_find_every_match() {
    let redactor = Redactor::builtin().unwrap();
    // Many links, two with passwords, one run holding two, one at the
    // text's end, one in upper case after a tab.
    let text = "see https://a.example/x and https://u:pw1@b.example/y,\
                https://c.example/ https://v:pw2@d.example/https://w:pw3@e.example \
                postgres://app:pw4@db:5432/x\tHTTPS://X:pw5@F.example";
    let (out, found) = redactor.redact(text).unwrap();
    for pw in ["pw1", "pw2", "pw3", "pw4", "pw5"] {
        assert!(!out.contains(pw), "{pw} in {out}");
    }
    assert_eq!(found.counts["url-password"], 4, "{out}");
    assert_eq!(found.counts["connection-string-password"], 1, "{out}");
    assert!(out.contains("https://a.example/x"), "{out}");
    let all = vec![true; redactor.rule_ids().len()];
    assert_eq!(
        redactor.redact_opened(text, Vec::new(), &all, &[], true),
        Some((out, found))
    );
}

#[test]
fn an_in_token_rule_whose_example_match_spans_whitespace_is_refused() {
    let rule = SecretRule {
        id: "spaced".into(),
        description: String::new(),
        regex: r"key\s+[0-9]{4}".into(),
        keywords: vec!["key".into()],
        examples: vec!["key 1234".into()],
        counter_examples: Vec::new(),
        in_token: true,
        needs: Vec::new(),
    };
    let err = Redactor::from_rules(&[rule], "t").unwrap_err().to_string();
    assert!(err.contains("spaced") && err.contains("inToken"), "{err}");
}

#[test]
fn overlapping_keywords_are_found_both_ways() {
    assert!(can_overlap("ghp_", "p_x"));
    assert!(can_overlap("p_x", "ghp_"));
    assert!(can_overlap("secret", "ECR"));
    assert!(can_overlap("abc", "abc"));
    assert!(!can_overlap("abc", "xyz"));
    assert!(can_overlap("ab", "ba"), "in `aba`");
    // "token" found first must still open "api_key"'s rules only when
    // they can share bytes: they cannot.
    assert!(!can_overlap("token", "api_key"));
}

#[test]
fn a_secret_group_keeps_the_name_and_replaces_only_the_value() {
    let redactor = Redactor::builtin().unwrap();
    let (text, _) = redactor
        .redact("DATABASE_URL=postgres://app:s3cr3t-Pa55@db.internal:5432/app")
        .unwrap();
    assert_eq!(
        text,
        "DATABASE_URL=postgres://app:[REDACTED:connection-string-password]@db.internal:5432/app"
    );
}

#[test]
fn a_bad_rule_is_refused_naming_the_rule_and_the_reason() {
    let rule = |regex: &str, examples: &[&str], counter: &[&str]| SecretRule {
        id: "r".into(),
        description: String::new(),
        regex: regex.into(),
        keywords: vec!["a".into()],
        examples: examples.iter().map(|s| (*s).to_owned()).collect(),
        counter_examples: counter.iter().map(|s| (*s).to_owned()).collect(),
        in_token: false,
        needs: Vec::new(),
    };
    let cases = [
        (rule("(", &["x"], &[]), "does not compile"),
        (rule("abc", &["xyz"], &[]), "finds nothing in its example"),
        (
            rule("abc", &["abc"], &["xabcx"]),
            "finds something in its counter-example",
        ),
        (rule("abc", &[], &[]), "at least one example"),
        (rule("(?<=a)b", &["ab"], &[]), "does not compile"),
        (
            rule("b", &["b"], &[]),
            "none of its keywords occurs in its example",
        ),
    ];
    for (r, want) in cases {
        let err = Redactor::from_rules(&[r], "t.json").unwrap_err();
        assert!(err.to_string().starts_with("rule `r` of t.json:"), "{err}");
        assert!(err.to_string().contains(want), "{err}");
    }
    let err = Redactor::from_json(
        r#"{"rules": [{"id": "x", "regex": "a", "examples": ["a"], "typo": 1}]}"#,
        "t.json",
    )
    .unwrap_err();
    assert!(err.to_string().contains("unknown field `typo`"), "{err}");
    let err = Redactor::from_json(
        r#"{"rules": [{"id": "Bad Id", "keywords": ["a"], "regex": "a", "examples": ["a"]}]}"#,
        "t.json",
    )
    .unwrap_err();
    assert!(err.to_string().contains("lower-case"), "{err}");
}

#[test]
fn host_secrets_are_replaced_whole_and_short_ones_refused() {
    let r = Redactor::from_rules(&[], "none")
        .unwrap()
        .with_host_secret("a", "abcdefgh")
        .unwrap()
        .with_host_secret("b", "abcdefgh-longer")
        .unwrap();
    let (text, found) = r.redact("x abcdefgh-longer y abcdefgh").unwrap();
    assert_eq!(
        text,
        "x [REDACTED:host-secret:b] y [REDACTED:host-secret:a]"
    );
    assert_eq!(found.total(), 2);
    assert!(
        Redactor::from_rules(&[], "none")
            .unwrap()
            .with_host_secret("c", "short")
            .is_err()
    );
}

#[test]
fn strings_inside_json_are_redacted_in_place() {
    let r = Redactor::builtin().unwrap();
    let mut v = serde_json::json!({"env": ["GITHUB_TOKEN=ghs_0123456789abcdefghijABCDEFGHIJ012345"], "n": 1});
    let found = r.redact_json(&mut v);
    assert_eq!(found.total(), 1);
    assert_eq!(v["env"][0], "GITHUB_TOKEN=[REDACTED:github-token]");
}

/// Two rules whose keywords overlap (`abcd`, `cdef`): the search reports
/// one occurrence of the pair, and the other keyword, looked for where it
/// would overlap it, opens its rule (whole-text and in-token alike), with
/// either search.
#[test]
fn a_keyword_the_search_steps_over_still_opens_its_rule() {
    let rule = |id: &str, keyword: &str, regex: &str, example: &str, in_token: bool| SecretRule {
        id: id.into(),
        description: String::new(),
        keywords: vec![keyword.into()],
        regex: regex.into(),
        examples: vec![example.into()],
        counter_examples: Vec::new(),
        in_token,
        needs: Vec::new(),
    };
    for in_token in [false, true] {
        let redactor = Redactor::from_rules(
            &[
                rule("a", "abcd", "(?i)abcd[xyz]{5}", "abcdxxxxx", false),
                rule("b", "cdef", "(?i)cdef[0-9]{3}", "cdef123", in_token),
            ],
            "t",
        )
        .unwrap();
        let mut automaton = (*redactor.inner).clone();
        automaton.packed = None;
        let automaton = Redactor {
            inner: Arc::new(automaton),
        };
        for text in [
            "zz abcdef123 zz",
            "zz ABCDEF123",
            "abcdef123",
            "x abcdabcdef123",
        ] {
            for r in [&redactor, &automaton] {
                let (out, found) = r
                    .redact(text)
                    .unwrap_or_else(|| panic!("{text}: nothing found (inToken {in_token})"));
                assert!(out.contains("[REDACTED:b]"), "{text} → {out}");
                assert_eq!(found.total(), 1, "{text}");
            }
        }
        assert!(redactor.redact("abcd ef123 cdef").is_none());
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
    #[test]
    fn the_end_of_a_run_is_the_first_whitespace_byte_found_eight_at_a_time(
        picks in proptest::collection::vec(0usize..12, 0..80),
        from in 0usize..90,
    ) {
        const BYTES: &[&str] = &[
            "a", "Z", "/", ":", "@", " ", "\t", "\n", "\r", "\u{c}", "\u{b}", "é",
        ];
        let text: String = picks.iter().map(|i| BYTES[*i]).collect();
        let bytes = text.as_bytes();
        let from = from.min(bytes.len());
        let want = bytes[from..]
            .iter()
            .position(u8::is_ascii_whitespace)
            .map_or(bytes.len(), |i| from + i);
        proptest::prop_assert_eq!(next_space(bytes, from), want, "{:?} from {}", text, from);
    }
}
