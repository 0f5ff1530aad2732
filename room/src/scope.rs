//! Subscription scopes: which nodes a subscriber sees, its snapshot, and how one tick's
//! classified changes become that scope's delta.
//!
//! Whole-room scopes are stateless (a node is in scope when it passes the mask), so all
//! subscribers with the same mask share one delta. Region scopes remember the ids in
//! scope, because a node's entering or leaving the region is only visible by comparing
//! with what the client was last told. Both cost O(changed nodes) per tick. Frustum
//! scopes (v1.2) are fixed shapes like regions; follow scopes (v1.2) move, and keep their
//! own state (`follow.rs`).

use canopy_protocol::interest::{Follow, Frustum};
use canopy_protocol::message::Region;
use canopy_protocol::{Node, NodeId, UpdateRow};
use glam::Vec3;
use rustc_hash::FxHashSet;

use super::delta::{DeltaParts, Upsert};
use super::diff::{NodeChange, TickDiff};
use super::interest::Pacing;
use super::scene_state::SceneState;
use canopy_scene::octree::{aabb_intersects, frustum_aabb};

/// What a subscriber asked to see.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scope {
    /// The closed box whose intersecting nodes (by world AABB) are in scope; `None`:
    /// the whole room.
    pub region: Option<Region>,
    /// Only nodes with `node.mask & mask != 0` are in scope.
    pub mask: u32,
    /// (v1.2) The scope is the sphere around a node, following it (see `follow.rs`).
    pub follow: Option<Follow>,
    /// (v1.2) The scope is a camera's view volume, evaluated like a region.
    pub frustum: Option<Frustum>,
    /// (v1.2) The send rate and distance tiers.
    pub pacing: Pacing,
}

impl Scope {
    /// Every node on every layer.
    pub const WHOLE_ROOM: Scope = Scope {
        region: None,
        mask: u32::MAX,
        follow: None,
        frustum: None,
        pacing: Pacing::EVERY_TICK,
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

    /// A region (`None`: the whole room) with `mask`, a frame every tick.
    pub fn region(region: Option<Region>, mask: u32) -> Scope {
        Scope {
            region,
            mask,
            ..Scope::WHOLE_ROOM
        }
    }

    /// True when no shape narrows the scope: only the mask decides.
    pub fn is_whole_room(&self) -> bool {
        self.region.is_none() && self.follow.is_none() && self.frustum.is_none()
    }

    /// True when a subscription with `since` may resume this scope from the history: a
    /// whole room or a region (what was in a moving or frustum scope at `since` is not
    /// kept, so those answer with a snapshot).
    pub fn resumable(&self) -> bool {
        self.follow.is_none() && self.frustum.is_none()
    }

    /// The point tiers measure distance from: the region's centre (a follow scope's
    /// centre moves, and `follow.rs` gives it).
    pub fn region_centre(&self) -> Option<Vec3> {
        self.region
            .as_ref()
            .map(|r| (Vec3::from_array(r.min) + Vec3::from_array(r.max)) * 0.5)
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
pub(super) enum Membership {
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
    pub(super) fn of(was: bool, is: bool) -> Membership {
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
    if let Some(f) = &scope.frustum {
        return in_shape(scene, id, scope.mask, |lo, hi| frustum_aabb(&f.0, lo, hi));
    }
    debug_assert!(scope.follow.is_none(), "follow scopes keep their own state");
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
    in_shape(scene, id, mask, |lo, hi| aabb_intersects(lo, hi, min, max))
}

/// Whether a live node passes `mask` and its world AABB passes `hit`.
fn in_shape(scene: &SceneState, id: NodeId, mask: u32, hit: impl Fn(Vec3, Vec3) -> bool) -> bool {
    match scene.octree().get(id) {
        Some(b) if b.mask & mask != 0 => {
            let (bmin, bmax) = b.aabb();
            hit(bmin, bmax)
        }
        _ => false,
    }
}

/// The followed node's world position, if it is alive.
pub(super) fn centre_of(scene: &SceneState, node: NodeId) -> Option<Vec3> {
    scene.hierarchy().world(node).map(|w| Vec3::from_array(w.t))
}

/// The ids in a follow scope now, ascending: the sphere of radius R and the followed
/// node (nothing if that node is gone).
pub(super) fn follow_snapshot_ids(
    scene: &SceneState,
    f: &Follow,
    mask: u32,
    out: &mut Vec<NodeId>,
) {
    out.clear();
    let Some(c) = centre_of(scene, f.node) else {
        return;
    };
    scene.octree().sphere(c, f.radius, mask, out);
    if let Err(at) = out.binary_search(&f.node) {
        out.insert(at, f.node);
    }
}

/// Every node in `scope`, for a snapshot. For a region scope, `in_scope` is refilled
/// with their ids. Nodes come in id order for regions and parent-before-child order for
/// the whole room.
pub fn snapshot(scene: &SceneState, scope: &Scope, in_scope: &mut FxHashSet<NodeId>) -> Vec<Node> {
    in_scope.clear();
    let mut ids = Vec::new();
    if let Some(f) = &scope.follow {
        follow_snapshot_ids(scene, f, scope.mask, &mut ids);
    } else if let Some(f) = &scope.frustum {
        scene.octree().frustum(&f.0, scope.mask, &mut ids);
    }
    if !scope.is_whole_room() && scope.region.is_none() {
        in_scope.extend(ids.iter().copied());
        return ids
            .iter()
            .filter_map(|&id| scene.hierarchy().node(id))
            .collect();
    }
    match &scope.region {
        None => scene
            .hierarchy()
            .iter_nodes()
            .filter(|n| n.mask & scope.mask != 0)
            .collect(),
        Some(r) => {
            let (min, max) = region_bounds(r);
            scene.octree().region(min, max, scope.mask, &mut ids);
            in_scope.extend(ids.iter().copied());
            ids.iter()
                .filter_map(|&id| scene.hierarchy().node(id))
                .collect()
        }
    }
}

pub(super) fn push_current(scene: &SceneState, id: NodeId, held: bool, out: &mut DeltaParts) {
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
pub(super) fn emit(
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
    let (min, max) = region_bounds(region);
    let hit = |lo, hi| aabb_intersects(lo, hi, min, max);
    fixed_shape_parts(diff, scene, hit, mask, in_scope, out);
}

/// The delta of a frustum scope for one tick, updating the ids it holds.
pub fn frustum_parts(
    diff: &TickDiff,
    scene: &SceneState,
    frustum: &Frustum,
    mask: u32,
    in_scope: &mut FxHashSet<NodeId>,
    out: &mut DeltaParts,
) {
    let hit = |lo, hi| frustum_aabb(&frustum.0, lo, hi);
    fixed_shape_parts(diff, scene, hit, mask, in_scope, out);
}

/// The delta of a scope of a fixed shape (`hit` on a world AABB) for one tick: only the
/// changed nodes can enter or leave it.
fn fixed_shape_parts(
    diff: &TickDiff,
    scene: &SceneState,
    hit: impl Fn(Vec3, Vec3) -> bool,
    mask: u32,
    in_scope: &mut FxHashSet<NodeId>,
    out: &mut DeltaParts,
) {
    out.clear();
    for e in &diff.entries {
        let was = in_scope.contains(&e.id);
        if e.change.contains(NodeChange::REMOVED) {
            if was {
                in_scope.remove(&e.id);
                out.remove.push(e.id);
            }
            continue;
        }
        let is = in_shape(scene, e.id, mask, &hit);
        if is && !was {
            in_scope.insert(e.id);
        } else if was && !is {
            in_scope.remove(&e.id);
        }
        emit(scene, e.id, e.change, Membership::of(was, is), out);
    }
}
