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
//! 1. each node the tick changed is evaluated by the rule at the new centre;
//! 2. if the centre moved by `step` (rounded up), an unchanged node can only enter if it
//!    is now in the shell `(R - step, R]` (it was beyond R of the old centre) and only
//!    leave if it is in `(R + M, R + M + step]` (it was within R + M): the octree's shell
//!    query finds exactly those, skipping cells wholly inside or outside.
//!
//! When the centre does not move, only the changed nodes are looked at. A tick that
//! changed more than twice as many nodes as the scope holds (a busy room, many avatars
//! moving at once) takes the other way, which costs O(scope) rather than O(changed):
//! the sphere of R + M around the new centre is evaluated by the rule and held nodes
//! outside it leave (`reevaluate`). If the followed
//! node is removed, every node in scope leaves and the scope stays empty (the caller
//! sends the error) until the next subscription.

use canopy_protocol::NodeId;
use canopy_protocol::interest::Follow;
use canopy_scene::octree::point_aabb_dist;
use glam::Vec3;
use rustc_hash::FxHashSet;

use super::delta::DeltaParts;
use super::diff::{NodeChange, TickDiff};
use super::scene_state::SceneState;
use super::scope::{Membership, centre_of, emit, push_current};

/// The world AABB and mask of a changed node after the tick (`None`: removed).
type ChangedBox = Option<(Vec3, Vec3, u32)>;

/// The boxes of the tick's changed nodes, in the diff's order: looked up once per tick
/// for all follow scopes, which each test every changed node against their sphere.
#[derive(Debug, Default)]
pub(super) struct ChangedBoxes(Vec<ChangedBox>);

impl ChangedBoxes {
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

/// A follow scope's moving state (see the module doc for its rule and invariant).
#[derive(Debug)]
pub(super) struct FollowState {
    /// The centre the scope was last evaluated at.
    centre: Vec3,
    /// The followed node was removed: the scope is empty for good.
    lost: bool,
    /// The shell queries' answers, reused from tick to tick.
    scratch: Vec<NodeId>,
    /// The sphere query's answers with their distances, reused from tick to tick.
    near: Vec<(NodeId, f32)>,
}

/// Rounds a centre's move up so that the triangle inequality survives the f32 rounding
/// of `point_aabb_dist`: a few units in the last place of the largest coordinate in play.
fn conservative_step(from: Vec3, to: Vec3, outer: f32) -> f32 {
    let step = from.distance(to);
    let scale = from.abs().max_element().max(to.abs().max_element()) + outer + step + 1.0;
    step * (1.0 + 1e-5) + scale * 1e-5
}

impl FollowState {
    /// The state of a scope just answered with a snapshot around `centre`.
    pub(super) fn new(centre: Vec3) -> Self {
        Self {
            centre,
            lost: false,
            scratch: Vec::new(),
            near: Vec::new(),
        }
    }

    /// The centre tiers measure from (the followed node's position after the tick).
    pub(super) fn centre(&self) -> Vec3 {
        self.centre
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

    /// This tick's delta of the scope into `out`, updating `in_scope`. Answers the
    /// followed node's id when this tick removed it (then everything left the scope).
    pub(super) fn tick_parts(
        &mut self,
        (diff, scene, boxes): (&TickDiff, &SceneState, &ChangedBoxes),
        f: &Follow,
        mask: u32,
        in_scope: &mut FxHashSet<NodeId>,
        out: &mut DeltaParts,
    ) -> Option<NodeId> {
        out.clear();
        if self.lost {
            return None;
        }
        let Some(c) = centre_of(scene, f.node) else {
            self.lost = true;
            out.remove.extend(in_scope.drain());
            out.remove.sort_unstable();
            return Some(f.node);
        };
        if diff.entries.len() > 2 * in_scope.len() {
            self.reevaluate((diff, scene), f, mask, c, in_scope, out);
            self.centre = c;
            return None;
        }
        debug_assert_eq!(boxes.0.len(), diff.entries.len(), "boxes of another tick");
        for (e, b) in diff.entries.iter().zip(&boxes.0) {
            let was = in_scope.contains(&e.id);
            let is =
                !e.change.contains(NodeChange::REMOVED) && Self::rule(f, mask, c, e.id, b, was);
            if is != was {
                if is {
                    in_scope.insert(e.id);
                } else {
                    in_scope.remove(&e.id);
                }
            }
            if e.change.contains(NodeChange::REMOVED) {
                if was {
                    out.remove.push(e.id);
                }
            } else {
                emit(scene, e.id, e.change, Membership::of(was, is), out);
            }
        }
        if c != self.centre {
            self.sweep_shells(scene, f, mask, c, in_scope, out);
            self.centre = c;
        }
        None
    }

    /// The other way to step 1 and 2, for a tick that changed more nodes than twice the
    /// scope holds: the sphere of R + M around `c` (every node that can be in scope now)
    /// is evaluated by the rule, and the held nodes outside it leave. O(scope), however
    /// much of the room changed.
    fn reevaluate(
        &mut self,
        (diff, scene): (&TickDiff, &SceneState),
        f: &Follow,
        mask: u32,
        c: Vec3,
        in_scope: &mut FxHashSet<NodeId>,
        out: &mut DeltaParts,
    ) {
        let candidates = &mut self.near;
        let outer = f.radius + f.margin_or_default();
        scene.octree().sphere_dist(c, outer, mask, candidates);
        let has = |candidates: &[(NodeId, f32)], id: NodeId| {
            candidates.binary_search_by_key(&id, |&(n, _)| n).is_ok()
        };
        // Held nodes beyond R + M (or removed) leave; the followed node never does.
        for &id in in_scope.iter() {
            if id != f.node && !has(candidates, id) {
                out.remove.push(id);
            }
        }
        for id in &out.remove {
            in_scope.remove(id);
        }
        out.remove.sort_unstable();
        if !has(candidates, f.node) {
            Self::follow_node_outside((diff, scene), f.node, in_scope, out);
        }
        for &(id, d) in candidates.iter() {
            let was = in_scope.contains(&id);
            // Every candidate is within R + M, so a held one stays.
            let is = id == f.node || d <= f.radius || was;
            let change = diff.change_of(id).unwrap_or(NodeChange::empty());
            match (was, is) {
                (false, true) => {
                    in_scope.insert(id);
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
        in_scope: &mut FxHashSet<NodeId>,
        out: &mut DeltaParts,
    ) {
        let change = diff.change_of(node).unwrap_or(NodeChange::empty());
        if in_scope.insert(node) {
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
        in_scope: &mut FxHashSet<NodeId>,
        out: &mut DeltaParts,
    ) {
        let (r, outer) = (f.radius, f.radius + f.margin_or_default());
        let step = conservative_step(self.centre, c, outer);
        let octree = scene.octree();
        octree.shell(c, r - step, r, mask, &mut self.scratch);
        for &id in &self.scratch {
            if in_scope.insert(id) {
                push_current(scene, id, false, out);
            }
        }
        octree.shell(c, outer, outer + step, mask, &mut self.scratch);
        for &id in &self.scratch {
            if id != f.node && in_scope.remove(&id) {
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
    }
}
