//! Signed tokens (docs/protocol.md §6, v1.1): a JWT is accepted wherever a token goes, verified
//! with `--jwt-hs256-secret` (HS256) or the keys of `--jwt-jwks-file` (RS256 and ES256,
//! picked by the header's `kid`; the file is read again when it changes). An HS256 token
//! may name a `kid` only if it is `--jwt-hs256-kid`.
//!
//! Invariants: a token is valid only with a good signature by a configured key, in the
//! algorithm that key is for, an `exp` claim in the future, no `nbf` or `iat` in the future
//! (beyond [`CLOCK_LEEWAY`]), and the `aud` and `iss` the server is configured to expect
//! (`--jwt-audience`, `--jwt-issuer`); `alg: none`, an unknown `kid`, a bad signature or a
//! malformed token is refused as forbidden, an expired one as unauthorized. Time claims
//! are checked in whole seconds with saturating arithmetic, so no value a client writes
//! can overflow. Verification is done by `jsonwebtoken` (pure-Rust `rust_crypto`
//! backend); this module only decides which key and which rules apply.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use jsonwebtoken::jwk::{AlgorithmParameters, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode, decode_header};
use parking_lot::Mutex;
use serde::Deserialize;

/// How far `nbf` and `iat` may lie in the future: the clocks of the issuer and the server
/// are never exactly equal, and a token used the second it is minted must pass.
pub(crate) const CLOCK_LEEWAY: Duration = Duration::from_secs(30);

/// How often the JWKS file's modification time is looked at.
const RELOAD_CHECK: Duration = Duration::from_secs(1);

/// Why a JWT was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JwtError {
    /// `exp` is in the past: `401 unauthorized`.
    #[error("the token expired")]
    Expired,
    /// Anything else (signature, key, algorithm, claims): `403 forbidden`.
    #[error("the token is not valid: {0}")]
    Invalid(String),
}

/// The `role` claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JwtRole {
    Admin,
    Editor,
    Viewer,
}

#[derive(Debug, Deserialize)]
struct Claims {
    exp: u64,
    #[serde(default)]
    nbf: Option<u64>,
    #[serde(default)]
    iat: Option<u64>,
    #[serde(default)]
    role: Option<JwtRole>,
    #[serde(default)]
    rooms: Vec<String>,
    #[serde(default)]
    sub: Option<String>,
}

/// What a valid token grants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    /// The role (a token without one is a viewer).
    pub role: JwtRole,
    /// The rooms it is valid in; `*` is every room.
    pub rooms: Vec<String>,
    /// The caller's name, for logs and rate limits.
    pub sub: Option<String>,
    /// Seconds since the Unix epoch when it expires.
    pub exp: u64,
}

impl Grant {
    /// Whether the token is valid in `room`.
    pub fn covers(&self, room: &str) -> bool {
        self.rooms.iter().any(|r| r == "*" || r == room)
    }
}

/// The keys of a JWKS file and when the file was last read.
struct Jwks {
    path: PathBuf,
    keys: HashMap<String, (DecodingKey, Algorithm)>,
    modified: Option<SystemTime>,
    checked: Instant,
}

/// Why the configured keys cannot be used (at start; a JWKS file that breaks later keeps
/// the keys read before).
#[derive(Debug, thiserror::Error)]
pub enum JwtKeysError {
    /// The JWKS file cannot be read.
    #[error("cannot read the JWKS file {path}: {error}")]
    Read {
        /// The `--jwt-jwks-file` given.
        path: PathBuf,
        /// What reading it said.
        error: std::io::Error,
    },
    /// The JWKS file is not a JSON Web Key Set.
    #[error("{path} is not a JWKS: {error}")]
    NotJwks {
        /// The `--jwt-jwks-file` given.
        path: PathBuf,
        /// What parsing it said.
        error: serde_json::Error,
    },
    /// A key of the set is not usable.
    #[error("JWKS key {kid:?}: {error}")]
    Key {
        /// The key's `kid`.
        kid: String,
        /// Why it cannot verify.
        error: jsonwebtoken::errors::Error,
    },
    /// The HS256 secret is not usable.
    #[error("the HS256 secret: {0}")]
    Secret(jsonwebtoken::errors::Error),
}

fn load_jwks(path: &Path) -> Result<HashMap<String, (DecodingKey, Algorithm)>, JwtKeysError> {
    let text = std::fs::read_to_string(path).map_err(|error| JwtKeysError::Read {
        path: path.to_path_buf(),
        error,
    })?;
    let set: JwkSet = serde_json::from_str(&text).map_err(|error| JwtKeysError::NotJwks {
        path: path.to_path_buf(),
        error,
    })?;
    let mut keys = HashMap::new();
    for jwk in &set.keys {
        let Some(kid) = jwk.common.key_id.clone() else {
            continue;
        };
        let alg = match &jwk.algorithm {
            AlgorithmParameters::RSA(_) => Algorithm::RS256,
            AlgorithmParameters::EllipticCurve(_) => Algorithm::ES256,
            _ => continue,
        };
        let key = match DecodingKey::from_jwk(jwk) {
            Ok(key) => key,
            Err(error) => return Err(JwtKeysError::Key { kid, error }),
        };
        keys.insert(kid, (key, alg));
    }
    Ok(keys)
}

/// The configured verification keys.
pub struct JwtVerifier {
    hs256: Option<DecodingKey>,
    /// The one `kid` an HS256 token may name (`--jwt-hs256-kid`).
    hs256_kid: Option<String>,
    jwks: Option<Mutex<Jwks>>,
    /// The `aud` a token must name (`--jwt-audience`); any or none when unset.
    audience: Option<String>,
    /// The `iss` a token must carry (`--jwt-issuer`); any or none when unset.
    issuer: Option<String>,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("hs256", &self.hs256.is_some())
            .field("jwks", &self.jwks.as_ref().map(|j| j.lock().path.clone()))
            .finish()
    }
}

impl JwtVerifier {
    /// A verifier for the given secret and JWKS file; `None` when neither is set.
    pub fn new(
        secret: Option<&str>,
        secret_kid: Option<&str>,
        jwks: Option<&Path>,
    ) -> Result<Option<Self>, JwtKeysError> {
        if secret.is_none() && jwks.is_none() {
            return Ok(None);
        }
        let jwks = match jwks {
            None => None,
            Some(path) => Some(Mutex::new(Jwks {
                path: path.to_path_buf(),
                keys: load_jwks(path)?,
                modified: std::fs::metadata(path).and_then(|m| m.modified()).ok(),
                checked: Instant::now(),
            })),
        };
        let hs256 = secret
            .map(|s| DecodingKey::from_secret(s.as_bytes()))
            .transpose()
            .map_err(JwtKeysError::Secret)?;
        Ok(Some(JwtVerifier {
            hs256,
            hs256_kid: secret_kid.map(str::to_owned),
            jwks,
            audience: None,
            issuer: None,
        }))
    }

    /// Requires every token to name `audience` in its `aud` claim and to carry `issuer`
    /// as its `iss` (each only when given): a token minted for another service, or by
    /// another issuer sharing the key, is refused as forbidden.
    pub fn expecting(mut self, audience: Option<String>, issuer: Option<String>) -> Self {
        self.audience = audience;
        self.issuer = issuer;
        self
    }

    /// Re-reads the JWKS file if it changed (at most once per [`RELOAD_CHECK`]); a file
    /// that no longer parses keeps the keys read before, and says so in the log.
    fn refresh(jwks: &mut Jwks) {
        if jwks.checked.elapsed() < RELOAD_CHECK {
            return;
        }
        jwks.checked = Instant::now();
        let modified = std::fs::metadata(&jwks.path)
            .and_then(|m| m.modified())
            .ok();
        if modified == jwks.modified {
            return;
        }
        jwks.modified = modified;
        match load_jwks(&jwks.path) {
            Ok(keys) => {
                tracing::info!(path = %jwks.path.display(), keys = keys.len(), "JWKS reloaded");
                jwks.keys = keys;
            }
            Err(e) => {
                tracing::warn!(error = %e, "JWKS file changed but cannot be read; keeping the old keys")
            }
        }
    }

    /// The key and algorithm that verify a token with `header`: the HS256 secret, or
    /// the JWKS key its `kid` names, in the algorithm that key is for.
    fn key_for(&self, header: &jsonwebtoken::Header) -> Result<(DecodingKey, Algorithm), JwtError> {
        let invalid = |e: &dyn std::fmt::Display| JwtError::Invalid(e.to_string());
        Ok(match header.alg {
            Algorithm::HS256 => {
                let key = self
                    .hs256
                    .clone()
                    .ok_or_else(|| invalid(&"HS256 tokens are not accepted here"))?;
                if let Some(kid) = header.kid.as_deref()
                    && self.hs256_kid.as_deref() != Some(kid)
                {
                    return Err(invalid(&format!("unknown kid {kid:?}")));
                }
                (key, Algorithm::HS256)
            }
            Algorithm::RS256 | Algorithm::ES256 => {
                let jwks = self
                    .jwks
                    .as_ref()
                    .ok_or_else(|| invalid(&"no JWKS file is configured"))?;
                let mut jwks = jwks.lock();
                Self::refresh(&mut jwks);
                let kid = header.kid.as_deref().ok_or_else(|| invalid(&"no kid"))?;
                let (key, alg) = jwks
                    .keys
                    .get(kid)
                    .cloned()
                    .ok_or_else(|| invalid(&format!("unknown kid {kid:?}")))?;
                if alg != header.alg {
                    return Err(invalid(&format!("key {kid:?} is for {alg:?}")));
                }
                (key, alg)
            }
            other => return Err(invalid(&format!("algorithm {other:?} is not accepted"))),
        })
    }

    /// The rules a token verified with `alg` must pass in `jsonwebtoken` (`nbf` and
    /// `iat` are checked after, with their leeway).
    fn validation(&self, alg: Algorithm) -> Validation {
        let mut validation = Validation::new(alg);
        // A configured audience or issuer makes its claim required: a token without
        // one was not minted for this server.
        let mut required = vec!["exp"];
        required.extend(self.audience.as_ref().map(|_| "aud"));
        required.extend(self.issuer.as_ref().map(|_| "iss"));
        validation.set_required_spec_claims(&required);
        // `exp` is exact; `nbf` and `iat` get CLOCK_LEEWAY in `verify`, so the library's
        // own leeway (which would apply to all three) stays 0.
        validation.leeway = 0;
        validation.validate_nbf = false;
        match &self.audience {
            Some(aud) => validation.set_audience(&[aud]),
            None => validation.validate_aud = false,
        }
        if let Some(iss) = &self.issuer {
            validation.set_issuer(&[iss]);
        }
        validation
    }

    /// Verifies a token and answers what it grants.
    pub fn verify(&self, token: &str) -> Result<Grant, JwtError> {
        let invalid = |e: &dyn std::fmt::Display| JwtError::Invalid(e.to_string());
        let header = decode_header(token).map_err(|e| invalid(&e))?;
        let (key, alg) = self.key_for(&header)?;
        let validation = self.validation(alg);
        let data = decode::<Claims>(token, &key, &validation).map_err(|e| match e.kind() {
            jsonwebtoken::errors::ErrorKind::ExpiredSignature => JwtError::Expired,
            _ => invalid(&e),
        })?;
        let c = data.claims;
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        if c.exp <= now {
            return Err(JwtError::Expired);
        }
        let latest_start = now.saturating_add(CLOCK_LEEWAY.as_secs());
        if c.nbf.is_some_and(|nbf| nbf > latest_start) {
            return Err(invalid(
                &"the token is not valid yet (nbf is in the future)",
            ));
        }
        if c.iat.is_some_and(|iat| iat > latest_start) {
            return Err(invalid(&"the token was issued in the future (iat)"));
        }
        Ok(Grant {
            role: c.role.unwrap_or(JwtRole::Viewer),
            rooms: c.rooms,
            sub: c.sub,
            exp: c.exp,
        })
    }
}

/// True when `token` has the shape of a JWT (three dot-separated parts), so it is
/// verified as one rather than compared with the static tokens.
pub(crate) fn looks_like_jwt(token: &str) -> bool {
    token.split('.').count() == 3
}
