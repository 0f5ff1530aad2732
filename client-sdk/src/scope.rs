//! [`Scope`]: what a WebSocket subscription covers (the whole room or a region, and a
//! layer mask), and its check before it is sent.
//!
//! Invariant: a `Scope` that passed [`Scope::validate`] is one the server accepts, so a
//! subscription never fails for a reason the client could have seen, and the scope the
//! connection resubscribes with after a reconnect is always valid.

use canopy_protocol::message::Region;
use canopy_protocol::{ALL_LAYERS, ClientMsg, Encoding};

use crate::error::{ClientError, Result};

/// The scope of a subscription: a node is in scope when `node.mask & mask != 0` and,
/// with a region, its world AABB intersects the closed box `[min, max]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scope {
    /// `None`: the whole room.
    pub region: Option<Region>,
    /// Layer bits; the default passes every layer.
    pub mask: u32,
}

impl Default for Scope {
    fn default() -> Self {
        Scope::room()
    }
}

impl Scope {
    /// Every node of the room, on every layer.
    pub fn room() -> Self {
        Scope {
            region: None,
            mask: ALL_LAYERS,
        }
    }

    /// The nodes whose world AABB intersects the closed box `[min, max]`, on every
    /// layer.
    pub fn region(min: [f32; 3], max: [f32; 3]) -> Self {
        Scope {
            region: Some(Region { min, max }),
            mask: ALL_LAYERS,
        }
    }

    /// The same scope restricted to the layers of `mask`.
    pub fn with_mask(mut self, mask: u32) -> Self {
        self.mask = mask;
        self
    }

    /// Checks what the server would refuse with `invalid_value`: non-finite bounds or
    /// `min > max` on an axis.
    pub fn validate(&self) -> Result<()> {
        let Some(r) = &self.region else {
            return Ok(());
        };
        if !r.min.iter().chain(r.max.iter()).all(|v| v.is_finite()) {
            return Err(ClientError::InvalidArgument(
                "region bounds must be finite".into(),
            ));
        }
        if let Some(axis) = (0..3).find(|&a| r.min[a] > r.max[a]) {
            return Err(ClientError::InvalidArgument(format!(
                "region min > max on axis {axis}"
            )));
        }
        Ok(())
    }

    /// The `subscribe` message for this scope: `since` when the client holds this
    /// scope's copy as of that tick (a resume), `encoding` for world transforms.
    pub(crate) fn message(&self, since: Option<u64>, encoding: Encoding) -> ClientMsg {
        ClientMsg::Subscribe {
            region: self.region,
            mask: self.mask,
            since,
            encoding,
            follow: None,
            frustum: None,
            send_hz: None,
            tiers: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_matches_the_contract() {
        assert!(Scope::room().validate().is_ok());
        assert!(Scope::region([0.0; 3], [0.0; 3]).validate().is_ok());
        assert!(Scope::region([1.0, 0.0, 0.0], [0.0; 3]).validate().is_err());
        assert!(Scope::region([f32::NAN; 3], [0.0; 3]).validate().is_err());
    }
}
