//! Which web pages may talk to the server: the `Origin` policy shared by the HTTP API
//! (CORS, and refusing cross-site requests) and WebSocket upgrades, and the `Host` check
//! that keeps an open server on loopback out of reach of DNS rebinding.
//!
//! Invariants: a request without an `Origin` header (any non-browser client) is never
//! refused by this policy; a request with one is allowed when the origin is listed in
//! `--allowed-origins` (or the list has `*`), or when it is the server's own origin
//! (same scheme-less authority as the `Host` header). Comparisons ignore ASCII case.

/// The allowed origins of a server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OriginPolicy {
    any: bool,
    listed: Vec<String>,
}

impl OriginPolicy {
    /// From `--allowed-origins` (`*` allows any origin).
    pub fn new(allowed: &[String]) -> Self {
        let listed: Vec<String> = allowed
            .iter()
            .map(|o| o.trim().trim_end_matches('/').to_ascii_lowercase())
            .filter(|o| !o.is_empty())
            .collect();
        OriginPolicy {
            any: listed.iter().any(|o| o == "*"),
            listed,
        }
    }

    /// True when some origin is listed (so CORS answers are given).
    pub fn lists_any(&self) -> bool {
        self.any || !self.listed.is_empty()
    }

    /// Whether `origin` is one of the listed origins.
    pub fn is_listed(&self, origin: &str) -> bool {
        self.any
            || self
                .listed
                .iter()
                .any(|o| o.eq_ignore_ascii_case(origin.trim_end_matches('/')))
    }

    /// Whether a request carrying `origin` (and the request's `host`) may proceed.
    pub fn permits(&self, origin: Option<&str>, host: Option<&str>) -> bool {
        match origin {
            None => true,
            Some(o) => self.is_listed(o) || same_origin(o, host),
        }
    }
}

/// True when `origin` (`scheme://authority`) names the authority the request was sent
/// to (its `Host` header), allowing for a default port written on one side only.
pub(crate) fn same_origin(origin: &str, host: Option<&str>) -> bool {
    let Some(host) = host else { return false };
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false;
    };
    let default = match scheme.to_ascii_lowercase().as_str() {
        "http" => ":80",
        "https" => ":443",
        _ => return false,
    };
    let strip = |a: &str| a.strip_suffix(default).unwrap_or(a).to_ascii_lowercase();
    strip(authority) == strip(host)
}

/// True when `host` (a `Host` header) names the machine itself or an IP address, which
/// a DNS-rebinding page cannot send: it would have to name its own domain.
pub(crate) fn is_local_or_ip_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(v6) => {
            return v6
                .split(']')
                .next()
                .is_some_and(|a| a.parse::<std::net::Ipv6Addr>().is_ok());
        }
        None => host.rsplit_once(':').map_or(host, |(h, _)| h),
    };
    name.eq_ignore_ascii_case("localhost") || name.parse::<std::net::Ipv4Addr>().is_ok()
}

/// True when an open server may answer a request with this `Host`: the machine itself,
/// an IP address, or a name listed in `--allowed-hosts` (`allowed`, any case, any port).
pub(crate) fn host_allowed(host: &str, allowed: &[String]) -> bool {
    if is_local_or_ip_host(host) {
        return true;
    }
    let name = host.rsplit_once(':').map_or(host, |(h, _)| h);
    allowed.iter().any(|a| a.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_an_open_server_answers_to() {
        let listed = ["canopy".to_owned()];
        for ok in [
            "localhost:7878",
            "127.0.0.1",
            "[::1]:7878",
            "canopy:7878",
            "CANOPY",
        ] {
            assert!(host_allowed(ok, &listed), "{ok}");
        }
        for refused in ["evil.example:7878", "canopy.evil.example", "evil"] {
            assert!(!host_allowed(refused, &listed), "{refused}");
        }
        assert!(!host_allowed("canopy:7878", &[]));
    }

    #[test]
    fn same_origin_and_listed_origins() {
        let p = OriginPolicy::new(&["http://good.example".into()]);
        assert!(p.permits(None, None));
        assert!(p.permits(Some("http://good.example"), Some("x")));
        assert!(p.permits(Some("HTTP://GOOD.example"), Some("x")));
        assert!(!p.permits(Some("http://evil.example"), Some("127.0.0.1:7878")));
        assert!(!p.permits(Some("http://good.example.evil"), Some("x")));
        assert!(!p.permits(Some("null"), Some("x")));
        assert!(p.permits(Some("http://127.0.0.1:7878"), Some("127.0.0.1:7878")));
        assert!(p.permits(Some("http://localhost"), Some("localhost:80")));
        assert!(!p.permits(Some("https://localhost:7878"), Some("localhost:7879")));
        assert!(OriginPolicy::new(&["*".into()]).permits(Some("http://any"), None));
    }

    #[test]
    fn rebinding_hosts_are_told_apart() {
        assert!(is_local_or_ip_host("127.0.0.1:7878"));
        assert!(is_local_or_ip_host("localhost:7878"));
        assert!(is_local_or_ip_host("[::1]:7878"));
        assert!(is_local_or_ip_host("10.1.2.3"));
        assert!(!is_local_or_ip_host("evil.example:7878"));
        assert!(!is_local_or_ip_host("127.0.0.1.evil.example"));
    }
}
