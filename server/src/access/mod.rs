//! Who may do what (docs/protocol.md §6): the admin token, per-room editor and viewer tokens, and
//! the check of a presented token against what a request needs.
//!
//! Invariant: tokens are compared in constant time and never formatted into errors or
//! logs; a room's tokens are made with the room from the operating system's CSPRNG, 256
//! bits each.

pub(crate) mod jwt;
pub(crate) mod rate;

use canopy_room::tokens::RoomTokens;
use subtle::ConstantTimeEq;

/// What a presented token turned out to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The server runs without an admin token: everything is allowed.
    Open,
    /// The admin token (or an admin JWT): may do everything, in every room.
    Admin,
    /// May edit, subscribe and query in its room.
    Editor,
    /// May subscribe and query in its room.
    Viewer,
}

impl Role {
    /// Whether the role may send edit batches.
    pub fn may_edit(self) -> bool {
        matches!(self, Role::Open | Role::Admin | Role::Editor)
    }
}

/// Who sent a request, as the access check found it, for the handlers and sessions.
#[derive(Clone, Debug)]
pub struct Caller {
    /// What the caller's token grants.
    pub role: Role,
    /// The key of the caller's query rate limit: its JWT's `sub`, else its token, else
    /// its address.
    pub rate_key: String,
    /// When its token expires (a JWT), in seconds since the Unix epoch: a WebSocket
    /// session ends then.
    pub expires: Option<u64>,
    /// Who it is, for the logs: `role:room@address` or `sub@address`, never a token.
    pub who: String,
}

impl Caller {
    /// An open server's caller at `addr` (tests and internal callers).
    pub fn open(addr: &str) -> Caller {
        Caller {
            role: Role::Open,
            rate_key: format!("addr:{addr}"),
            expires: None,
            who: addr.to_string(),
        }
    }
}

/// What a request needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Need {
    /// Server-wide routes: room creation and listing, deletion, metrics.
    Admin,
    /// Reading a room: its summary, nodes, queries and subscriptions.
    RoomRead(String),
    /// Editing a room.
    RoomWrite(String),
}

/// Why access was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AccessError {
    /// No token was presented (`401 unauthorized`).
    #[error("this request needs a token (Authorization: Bearer, or ?token= on WebSocket)")]
    Missing,
    #[error("the token does not grant this request")]
    /// A token that is unknown, badly signed or lacks the right for this request
    /// (`403 forbidden`).
    Wrong,
    /// A JWT whose `exp` has passed (`401`, so the client knows to get a new one).
    #[error("the token expired")]
    Expired,
}

/// What a presented token was found to grant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Granted {
    /// The role the token carries.
    pub role: Role,
    /// A JWT's `sub`, the caller's name.
    pub sub: Option<String>,
    /// A JWT's `exp` (seconds since the Unix epoch).
    pub expires: Option<u64>,
}

impl Granted {
    fn role(role: Role) -> Self {
        Granted {
            role,
            sub: None,
            expires: None,
        }
    }
}

/// Constant-time equality of a presented token and a stored one.
pub fn token_eq(presented: &str, stored: &str) -> bool {
    presented.as_bytes().ct_eq(stored.as_bytes()).into()
}

/// Decides whether `token` grants `need`. `admin` is the server's admin token and `jwt`
/// its JWT keys (neither: an open server); `room_tokens` looks up a room's tokens.
pub fn authorize(
    admin: Option<&str>,
    jwt: Option<&crate::access::jwt::JwtVerifier>,
    token: Option<&str>,
    need: &Need,
    room_tokens: impl Fn(&str) -> Option<RoomTokens>,
) -> Result<Granted, AccessError> {
    if admin.is_none() && jwt.is_none() {
        return Ok(Granted::role(Role::Open));
    }
    let token = token.ok_or(AccessError::Missing)?;
    if let Some(admin) = admin
        && token_eq(token, admin)
    {
        return Ok(Granted::role(Role::Admin));
    }
    if let Some(jwt) = jwt
        && crate::access::jwt::looks_like_jwt(token)
    {
        return authorize_jwt(jwt, token, need);
    }
    let (room, write) = match need {
        Need::Admin => return Err(AccessError::Wrong),
        Need::RoomRead(r) => (r, false),
        Need::RoomWrite(r) => (r, true),
    };
    let tokens = room_tokens(room).ok_or(AccessError::Wrong)?;
    // Compare with both tokens every time so timing does not tell which one matched.
    let editor = tokens.editor.matches(token);
    let viewer = tokens.viewer.matches(token);
    match (editor, viewer, write) {
        (true, _, _) => Ok(Granted::role(Role::Editor)),
        (false, true, false) => Ok(Granted::role(Role::Viewer)),
        _ => Err(AccessError::Wrong),
    }
}

/// The rights of a JWT: its `role`, limited to its `rooms` unless it is an admin's.
fn authorize_jwt(
    jwt: &crate::access::jwt::JwtVerifier,
    token: &str,
    need: &Need,
) -> Result<Granted, AccessError> {
    use crate::access::jwt::{JwtError, JwtRole};
    let grant = jwt.verify(token).map_err(|e| match e {
        JwtError::Expired => AccessError::Expired,
        JwtError::Invalid(why) => {
            tracing::debug!(%why, "JWT refused");
            AccessError::Wrong
        }
    })?;
    let role = match (grant.role, need) {
        (JwtRole::Admin, _) => Role::Admin,
        (_, Need::Admin) => return Err(AccessError::Wrong),
        (JwtRole::Editor, Need::RoomRead(r) | Need::RoomWrite(r)) if grant.covers(r) => {
            Role::Editor
        }
        (JwtRole::Viewer, Need::RoomRead(r)) if grant.covers(r) => Role::Viewer,
        _ => return Err(AccessError::Wrong),
    };
    Ok(Granted {
        role,
        sub: grant.sub,
        expires: Some(grant.exp),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(_: &str) -> Option<RoomTokens> {
        Some(RoomTokens::of(&canopy_room::tokens::IssuedTokens {
            editor: "ed".into(),
            viewer: "vi".into(),
        }))
    }

    #[test]
    fn roles_follow_the_contract() {
        let admin = Some("adm");
        let read = Need::RoomRead("r".into());
        let write = Need::RoomWrite("r".into());
        assert_eq!(
            authorize(None, None, None, &Need::Admin, tokens),
            Ok(Granted::role(Role::Open))
        );
        assert_eq!(
            authorize(admin, None, None, &read, tokens),
            Err(AccessError::Missing)
        );
        assert_eq!(
            authorize(admin, None, Some("adm"), &Need::Admin, tokens),
            Ok(Granted::role(Role::Admin))
        );
        assert_eq!(
            authorize(admin, None, Some("ed"), &Need::Admin, tokens),
            Err(AccessError::Wrong)
        );
        assert_eq!(
            authorize(admin, None, Some("ed"), &write, tokens),
            Ok(Granted::role(Role::Editor))
        );
        assert_eq!(
            authorize(admin, None, Some("vi"), &read, tokens),
            Ok(Granted::role(Role::Viewer))
        );
        assert_eq!(
            authorize(admin, None, Some("vi"), &write, tokens),
            Err(AccessError::Wrong)
        );
        assert_eq!(
            authorize(admin, None, Some("nope"), &read, tokens),
            Err(AccessError::Wrong)
        );
        assert_eq!(
            authorize(admin, None, Some("ed"), &read, |_| None),
            Err(AccessError::Wrong)
        );
    }
}
