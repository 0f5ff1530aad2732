//! Interest that follows a player (v1.2): the scopes beside a fixed region (a sphere
//! that follows a node, a camera's frustum), a subscriber's send rate, and distance
//! tiers that update far nodes less often.
//!
//! These are wire shapes only; the rules (when a node enters and leaves, how tiers
//! merge) are the server's, stated in `docs/protocol.md` section 4.

use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};

use crate::model::NodeId;

/// The most distance tiers one subscription may have.
pub const MAX_TIERS: usize = 8;

/// A scope that follows a node: the sphere of `radius` around the node's world
/// position, re-evaluated every tick. A node enters when its world AABB comes within
/// `radius` of the centre and leaves only beyond `radius + margin`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Follow {
    /// The followed node; always in scope while it exists.
    pub node: NodeId,
    /// The sphere's radius, world units; finite and at least 0.
    pub radius: f32,
    /// How far past `radius` an in-scope node may go before it leaves; absent: 10% of
    /// `radius`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<f32>,
}

impl Follow {
    /// The margin in effect: the given one, or a tenth of the radius.
    pub fn margin_or_default(&self) -> f32 {
        self.margin.unwrap_or(self.radius * 0.1)
    }
}

/// A camera's view volume: six planes `[nx, ny, nz, d]` with inward unit normals; a
/// point `p` is inside when `n·p + d >= 0` for all six. A node is in scope when its
/// world AABB is not wholly outside any plane.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct Frustum(pub [[f32; 4]; 6]);

/// One distance tier of a subscription: nodes within `within` of the scope's centre
/// (and beyond the previous tier) have their changes sent on every `every`-th send.
/// The last tier has no `within` and takes every node past the others.
///
/// A subscription has at most [`MAX_TIERS`] of them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Tier {
    /// The tier's outer distance from the centre; absent on the last tier only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within: Option<f32>,
    /// Send this tier's changes on every `every`-th send (1: every send); at least 1.
    pub every: u32,
}
