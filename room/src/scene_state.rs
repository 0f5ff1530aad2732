//! [`SceneState`]: what a room's tick writes and queries read. The hierarchy, the octree
//! over its world boxes, and the number and time of the tick they show.
//!
//! Invariant: after every [`SceneState::advance`], the octree holds exactly the live
//! nodes of the hierarchy, each with the world box of its current world transform,
//! extent and mask, and `tick` names the tick whose state both show. The fields are
//! private so that only `advance` (which keeps the invariant) moves the scene forward.

use canopy_protocol::NodeId;
use glam::Vec3;

use super::diff::{NodeChange, TickDiff};
use canopy_scene::octree::{ObjectBox, Octree, OctreeConfig};
use canopy_scene::{BatchError, Hierarchy, HierarchyLimits};

/// What one [`SceneState::advance`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Advance {
    /// The tick the scene now shows.
    pub tick: u64,
    /// World transforms recomputed.
    pub recomputed: usize,
    /// Nodes with any change this tick (the diff's length).
    pub changed: usize,
}

/// A room's scene at one tick: its hierarchy, the octree over its world boxes, and the
/// tick's number and time.
#[derive(Debug)]
pub struct SceneState {
    hierarchy: Hierarchy,
    octree: Octree,
    tick: u64,
    /// Milliseconds since the Unix epoch when `tick` finished.
    time_ms: u64,
}

impl SceneState {
    /// An empty scene at tick 0 (time 0) with these limits.
    pub fn new(limits: HierarchyLimits, octree: OctreeConfig) -> Self {
        Self {
            hierarchy: Hierarchy::with_limits(limits),
            octree: Octree::new(octree),
            tick: 0,
            time_ms: 0,
        }
    }

    /// The nodes, their transforms and world transforms as of [`SceneState::tick`].
    pub fn hierarchy(&self) -> &Hierarchy {
        &self.hierarchy
    }

    /// The hierarchy, for edits outside batches (the demo's setup, update callbacks).
    /// The octree catches up with them at the next [`advance`](Self::advance).
    pub fn hierarchy_mut(&mut self) -> &mut Hierarchy {
        &mut self.hierarchy
    }

    /// The spatial index over the live nodes' world boxes, as of [`SceneState::tick`].
    pub fn octree(&self) -> &Octree {
        &self.octree
    }

    /// The tick whose state the scene shows (0 before the first).
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// Milliseconds since the Unix epoch when that tick finished.
    pub fn time_ms(&self) -> u64 {
        self.time_ms
    }

    /// Sets the time of the current tick (a new room's tick 0, so that snapshots taken
    /// before its first tick carry a real time).
    pub fn set_time_ms(&mut self, time_ms: u64) {
        self.time_ms = time_ms;
    }

    /// Sets the tick and its time after a restore (see `room/durable.rs`): the scene
    /// shows the state of that tick of the log.
    pub fn restore_clock(&mut self, tick: u64, time_ms: u64) {
        self.tick = tick;
        self.time_ms = time_ms;
    }

    /// Applies one batch atomically (see [`Hierarchy::apply_batch`]).
    pub fn apply(&mut self, ops: &[canopy_protocol::Op]) -> Result<Vec<NodeId>, BatchError> {
        self.hierarchy.apply_batch(ops)
    }

    /// Applies one batch atomically, its ops read one at a time (see
    /// [`Hierarchy::apply_ops`]).
    pub fn apply_ops(
        &mut self,
        ops: impl IntoIterator<Item = canopy_protocol::Op>,
    ) -> Result<Vec<NodeId>, BatchError> {
        self.hierarchy.apply_ops(ops)
    }

    /// Finishes the next tick: runs the update callbacks, propagates world transforms,
    /// classifies what changed into `diff` and refits the octree from it, ends the
    /// hierarchy's tick, then names the new tick (finished at `now_ms`).
    pub fn advance(&mut self, dt: f32, now_ms: u64, diff: &mut TickDiff) -> Advance {
        let tick = self.tick + 1;
        self.hierarchy.run_update_callbacks(tick, dt);
        let recomputed = self.hierarchy.update_dirty().recomputed;
        diff.rebuild(&self.hierarchy);
        self.refit(diff);
        self.hierarchy.finish_tick();
        self.tick = tick;
        self.time_ms = now_ms;
        Advance {
            tick,
            recomputed,
            changed: diff.entries.len(),
        }
    }

    /// Brings the octree in line with the hierarchy for the nodes of `diff`.
    fn refit(&mut self, diff: &TickDiff) {
        for e in &diff.entries {
            if e.change.contains(NodeChange::REMOVED) {
                self.octree.remove(e.id);
            } else if e
                .change
                .intersects(NodeChange::ADDED | NodeChange::MOVED | NodeChange::RESHAPED)
                && let Some(b) = self.object_box(e.id)
            {
                self.octree.insert_or_update(e.id, b);
            }
        }
    }

    /// Panics unless the scene keeps its invariant: the hierarchy and the octree are each
    /// well formed, and (when no edit waits for the next [`advance`](Self::advance)) the
    /// octree indexes exactly the live nodes, each with the box of its current world
    /// transform, extent and mask. For tests, after every mutation.
    pub fn assert_well_formed(&self) {
        self.hierarchy.assert_well_formed();
        self.octree.assert_well_formed();
        if !self.hierarchy.is_updated() {
            // Edits since the last advance: the octree catches up with them there.
            return;
        }
        assert_eq!(
            self.octree.len(),
            self.hierarchy.len(),
            "tick {}: the octree indexes {} objects for {} live nodes",
            self.tick,
            self.octree.len(),
            self.hierarchy.len()
        );
        for id in self.hierarchy.ids() {
            let want = self.object_box(id).expect("a live node has a box");
            let held = self.octree.get(id);
            assert_eq!(
                held,
                Some(&want),
                "tick {}: node {} is indexed with a box other than its world box",
                self.tick,
                id
            );
        }
    }

    /// The world box of a live node, as the octree should hold it.
    pub fn object_box(&self, id: NodeId) -> Option<ObjectBox> {
        let (t, r, s) = self.hierarchy.world_glam(id)?;
        let extent: Vec3 = self.hierarchy.extent(id)?;
        let mask = self.hierarchy.mask(id)?;
        Some(ObjectBox::from_world(t, r, s, extent, mask))
    }
}

#[cfg(test)]
mod tests {
    use canopy_protocol::Transform;
    use glam::Vec3;

    use super::*;
    use crate::diff::TickDiff;

    fn checked(scene: &SceneState) -> bool {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| scene.assert_well_formed()))
            .is_ok()
    }

    #[test]
    fn an_octree_behind_its_hierarchy_is_caught() {
        let mut scene = SceneState::new(HierarchyLimits::default(), OctreeConfig::default());
        let mut diff = TickDiff::default();
        let h = scene.hierarchy_mut();
        let root = h.add(None, None, Transform::IDENTITY, [1.0; 3], 1).unwrap();
        h.add(None, Some(root), Transform::IDENTITY, [0.5; 3], 1)
            .unwrap();
        assert!(
            checked(&scene),
            "an edit waiting for the next advance is not checked"
        );
        scene.advance(0.0, 1, &mut diff);
        assert!(checked(&scene));

        // Moved and updated outside `advance`: the octree still holds the old boxes.
        let h = scene.hierarchy_mut();
        h.set_local(root, Some(Vec3::new(50.0, 0.0, 0.0)), None, None)
            .unwrap();
        h.update_dirty();
        assert!(!checked(&scene), "stale boxes passed");
        scene.hierarchy_mut().finish_tick();
    }
}
