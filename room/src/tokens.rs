//! A room's editor and viewer tokens: made when the room is created (with access control
//! on), shown once in the creation's answer, and from then on kept only as SHA-256
//! digests (logged, journaled, handed to relays, compared by the edges).
//!
//! Invariants: a token's plain text lives only in [`IssuedTokens`], which the creating
//! request answers and drops; nothing stored or sent between nodes can be presented as a
//! token. Neither type formats a token or a digest into a log line (`Debug` hides them).

use sha2::{Digest, Sha256};

/// How a digest is written where a token used to be stored (room metadata, replica
/// starts). Stored values without it are the plain tokens of data dirs written before
/// tokens were hashed; they are hashed when read.
const STORED_PREFIX: &str = "sha256:";

/// The SHA-256 of one token. The tokens are 256 random bits, so a plain hash (no salt, no
/// stretching) is as strong as the token itself against a reader of the data dir.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct TokenDigest([u8; 32]);

impl TokenDigest {
    /// The digest of a presented token.
    pub fn of(token: &str) -> Self {
        Self(Sha256::digest(token.as_bytes()).into())
    }

    /// Whether `presented` is the token this is the digest of. Compares in constant time
    /// (the digests, so the presented token's length does not show either).
    pub fn matches(&self, presented: &str) -> bool {
        let theirs = Self::of(presented).0;
        let diff = self
            .0
            .iter()
            .zip(theirs)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        diff == 0
    }

    /// The form kept in room metadata and replica starts: `sha256:` and 64 hex digits.
    pub fn to_stored(&self) -> String {
        let mut out = String::with_capacity(STORED_PREFIX.len() + 64);
        out.push_str(STORED_PREFIX);
        for b in self.0 {
            out.push_str(&format!("{b:02x}"));
        }
        out
    }

    /// Reads a stored digest; a value without the prefix is a plain token of an older
    /// data dir, hashed now.
    pub fn from_stored(stored: &str) -> Self {
        match stored.strip_prefix(STORED_PREFIX).and_then(parse_hex32) {
            Some(bytes) => Self(bytes),
            None => Self::of(stored),
        }
    }
}

impl std::fmt::Debug for TokenDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenDigest(..)")
    }
}

fn parse_hex32(hex: &str) -> Option<[u8; 32]> {
    if hex.len() != 64 || !hex.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

/// A room's editor and viewer tokens, as digests.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct RoomTokens {
    /// May read, edit, subscribe and query in the room.
    pub editor: TokenDigest,
    /// May read, subscribe and query in the room, not edit.
    pub viewer: TokenDigest,
}

impl std::fmt::Debug for RoomTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RoomTokens { .. }")
    }
}

impl RoomTokens {
    /// The digests of tokens that were never shown to anyone (a room only the admin and
    /// JWTs may use, such as the demo room).
    pub fn unseen() -> Self {
        Self::of(&IssuedTokens::generate())
    }

    /// The digests of `issued`.
    pub fn of(issued: &IssuedTokens) -> Self {
        Self {
            editor: TokenDigest::of(&issued.editor),
            viewer: TokenDigest::of(&issued.viewer),
        }
    }
}

/// A new room's tokens in plain text: the creation's answer carries them, and nothing
/// keeps them after it.
#[derive(Clone, PartialEq, Eq)]
pub struct IssuedTokens {
    /// The editor token.
    pub editor: String,
    /// The viewer token.
    pub viewer: String,
}

impl std::fmt::Debug for IssuedTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IssuedTokens { .. }")
    }
}

impl IssuedTokens {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digest_matches_only_its_token_and_round_trips_through_storage() {
        let issued = IssuedTokens::generate();
        assert_eq!(issued.editor.len(), 64);
        assert_ne!(issued.editor, issued.viewer);
        let t = RoomTokens::of(&issued);
        assert!(t.editor.matches(&issued.editor));
        assert!(!t.editor.matches(&issued.viewer));
        assert!(!t.editor.matches(""));
        let stored = t.editor.to_stored();
        assert!(
            !stored.contains(&issued.editor),
            "the stored form is not the token"
        );
        assert_eq!(TokenDigest::from_stored(&stored), t.editor);
        for shown in [format!("{t:?}"), format!("{issued:?}")] {
            assert!(
                !shown.contains(&issued.editor),
                "Debug hides tokens: {shown}"
            );
        }
    }

    #[test]
    fn a_plain_token_from_an_older_data_dir_is_hashed_when_read() {
        let old = random_token();
        assert!(TokenDigest::from_stored(&old).matches(&old));
        // A malformed digest is treated as a plain token, never as a match for anything
        // but itself.
        assert!(TokenDigest::from_stored("sha256:zz").matches("sha256:zz"));
    }
}
