//! JWTs wherever a token goes (docs/protocol.md §6, v1.1): HS256 with a secret, RS256 and ES256
//! from a JWKS file matched by `kid` (and read again when it changes), the `exp`,
//! `role`, `rooms` and `sub` claims, and a WebSocket closed when its token expires.
//! Tokens are minted here with the test keys of `tests/fixtures/jwt/`.

use crate::common;

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use canopy_protocol::{Format, ServerMsg};
use common::{config, start};
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use serde_json::{Value, json};

const SECRET: &str = "a-test-secret-of-enough-length-for-hs256";

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/jwt")
        .join(name)
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn hs256(claims: Value) -> String {
    encode(
        &Header::new(Algorithm::HS256),
        &claims,
        &EncodingKey::from_secret(SECRET.as_bytes()).unwrap(),
    )
    .unwrap()
}

fn signed(alg: Algorithm, kid: &str, key: &str, claims: Value) -> String {
    let pem = std::fs::read(fixture(key)).unwrap();
    let key = match alg {
        Algorithm::RS256 => EncodingKey::from_rsa_pem(&pem).unwrap(),
        _ => EncodingKey::from_ec_pem(&pem).unwrap(),
    };
    let mut header = Header::new(alg);
    header.kid = Some(kid.into());
    encode(&header, &claims, &key).unwrap()
}

async fn call(
    s: &common::TestServer,
    method: &str,
    path: &str,
    token: &str,
    body: Option<Value>,
) -> u16 {
    let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut r = s
        .http
        .request(m, format!("{}{path}", s.base))
        .bearer_auth(token);
    if let Some(b) = body {
        r = r.json(&b);
    }
    r.send().await.unwrap().status().as_u16()
}

#[tokio::test]
async fn hs256_tokens_carry_role_rooms_and_expiry() {
    let mut cfg = config();
    cfg.jwt_hs256_secret = Some(SECRET.parse().unwrap());
    let s = start(cfg).await;
    let exp = now() + 600;
    let admin = hs256(json!({"exp": exp, "role": "admin", "sub": "ops"}));
    assert_eq!(
        call(&s, "POST", "/rooms", &admin, Some(json!({"id":"r"}))).await,
        201
    );
    assert_eq!(
        call(&s, "POST", "/rooms", &admin, Some(json!({"id":"other"}))).await,
        201
    );
    let editor = hs256(json!({"exp": exp, "role": "editor", "rooms": ["r"]}));
    let add = json!({"ops":[{"op":"add","id":1}]});
    assert_eq!(
        call(&s, "POST", "/rooms/r/edits", &editor, Some(add.clone())).await,
        200
    );
    assert_eq!(
        call(&s, "POST", "/rooms/other/edits", &editor, Some(add.clone())).await,
        403
    );
    assert_eq!(
        call(&s, "GET", "/rooms", &editor, None).await,
        403,
        "not an admin"
    );
    let viewer = hs256(json!({"exp": exp, "role": "viewer", "rooms": ["*"]}));
    assert_eq!(
        call(&s, "GET", "/rooms/other/nodes", &viewer, None).await,
        200
    );
    assert_eq!(
        call(&s, "POST", "/rooms/r/edits", &viewer, Some(add)).await,
        403
    );
    // Refusals: none, expired, another key's signature, alg none, no exp.
    let r = s
        .http
        .get(format!("{}/rooms/r", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let expired = hs256(json!({"exp": now() - 10, "role": "admin"}));
    assert_eq!(call(&s, "GET", "/rooms", &expired, None).await, 401);
    let forged = encode(
        &Header::new(Algorithm::HS256),
        &json!({"exp": exp, "role": "admin"}),
        &EncodingKey::from_secret(b"not-the-servers-secret-at-all-no").unwrap(),
    )
    .unwrap();
    assert_eq!(call(&s, "GET", "/rooms", &forged, None).await, 403);
    let unsigned = format!(
        "{}.{}.",
        base64_url(br#"{"alg":"none","typ":"JWT"}"#),
        base64_url(format!(r#"{{"exp":{exp},"role":"admin"}}"#).as_bytes())
    );
    assert_eq!(call(&s, "GET", "/rooms", &unsigned, None).await, 403);
    let no_exp = hs256(json!({"role": "admin"}));
    assert_eq!(call(&s, "GET", "/rooms", &no_exp, None).await, 403);
    s.stop().await;
}

fn hs256_kid(kid: &str, claims: Value) -> String {
    let mut header = Header::new(Algorithm::HS256);
    header.kid = Some(kid.to_string());
    encode(
        &header,
        &claims,
        &EncodingKey::from_secret(SECRET.as_bytes()).unwrap(),
    )
    .unwrap()
}

/// "An unknown `kid`" is refused for HS256 too: a token may name only the configured one.
#[tokio::test]
async fn an_hs256_token_naming_an_unknown_kid_is_forbidden() {
    let claims = json!({"exp": now() + 600, "role": "admin"});
    let mut cfg = config();
    cfg.jwt_hs256_secret = Some(SECRET.parse().unwrap());
    let s = start(cfg.clone()).await;
    assert_eq!(
        call(&s, "GET", "/rooms", &hs256(claims.clone()), None).await,
        200
    );
    let named = hs256_kid("main", claims.clone());
    assert_eq!(call(&s, "GET", "/rooms", &named, None).await, 403);
    s.stop().await;

    cfg.jwt_hs256_kid = Some("main".into());
    let s = start(cfg).await;
    assert_eq!(call(&s, "GET", "/rooms", &named, None).await, 200);
    assert_eq!(
        call(&s, "GET", "/rooms", &hs256(claims.clone()), None).await,
        200
    );
    let other = hs256_kid("old", claims);
    assert_eq!(call(&s, "GET", "/rooms", &other, None).await, 403);
    s.stop().await;
}

fn base64_url(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n =
            chunk.iter().fold(0u32, |acc, b| acc << 8 | u32::from(*b)) << (8 * (3 - chunk.len()));
        for i in 0..=chunk.len() {
            out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

#[tokio::test]
async fn jwks_keys_are_matched_by_kid_and_reloaded() {
    let dir = tempfile::tempdir().unwrap();
    let jwks = dir.path().join("jwks.json");
    std::fs::copy(fixture("jwks.json"), &jwks).unwrap();
    let mut cfg = config();
    cfg.jwt_jwks_file = Some(jwks.clone());
    let s = start(cfg).await;
    let claims = json!({"exp": now() + 600, "role": "admin"});
    let rsa = signed(Algorithm::RS256, "rsa-1", "rs256.pem", claims.clone());
    let ec = signed(Algorithm::ES256, "ec-1", "es256.pem", claims.clone());
    assert_eq!(call(&s, "GET", "/rooms", &rsa, None).await, 200);
    assert_eq!(call(&s, "GET", "/rooms", &ec, None).await, 200);
    let unknown = signed(Algorithm::RS256, "rsa-9", "rs256.pem", claims.clone());
    assert_eq!(call(&s, "GET", "/rooms", &unknown, None).await, 403);
    let wrong_alg = signed(Algorithm::ES256, "rsa-1", "es256.pem", claims);
    assert_eq!(call(&s, "GET", "/rooms", &wrong_alg, None).await, 403);
    // Drop the RSA key from the file: once read again, its tokens stop working.
    let mut set: Value = serde_json::from_slice(&std::fs::read(&jwks).unwrap()).unwrap();
    set["keys"]
        .as_array_mut()
        .unwrap()
        .retain(|k| k["kid"] == "ec-1");
    tokio::time::sleep(Duration::from_millis(1100)).await;
    std::fs::write(&jwks, serde_json::to_vec(&set).unwrap()).unwrap();
    let mut refused = false;
    for _ in 0..40 {
        if call(&s, "GET", "/rooms", &rsa, None).await == 403 {
            refused = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(refused, "the reloaded file no longer has the RSA key");
    assert_eq!(call(&s, "GET", "/rooms", &ec, None).await, 200);
    s.stop().await;
}

#[tokio::test]
async fn a_websocket_is_closed_when_its_token_expires() {
    let mut cfg = config();
    cfg.jwt_hs256_secret = Some(SECRET.parse().unwrap());
    let s = start(cfg).await;
    let admin = hs256(json!({"exp": now() + 600, "role": "admin"}));
    assert_eq!(
        call(&s, "POST", "/rooms", &admin, Some(json!({"id":"w"}))).await,
        201
    );
    let short = hs256(json!({"exp": now() + 2, "role": "viewer", "rooms": ["w"]}));
    let url = format!("{}/rooms/w/ws?format=json&token={short}", s.ws_base);
    let (stream, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let mut ws = common::Ws {
        stream,
        format: Format::Json,
    };
    let m = ws.recv_within(10.0).await;
    assert!(
        matches!(&m, Some(ServerMsg::Closed { reason }) if reason == "token expired"),
        "{m:?}"
    );
    s.stop().await;
}

#[tokio::test]
async fn sub_names_the_caller_in_rate_limits() {
    let mut cfg = config();
    cfg.jwt_hs256_secret = Some(SECRET.parse().unwrap());
    cfg.query_rate = 1;
    let s = start(cfg).await;
    let exp = now() + 600;
    let admin = hs256(json!({"exp": exp, "role": "admin"}));
    assert_eq!(
        call(&s, "POST", "/rooms", &admin, Some(json!({"id":"q"}))).await,
        201
    );
    let q = json!({"point":[0,0,0],"k":1});
    let mut statuses = Vec::new();
    // Different tokens of one `sub` share its bucket (two tokens burst, then refused).
    for i in 0..4 {
        let t = hs256(json!({"exp": exp + i, "role": "viewer", "rooms": ["q"], "sub": "alice"}));
        statuses.push(call(&s, "POST", "/rooms/q/query/nearest", &t, Some(q.clone())).await);
    }
    assert!(statuses.contains(&429), "{statuses:?}");
    let bob = hs256(json!({"exp": exp, "role": "viewer", "rooms": ["q"], "sub": "bob"}));
    assert_eq!(
        call(&s, "POST", "/rooms/q/query/nearest", &bob, Some(q)).await,
        200
    );
    s.stop().await;
}

/// A JWKS file that cannot be used stops the server at start, naming the file.
#[test]
fn an_unusable_jwks_file_is_named_at_start() {
    use canopy_server::JwtKeysError;
    use canopy_server::StartError;
    let dir = tempfile::tempdir().unwrap();
    let start = |path: PathBuf| {
        let mut cfg = config();
        cfg.jwt_jwks_file = Some(path);
        canopy_server::AppState::try_new(cfg).expect_err("the server must not start")
    };
    let missing = dir.path().join("missing.json");
    let e = start(missing.clone());
    assert!(
        matches!(&e, StartError::Jwt(JwtKeysError::Read { path, .. }) if *path == missing),
        "{e:?}"
    );
    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, "{").unwrap();
    let e = start(broken);
    assert!(
        matches!(e, StartError::Jwt(JwtKeysError::NotJwks { .. })),
        "{e:?}"
    );
    assert!(e.to_string().contains("broken.json"), "{e}");
}

#[tokio::test]
async fn nbf_and_iat_in_the_future_are_refused_beyond_a_small_leeway() {
    let mut cfg = config();
    cfg.jwt_hs256_secret = Some(SECRET.parse().unwrap());
    let s = start(cfg).await;
    let exp = now() + 86_400;
    let tomorrow = now() + 86_400 - 60;
    for claim in ["nbf", "iat"] {
        let early = hs256(json!({"exp": exp, "role": "admin", claim: tomorrow}));
        assert_eq!(
            call(&s, "GET", "/rooms", &early, None).await,
            403,
            "{claim}"
        );
        // A few seconds of clock skew between issuer and server is normal.
        let skewed = hs256(json!({"exp": exp, "role": "admin", claim: now() + 5}));
        assert_eq!(
            call(&s, "GET", "/rooms", &skewed, None).await,
            200,
            "{claim}"
        );
    }
    s.stop().await;
}

#[tokio::test]
async fn audience_and_issuer_are_checked_when_configured() {
    let mut cfg = config();
    cfg.jwt_hs256_secret = Some(SECRET.parse().unwrap());
    cfg.jwt_audience = Some("canopy".into());
    cfg.jwt_issuer = Some("https://auth.example".into());
    let s = start(cfg).await;
    let exp = now() + 600;
    let good = json!({"exp": exp, "role": "admin", "aud": "canopy", "iss": "https://auth.example"});
    assert_eq!(call(&s, "GET", "/rooms", &hs256(good), None).await, 200);
    let in_list = json!({"exp": exp, "role": "admin", "aud": ["billing", "canopy"], "iss": "https://auth.example"});
    assert_eq!(call(&s, "GET", "/rooms", &hs256(in_list), None).await, 200);
    for bad in [
        json!({"exp": exp, "role": "admin", "aud": "billing-api", "iss": "https://auth.example"}),
        json!({"exp": exp, "role": "admin", "iss": "https://auth.example"}),
        json!({"exp": exp, "role": "admin", "aud": "canopy", "iss": "https://other.example"}),
        json!({"exp": exp, "role": "admin", "aud": "canopy"}),
    ] {
        assert_eq!(
            call(&s, "GET", "/rooms", &hs256(bad.clone()), None).await,
            403,
            "{bad}"
        );
    }
    s.stop().await;
}

#[tokio::test]
async fn a_far_future_exp_keeps_a_websocket_open_without_overflow() {
    let mut cfg = config();
    cfg.jwt_hs256_secret = Some(SECRET.parse().unwrap());
    let s = start(cfg).await;
    let admin = hs256(json!({"exp": u64::MAX, "role": "admin"}));
    assert_eq!(
        call(&s, "POST", "/rooms", &admin, Some(json!({"id":"far"}))).await,
        201
    );
    let url = format!("{}/rooms/far/ws?format=json&token={admin}", s.ws_base);
    let (stream, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let mut ws = common::Ws {
        stream,
        format: Format::Json,
    };
    ws.send_raw(tokio_tungstenite::tungstenite::Message::text(
        r#"{"type":"subscribe"}"#,
    ))
    .await;
    let m = ws.recv_within(10.0).await;
    assert!(matches!(&m, Some(ServerMsg::Snapshot { .. })), "{m:?}");
    // The session still answers: it did not panic on the expiry arithmetic.
    assert_eq!(call(&s, "GET", "/rooms/far", &admin, None).await, 200);
    s.stop().await;
}
