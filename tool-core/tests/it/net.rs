//! The network guard (feature `net`): every address class in every
//! spelling, real requests through the guarded client to a server on
//! 127.0.0.1, names that resolve to loopback, redirect hops under each
//! rule, and the refusal found in the error chain.
#![cfg(feature = "net")]

use std::net::SocketAddr;

use axum::Router;
use axum::extract::{Path, Request};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use tool_core::net::{
    AddressClass, RedirectRule, Refusal, SsrfBlocked, SsrfGuard, SsrfPolicy, TooManyRedirects,
    refusal_in,
};

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
    let addr = start().await;
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
    let addr = start().await;
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
    let addr = start().await;
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

/// A real HTTP server on 127.0.0.1: `/ping`, `/to/{target}` (302 to
/// `http://{target}`), `/hop/{status}/{n}` (`n` same-origin redirects with
/// that status, then the method that arrived), `/away/{status}/{target}`
/// (one redirect with that status to `http://{target}`).
async fn start() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = Router::new()
        .route("/ping", get(|| async { "pong" }))
        .route("/to/{*target}", get(to))
        .route("/hop/{status}/{n}", any(hop))
        .route("/away/{status}/{*target}", any(away));
    tokio::spawn(async move {
        axum::serve(listener, router).await.unwrap();
    });
    addr
}

fn redirect(status: u16, location: String) -> Response {
    let status = StatusCode::from_u16(status).unwrap();
    (status, [(header::LOCATION, location)]).into_response()
}

async fn to(Path(target): Path<String>) -> Response {
    redirect(302, format!("http://{target}"))
}

async fn hop(Path((status, n)): Path<(u16, u32)>, request: Request) -> Response {
    if n == 0 {
        return format!("arrived by {}", request.method()).into_response();
    }
    redirect(status, format!("/hop/{status}/{}", n - 1))
}

async fn away(Path((status, target)): Path<(u16, String)>) -> Response {
    redirect(status, format!("http://{target}"))
}

fn local(rule: RedirectRule) -> SsrfGuard {
    SsrfGuard::new(
        SsrfPolicy::default()
            .allow("127.0.0.1")
            .unwrap()
            .allow("localhost")
            .unwrap()
            .redirect_rule(rule),
    )
}

#[tokio::test]
async fn any_rule_follows_up_to_five_hops_and_names_the_cap_past_them() {
    let addr = start().await;
    let client = local(RedirectRule::Any).build_client().unwrap();
    for status in [301, 302, 303, 307, 308] {
        let url = format!("http://{addr}/hop/{status}/5");
        let response = client.get(&url).send().await.unwrap();
        assert_eq!(response.status(), 200, "{url}");
        assert_eq!(response.text().await.unwrap(), "arrived by GET");
    }
    let error = client
        .get(format!("http://{addr}/hop/302/6"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        TooManyRedirects::find_in(&error),
        Some(&TooManyRedirects { limit: 5 })
    );
    match refusal_in(&error) {
        Some(Refusal::TooManyRedirects(too_many)) => assert_eq!(too_many.limit, 5),
        other => panic!("{other:?}: {error:?}"),
    }
    // A lower cap is the cap.
    let two = SsrfGuard::new(
        SsrfPolicy::default()
            .allow("127.0.0.1")
            .unwrap()
            .max_redirects(2),
    )
    .build_client()
    .unwrap();
    assert!(
        two.get(format!("http://{addr}/hop/302/2"))
            .send()
            .await
            .is_ok()
    );
    let error = two
        .get(format!("http://{addr}/hop/302/3"))
        .send()
        .await
        .unwrap_err();
    assert!(
        refusal_in(&error)
            .unwrap()
            .to_string()
            .contains("more than 2 redirects"),
        "{error:?}"
    );
}

#[tokio::test]
async fn same_origin_rule_follows_only_307_and_308_on_the_same_origin() {
    let addr = start().await;
    let guard = local(RedirectRule::Any).with_redirect_rule(RedirectRule::SameOriginKeepMethod);
    assert_eq!(
        guard.policy().redirects(),
        RedirectRule::SameOriginKeepMethod
    );
    let client = guard.build_client().unwrap();
    // 307/308 keep the POST and its body, up to the cap.
    for status in [307, 308] {
        let url = format!("http://{addr}/hop/{status}/5");
        let response = client.post(&url).body("{}").send().await.unwrap();
        assert_eq!(response.status(), 200, "{url}");
        assert_eq!(response.text().await.unwrap(), "arrived by POST");
        let error = client
            .post(format!("http://{addr}/hop/{status}/6"))
            .body("{}")
            .send()
            .await
            .unwrap_err();
        assert!(
            matches!(refusal_in(&error), Some(Refusal::TooManyRedirects(_))),
            "{error:?}"
        );
    }
    // Statuses that would turn the POST into a GET are not followed: the
    // redirect itself comes back.
    for status in [301, 302, 303] {
        let url = format!("http://{addr}/hop/{status}/1");
        let response = client.post(&url).body("{}").send().await.unwrap();
        assert_eq!(response.status().as_u16(), status, "{url}");
    }
    // Another origin (another port, or another host name for the same
    // address) is not followed either, even with 307.
    let other = start().await;
    for target in [
        format!("{other}/ping"),
        format!("localhost:{}/hop/307/0", addr.port()),
    ] {
        let url = format!("http://{addr}/away/307/{target}");
        let response = client.post(&url).body("{}").send().await.unwrap();
        assert_eq!(response.status(), 307, "{url}");
    }
    // The same host under the any rule does follow it.
    let any = local(RedirectRule::Any).build_client().unwrap();
    let url = format!("http://{addr}/away/307/{other}/ping");
    assert_eq!(any.get(&url).send().await.unwrap().status(), 200);
}

#[tokio::test]
async fn every_rule_checks_a_hop_before_following_it() {
    let addr = start().await;
    for rule in [RedirectRule::Any, RedirectRule::SameOriginKeepMethod] {
        let client = local(rule).build_client().unwrap();
        for target in ["169.254.169.254/", "10.0.0.1/", "[fd00::1]/"] {
            let url = format!("http://{addr}/away/307/{target}");
            let error = client.get(&url).send().await.expect_err(&url);
            match refusal_in(&error) {
                Some(Refusal::Blocked(blocked)) => {
                    assert!(blocked.class().is_some(), "{blocked}");
                    assert!(blocked.to_string().contains("refused"), "{blocked}");
                }
                other => panic!("{rule:?} {url}: {other:?} in {error:?}"),
            }
        }
    }
}

#[test]
fn refusal_in_ignores_errors_the_guard_did_not_cause() {
    let io = std::io::Error::other("connection reset");
    assert!(refusal_in(&io).is_none());
    let blocked = SsrfGuard::default()
        .check_url("http://10.0.0.1/")
        .unwrap_err();
    assert!(matches!(refusal_in(&blocked), Some(Refusal::Blocked(b)) if b.address() == "10.0.0.1"));
}

#[test]
fn a_bad_allow_entry_is_a_typed_error_naming_it() {
    let error = SsrfPolicy::default().allow("10.0.0.0/33").unwrap_err();
    assert!(
        matches!(&error, tool_core::Error::InvalidAllowEntry { entry, .. } if entry == "10.0.0.0/33")
    );
    assert!(error.to_string().contains("10.0.0.0/33"), "{error}");
}
