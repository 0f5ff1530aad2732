//! Who may do what (API.md §5): the admin token, per-room editor and viewer tokens, and
//! the check of a presented token against what a request needs.
//!
//! Invariant: tokens are compared in constant time and never formatted into errors or
//! logs; a room's tokens are made with the room from the operating system's CSPRNG, 256
//! bits each.

use subtle::ConstantTimeEq;

/// What a presented token turned out to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The server runs without an admin token: everything is allowed.
    Open,
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
    pub role: Role,
    /// The key of the caller's query rate limit: its token, else its address.
    pub rate_key: String,
}

impl Caller {
    /// An open server's caller at `addr` (tests and internal callers).
    pub fn open(addr: &str) -> Caller {
        Caller {
            role: Role::Open,
            rate_key: format!("addr:{addr}"),
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
    #[error("this request needs a token (Authorization: Bearer, or ?token= on WebSocket)")]
    Missing,
    #[error("the token does not grant this request")]
    Wrong,
}

/// A room's editor and viewer tokens.
#[derive(Clone, PartialEq, Eq)]
pub struct RoomTokens {
    pub editor: String,
    pub viewer: String,
}

impl std::fmt::Debug for RoomTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RoomTokens { .. }")
    }
}

impl RoomTokens {
    /// Two fresh random tokens.
    pub fn generate() -> Self {
        Self {
            editor: random_token(),
            viewer: random_token(),
        }
    }
}

/// 256 random bits from the OS-seeded CSPRNG, as 64 hex digits.
pub fn random_token() -> String {
    use rand::RngCore;
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Constant-time equality of a presented token and a stored one.
pub fn token_eq(presented: &str, stored: &str) -> bool {
    presented.as_bytes().ct_eq(stored.as_bytes()).into()
}

/// Decides whether `token` grants `need`. `admin` is the server's admin token (None:
/// open server); `room_tokens` looks up a room's tokens.
pub fn authorize(
    admin: Option<&str>,
    token: Option<&str>,
    need: &Need,
    room_tokens: impl Fn(&str) -> Option<RoomTokens>,
) -> Result<Role, AccessError> {
    let Some(admin) = admin else {
        return Ok(Role::Open);
    };
    let token = token.ok_or(AccessError::Missing)?;
    if token_eq(token, admin) {
        return Ok(Role::Admin);
    }
    let (room, write) = match need {
        Need::Admin => return Err(AccessError::Wrong),
        Need::RoomRead(r) => (r, false),
        Need::RoomWrite(r) => (r, true),
    };
    let tokens = room_tokens(room).ok_or(AccessError::Wrong)?;
    // Compare with both tokens every time so timing does not tell which one matched.
    let editor = token_eq(token, &tokens.editor);
    let viewer = token_eq(token, &tokens.viewer);
    match (editor, viewer, write) {
        (true, _, _) => Ok(Role::Editor),
        (false, true, false) => Ok(Role::Viewer),
        _ => Err(AccessError::Wrong),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(_: &str) -> Option<RoomTokens> {
        Some(RoomTokens {
            editor: "ed".into(),
            viewer: "vi".into(),
        })
    }

    #[test]
    fn roles_follow_the_contract() {
        let admin = Some("adm");
        let read = Need::RoomRead("r".into());
        let write = Need::RoomWrite("r".into());
        assert_eq!(authorize(None, None, &Need::Admin, tokens), Ok(Role::Open));
        assert_eq!(
            authorize(admin, None, &read, tokens),
            Err(AccessError::Missing)
        );
        assert_eq!(
            authorize(admin, Some("adm"), &Need::Admin, tokens),
            Ok(Role::Admin)
        );
        assert_eq!(
            authorize(admin, Some("ed"), &Need::Admin, tokens),
            Err(AccessError::Wrong)
        );
        assert_eq!(
            authorize(admin, Some("ed"), &write, tokens),
            Ok(Role::Editor)
        );
        assert_eq!(
            authorize(admin, Some("vi"), &read, tokens),
            Ok(Role::Viewer)
        );
        assert_eq!(
            authorize(admin, Some("vi"), &write, tokens),
            Err(AccessError::Wrong)
        );
        assert_eq!(
            authorize(admin, Some("nope"), &read, tokens),
            Err(AccessError::Wrong)
        );
        assert_eq!(
            authorize(admin, Some("ed"), &read, |_| None),
            Err(AccessError::Wrong)
        );
    }

    #[test]
    fn tokens_are_long_and_distinct() {
        let t = RoomTokens::generate();
        assert_eq!(t.editor.len(), 64);
        assert_ne!(t.editor, t.viewer);
        assert!(!format!("{t:?}").contains(&t.editor), "Debug hides tokens");
    }
}
