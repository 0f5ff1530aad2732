//! The web inspector (`GET /` leads to it): a page, its script and its stylesheet, built
//! from `inspector/` by `npm run build` there and committed in `server/inspector-dist/`,
//! embedded in the binary here so that a user with only cargo gets it.
//!
//! Three fixed files, so `include_bytes!` is enough: an embedding crate (rust-embed and
//! the like) would add a proc macro and a directory walk to every build for no gain, and
//! a fixed list means a route cannot serve a file nobody meant to ship.
//!
//! The page and its assets hold no data, so they need no token (they are in the open
//! route group); every data request the page makes carries the token its user typed. The
//! page's Content-Security-Policy lets it load only its own files and talk only to this
//! origin, so a token typed into it cannot be sent anywhere else.

use std::sync::OnceLock;

use axum::Router;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;

use crate::state::AppState;

const INDEX: &[u8] = include_bytes!("../../inspector-dist/index.html");
const APP_JS: &[u8] = include_bytes!("../../inspector-dist/app.js");
const APP_CSS: &[u8] = include_bytes!("../../inspector-dist/app.css");

const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
    connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The inspector's routes, for the open (tokenless) route group.
pub(super) fn routes() -> Router<AppState> {
    Router::new()
        // Relative, so that a server mounted under a path prefix still lands right.
        .route("/", get(|| async { Redirect::temporary("inspector/") }))
        .route(
            "/inspector",
            get(|| async { Redirect::temporary("inspector/") }),
        )
        .route(
            "/inspector/",
            get(|h: HeaderMap| async move { asset(&h, Asset::Index) }),
        )
        .route(
            "/inspector/app.js",
            get(|h: HeaderMap| async move { asset(&h, Asset::Js) }),
        )
        .route(
            "/inspector/app.css",
            get(|h: HeaderMap| async move { asset(&h, Asset::Css) }),
        )
}

#[derive(Clone, Copy)]
enum Asset {
    Index,
    Js,
    Css,
}

impl Asset {
    fn bytes(self) -> &'static [u8] {
        match self {
            Asset::Index => INDEX,
            Asset::Js => APP_JS,
            Asset::Css => APP_CSS,
        }
    }

    fn content_type(self) -> &'static str {
        match self {
            Asset::Index => "text/html; charset=utf-8",
            Asset::Js => "text/javascript; charset=utf-8",
            Asset::Css => "text/css; charset=utf-8",
        }
    }

    /// A strong validator from the content, computed once per asset: the names are fixed,
    /// so browsers revalidate (`no-cache`) and get `304` until the binary changes.
    fn etag(self) -> &'static str {
        static TAGS: [OnceLock<String>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
        TAGS[self as usize].get_or_init(|| format!("\"{:016x}\"", fnv1a(self.bytes())))
    }
}

fn asset(headers: &HeaderMap, a: Asset) -> Response {
    let etag = a.etag();
    let fresh = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag));
    let mut res = if fresh {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut r = a.bytes().into_response();
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(a.content_type()),
        );
        r
    };
    let h = res.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(v) = HeaderValue::from_str(etag) {
        h.insert(header::ETAG, v);
    }
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if matches!(a, Asset::Index) {
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CSP),
        );
        h.insert(
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        );
        h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    }
    res
}

/// 64-bit FNV-1a: enough to tell two builds of an asset apart, with no dependency.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::Request;
    use tower::ServiceExt;

    /// The whole application of a server with an admin token: the inspector's routes
    /// must answer without one.
    fn app() -> Router {
        let config = crate::config::ServerConfig {
            admin_token: Some(crate::config::Secret("admin".into())),
            ..Default::default()
        };
        crate::http::app(crate::state::AppState::new(config))
    }

    async fn get(path: &str, etag: Option<&str>) -> Response {
        let mut req = Request::get(path);
        if let Some(t) = etag {
            req = req.header(header::IF_NONE_MATCH, t);
        }
        app()
            .oneshot(req.body(Body::empty()).unwrap())
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn root_leads_to_the_inspector() {
        let res = get("/", None).await;
        assert_eq!(res.status(), StatusCode::TEMPORARY_REDIRECT);
        assert_eq!(res.headers()[header::LOCATION], "inspector/");
    }

    #[tokio::test]
    async fn assets_are_served_with_their_types_and_revalidate() {
        for (path, ty, bytes) in [
            ("/inspector/", "text/html; charset=utf-8", INDEX),
            (
                "/inspector/app.js",
                "text/javascript; charset=utf-8",
                APP_JS,
            ),
            ("/inspector/app.css", "text/css; charset=utf-8", APP_CSS),
        ] {
            let res = get(path, None).await;
            assert_eq!(res.status(), StatusCode::OK, "{path}");
            assert_eq!(res.headers()[header::CONTENT_TYPE], ty);
            let etag = res.headers()[header::ETAG].to_str().unwrap().to_string();
            let body = axum::body::to_bytes(res.into_body(), usize::MAX)
                .await
                .unwrap();
            assert_eq!(&body[..], bytes);
            let again = get(path, Some(&etag)).await;
            assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{path}");
        }
    }

    #[tokio::test]
    async fn the_page_may_talk_only_to_its_own_origin() {
        let res = get("/inspector/", None).await;
        let csp = res.headers()[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap();
        assert!(csp.contains("connect-src 'self'") && csp.contains("script-src 'self'"));
    }
}
