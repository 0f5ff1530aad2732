//! The state a room's tick writes and queries read: the hierarchy, the octree over its
//! world boxes, and the number and time of the tick they reflect.
//!
//! Invariant: after every tick the octree holds exactly the live nodes of the hierarchy,
//! each with the world box of its current world transform, extent and mask; `tick`
//! names the tick whose state both show.

use canopy_protocol::NodeId;
use glam::Vec3;

use crate::octree::{ObjectBox, Octree, OctreeConfig};
use crate::scene::{Hierarchy, HierarchyLimits};

#[derive(Debug)]
pub struct SceneState {
    pub hierarchy: Hierarchy,
    pub octree: Octree,
    pub tick: u64,
    /// Milliseconds since the Unix epoch when `tick` finished.
    pub time_ms: u64,
}

impl SceneState {
    pub fn new(limits: HierarchyLimits, octree: OctreeConfig) -> Self {
        Self {
            hierarchy: Hierarchy::with_limits(limits),
            octree: Octree::new(octree),
            tick: 0,
            time_ms: 0,
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
