//! [`Scope`]: what a WebSocket subscription covers and how often it is sent: the whole
//! room, a region, (v1.2) the sphere following a node or a camera's frustum, a layer
//! mask, and (v1.2) a send rate and distance tiers; with its check before it is sent.
//!
//! Invariant: a `Scope` that passed [`Scope::validate`] breaks none of the rules the
//! contract lets a client check by itself (at most one of region, follow and frustum;
//! finite bounds with `min <= max`; a radius and margin of at least 0; unit plane
//! normals; a send rate of at least 1 and at most 240, the highest tick rate; tiers
//! (at most eight) with increasing distances and only the last one unbounded, each sent at least every
//! send), so a subscription is refused only for what the server alone knows (a node to
//! follow that does not exist, a send rate above the room's tick rate, a server that
//! does not serve v1.2). The connection resubscribes with the same scope after a
//! reconnect, so that one is always valid too.

use canopy_protocol::interest::MAX_TIERS;
use canopy_protocol::message::Region;
use canopy_protocol::{ALL_LAYERS, ClientMsg, Encoding, Follow, Frustum, NodeId, Tier};
use glam::{Mat4, Vec4};

use crate::error::{ClientError, Result};

/// The highest tick rate a room may have, so the highest send rate that can make sense.
pub const MAX_SEND_HZ: u32 = 240;

/// How far from 1 the length of a frustum plane's normal may be.
const UNIT_NORMAL_TOLERANCE: f32 = 1e-3;

/// The scope of a subscription. A node is in scope when `node.mask & mask != 0` and
/// its world AABB meets the shape: the closed box `region`, the sphere of `follow`, or
/// the view volume `frustum`; with none of the three, the whole room. At most one of
/// them may be given.
///
/// `send_hz` and `tiers` do not change what is in scope, only how often its changes
/// are sent: the server merges the changes between two sends (latest values win), and
/// with tiers sends a far node's changes only on every `every`-th send.
#[derive(Clone, Debug, PartialEq)]
pub struct Scope {
    /// The box whose intersecting nodes are in scope.
    pub region: Option<Region>,
    /// (v1.2) The sphere around a node's world position, following it: a node enters
    /// within `radius` and leaves beyond `radius + margin`; the followed node is always
    /// in scope while it exists.
    pub follow: Option<Follow>,
    /// (v1.2) A camera's view volume: six planes with inward unit normals.
    pub frustum: Option<Frustum>,
    /// Layer bits; the default passes every layer.
    pub mask: u32,
    /// (v1.2) At most this many frames a second (1 to the room's tick rate); `None`:
    /// a frame after every tick that changed something in scope.
    pub send_hz: Option<u32>,
    /// (v1.2) Distance tiers from the scope's centre, nearest first; empty: every
    /// change on every send.
    pub tiers: Vec<Tier>,
}

impl Default for Scope {
    fn default() -> Self {
        Scope::room()
    }
}

/// The depth range of a projection's clip space, for
/// [`Scope::frustum_from_view_projection`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClipDepth {
    /// `0 <= z <= w`: Vulkan, Direct3D, Metal, wgpu, and glam's `perspective_rh`.
    ZeroToOne,
    /// `-w <= z <= w`: OpenGL, and glam's `perspective_rh_gl`.
    MinusOneToOne,
}

impl Scope {
    /// Every node of the room, on every layer.
    pub fn room() -> Self {
        Scope {
            region: None,
            follow: None,
            frustum: None,
            mask: ALL_LAYERS,
            send_hz: None,
            tiers: Vec::new(),
        }
    }

    /// The nodes whose world AABB intersects the closed box `[min, max]`, on every
    /// layer.
    pub fn region(min: [f32; 3], max: [f32; 3]) -> Self {
        Scope {
            region: Some(Region { min, max }),
            ..Scope::room()
        }
    }

    /// (v1.2) The nodes whose world AABB comes within `radius` of the world position of
    /// `node`, re-evaluated every tick as it moves; a node leaves beyond `radius` plus
    /// the default margin (10% of `radius`).
    pub fn follow(node: NodeId, radius: f32) -> Self {
        Scope {
            follow: Some(Follow {
                node,
                radius,
                margin: None,
            }),
            ..Scope::room()
        }
    }

    /// (v1.2) [`Scope::follow`] with its own `margin`: a node leaves only beyond
    /// `radius + margin`, so one at the edge does not flicker in and out.
    pub fn follow_with_margin(node: NodeId, radius: f32, margin: f32) -> Self {
        Scope {
            follow: Some(Follow {
                node,
                radius,
                margin: Some(margin),
            }),
            ..Scope::room()
        }
    }

    /// (v1.2) The nodes whose world AABB is not wholly outside any of the six planes
    /// `[nx, ny, nz, d]` (a point `p` is inside a plane when `n·p + d >= 0`). The planes
    /// are normalized here (`n` and `d` divided by `|n|`), so any positive multiple of a
    /// plane will do.
    pub fn frustum(planes: [[f32; 4]; 6]) -> Self {
        Scope {
            frustum: Some(Frustum(planes.map(normalize_plane))),
            ..Scope::room()
        }
    }

    /// (v1.2) The frustum a camera sees, from its combined view-projection matrix
    /// (`projection * view`, column-major as glam and most engines store it: element
    /// `[c][r]` is column `c`, row `r`), whose clip space has the depth range `depth`.
    pub fn frustum_from_view_projection(view_projection: [[f32; 4]; 4], depth: ClipDepth) -> Self {
        let m = Mat4::from_cols_array_2d(&view_projection);
        let row = |i| m.row(i);
        let near = match depth {
            ClipDepth::ZeroToOne => row(2),
            ClipDepth::MinusOneToOne => row(3) + row(2),
        };
        let planes: [Vec4; 6] = [
            row(3) + row(0),
            row(3) - row(0),
            row(3) + row(1),
            row(3) - row(1),
            near,
            row(3) - row(2),
        ];
        Scope::frustum(planes.map(|p| p.to_array()))
    }

    /// The same scope restricted to the layers of `mask`.
    pub fn with_mask(mut self, mask: u32) -> Self {
        self.mask = mask;
        self
    }

    /// (v1.2) The same scope sent at most `hz` times a second.
    pub fn with_send_hz(mut self, hz: u32) -> Self {
        self.send_hz = Some(hz);
        self
    }

    /// (v1.2) The same scope with distance tiers, nearest first: the nodes within
    /// `tiers[i].within` of the scope's centre (and beyond the tier before) are sent on
    /// every `tiers[i].every`-th send; the last tier has no `within` and takes the rest.
    pub fn with_tiers(mut self, tiers: impl Into<Vec<Tier>>) -> Self {
        self.tiers = tiers.into();
        self
    }

    /// Whether the scope uses a v1.2 field (a server of v1.1 refuses it as
    /// `bad_request`).
    pub fn uses_v1_2(&self) -> bool {
        self.follow.is_some()
            || self.frustum.is_some()
            || self.send_hz.is_some()
            || !self.tiers.is_empty()
    }

    /// Whether some tier sends its nodes less often than every send: then a node absent
    /// from a frame may have moved all the same, and must not be taken to be at rest.
    pub fn has_sparse_tiers(&self) -> bool {
        self.tiers.iter().any(|t| t.every > 1)
    }

    /// Checks what the server would refuse and the client can see: see the module
    /// invariant. Fails with [`ClientError::InvalidArgument`] naming the rule.
    pub fn validate(&self) -> Result<()> {
        let shapes = [
            self.region.is_some(),
            self.follow.is_some(),
            self.frustum.is_some(),
        ];
        if shapes.iter().filter(|&&s| s).count() > 1 {
            return invalid("give at most one of region, follow and frustum".into());
        }
        if let Some(r) = &self.region {
            if !r.min.iter().chain(r.max.iter()).all(|v| v.is_finite()) {
                return invalid("region bounds must be finite".into());
            }
            if let Some(axis) = (0..3).find(|&a| r.min[a] > r.max[a]) {
                return invalid(format!("region min > max on axis {axis}"));
            }
        }
        if let Some(f) = &self.follow {
            if !(f.radius.is_finite() && f.radius >= 0.0) {
                return invalid(format!(
                    "follow radius {} must be finite and >= 0",
                    f.radius
                ));
            }
            if let Some(m) = f.margin
                && !(m.is_finite() && m >= 0.0)
            {
                return invalid(format!("follow margin {m} must be finite and >= 0"));
            }
        }
        if let Some(Frustum(planes)) = &self.frustum {
            for (i, p) in planes.iter().enumerate() {
                if !p.iter().all(|v| v.is_finite()) {
                    return invalid(format!("frustum plane {i} must be finite"));
                }
                let len = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
                if (len - 1.0).abs() > UNIT_NORMAL_TOLERANCE {
                    return invalid(format!(
                        "frustum plane {i} has a normal of length {len}, not 1 \
                         (Scope::frustum normalizes)"
                    ));
                }
            }
        }
        if let Some(hz) = self.send_hz
            && !(1..=MAX_SEND_HZ).contains(&hz)
        {
            return invalid(format!("send_hz {hz} must be 1 to {MAX_SEND_HZ}"));
        }
        self.validate_tiers()
    }

    fn validate_tiers(&self) -> Result<()> {
        if self.tiers.len() > MAX_TIERS {
            let n = self.tiers.len();
            return invalid(format!("{n} tiers: at most {MAX_TIERS}"));
        }
        let last = self.tiers.len().saturating_sub(1);
        let mut previous = f32::NEG_INFINITY;
        for (i, tier) in self.tiers.iter().enumerate() {
            if tier.every == 0 {
                return invalid(format!("tier {i}: every must be at least 1"));
            }
            match (tier.within, i == last) {
                (None, true) => {}
                (Some(_), true) => {
                    return invalid("the last tier takes every farther node: no within".into());
                }
                (None, false) => {
                    return invalid(format!("tier {i}: only the last tier may omit within"));
                }
                (Some(d), false) => {
                    if !(d.is_finite() && d >= 0.0) {
                        return invalid(format!("tier {i}: within {d} must be finite and >= 0"));
                    }
                    if d <= previous {
                        return invalid(format!("tier {i}: within {d} must exceed {previous}"));
                    }
                    previous = d;
                }
            }
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
            follow: self.follow,
            frustum: self.frustum,
            send_hz: self.send_hz,
            tiers: self.tiers.clone(),
        }
    }
}

fn invalid(message: String) -> Result<()> {
    Err(ClientError::InvalidArgument(message))
}

/// `[n, d] / |n|`, or the plane unchanged when `|n|` is zero or not finite (which
/// [`Scope::validate`] then refuses).
fn normalize_plane(p: [f32; 4]) -> [f32; 4] {
    let len = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
    if len > 0.0 && len.is_finite() {
        p.map(|v| v / len)
    } else {
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    fn tier(within: Option<f32>, every: u32) -> Tier {
        Tier { within, every }
    }

    #[test]
    fn validation_matches_the_contract() {
        assert!(Scope::room().validate().is_ok());
        assert!(Scope::region([0.0; 3], [0.0; 3]).validate().is_ok());
        assert!(Scope::region([1.0, 0.0, 0.0], [0.0; 3]).validate().is_err());
        assert!(Scope::region([f32::NAN; 3], [0.0; 3]).validate().is_err());
    }

    #[test]
    fn follow_frustum_rate_and_tiers_are_checked_before_sending() {
        let ok = [
            Scope::follow(7, 0.0),
            Scope::follow_with_margin(7, 25.0, 0.0),
            Scope::frustum([[0.0, 0.0, 2.0, 1.0]; 6]),
            Scope::room().with_send_hz(1),
            Scope::region([0.0; 3], [1.0; 3]).with_send_hz(MAX_SEND_HZ),
            Scope::follow(7, 30.0).with_tiers([tier(None, 1)]),
            Scope::follow(7, 30.0).with_tiers([
                tier(Some(0.0), 1),
                tier(Some(20.0), 2),
                tier(None, 8),
            ]),
        ];
        for scope in ok {
            assert!(scope.validate().is_ok(), "{scope:?}");
        }
        let two_shapes = Scope {
            follow: Some(Follow {
                node: 1,
                radius: 1.0,
                margin: None,
            }),
            ..Scope::region([0.0; 3], [1.0; 3])
        };
        let unnormalized = Scope {
            frustum: Some(Frustum([[0.0, 0.0, 2.0, 1.0]; 6])),
            ..Scope::room()
        };
        let bad = [
            two_shapes,
            unnormalized,
            Scope::frustum([[0.0; 4]; 6]),
            Scope::frustum([[f32::INFINITY, 0.0, 0.0, 0.0]; 6]),
            Scope::follow(7, -1.0),
            Scope::follow(7, f32::NAN),
            Scope::follow_with_margin(7, 5.0, -0.5),
            Scope::room().with_send_hz(0),
            Scope::room().with_send_hz(MAX_SEND_HZ + 1),
            Scope::follow(7, 30.0).with_tiers([tier(Some(10.0), 1)]),
            Scope::follow(7, 30.0).with_tiers([tier(None, 1), tier(None, 2)]),
            // Nine tiers: one more than a subscription may have.
            Scope::follow(7, 30.0).with_tiers(
                (0..9)
                    .map(|i| tier((i < 8).then_some(i as f32), 1))
                    .collect::<Vec<_>>(),
            ),
            Scope::follow(7, 30.0).with_tiers([
                tier(Some(10.0), 1),
                tier(Some(10.0), 2),
                tier(None, 4),
            ]),
            Scope::follow(7, 30.0).with_tiers([
                tier(Some(20.0), 1),
                tier(Some(10.0), 2),
                tier(None, 4),
            ]),
            Scope::follow(7, 30.0).with_tiers([tier(Some(-1.0), 1), tier(None, 2)]),
            Scope::follow(7, 30.0).with_tiers([tier(None, 0)]),
        ];
        for scope in bad {
            assert!(
                matches!(scope.validate(), Err(ClientError::InvalidArgument(_))),
                "{scope:?}"
            );
        }
    }

    #[test]
    fn the_message_carries_every_field_and_only_v1_2_scopes_use_v1_2() {
        let scope = Scope::follow_with_margin(4, 12.0, 1.5)
            .with_mask(3)
            .with_send_hz(10)
            .with_tiers([tier(Some(6.0), 1), tier(None, 3)]);
        assert!(scope.uses_v1_2() && scope.has_sparse_tiers());
        let msg = scope.message(Some(41), Encoding::Compact);
        assert!(msg.uses_v1_2());
        assert_eq!(
            msg,
            ClientMsg::Subscribe {
                region: None,
                mask: 3,
                since: Some(41),
                encoding: Encoding::Compact,
                follow: Some(Follow {
                    node: 4,
                    radius: 12.0,
                    margin: Some(1.5)
                }),
                frustum: None,
                send_hz: Some(10),
                tiers: vec![tier(Some(6.0), 1), tier(None, 3)],
            }
        );
        for old in [
            Scope::room(),
            Scope::region([0.0; 3], [1.0; 3]).with_mask(2),
        ] {
            assert!(!old.uses_v1_2());
            assert!(!old.message(None, Encoding::Exact).uses_v1_2());
        }
    }

    /// Whether `p` is inside every plane of the scope's frustum.
    fn inside(scope: &Scope, p: Vec3) -> bool {
        let Frustum(planes) = scope.frustum.expect("a frustum scope");
        planes
            .iter()
            .all(|q| Vec3::new(q[0], q[1], q[2]).dot(p) + q[3] >= 0.0)
    }

    #[test]
    fn a_frustum_from_a_camera_holds_what_the_camera_sees() {
        // A camera at (0, 2, 10) looking at the origin, 90 degrees wide, depth 1 to 100.
        let view = Mat4::look_at_rh(Vec3::new(0.0, 2.0, 10.0), Vec3::ZERO, Vec3::Y);
        let fov = std::f32::consts::FRAC_PI_2;
        for (projection, depth) in [
            (
                Mat4::perspective_rh(fov, 1.0, 1.0, 100.0),
                ClipDepth::ZeroToOne,
            ),
            (
                Mat4::perspective_rh_gl(fov, 1.0, 1.0, 100.0),
                ClipDepth::MinusOneToOne,
            ),
        ] {
            let vp = (projection * view).to_cols_array_2d();
            let scope = Scope::frustum_from_view_projection(vp, depth);
            assert!(scope.validate().is_ok(), "{scope:?}");
            // Seen: the origin, a point near the far plane, a point just past the near one.
            for seen in [
                Vec3::ZERO,
                Vec3::new(0.0, 2.0, -85.0),
                Vec3::new(0.0, 2.0, 8.5),
            ] {
                assert!(inside(&scope, seen), "{depth:?}: {seen} should be seen");
            }
            // Not seen: behind the camera, nearer than the near plane, past the far
            // plane, and off to the side beyond the 45-degree half angle.
            for unseen in [
                Vec3::new(0.0, 2.0, 12.0),
                Vec3::new(0.0, 2.0, 9.5),
                Vec3::new(0.0, 2.0, -95.0),
                Vec3::new(12.0, 2.0, 0.0),
                Vec3::new(0.0, 14.0, 0.0),
            ] {
                assert!(
                    !inside(&scope, unseen),
                    "{depth:?}: {unseen} should not be seen"
                );
            }
        }
    }
}
