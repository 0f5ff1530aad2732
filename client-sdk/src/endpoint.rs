//! Where the server is, and how every HTTP and WebSocket URL of the contract is built
//! from that base.
//!
//! Invariant: path segments (room ids) are always percent-encoded by the URL library and
//! appended to the base's own path, so a server mounted under a prefix
//! (`http://host/canopy/`) works and no caller input can change the route.

use canopy_protocol::Format;
use reqwest::Url;

use crate::error::{ClientError, Result};

/// The base URL of a server, normalised to `http` or `https`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Endpoint {
    base: Url,
}

impl Endpoint {
    /// Parses a base URL. `ws://` and `wss://` are accepted too and mapped to their HTTP
    /// scheme, since both protocols are served on the same port.
    pub(crate) fn parse(url: &str) -> Result<Self> {
        let invalid = |reason: &str| ClientError::InvalidUrl {
            url: url.to_string(),
            reason: reason.to_string(),
        };
        let mut base = Url::parse(url).map_err(|e| invalid(&e.to_string()))?;
        let scheme = match base.scheme() {
            "http" | "ws" => "http",
            "https" | "wss" => "https",
            _ => return Err(invalid("the scheme must be http, https, ws or wss")),
        };
        base.set_scheme(scheme)
            .map_err(|()| invalid("cannot change the scheme"))?;
        if base.cannot_be_a_base() || base.host().is_none() {
            return Err(invalid("the URL needs a host"));
        }
        base.set_query(None);
        base.set_fragment(None);
        Ok(Endpoint { base })
    }

    /// The normalised base URL.
    pub(crate) fn base(&self) -> &Url {
        &self.base
    }

    /// The HTTP URL of `segments` under the base, each segment percent-encoded.
    pub(crate) fn http(&self, segments: &[&str]) -> Url {
        let mut url = self.base.clone();
        {
            // `cannot_be_a_base` was ruled out in `parse`, so this cannot fail.
            let mut path = url.path_segments_mut().expect("the base URL can be a base");
            path.pop_if_empty();
            path.extend(segments);
        }
        url
    }

    /// The WebSocket URL of a room: `/rooms/{room}/ws?format=..&token=..`.
    pub(crate) fn ws(&self, room: &str, format: Format, token: Option<&str>) -> Url {
        let mut url = self.http(&["rooms", room, "ws"]);
        let scheme = if url.scheme() == "https" { "wss" } else { "ws" };
        url.set_scheme(scheme)
            .expect("http(s) and ws(s) are interchangeable special schemes");
        {
            let mut query = url.query_pairs_mut();
            query.append_pair("format", format.as_str());
            if let Some(token) = token {
                query.append_pair("token", token);
            }
        }
        url
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_paths_under_a_prefix_and_escapes_segments() {
        let e = Endpoint::parse("http://h:1/canopy/").unwrap();
        assert_eq!(
            e.http(&["rooms", "a b"]).as_str(),
            "http://h:1/canopy/rooms/a%20b"
        );
        let e = Endpoint::parse("ws://h:1").unwrap();
        assert_eq!(e.http(&["healthz"]).as_str(), "http://h:1/healthz");
    }

    #[test]
    fn websocket_url_carries_format_and_token() {
        let e = Endpoint::parse("https://h").unwrap();
        assert_eq!(
            e.ws("arena", Format::Json, Some("t&k")).as_str(),
            "wss://h/rooms/arena/ws?format=json&token=t%26k"
        );
        assert_eq!(
            e.ws("arena", Format::Bincode, None).as_str(),
            "wss://h/rooms/arena/ws?format=bincode"
        );
    }

    #[test]
    fn rejects_other_schemes() {
        assert!(Endpoint::parse("ftp://h").is_err());
        assert!(Endpoint::parse("not a url").is_err());
    }
}
