//! A moving follow scope's band: the nodes that can cross its sphere's surfaces while
//! its centre stays within a slack `S` of an anchor, so that a slowly moving scope finds
//! what crosses without an octree query each tick.
//!
//! With `a` the anchor, `c` the new centre and `D` the farthest the centre has been from
//! `a` since (rounded up, `D <= S`), an unchanged node can only **enter** if its distance
//! to the anchor `d_a` is in `(R - D, R + D]` (it was beyond R of the previous centre and
//! is within R of `c`), and only **leave** if `d_a` is in `(R + M - D, R + M + D]` (it
//! was within R + M and is beyond it now): the triangle inequality, twice. The band holds
//! the nodes with `d_a` in `(R - S, R + S]` or `(R + M - S, R + M + S]`, sorted by `d_a`,
//! so a tick tests only the two slices its `D` selects, with the rule itself.
//!
//! **Invariant** ([`Band::assert_well_formed`]): while the band is built, every live node
//! passing the scope's mask whose world AABB is in those ranges of the anchor is in it,
//! and every node in it is live, passes the mask and is filed with its current AABB (a
//! tick's test reads no octree). It holds because the room's index routes to the scope
//! every changed node its band holds (the band's nodes are *watched* there) or that is
//! within R + M + S of the anchor, and the scope re-files each ([`Band::refile`]).

use canopy_protocol::NodeId;
use canopy_protocol::interest::Follow;
use canopy_scene::octree::{Octree, point_aabb_dist};
use glam::Vec3;

use super::follow_index::FollowIndex;
use super::outbox::ConnId;

/// Each range is widened by this share of the largest coordinate in play, so a node the
/// f32 arithmetic puts on the edge is filed on both readings.
const PAD: f32 = 1e-5;

/// The slack of a follow scope: how far its centre may drift from the anchor before the
/// band is rebuilt around the new centre. The margin (or a sixteenth of the radius when
/// the margin is smaller): wide enough to last many ticks of walking, narrow enough that
/// the band holds a thin shell of the scope.
pub(super) fn slack(f: &Follow) -> f32 {
    f.margin_or_default().max(f.radius / 16.0).max(1e-3)
}

/// The radius around the anchor within which a changed node concerns the scope: its
/// band, and the sphere of R around any centre within the slack (the room's index
/// routes changed nodes by it).
pub(super) fn reach(f: &Follow) -> f32 {
    let outer = f.radius + f.margin_or_default() + slack(f);
    outer + pad(Vec3::ZERO, outer)
}

/// The rounding allowance for distances around `anchor` up to `outer`.
fn pad(anchor: Vec3, outer: f32) -> f32 {
    (anchor.abs().max_element() + outer + 1.0) * PAD
}

/// A node of the band, with its world AABB when filed.
#[derive(Clone, Copy, Debug)]
struct Filed {
    /// Its distance to the anchor.
    d: f32,
    id: NodeId,
    lo: Vec3,
    hi: Vec3,
}

/// The room's index and the scope's connection: the band's nodes are watched in the
/// index under it, so a change to any of them is routed to the scope.
pub(super) type Watch<'a> = (&'a mut FollowIndex, ConnId);

/// A follow scope's band (see the module doc).
#[derive(Debug, Default)]
pub(super) struct Band {
    /// Sorted by `d`.
    entries: Vec<Filed>,
    /// The farthest the centre has been from the anchor since the band was built.
    drift: f32,
    /// False until built, and after a tick that went around the band (`reevaluate`).
    valid: bool,
}

impl Band {
    /// True when the band can answer for a centre `drift` from the anchor.
    pub(super) fn covers(&self, drift: f32, f: &Follow) -> bool {
        self.valid && drift <= slack(f)
    }

    /// The ids it watches.
    pub(super) fn ids(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.entries.iter().map(|e| e.id)
    }

    /// Forgets the band (the next move rebuilds it), unwatching its nodes.
    pub(super) fn invalidate(&mut self, (index, conn): Watch<'_>) {
        for e in self.entries.drain(..) {
            index.unwatch(e.id, conn);
        }
        self.valid = false;
    }

    /// The two ranges around `anchor` (entering, leaving), each widened by `by` and by
    /// the rounding allowance.
    fn ranges(f: &Follow, anchor: Vec3, by: f32) -> ((f32, f32), (f32, f32)) {
        let (r, outer) = (f.radius, f.radius + f.margin_or_default());
        let p = pad(anchor, outer + by);
        ((r - by - p, r + by + p), (outer - by - p, outer + by + p))
    }

    fn in_ranges(d: f32, ((a0, a1), (b0, b1)): ((f32, f32), (f32, f32))) -> bool {
        (a0 < d && d <= a1) || (b0 < d && d <= b1)
    }

    /// Builds the band around `anchor` from the octree, the centre now `drift` from it.
    pub(super) fn build(
        &mut self,
        (octree, watch): (&Octree, Watch<'_>),
        (f, mask, anchor): (&Follow, u32, Vec3),
        drift: f32,
        scratch: &mut (Vec<NodeId>, Vec<NodeId>),
    ) {
        let (index, conn) = watch;
        self.invalidate((&mut *index, conn));
        let ranges = Self::ranges(f, anchor, slack(f));
        octree.shells(anchor, ranges, mask, (&mut scratch.0, &mut scratch.1));
        // A node in both ranges (when S > M / 2) is found twice: filed once.
        scratch.0.extend_from_slice(&scratch.1);
        scratch.0.sort_unstable();
        scratch.0.dedup();
        for &id in &scratch.0 {
            if let Some(b) = octree.get(id) {
                let (lo, hi) = b.aabb();
                let d = point_aabb_dist(anchor, lo, hi);
                self.entries.push(Filed { d, id, lo, hi });
                index.watch(id, conn);
            }
        }
        self.entries.sort_unstable_by(|x, y| x.d.total_cmp(&y.d));
        self.drift = drift;
        self.valid = true;
    }

    /// Notes the centre is now `drift` from the anchor; calls `test` with each node (and
    /// its box) that can have crossed a surface since the band was built (see the
    /// module doc).
    pub(super) fn crossing(
        &mut self,
        (f, anchor): (&Follow, Vec3),
        drift: f32,
        mut test: impl FnMut(NodeId, Vec3, Vec3),
    ) {
        self.drift = self.drift.max(drift);
        let ((a0, a1), (b0, b1)) = Self::ranges(f, anchor, self.drift);
        for (lo, hi) in [(a0, a1), (b0.max(a1), b1)] {
            let from = self.entries.partition_point(|e| e.d <= lo);
            for e in &self.entries[from..] {
                if e.d > hi {
                    break;
                }
                test(e.id, e.lo, e.hi);
            }
        }
    }

    /// Files changed node `id` again by its box now (`None`: removed or off the mask).
    pub(super) fn refile(
        &mut self,
        (f, anchor): (&Follow, Vec3),
        (id, b): (NodeId, Option<(Vec3, Vec3)>),
        (index, conn): Watch<'_>,
    ) {
        if !self.valid {
            return;
        }
        let had = self.entries.iter().position(|e| e.id == id);
        if let Some(at) = had {
            self.entries.remove(at);
        }
        let filed = b.and_then(|(lo, hi)| {
            let d = point_aabb_dist(anchor, lo, hi);
            Self::in_ranges(d, Self::ranges(f, anchor, slack(f))).then_some(Filed { d, id, lo, hi })
        });
        if let Some(e) = filed {
            let at = self.entries.partition_point(|x| x.d <= e.d);
            self.entries.insert(at, e);
        }
        match (had.is_some(), filed.is_some()) {
            (true, false) => index.unwatch(id, conn),
            (false, true) => index.watch(id, conn),
            _ => {}
        }
    }

    /// Panics unless the invariant of the module doc holds (a scan of `nodes`, each id
    /// with its box and mask: for tests).
    pub(super) fn assert_well_formed(
        &self,
        (f, mask, anchor): (&Follow, u32, Vec3),
        nodes: impl Iterator<Item = (NodeId, Vec3, Vec3, u32)>,
    ) {
        if !self.valid {
            assert!(self.entries.is_empty(), "an unbuilt band holds nodes");
            return;
        }
        assert!(
            self.entries.is_sorted_by(|x, y| x.d <= y.d),
            "band out of order"
        );
        // Narrower than the build's ranges by the padding: on the edge either is right.
        let s = slack(f);
        let (r, outer) = (f.radius, f.radius + f.margin_or_default());
        let p = 2.0 * pad(anchor, outer + s);
        let inner = ((r - s + p, r + s - p), (outer - s + p, outer + s - p));
        let mut filed = 0;
        for (id, lo, hi, m) in nodes {
            let e = self.entries.iter().find(|e| e.id == id);
            if let Some(e) = e {
                assert!(m & mask != 0, "node {id} off the mask is in the band");
                assert!(
                    (e.lo, e.hi) == (lo, hi),
                    "node {id}'s box in the band is stale"
                );
                filed += 1;
            }
            let d = point_aabb_dist(anchor, lo, hi);
            if m & mask != 0 && Self::in_ranges(d, inner) {
                assert!(
                    e.is_some(),
                    "node {id} at {d} from the anchor is not in the band"
                );
            }
        }
        assert_eq!(filed, self.entries.len(), "dead nodes in the band");
    }
}
