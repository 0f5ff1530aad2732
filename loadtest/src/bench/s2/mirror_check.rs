//! S2's final check of every player's copy against the server's state, once the edits
//! stopped and every held change went out: the follow rule (docs/protocol.md,
//! "Interest scopes") computed by the harness from `GET /rooms/{room}/nodes`, not asked
//! of the server.
//!
//! For each player, with `c` its avatar's world translation on the server and `d` the
//! distance from `c` to a node's world AABB: the avatar is held; every node held is live
//! with the server's world transform, parent, extent and mask; every node with
//! `d <= R` is held; no node held (but the avatar) has `d > R + M`. Between R and R + M
//! either is right (hysteresis). Invariant: a node within [`TOLERANCE`] of R or R + M is
//! accepted either way, since the server rounds in `f32` what this computes in `f64`.

use std::sync::Arc;

use canopy_protocol::{Node, Transform};

use crate::load::mirror::DenseMirror;
use crate::load::subscriber::SubShared;
use crate::observe::expected_scope::world_aabb;

/// How close to a boundary (units) a distance may be and count either way: `f32`
/// rounding of coordinates up to about 1,000 is a few 1e-4.
const TOLERANCE: f64 = 1e-2;

/// What the check found, over every player.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct MirrorCheck {
    pub players: usize,
    /// Players whose copy had any of the faults below.
    pub wrong: usize,
    /// Copies never synced, or whose reader stopped early.
    pub unsynced: usize,
    pub no_avatar: u64,
    /// Held nodes the server no longer has.
    pub not_live: u64,
    /// Held nodes whose transform, parent, extent or mask differ from the server's.
    pub stale: u64,
    /// Nodes within R that the copy lacks.
    pub missing: u64,
    /// Held nodes beyond R + M.
    pub too_far: u64,
    /// Nodes held per copy at the end: mean, min, max.
    pub scope: (f64, usize, usize),
    /// The server's tick of the state checked against.
    pub tick: u64,
    /// Players that got a frame after that state was read (set by the caller): the
    /// traffic had not settled, so their copy may have been checked too early.
    pub late_frames: usize,
}

impl MirrorCheck {
    /// Whether every copy was right.
    pub(crate) fn passed(&self) -> bool {
        self.players > 0 && self.wrong == 0
    }

    /// Every fault counted so far.
    fn faults(&self) -> u64 {
        self.unsynced as u64
            + self.no_avatar
            + self.not_live
            + self.stale
            + self.missing
            + self.too_far
    }

    /// One line for the report.
    pub(crate) fn summary(&self) -> String {
        format!(
            "{} of {} copies right at tick {} (unsynced {}, avatar missing {}, not live {}, \
             stale {}, missing within R {}, held beyond R+M {}; {} with a frame after the \
             state was read); {:.1} nodes held on average ({}..{})",
            self.players - self.wrong,
            self.players,
            self.tick,
            self.unsynced,
            self.no_avatar,
            self.not_live,
            self.stale,
            self.missing,
            self.too_far,
            self.late_frames,
            self.scope.0,
            self.scope.1,
            self.scope.2
        )
    }
}

/// The distance from `c` to the node's world AABB, 0 inside it.
fn distance(c: [f64; 3], node: &Node) -> f64 {
    let (min, max) = world_aabb(node);
    (0..3)
        .map(|a| (min[a] - c[a]).max(c[a] - max[a]).max(0.0).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// Whether two world transforms agree (they travel exactly; a little slack for JSON).
fn same(a: &Transform, b: &Transform) -> bool {
    let close = |x: f32, y: f32| (x - y).abs() <= 1e-5 * (1.0 + x.abs().max(y.abs()));
    a.t.iter().zip(&b.t).all(|(x, y)| close(*x, *y))
        && a.r.iter().zip(&b.r).all(|(x, y)| close(*x, *y))
        && close(a.s, b.s)
}

/// The room's state as the check reads it: nodes by id, and the scope's two distances.
struct Rule<'a> {
    server: &'a [Node],
    by_id: Vec<Option<&'a Node>>,
    r: f64,
    outer: f64,
}

impl Rule<'_> {
    fn node(&self, id: u32) -> Option<&Node> {
        self.by_id.get(id as usize).copied().flatten()
    }

    /// Counts into `out` the faults of one copy, following `avatar`.
    fn check_copy(&self, mirror: &DenseMirror, avatar: u32, out: &mut MirrorCheck) {
        if mirror.get(avatar).is_none() {
            out.no_avatar += 1;
        }
        let Some(centre) = self.node(avatar) else {
            out.not_live += 1;
            return;
        };
        let c = centre.world.t.map(f64::from);
        for mine in mirror.nodes() {
            let Some(theirs) = self.node(mine.id) else {
                out.not_live += 1;
                continue;
            };
            if !same(&mine.world, &theirs.world)
                || mine.parent != theirs.parent
                || mine.extent != theirs.extent
                || mine.mask != theirs.mask
            {
                out.stale += 1;
            }
            if mine.id != avatar && distance(c, theirs) > self.outer + TOLERANCE {
                out.too_far += 1;
            }
        }
        for n in self.server {
            // The avatar is `no_avatar`'s business.
            if n.id != avatar && distance(c, n) < self.r - TOLERANCE && mirror.get(n.id).is_none() {
                out.missing += 1;
            }
        }
    }
}

/// Checks every follow subscriber of `subs` against `server` (every node of the room at
/// `tick`, ids dense), with radius `r` and margin `m`.
pub(crate) fn check(
    subs: &[Arc<SubShared>],
    server: &[Node],
    tick: u64,
    r: f32,
    m: f32,
) -> MirrorCheck {
    let mut by_id: Vec<Option<&Node>> = vec![None; server.len()];
    for n in server {
        if let Some(slot) = by_id.get_mut(n.id as usize) {
            *slot = Some(n);
        }
    }
    let rule = Rule {
        server,
        by_id,
        r: f64::from(r),
        outer: f64::from(r) + f64::from(m),
    };
    let mut out = MirrorCheck {
        tick,
        scope: (0.0, usize::MAX, 0),
        ..MirrorCheck::default()
    };
    let mut held_total = 0usize;
    for sub in subs {
        let Some(scope) = sub.spec.follow else {
            continue;
        };
        out.players += 1;
        let st = sub.lock();
        let before = out.faults();
        if !st.synced || st.ended.is_some() {
            out.unsynced += 1;
        }
        let held = st.mirror.len();
        held_total += held;
        out.scope.1 = out.scope.1.min(held);
        out.scope.2 = out.scope.2.max(held);
        rule.check_copy(&st.mirror, scope.follow.node, &mut out);
        if out.faults() != before {
            out.wrong += 1;
        }
    }
    if out.players > 0 {
        out.scope.0 = held_total as f64 / out.players as f64;
    } else {
        out.scope.1 = 0;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::subscriber::{FollowScope, SubSpec};
    use canopy_protocol::interest::Follow;

    fn node(id: u32, x: f32) -> Node {
        Node {
            id,
            parent: None,
            world: Transform {
                t: [x, 0.0, 0.0],
                ..Transform::IDENTITY
            },
            extent: [0.5; 3],
            mask: u32::MAX,
        }
    }

    /// A synced follower of node 0 (radius 10, margin 2) holding `held`.
    fn follower(held: &[Node]) -> Arc<SubShared> {
        let spec = SubSpec {
            follow: Some(FollowScope {
                follow: Follow {
                    node: 0,
                    radius: 10.0,
                    margin: Some(2.0),
                },
                send_hz: None,
                tiers: None,
            }),
            ..SubSpec::whole_room(0, 0)
        };
        let sub = Arc::new(SubShared::new(spec, 0));
        let mut st = sub.lock();
        assert!(st.mirror.apply_snapshot(held));
        st.synced = true;
        drop(st);
        sub
    }

    #[test]
    fn hysteresis_band_counts_either_way_and_faults_are_named() {
        // Box distances from node 0 at x = 0: 4.5, 10.5 (in the band), 13.5 (beyond).
        let server = [node(0, 0.0), node(1, 5.0), node(2, 11.0), node(3, 14.0)];
        let right = follower(&server[..2]);
        let banded = follower(&server[..3]);
        let c = check(&[right, banded], &server, 7, 10.0, 2.0);
        assert!(c.passed(), "{c:?}");
        assert_eq!((c.players, c.tick, c.scope.1, c.scope.2), (2, 7, 2, 3));
        let mut moved = server[1];
        moved.world.t[0] = 6.0;
        let wrong = [
            follower(&[server[1]]),                       // no avatar
            follower(&[server[0]]),                       // missing node 1
            follower(&[server[0], moved]),                // stale
            follower(&[server[0], server[1], server[3]]), // too far
        ];
        let c = check(&wrong, &server, 7, 10.0, 2.0);
        assert_eq!(c.wrong, 4);
        assert_eq!((c.no_avatar, c.stale, c.too_far), (1, 1, 1));
        assert_eq!(c.missing, 1);
        assert!(!c.passed());
    }
}
