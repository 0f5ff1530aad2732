//! What a snapshot needs of the hierarchy beyond its live nodes: the ids of removed
//! nodes (retired, never reused) and the counter server-assigned ids start from, read
//! out and put back so that a restored room assigns exactly the ids the original would;
//! and the trusted append of a snapshot's nodes.
//!
//! Invariant: after [`Hierarchy::restore_ids`] on a hierarchy holding a snapshot's live
//! nodes, [`Hierarchy::retired_ids`] and [`Hierarchy::id_counter`] equal the snapshot's.

use canopy_protocol::{NodeId, Transform};
use glam::{Quat, Vec3};

use super::error::RebuildError;
use super::hierarchy::Hierarchy;
use super::idmap::RETIRED;
use super::slot::Slot;
use super::store::{SlotFlags, Topo, Trs};

impl Hierarchy {
    /// Ids of removed nodes, ascending.
    pub fn retired_ids(&self) -> Vec<NodeId> {
        let mut ids: Vec<NodeId> = self
            .slots
            .iter()
            .filter(|&(_, slot)| slot == RETIRED)
            .map(|(id, _)| id)
            .collect();
        ids.sort_unstable();
        ids
    }

    /// Appends a node read back from a snapshot, parent before child, exactly as stored
    /// (no re-normalising, no limit or world-range checks: the values passed them when
    /// they were edited, and the snapshot's checksum when it was read). The next
    /// update computes world transforms. Refuses an id already used or an unknown parent.
    pub fn restore_node(
        &mut self,
        id: NodeId,
        parent: Option<NodeId>,
        local: Transform,
        extent: [f32; 3],
        mask: u32,
    ) -> Result<(), RebuildError> {
        if self.slots.contains_key(id) {
            return Err(RebuildError::DuplicateNode(id));
        }
        let parent_slot = match parent {
            None => Slot::NONE,
            Some(p) => self.live_slot(p).ok_or(RebuildError::ParentAfterChild {
                node: id,
                parent: p,
            })?,
        };
        let trs = Trs::new(Vec3::from(local.t), Quat::from_array(local.r), local.s);
        let topo = Topo::new(id, Slot::NONE, SlotFlags::ALIVE | SlotFlags::NEW);
        let slot = self.store.push(topo, trs, trs, Vec3::from(extent), mask);
        self.map_set(id, slot);
        self.link_last(parent_slot, slot);
        self.live += 1;
        self.changes.added.push(id);
        if parent.is_none() {
            // A dirty root's whole subtree is recomputed by the next update.
            self.dirty_roots.push(id);
        }
        Ok(())
    }

    /// Replaces the limits (a restore rebuilds under no limits, then puts the room's
    /// back: what the log holds was accepted under them once).
    pub fn set_limits(&mut self, limits: super::HierarchyLimits) {
        self.limits = limits;
    }

    /// The counter server-assigned ids start from (the next `add` without an id takes
    /// the smallest never-used id at or after it).
    pub fn id_counter(&self) -> u64 {
        self.next_id
    }

    /// Marks `retired` as used by removed nodes and sets the id counter, on a hierarchy
    /// just rebuilt from a snapshot's live nodes. Refuses (changing nothing) an id that
    /// is live: a snapshot never lists one as both.
    pub fn restore_ids(
        &mut self,
        retired: impl IntoIterator<Item = NodeId> + Clone,
        id_counter: u64,
    ) -> Result<(), RebuildError> {
        if let Some(id) = retired.clone().into_iter().find(|&id| self.contains(id)) {
            return Err(RebuildError::LiveAndRetired(id));
        }
        for id in retired {
            self.map_set(id, RETIRED);
        }
        self.next_id = id_counter;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use canopy_protocol::{Op, Transform};

    use super::*;

    #[test]
    fn retired_ids_and_the_counter_survive_a_rebuild() {
        let mut h = Hierarchy::new();
        let ops = [
            Op::add_root(5, Transform::IDENTITY),
            Op::add_root(9, Transform::IDENTITY),
        ];
        h.apply_batch(&ops).unwrap();
        h.apply_batch(&[Op::remove(5)]).unwrap();
        let assigned = h
            .apply_batch(&[Op::add(None, None, Transform::IDENTITY)])
            .unwrap();
        h.update_dirty();
        h.finish_tick();
        assert_eq!(h.retired_ids(), vec![5]);

        let mut back = Hierarchy::new();
        back.apply_batch(&[Op::add_root(9, Transform::IDENTITY)])
            .unwrap();
        back.apply_batch(&[Op::add_root(assigned[0], Transform::IDENTITY)])
            .unwrap();
        back.restore_ids(h.retired_ids(), h.id_counter()).unwrap();
        back.update_dirty();
        back.finish_tick();
        back.assert_well_formed();
        assert_eq!(back.retired_ids(), vec![5]);
        assert_eq!(back.next_assigned_id(), h.next_assigned_id());
        assert!(back.restore_ids([9], 0).is_err());
    }
}
