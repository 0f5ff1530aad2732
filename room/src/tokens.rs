//! A room's editor and viewer tokens: made when the room is created (with access control
//! on), kept with the room (logged, journaled, handed to relays), compared by the edges.
//!
//! Invariant: a token is never formatted into a log line or an error (`Debug` hides it).

/// A room's editor and viewer tokens.
#[derive(Clone, PartialEq, Eq)]
pub struct RoomTokens {
    /// May read, edit, subscribe and query in the room.
    pub editor: String,
    /// May read, subscribe and query in the room, not edit.
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
