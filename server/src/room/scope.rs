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
use super::diff::{ADDED, MOVED, REMOVED, REPARENTED, RESHAPED, TickDiff};
use super::scene_state::SceneState;
use crate::octree::aabb_intersects;

/// What a subscriber asked to see.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scope {
    pub region: Option<Region>,
    pub mask: u32,
}

impl Scope {
    pub const WHOLE_ROOM: Scope = Scope {
        region: None,
        mask: u32::MAX,
    };
}

fn region_bounds(r: &Region) -> (Vec3, Vec3) {
    (Vec3::from_array(r.min), Vec3::from_array(r.max))
}

/// Whether a live node is in a region scope now.
fn in_region(scene: &SceneState, id: NodeId, min: Vec3, max: Vec3, mask: u32) -> bool {
    match scene.octree.get(id) {
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
            .hierarchy
            .iter_nodes()
            .filter(|n| n.mask & scope.mask != 0)
            .collect(),
        Some(r) => {
            let (min, max) = region_bounds(r);
            let mut ids = Vec::new();
            scene.octree.region(min, max, scope.mask, &mut ids);
            in_scope.extend(ids.iter().copied());
            ids.iter()
                .filter_map(|&id| scene.hierarchy.node(id))
                .collect()
        }
    }
}

fn push_current(scene: &SceneState, id: NodeId, entered: bool, out: &mut DeltaParts) {
    if let Some(node) = scene.hierarchy.node(id) {
        out.upsert.push(Upsert { node, entered });
    }
}

fn push_update(scene: &SceneState, id: NodeId, out: &mut DeltaParts) {
    if let Some(world) = scene.hierarchy.world(id) {
        out.update.push(UpdateRow { id, world });
    }
}

/// Emits the change of one node that was (`was`) and is (`is`) in scope or not.
fn emit(scene: &SceneState, id: NodeId, flags: u8, was: bool, is: bool, out: &mut DeltaParts) {
    match (was, is) {
        (false, false) => {}
        (true, false) => out.remove.push(id),
        (false, true) => push_current(scene, id, true, out),
        (true, true) => {
            if flags & (RESHAPED | REPARENTED) != 0 {
                push_current(scene, id, false, out);
            } else if flags & MOVED != 0 {
                push_update(scene, id, out);
            }
        }
    }
}

/// The delta of a whole-room scope with `mask` for one tick.
pub fn whole_room_parts(diff: &TickDiff, scene: &SceneState, mask: u32, out: &mut DeltaParts) {
    out.clear();
    for e in &diff.entries {
        if e.flags & REMOVED != 0 {
            // Added and removed in the same tick never reaches the diff as removed, so
            // a removed node existed before the tick and its old mask is meaningful.
            if e.old_mask & mask != 0 {
                out.remove.push(e.id);
            }
            continue;
        }
        let now_mask = scene.hierarchy.mask(e.id).unwrap_or(0);
        let is = now_mask & mask != 0;
        let was = if e.flags & ADDED != 0 {
            false
        } else {
            e.old_mask & mask != 0
        };
        emit(scene, e.id, e.flags, was, is, out);
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
        if e.flags & REMOVED != 0 {
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
        emit(scene, e.id, e.flags, was, is, out);
    }
}
