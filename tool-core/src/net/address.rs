//! Which IP addresses a guarded request may reach: public unicast only.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is not public unicast.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AddressClass {
    /// `0.0.0.0/8`, `::`.
    Unspecified,
    /// `127.0.0.0/8`, `::1`.
    Loopback,
    /// `10/8`, `172.16/12`, `192.168/16`.
    Private,
    /// `100.64.0.0/10` (carrier-grade NAT).
    SharedCgnat,
    /// `169.254/16` (cloud metadata lives here), `fe80::/10`.
    LinkLocal,
    /// `224/4`, `ff00::/8`.
    Multicast,
    /// `255.255.255.255`.
    Broadcast,
    /// `192.0.2/24`, `198.51.100/24`, `203.0.113/24`, `2001:db8::/32`, `3fff::/20`.
    Documentation,
    /// `198.18.0.0/15`.
    Benchmarking,
    /// `fc00::/7`.
    UniqueLocal,
    /// `fec0::/10` (deprecated site-local).
    SiteLocal,
    /// Everything else that is not global unicast: `240/4`, `192.0.0/24`,
    /// `192.88.99/24`, IPv4-compatible IPv6, `100::/64`, `2001::/23`,
    /// local-use NAT64, anything outside `2000::/3`.
    Reserved,
}

impl AddressClass {
    /// A short machine name (`loopback`, `link_local`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Unspecified => "unspecified",
            Self::Loopback => "loopback",
            Self::Private => "private",
            Self::SharedCgnat => "shared_cgnat",
            Self::LinkLocal => "link_local",
            Self::Multicast => "multicast",
            Self::Broadcast => "broadcast",
            Self::Documentation => "documentation",
            Self::Benchmarking => "benchmarking",
            Self::UniqueLocal => "unique_local",
            Self::SiteLocal => "site_local",
            Self::Reserved => "reserved",
        }
    }
}

impl fmt::Display for AddressClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Unspecified => "unspecified",
            Self::Loopback => "loopback",
            Self::Private => "private",
            Self::SharedCgnat => "shared (CGNAT)",
            Self::LinkLocal => "link-local",
            Self::Multicast => "multicast",
            Self::Broadcast => "broadcast",
            Self::Documentation => "documentation",
            Self::Benchmarking => "benchmarking",
            Self::UniqueLocal => "unique-local",
            Self::SiteLocal => "site-local",
            Self::Reserved => "reserved",
        })
    }
}

/// `None` when `ip` is public unicast; else why not. IPv6 forms that
/// embed an IPv4 address (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`,
/// 6to4 `2002::/16`) are judged by the embedded address.
pub fn classify(ip: IpAddr) -> Option<AddressClass> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> Option<AddressClass> {
    use AddressClass::*;
    let [a, b, c, _] = ip.octets();
    let class = match (a, b, c) {
        _ if ip == Ipv4Addr::BROADCAST => Broadcast,
        (0, _, _) => Unspecified,
        (10, _, _) => Private,
        (100, 64..=127, _) => SharedCgnat,
        (127, _, _) => Loopback,
        (169, 254, _) => LinkLocal,
        (172, 16..=31, _) => Private,
        (192, 0, 0) => Reserved,
        (192, 0, 2) => Documentation,
        (192, 88, 99) => Reserved,
        (192, 168, _) => Private,
        (198, 18..=19, _) => Benchmarking,
        (198, 51, 100) => Documentation,
        (203, 0, 113) => Documentation,
        (224..=239, _, _) => Multicast,
        (240..=255, _, _) => Reserved,
        _ => return None,
    };
    Some(class)
}

fn classify_v6(ip: Ipv6Addr) -> Option<AddressClass> {
    use AddressClass::*;
    let s = ip.segments();
    if ip.is_unspecified() {
        return Some(Unspecified);
    }
    if ip.is_loopback() {
        return Some(Loopback);
    }
    // ::ffff:a.b.c.d (mapped) and 64:ff9b::a.b.c.d (NAT64): the IPv4 address decides.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return classify_v4(v4);
    }
    let embedded = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return classify_v4(embedded(s[6], s[7]));
    }
    if s[0] == 0x2002 {
        return classify_v4(embedded(s[1], s[2]));
    }
    let class = match s[0] {
        // ::a.b.c.d (deprecated IPv4-compatible) and the rest of ::/8.
        0x0000..=0x00ff => Reserved,
        0xfc00..=0xfdff => UniqueLocal,
        0xfe80..=0xfebf => LinkLocal,
        0xfec0..=0xfeff => SiteLocal,
        0xff00..=0xffff => Multicast,
        0x2001 if s[1] == 0x0db8 => Documentation,
        0x2001 if s[1] < 0x0200 => Reserved,
        0x3fff if s[1] < 0x1000 => Documentation,
        0x2000..=0x3fff => return None,
        _ => Reserved,
    };
    Some(class)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_addresses_pass() {
        for ip in [
            "8.8.8.8",
            "1.1.1.1",
            "93.184.216.34",
            "2606:4700:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
        ] {
            assert_eq!(classify(ip.parse().unwrap()), None, "{ip}");
        }
    }
}
