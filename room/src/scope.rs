//! Subscription scopes: which nodes a subscriber sees, its snapshot, and how one tick's
//! classified changes become that scope's delta.
//!
//! Whole-room scopes are stateless (a node is in scope when it passes the mask), so all
//! subscribers with the same mask share one delta. Region scopes remember the ids in
//! scope, because a node's entering or leaving the region is only visible by comparing
//! with what the client was last told. Both cost O(changed nodes) per tick.

use canopy_protocol::message::Region;
use canopy_protocol::{Node, NodeId, UpdateRow};
use glam::Vec3;
use rustc_hash::FxHashSet;

use super::delta::{DeltaParts, Upsert};
use super::diff::{NodeChange, TickDiff};
use super::scene_state::SceneState;
use canopy_scene::octree::aabb_intersects;

/// What a subscriber asked to see.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scope {
    /// The closed box whose intersecting nodes (by world AABB) are in scope; `None`:
    /// the whole room.
    pub region: Option<Region>,
    /// Only nodes with `node.mask & mask != 0` are in scope.
    pub mask: u32,
}

impl Scope {
    /// Every node on every layer.
    pub const WHOLE_ROOM: Scope = Scope {
        region: None,
        mask: u32::MAX,
    };

    /// A hashable key of the scope: equal keys are equal scopes (the region's floats by
    /// their bits, so `0.0` and `-0.0` are two keys of one scope: grouping by key may
    /// only miss a sharing, never share between different scopes).
    pub fn key(&self) -> ScopeKey {
        let region = self.region.map(|r| {
            let mut bits = [0u32; 6];
            for (b, v) in bits.iter_mut().zip(r.min.iter().chain(r.max.iter())) {
                *b = v.to_bits();
            }
            bits
        });
        ScopeKey(self.mask, region)
    }
}

/// See [`Scope::key`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScopeKey(u32, Option<[u32; 6]>);

fn region_bounds(r: &Region) -> (Vec3, Vec3) {
    (Vec3::from_array(r.min), Vec3::from_array(r.max))
}

/// How a node's membership of a scope changed over one tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Membership {
    /// Out of scope before and after: the client hears nothing.
    Outside,
    /// Came into scope: the client gets it in full.
    Entered,
    /// Went out of scope (or out of the room): the client removes it.
    Left,
    /// In scope before and after: the client gets what changed.
    Stayed,
}

impl Membership {
    fn of(was: bool, is: bool) -> Membership {
        match (was, is) {
            (false, false) => Membership::Outside,
            (false, true) => Membership::Entered,
            (true, false) => Membership::Left,
            (true, true) => Membership::Stayed,
        }
    }
}

/// Whether a live node is in `scope` now (its mask passes, and its world box meets the
/// region if there is one).
pub fn in_scope(scene: &SceneState, id: NodeId, scope: &Scope) -> bool {
    match &scope.region {
        None => scene
            .hierarchy()
            .mask(id)
            .is_some_and(|m| m & scope.mask != 0),
        Some(r) => {
            let (min, max) = region_bounds(r);
            in_region(scene, id, min, max, scope.mask)
        }
    }
}

/// Whether a live node is in a region scope now.
fn in_region(scene: &SceneState, id: NodeId, min: Vec3, max: Vec3, mask: u32) -> bool {
    match scene.octree().get(id) {
        Some(b) if b.mask & mask != 0 => {
            let (bmin, bmax) = b.aabb();
            aabb_intersects(bmin, bmax, min, max)
        }
        _ => false,
    }
}

/// Every node in `scope`, for a snapshot. For a region scope, `in_scope` is refilled
/// with their ids. Nodes come in id order for regions and parent-before-child order for
/// the whole room.
pub fn snapshot(scene: &SceneState, scope: &Scope, in_scope: &mut FxHashSet<NodeId>) -> Vec<Node> {
    in_scope.clear();
    match &scope.region {
        None => scene
            .hierarchy()
            .iter_nodes()
            .filter(|n| n.mask & scope.mask != 0)
            .collect(),
        Some(r) => {
            let (min, max) = region_bounds(r);
            let mut ids = Vec::new();
            scene.octree().region(min, max, scope.mask, &mut ids);
            in_scope.extend(ids.iter().copied());
            ids.iter()
                .filter_map(|&id| scene.hierarchy().node(id))
                .collect()
        }
    }
}

fn push_current(scene: &SceneState, id: NodeId, held: bool, out: &mut DeltaParts) {
    if let Some(node) = scene.hierarchy().node(id) {
        out.upsert.push(Upsert { node, held });
    }
}

fn push_update(scene: &SceneState, id: NodeId, out: &mut DeltaParts) {
    if let Some(world) = scene.hierarchy().world(id) {
        out.update.push(UpdateRow { id, world });
    }
}

/// Emits the change of one node given how its membership of the scope changed.
fn emit(
    scene: &SceneState,
    id: NodeId,
    change: NodeChange,
    membership: Membership,
    out: &mut DeltaParts,
) {
    match membership {
        Membership::Outside => {}
        Membership::Left => out.remove.push(id),
        Membership::Entered => push_current(scene, id, false, out),
        Membership::Stayed => {
            if change.intersects(NodeChange::RESHAPED | NodeChange::REPARENTED) {
                push_current(scene, id, true, out);
            } else if change.contains(NodeChange::MOVED) {
                push_update(scene, id, out);
            }
        }
    }
}

/// The delta of a whole-room scope with `mask` for one tick.
pub fn whole_room_parts(diff: &TickDiff, scene: &SceneState, mask: u32, out: &mut DeltaParts) {
    out.clear();
    for e in &diff.entries {
        if e.change.contains(NodeChange::REMOVED) {
            // Added and removed in the same tick never reaches the diff as removed, so
            // a removed node existed before the tick and its old mask is meaningful.
            if e.old_mask & mask != 0 {
                out.remove.push(e.id);
            }
            continue;
        }
        let now_mask = scene.hierarchy().mask(e.id).unwrap_or(0);
        let is = now_mask & mask != 0;
        let was = !e.change.contains(NodeChange::ADDED) && e.old_mask & mask != 0;
        emit(scene, e.id, e.change, Membership::of(was, is), out);
    }
}

/// The delta of a region scope for one tick, updating the ids it holds.
pub fn region_parts(
    diff: &TickDiff,
    scene: &SceneState,
    region: &Region,
    mask: u32,
    in_scope: &mut FxHashSet<NodeId>,
    out: &mut DeltaParts,
) {
    out.clear();
    let (min, max) = region_bounds(region);
    for e in &diff.entries {
        let was = in_scope.contains(&e.id);
        if e.change.contains(NodeChange::REMOVED) {
            if was {
                in_scope.remove(&e.id);
                out.remove.push(e.id);
            }
            continue;
        }
        let is = in_region(scene, e.id, min, max, mask);
        if is && !was {
            in_scope.insert(e.id);
        } else if was && !is {
            in_scope.remove(&e.id);
        }
        emit(scene, e.id, e.change, Membership::of(was, is), out);
    }
}
