//! S2's room: `nodes` roots spread uniformly at random over a square on the ground
//! plane, at a density that puts about [`SCOPE_NODES`] of them within the follow radius
//! of any point, and the first `players` of them avatars that walk circles.
//!
//! Invariants: every node is a root, so its world transform is its local one and the
//! editors' scale codes reach the subscribers bit for bit (see `stamps`); ids are dense
//! (`0..nodes`, avatars first); an avatar's pose is a pure function of the edit tick
//! number, so every window of the benchmark replays the same walk.

use canopy_protocol::{NodeId, Op};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::load::world::{NodeSpec, World};

/// Nodes within the follow radius of a point, on average (away from the square's
/// edges): the "about 100 nodes in scope".
pub(crate) const SCOPE_NODES: f64 = 100.0;

/// Ground area per node, square units: 20,000 nodes make a square of side 1,000.
const AREA_PER_NODE: f64 = 50.0;

/// Half-extent of every node's box.
const HALF_EXTENT: f32 = 0.5;

/// An avatar's walking speed, units per second, and the radii of the circles it walks.
pub(crate) const WALK_SPEED: f32 = 4.0;
const WALK_RADIUS: std::ops::RangeInclusive<f32> = 10.0..=30.0;

/// One avatar's walk: a circle, travelled counter-clockwise at [`WALK_SPEED`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Walk {
    pub id: NodeId,
    centre: [f32; 2],
    radius: f32,
    /// Angle on the circle at tick 0, radians.
    phase: f32,
    /// Radians per edit tick.
    step: f32,
}

impl Walk {
    /// The avatar's translation and rotation (facing along the circle) at edit tick `k`.
    pub(crate) fn pose(&self, k: u64) -> ([f32; 3], [f32; 4]) {
        // In f64 and modulo a turn, so a long run does not lose the angle's precision.
        let turn = std::f64::consts::TAU;
        let angle = (f64::from(self.phase) + f64::from(self.step) * k as f64) % turn;
        let t = [
            self.centre[0] + self.radius * angle.cos() as f32,
            0.0,
            self.centre[1] + self.radius * angle.sin() as f32,
        ];
        // Heading: the tangent, a quarter turn ahead of the radius; a rotation about y.
        let half = ((angle + std::f64::consts::FRAC_PI_2) / 2.0) as f32;
        (t, [0.0, half.sin(), 0.0, half.cos()])
    }

    /// The `set_local` that puts the avatar where it is at tick `k`, with `scale`.
    pub(crate) fn op(&self, k: u64, scale: f32) -> Op {
        let (t, r) = self.pose(k);
        Op::SetLocal {
            node: self.id,
            t: Some(t),
            r: Some(r),
            s: Some(scale),
        }
    }
}

/// The room and the walks.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    pub world: World,
    /// Side of the square, units.
    pub side: f32,
    /// The follow radius that holds about [`SCOPE_NODES`] nodes.
    pub radius: f32,
    pub walks: Vec<Walk>,
}

impl Layout {
    /// `nodes` nodes, the first `players` of them avatars, for edits at `rate` a second.
    pub(crate) fn build(nodes: usize, players: usize, rate: f64, seed: u64) -> Layout {
        let side = (nodes as f64 * AREA_PER_NODE).sqrt() as f32;
        // Nodes whose box comes within R of the centre: their centres lie within about
        // R plus the box's half-size, hence the subtraction.
        let radius = ((SCOPE_NODES * AREA_PER_NODE / std::f64::consts::PI).sqrt() as f32
            - HALF_EXTENT)
            .max(1.0);
        let mut rng = SmallRng::seed_from_u64(seed ^ 0x5200_1a70);
        let mut walks = Vec::with_capacity(players.min(nodes));
        let mut specs = Vec::with_capacity(nodes);
        for id in 0..nodes {
            let local_t = if id < players {
                let r = rng.random_range(WALK_RADIUS).min(side / 2.0);
                let walk = Walk {
                    id: id as NodeId,
                    centre: [
                        rng.random_range(r..=side - r),
                        rng.random_range(r..=side - r),
                    ],
                    radius: r,
                    phase: rng.random_range(0.0..std::f32::consts::TAU),
                    step: WALK_SPEED / r / rate.max(1.0) as f32,
                };
                walks.push(walk);
                walk.pose(0).0
            } else {
                [
                    rng.random_range(0.0..side),
                    0.0,
                    rng.random_range(0.0..side),
                ]
            };
            specs.push(NodeSpec {
                id: id as NodeId,
                parent: None,
                local_t,
                extent: [HALF_EXTENT; 3],
                leaf: true,
            });
        }
        // Jittered nodes move by up to EDIT_JITTER; boxes are at most about 1 unit.
        let pad = crate::load::editor::EDIT_JITTER + 2.0 * HALF_EXTENT;
        let world = World {
            nodes: specs,
            min: [-pad, -pad, -pad],
            max: [side + pad, pad, side + pad],
        };
        Layout {
            world,
            side,
            radius,
            walks,
        }
    }

    /// The ids and home positions of the nodes that are not avatars.
    pub(crate) fn others(&self) -> Vec<(NodeId, [f32; 3])> {
        self.world.nodes[self.walks.len()..]
            .iter()
            .map(|n| (n.id, n.local_t))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_density_puts_about_the_target_within_the_radius() {
        let l = Layout::build(20_000, 500, 30.0, 1);
        assert_eq!((l.world.nodes.len(), l.walks.len()), (20_000, 500));
        assert!((l.side - 1000.0).abs() < 1.0, "{}", l.side);
        // Count around the centre of the square, away from its edges.
        let c = l.side / 2.0;
        let near = l
            .world
            .nodes
            .iter()
            .filter(|n| {
                let (dx, dz) = (n.local_t[0] - c, n.local_t[2] - c);
                (dx * dx + dz * dz).sqrt() <= l.radius + HALF_EXTENT
            })
            .count();
        assert!((60..=140).contains(&near), "{near} nodes near the centre");
        assert!(l.world.nodes.iter().all(|n| n.parent.is_none() && n.leaf));
        assert_eq!(l.others().len(), 19_500);
        assert_eq!(l.others()[0].0, 500);
    }

    #[test]
    fn avatars_walk_continuously_inside_the_square() {
        let l = Layout::build(2_000, 50, 30.0, 3);
        for w in &l.walks {
            assert_eq!(w.pose(0).0, l.world.nodes[w.id as usize].local_t);
            for k in 0..200 {
                let (a, r) = w.pose(k);
                let (b, _) = w.pose(k + 1);
                let step = ((b[0] - a[0]).powi(2) + (b[2] - a[2]).powi(2)).sqrt();
                // 4 units/s at 30 ticks/s, a chord of the circle.
                assert!((step - WALK_SPEED / 30.0).abs() < 1e-3, "{step}");
                assert!(a[0] >= 0.0 && a[0] <= l.side && a[2] >= 0.0 && a[2] <= l.side);
                let len: f32 = r.iter().map(|v| v * v).sum();
                assert!((len - 1.0).abs() < 1e-5);
            }
        }
    }
}
