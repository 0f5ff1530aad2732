//! Who a request really comes from behind a reverse proxy: with `--trusted-proxies`
//! (CIDRs), a request whose connecting address is trusted is attributed to the address
//! its proxy names in `Forwarded: for=` or `X-Forwarded-For`, for rate limits and logs.
//!
//! Invariant: only trusted hops are ever skipped. Reading the chain from the right (the
//! hop nearest to us), the caller is the first address that is not a trusted proxy, so a
//! client cannot choose its own address by sending the header itself; a request from an
//! untrusted peer is attributed to that peer, whatever it sent.

use std::net::IpAddr;

use ipnet::IpNet;

/// The trusted proxies of a server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    pub fn new(nets: Vec<IpNet>) -> Self {
        Self(nets)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|n| n.contains(&ip))
    }

    /// The caller's address for a request from `peer` with the given `Forwarded` and
    /// `X-Forwarded-For` header values (`Forwarded` wins when both are present).
    pub fn caller(&self, peer: IpAddr, forwarded: Option<&str>, xff: Option<&str>) -> IpAddr {
        if !self.trusts(peer) {
            return peer;
        }
        let hops: Vec<IpAddr> = match (forwarded, xff) {
            (Some(f), _) => f
                .split(',')
                .filter_map(|element| {
                    element.split(';').find_map(|pair| {
                        let (k, v) = pair.trim().split_once('=')?;
                        k.eq_ignore_ascii_case("for").then(|| parse_node(v))?
                    })
                })
                .collect(),
            (None, Some(x)) => x.split(',').filter_map(|h| parse_node(h.trim())).collect(),
            (None, None) => Vec::new(),
        };
        hops.into_iter()
            .rev()
            .find(|ip| !self.trusts(*ip))
            .unwrap_or(peer)
    }
}

/// An address of a `Forwarded` `for=` value or an `X-Forwarded-For` entry: `1.2.3.4`,
/// `1.2.3.4:5`, `"[2001:db8::1]:80"`, `2001:db8::1`.
fn parse_node(v: &str) -> Option<IpAddr> {
    let v = v.trim().trim_matches('"');
    if let Ok(ip) = v.parse() {
        return Some(ip);
    }
    if let Some(rest) = v.strip_prefix('[') {
        return rest.split(']').next()?.parse().ok();
    }
    v.rsplit_once(':')?.0.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn only_trusted_hops_are_skipped() {
        let t = TrustedProxies::new(vec![
            "10.0.0.0/8".parse().unwrap(),
            "127.0.0.1/32".parse().unwrap(),
        ]);
        let proxy = ip("10.1.1.1");
        assert_eq!(
            t.caller(proxy, None, Some("203.0.113.7")),
            ip("203.0.113.7")
        );
        // A client that prepends a fake address does not get to choose.
        assert_eq!(
            t.caller(proxy, None, Some("6.6.6.6, 203.0.113.7, 10.2.2.2")),
            ip("203.0.113.7")
        );
        assert_eq!(
            t.caller(ip("198.51.100.1"), None, Some("1.2.3.4")),
            ip("198.51.100.1"),
            "untrusted peer"
        );
        assert_eq!(
            t.caller(
                proxy,
                Some(r#"for="[2001:db8::1]:4711";proto=https, for=10.0.0.5"#),
                Some("9.9.9.9")
            ),
            ip("2001:db8::1")
        );
        assert_eq!(t.caller(proxy, None, None), proxy);
        assert_eq!(t.caller(proxy, None, Some("garbage")), proxy);
    }
}
