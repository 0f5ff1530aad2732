//! Follow scopes (v1.2): the sphere of radius R around a node's world position, kept up
//! to date as the node and everything else moves, with hysteresis.
//!
//! **The rule** (what a client sees): a live node is in scope when it is the followed
//! node, or when it passes the mask and either its world AABB is within R of the centre
//! (`point_aabb_dist <= R`), or it was in scope after the previous tick and is within
//! R + M. The centre is the followed node's world translation after the tick.
//!
//! **The invariant** [`FollowState`] keeps after every tick, with `c` the centre it was
//! last evaluated at: every node in scope (but the followed one) is within R + M of `c`,
//! and every node out of scope that passes the mask is farther than R from `c`.
//!
//! **How a tick keeps it**, in O(changed + crossing) rather than O(room) or O(scope):
//! 1. each node the tick changed that concerns the scope is evaluated by the rule at the
//!    new centre: the room's index (`follow_index.rs`) hands the scope those it holds,
//!    those its band files and those near its anchor, so a scope nothing near changed
//!    does nothing at all;
//! 2. if the centre moved, an unchanged node can only enter if it was beyond R of the
//!    old centre and is within R of the new one, and only leave if it was within R + M
//!    and is beyond it now. While the centre stays within a slack of its anchor, the
//!    scope's band (`follow_band.rs`: the nodes near the two surfaces around the anchor,
//!    sorted by distance) names the few that can; past it, the octree's shell query finds
//!    those in `(R - step, R]` and `(R + M, R + M + step]` (`step` the move, rounded
//!    up), and the band is built again around the new anchor.
//!
//! When the centre does not move, only the changed nodes are looked at. A tick that
//! changed more than twice as many nodes as all follow scopes hold (a busy room) takes
//! the other way, which costs O(scope) rather than O(changed) per scope: the sphere of
//! R + M around the new centre is evaluated by the rule and held nodes outside it leave
//! (`reevaluate`). If the followed node is removed, every node in scope leaves and the
//! scope stays empty (the caller sends the error) until the next subscription.

use canopy_protocol::NodeId;
use canopy_protocol::interest::Follow;
use canopy_scene::octree::point_aabb_dist;
use glam::Vec3;
use rustc_hash::FxHashSet;

use super::delta::DeltaParts;
use super::diff::{NodeChange, TickDiff};
use super::follow_band::{Band, reach};
use super::follow_index::FollowIndex;
use super::outbox::ConnId;
use super::scene_state::SceneState;
use super::scope::{Membership, centre_of, emit, push_current};

/// The world AABB and mask of a changed node after the tick (`None`: removed).
type ChangedBox = Option<(Vec3, Vec3, u32)>;

/// The boxes of the tick's changed nodes, in the diff's order: looked up once per tick
/// for all follow scopes, which each test every changed node against their sphere.
#[derive(Debug, Default)]
pub(super) struct ChangedBoxes(Vec<ChangedBox>);

impl ChangedBoxes {
    /// The boxes in the diff's order.
    pub(super) fn iter(&self) -> std::slice::Iter<'_, ChangedBox> {
        self.0.iter()
    }

    /// Refills the boxes for this tick's `diff`.
    pub(super) fn fill(&mut self, diff: &TickDiff, scene: &SceneState) {
        self.0.clear();
        self.0.extend(diff.entries.iter().map(|e| {
            scene.octree().get(e.id).map(|b| {
                let (lo, hi) = b.aabb();
                (lo, hi, b.mask)
            })
        }));
    }
}

/// How this tick's follow scopes learn of its changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FollowPass {
    /// Each scope was handed the changed nodes it can enter or leave
    /// ([`FollowState::events`], filled by `follow_index.rs`); a scope handed none has
    /// nothing to do (its followed node, always held, did not move either).
    Events,
    /// The tick changed more nodes than the scopes hold: each scope re-evaluates its
    /// sphere instead (`reevaluate`), O(scope) however much of the room changed.
    Reevaluate,
}

/// A follow scope's in-scope set together with the room's [`FollowIndex`]: every
/// insertion and removal goes through here, so the index's holders never disagree with
/// the sets.
pub(super) struct Held<'a> {
    set: &'a mut FxHashSet<NodeId>,
    index: &'a mut FollowIndex,
    conn: ConnId,
}

impl<'a> Held<'a> {
    pub(super) fn new(
        set: &'a mut FxHashSet<NodeId>,
        index: &'a mut FollowIndex,
        conn: ConnId,
    ) -> Self {
        Self { set, index, conn }
    }

    fn contains(&self, id: NodeId) -> bool {
        self.set.contains(&id)
    }

    /// True when `id` was not held before.
    fn insert(&mut self, id: NodeId) -> bool {
        let new = self.set.insert(id);
        if new {
            self.index.hold(id, self.conn);
        }
        new
    }

    /// True when `id` was held.
    fn remove(&mut self, id: NodeId) -> bool {
        let was = self.set.remove(&id);
        if was {
            self.index.release(id, self.conn);
        }
        was
    }
}

/// A follow scope's moving state (see the module doc for its rule and invariant).
#[derive(Debug)]
pub(super) struct FollowState {
    /// The centre the scope was last evaluated at.
    centre: Vec3,
    /// The anchor: the centre the room's [`FollowIndex`] has the scope at and the
    /// [`Band`] is built around; within the band's slack of the centre after each
    /// tick's routing (`follow_index.rs` moves it, and invalidates the band, when the
    /// centre drifts farther).
    pub(super) placed: Vec3,
    /// The nodes that can cross the sphere's surfaces while the centre stays near the
    /// anchor.
    pub(super) band: Band,
    /// The followed node was removed: the scope is empty for good.
    lost: bool,
    /// This tick's changed nodes (positions in the diff, ascending) that this scope
    /// holds or whose boxes are within R of its new centre.
    pub(super) events: Vec<u32>,
    /// The shell query's answers (entering, leaving), reused from tick to tick.
    scratch: (Vec<NodeId>, Vec<NodeId>),
    /// The sphere query's answers with their distances, reused from tick to tick.
    near: Vec<(NodeId, f32)>,
}

/// Rounds a centre's move up so that the triangle inequality survives the f32 rounding
/// of `point_aabb_dist`: a few units in the last place of the largest coordinate in play.
pub(super) fn conservative_step(from: Vec3, to: Vec3, outer: f32) -> f32 {
    let step = from.distance(to);
    let scale = from.abs().max_element().max(to.abs().max_element()) + outer + step + 1.0;
    step * (1.0 + 1e-5) + scale * 1e-5
}

impl FollowState {
    /// The state of a scope just answered with a snapshot around `centre`.
    pub(super) fn new(centre: Vec3) -> Self {
        Self {
            centre,
            placed: centre,
            band: Band::default(),
            lost: false,
            events: Vec::new(),
            scratch: (Vec::new(), Vec::new()),
            near: Vec::new(),
        }
    }

    /// The centre tiers measure from (the followed node's position after the tick).
    pub(super) fn centre(&self) -> Vec3 {
        self.centre
    }

    /// True once the followed node was removed (the scope is out of the index).
    pub(super) fn is_lost(&self) -> bool {
        self.lost
    }

    /// Whether this tick has anything for the scope: in an events pass only the scopes
    /// handed changes do (so the others' sets are not even touched).
    pub(super) fn has_work(&self, pass: FollowPass) -> bool {
        !self.lost && (pass == FollowPass::Reevaluate || !self.events.is_empty())
    }

    /// Whether live node `id`, with world AABB and mask `b`, is in scope at centre `c`
    /// by the rule, given whether it `was`.
    fn rule(f: &Follow, mask: u32, c: Vec3, id: NodeId, b: &ChangedBox, was: bool) -> bool {
        if id == f.node {
            return true;
        }
        match b {
            Some((lo, hi, m)) if m & mask != 0 => {
                let d = point_aabb_dist(c, *lo, *hi);
                d <= f.radius || (was && d <= f.radius + f.margin_or_default())
            }
            _ => false,
        }
    }

    /// This tick's delta of the scope into `out`, updating the `held` set. Answers the
    /// followed node's id when this tick removed it (then everything left the scope).
    pub(super) fn tick_parts(
        &mut self,
        (diff, scene, boxes): (&TickDiff, &SceneState, &ChangedBoxes),
        (pass, f, mask): (FollowPass, &Follow, u32),
        mut held: Held<'_>,
        out: &mut DeltaParts,
    ) -> Option<NodeId> {
        out.clear();
        if self.lost || (pass == FollowPass::Events && self.events.is_empty()) {
            return None;
        }
        let Some(c) = centre_of(scene, f.node) else {
            self.lost = true;
            self.events.clear();
            self.band.invalidate((&mut *held.index, held.conn));
            held.index.lose(held.conn, (f, self.placed, reach(f)));
            for id in held.set.drain() {
                held.index.release(id, held.conn);
                out.remove.push(id);
            }
            out.remove.sort_unstable();
            return Some(f.node);
        };
        if pass == FollowPass::Reevaluate {
            self.reevaluate((diff, scene), f, mask, c, &mut held, out);
            self.band.invalidate((&mut *held.index, held.conn));
            self.centre = c;
            return None;
        }
        debug_assert_eq!(boxes.0.len(), diff.entries.len(), "boxes of another tick");
        for &i in &self.events {
            let (e, b) = (&diff.entries[i as usize], &boxes.0[i as usize]);
            let was = held.contains(e.id);
            let is =
                !e.change.contains(NodeChange::REMOVED) && Self::rule(f, mask, c, e.id, b, was);
            if is != was {
                if is {
                    held.insert(e.id);
                } else {
                    held.remove(e.id);
                }
            }
            if e.change.contains(NodeChange::REMOVED) {
                if was {
                    out.remove.push(e.id);
                }
            } else {
                emit(scene, e.id, e.change, Membership::of(was, is), out);
            }
            let live = b
                .filter(|(_, _, m)| m & mask != 0)
                .map(|(lo, hi, _)| (lo, hi));
            let watch = (&mut *held.index, held.conn);
            self.band.refile((f, self.placed), (e.id, live), watch);
        }
        self.events.clear();
        if c != self.centre {
            self.cross_surfaces(scene, (f, mask, c), &mut held, out);
            self.centre = c;
        }
        None
    }

    /// Step 2 of the module doc: the unchanged nodes the centre's move brought within R
    /// enter, those it took beyond R + M leave. From the band while the centre is near
    /// its anchor; else from the octree's shells, and the band is built for the ticks
    /// after.
    fn cross_surfaces(
        &mut self,
        scene: &SceneState,
        (f, mask, c): (&Follow, u32, Vec3),
        held: &mut Held<'_>,
        out: &mut DeltaParts,
    ) {
        let outer = f.radius + f.margin_or_default();
        let drift = conservative_step(self.placed, c, outer);
        if !self.band.covers(drift, f) {
            self.sweep_shells(scene, f, mask, c, held, out);
            let from = (scene.octree(), (&mut *held.index, held.conn));
            self.band
                .build(from, (f, mask, self.placed), drift, &mut self.scratch);
            return;
        }
        self.band.crossing((f, self.placed), drift, |id, lo, hi| {
            // Filed nodes pass the mask: `mask` itself stands in for theirs.
            let b = Some((lo, hi, mask));
            let was = held.contains(id);
            match (was, Self::rule(f, mask, c, id, &b, was)) {
                (false, true) => {
                    held.insert(id);
                    push_current(scene, id, false, out);
                }
                (true, false) => {
                    held.remove(id);
                    out.remove.push(id);
                }
                _ => {}
            }
        });
    }

    /// The other way to step 1 and 2, for a tick that changed more nodes than the
    /// scopes hold: the sphere of R + M around `c` (every node that can be in scope now)
    /// is evaluated by the rule, and the held nodes outside it leave. O(scope), however
    /// much of the room changed.
    fn reevaluate(
        &mut self,
        (diff, scene): (&TickDiff, &SceneState),
        f: &Follow,
        mask: u32,
        c: Vec3,
        held: &mut Held<'_>,
        out: &mut DeltaParts,
    ) {
        let candidates = &mut self.near;
        let outer = f.radius + f.margin_or_default();
        scene.octree().sphere_dist(c, outer, mask, candidates);
        let has = |candidates: &[(NodeId, f32)], id: NodeId| {
            candidates.binary_search_by_key(&id, |&(n, _)| n).is_ok()
        };
        // Held nodes beyond R + M (or removed) leave; the followed node never does.
        for &id in held.set.iter() {
            if id != f.node && !has(candidates, id) {
                out.remove.push(id);
            }
        }
        for &id in &out.remove {
            held.remove(id);
        }
        out.remove.sort_unstable();
        if !has(candidates, f.node) {
            Self::follow_node_outside((diff, scene), f.node, held, out);
        }
        for &(id, d) in candidates.iter() {
            let was = held.contains(id);
            // Every candidate is within R + M, so a held one stays.
            let is = id == f.node || d <= f.radius || was;
            let change = diff.change_of(id).unwrap_or(NodeChange::empty());
            match (was, is) {
                (false, true) => {
                    held.insert(id);
                    push_current(scene, id, false, out);
                }
                (true, true) => emit(scene, id, change, Membership::Stayed, out),
                // An unheld node beyond R stays out.
                _ => {}
            }
        }
    }

    /// The followed node when its mask keeps it out of the sphere query: in scope all
    /// the same.
    fn follow_node_outside(
        (diff, scene): (&TickDiff, &SceneState),
        node: NodeId,
        held: &mut Held<'_>,
        out: &mut DeltaParts,
    ) {
        let change = diff.change_of(node).unwrap_or(NodeChange::empty());
        if held.insert(node) {
            push_current(scene, node, false, out);
        } else {
            emit(scene, node, change, Membership::Stayed, out);
        }
    }

    /// Step 2 of the module doc: the unchanged nodes the centre's move brought within R
    /// enter, those it took beyond R + M leave. Changed nodes were settled at `c`
    /// already, so the shells find nothing to do for them.
    fn sweep_shells(
        &mut self,
        scene: &SceneState,
        f: &Follow,
        mask: u32,
        c: Vec3,
        held: &mut Held<'_>,
        out: &mut DeltaParts,
    ) {
        let (r, outer) = (f.radius, f.radius + f.margin_or_default());
        let step = conservative_step(self.centre, c, outer);
        let (entering, leaving) = &mut self.scratch;
        let shells = ((r - step, r), (outer, outer + step));
        scene.octree().shells(c, shells, mask, (entering, leaving));
        for &id in entering.iter() {
            if held.insert(id) {
                push_current(scene, id, false, out);
            }
        }
        for &id in leaving.iter() {
            if id != f.node && held.remove(id) {
                out.remove.push(id);
            }
        }
    }

    /// Panics unless the invariant of the module doc holds for `in_scope` (a full scan:
    /// for tests).
    pub(super) fn assert_well_formed(
        &self,
        scene: &SceneState,
        f: &Follow,
        mask: u32,
        in_scope: &FxHashSet<NodeId>,
    ) {
        if self.lost {
            assert!(in_scope.is_empty(), "a lost follow scope holds nodes");
            return;
        }
        let (r, outer) = (f.radius, f.radius + f.margin_or_default());
        for n in scene.hierarchy().iter_nodes() {
            let Some(b) = scene.octree().get(n.id) else {
                continue;
            };
            let (lo, hi) = b.aabb();
            let d = point_aabb_dist(self.centre, lo, hi);
            let held = in_scope.contains(&n.id);
            if n.id == f.node {
                assert!(held, "the followed node {} is out of scope", n.id);
            } else if held {
                assert!(
                    b.mask & mask != 0 && d <= outer,
                    "node {} held at {d}",
                    n.id
                );
            } else if b.mask & mask != 0 {
                assert!(d > r, "node {} within {r} ({d}) but out of scope", n.id);
            }
        }
        for id in in_scope {
            assert!(scene.hierarchy().contains(*id), "dead node {id} in scope");
        }
        let boxes = scene.hierarchy().iter_nodes().filter_map(|n| {
            let b = scene.octree().get(n.id)?;
            let (lo, hi) = b.aabb();
            Some((n.id, lo, hi, b.mask))
        });
        self.band.assert_well_formed((f, mask, self.placed), boxes);
    }
}
