//! The SSRF guard: every address class in every spelling, real requests
//! through the guarded client, names that resolve to loopback.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use tool_openapi::{AddressClass, SsrfBlocked, SsrfGuard, SsrfPolicy};

use AddressClass::*;

/// (class, canonical address or "" for IPv6 forms, spellings of it as a URL host)
fn table() -> Vec<(AddressClass, &'static str, Vec<&'static str>)> {
    vec![
        (
            Unspecified,
            "0.0.0.0",
            vec!["0.0.0.0", "0", "0x0", "00.0.0.0", "0.0"],
        ),
        (Unspecified, "", vec!["[::]", "[0:0:0:0:0:0:0:0]"]),
        (
            Loopback,
            "127.0.0.1",
            vec![
                "127.0.0.1",
                "2130706433",
                "0x7f000001",
                "0X7F000001",
                "0177.0.0.1",
                "0177.0000.0000.0001",
                "0x7f.0.0.1",
                "0x7f.1",
                "127.1",
                "127.0.1",
                "0177.1",
                "017700000001",
                "%31%32%37.0.0.1",
                "127.0.0.1.",
                "\u{ff11}\u{ff12}\u{ff17}.\u{ff10}.\u{ff10}.\u{ff11}",
            ],
        ),
        (Loopback, "127.8.9.10", vec!["127.8.9.10", "0x7f08090a"]),
        (
            Loopback,
            "",
            vec![
                "[::1]",
                "[0:0:0:0:0:0:0:1]",
                "[::ffff:127.0.0.1]",
                "[::ffff:7f00:1]",
                "[0:0:0:0:0:ffff:127.0.0.1]",
                "[64:ff9b::7f00:1]",
                "[64:ff9b::127.0.0.1]",
                "[2002:7f00:1::]",
            ],
        ),
        (
            Private,
            "10.0.0.1",
            vec!["10.0.0.1", "012.0.0.1", "167772161", "0xa.1", "10.1"],
        ),
        (
            Private,
            "172.16.0.1",
            vec!["172.16.0.1", "0xac100001", "2886729729"],
        ),
        (Private, "172.31.255.255", vec!["172.31.255.255"]),
        (
            Private,
            "192.168.1.1",
            vec![
                "192.168.1.1",
                "3232235777",
                "0xc0.0xa8.1.1",
                "0300.0250.1.1",
                "192.168.257",
            ],
        ),
        (
            Private,
            "",
            vec![
                "[::ffff:10.0.0.1]",
                "[64:ff9b::a00:1]",
                "[2002:c0a8:101::1]",
            ],
        ),
        (
            SharedCgnat,
            "100.64.0.1",
            vec!["100.64.0.1", "1681915905", "0x64400001"],
        ),
        (SharedCgnat, "100.127.255.254", vec!["100.127.255.254"]),
        (
            LinkLocal,
            "169.254.169.254",
            vec![
                "169.254.169.254",
                "2852039166",
                "0xa9fea9fe",
                "0251.0376.0251.0376",
                "0xa9.0xfe.0xa9.0xfe",
                "169.254.43518",
            ],
        ),
        (
            LinkLocal,
            "",
            vec![
                "[fe80::1]",
                "[fe80::1%25eth0]",
                "[fe80::1%eth0]",
                "[febf::1]",
                "[::ffff:169.254.169.254]",
                "[::ffff:a9fe:a9fe]",
            ],
        ),
        (
            Multicast,
            "224.0.0.1",
            vec!["224.0.0.1", "3758096385", "0xe0.0.0.1"],
        ),
        (Multicast, "239.255.255.250", vec!["239.255.255.250"]),
        (Multicast, "", vec!["[ff02::1]", "[ff0e::1]"]),
        (
            Broadcast,
            "255.255.255.255",
            vec!["255.255.255.255", "4294967295", "0xffffffff"],
        ),
        (Documentation, "192.0.2.1", vec!["192.0.2.1", "3221225985"]),
        (Documentation, "198.51.100.7", vec!["198.51.100.7"]),
        (
            Documentation,
            "203.0.113.9",
            vec!["203.0.113.9", "0xcb007109"],
        ),
        (Documentation, "", vec!["[2001:db8::1]", "[3fff::1]"]),
        (
            Benchmarking,
            "198.18.0.1",
            vec!["198.18.0.1", "0xc6120001", "3323068417"],
        ),
        (Reserved, "240.0.0.1", vec!["240.0.0.1", "0xf0000001"]),
        (Reserved, "192.0.0.8", vec!["192.0.0.8"]),
        (Reserved, "192.88.99.1", vec!["192.88.99.1"]),
        (
            Reserved,
            "",
            vec![
                "[::127.0.0.1]",
                "[::8.8.8.8]",
                "[100::1]",
                "[2001::1]",
                "[64:ff9b:1::1]",
                "[4000::1]",
            ],
        ),
        (UniqueLocal, "", vec!["[fc00::1]", "[fd12:3456:789a::1]"]),
        (SiteLocal, "", vec!["[fec0::1]"]),
    ]
}

#[test]
fn every_address_class_in_every_spelling_is_refused() {
    let guard = SsrfGuard::default();
    let mut checked = 0;
    for (class, canonical, spellings) in table() {
        for spelling in spellings {
            let url = format!("http://{spelling}:8080/x");
            let blocked = guard
                .check_url(&url)
                .expect_err(&format!("{url} must be refused"));
            assert_eq!(blocked.class(), Some(class), "{url}: {blocked}");
            if !canonical.is_empty() {
                assert_eq!(blocked.address(), canonical, "{url}");
                assert!(blocked.to_string().contains(canonical), "{blocked}");
            }
            checked += 1;
        }
    }
    assert!(checked > 90, "{checked}");
}

#[test]
fn public_addresses_and_names_pass_the_url_check() {
    let guard = SsrfGuard::default();
    for url in [
        "https://example.com/",
        "http://8.8.8.8/",
        "http://134744072/", // 8.8.8.8
        "http://[2606:4700:4700::1111]/",
        "http://[::ffff:8.8.8.8]/",
        "http://[64:ff9b::808:808]/",
        "http://100.128.0.1/", // just past CGNAT
        "http://172.32.0.1/",  // just past 172.16/12
        "http://198.20.0.1/",  // just past benchmarking
    ] {
        assert!(guard.check_url(url).is_ok(), "{url}");
    }
}

#[test]
fn other_schemes_and_unparsable_urls_are_refused() {
    let guard = SsrfGuard::default();
    for url in [
        "file:///etc/passwd",
        "gopher://example.com/",
        "ftp://example.com/",
        "http://",
    ] {
        assert!(guard.check_url(url).is_err(), "{url}");
    }
}

#[test]
fn the_allow_list_takes_hosts_addresses_and_cidrs() {
    let policy = SsrfPolicy::default()
        .allow("127.0.0.0/8")
        .unwrap()
        .allow("::1")
        .unwrap()
        .allow("[fd00::1]")
        .unwrap()
        .allow("10.1.0.0/16")
        .unwrap()
        .allow("Internal.Example")
        .unwrap();
    let guard = SsrfGuard::new(policy);
    for url in [
        "http://127.0.0.1/",
        "http://0x7f.1/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://10.1.200.3/",
        "http://[fd00::1]/",
    ] {
        assert!(guard.check_url(url).is_ok(), "{url}");
    }
    for url in [
        "http://10.2.0.1/",
        "http://169.254.169.254/",
        "http://[fd00::2]/",
    ] {
        assert!(guard.check_url(url).is_err(), "{url}");
    }
    for bad in ["", "10.0.0.0/33", "not a host!", "1.2.3.4/x"] {
        assert!(SsrfPolicy::default().allow(bad).is_err(), "{bad:?}");
    }
}

fn blocked_in(error: &reqwest::Error) -> Option<SsrfBlocked> {
    SsrfBlocked::find_in(error).cloned()
}

#[tokio::test]
async fn the_guarded_client_refuses_literals_by_itself() {
    let addr = common::start().await;
    let port = addr.port();
    let client = SsrfGuard::default().build_client().unwrap();
    for host in [
        "127.0.0.1",
        "2130706433",
        "0x7f.1",
        "127.1",
        "0177.0.0.1",
        "[::ffff:127.0.0.1]",
    ] {
        let url = format!("http://{host}:{port}/ping");
        let error = client.get(&url).send().await.expect_err(&url);
        let blocked = blocked_in(&error).unwrap_or_else(|| panic!("{url}: {error:?}"));
        assert!(blocked.address().contains("127.0.0.1"), "{url}: {blocked}");
    }
    // The same client type with 127.0.0.1 allowed reaches the server.
    let allowed = SsrfGuard::new(SsrfPolicy::default().allow("127.0.0.1").unwrap())
        .build_client()
        .unwrap();
    let response = allowed
        .get(format!("http://0x7f.1:{port}/ping"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn a_host_name_resolving_to_loopback_is_refused() {
    let addr = common::start().await;
    let client = SsrfGuard::default().build_client().unwrap();
    let url = format!("http://localhost:{}/ping", addr.port());
    let error = client.get(&url).send().await.unwrap_err();
    let blocked = blocked_in(&error).unwrap_or_else(|| panic!("{error:?}"));
    assert_eq!(blocked.host(), "localhost");
    assert_eq!(blocked.class(), Some(Loopback));
    assert!(blocked.to_string().contains("localhost"), "{blocked}");

    // Allowing the name lets it through (and only it).
    let client = SsrfGuard::new(SsrfPolicy::default().allow("localhost").unwrap())
        .build_client()
        .unwrap();
    let response = client.get(&url).send().await.unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn redirects_into_refused_addresses_stop_at_the_hop() {
    let addr = common::start().await;
    let guard = SsrfGuard::new(SsrfPolicy::default().allow("127.0.0.1").unwrap());
    let client = guard.build_client().unwrap();
    for target in [
        "169.254.169.254/",
        "0xa9fea9fe/",
        "[fe80::1]/",
        "[::1]:1/",
        "10.0.0.1/",
    ] {
        let url = format!("http://127.0.0.1:{}/to/{target}", addr.port());
        let error = client.get(&url).send().await.expect_err(&url);
        assert!(blocked_in(&error).is_some(), "{url}: {error:?}");
    }
}
