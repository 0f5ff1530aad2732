//! Edits: the atomic batch API and the single-op library calls.
//!
//! A batch is applied op by op to the real hierarchy, each op checked against the state
//! the earlier ones leave, with every write journaled (`journal.rs`). After the last op,
//! `guard.rs` checks that the world transforms and depths the batch produced stay within
//! bounds. Any failure rolls the journal back. Invariant: `apply_batch` either applies
//! every op or leaves the hierarchy exactly as it was (layout, counters and change lists
//! included).
//!
//! Server-assigned ids: an `add` without an id gets the smallest id that was never used
//! (neither by a live nor by a removed node) at or after a running counter; the counter
//! then moves just past it. The counter starts at 0 and only moves forward, so assignment
//! is amortized O(1). Once it passes `u32::MAX`, assignment fails with `too_large`.

use canopy_protocol::{NodeId, Op, Transform};
use glam::{Quat, Vec3};

use super::Hierarchy;
use super::changes::WithOldMask;
use super::error::{BatchError, SceneError};
use super::guard::Touch;
use super::idmap::RETIRED;
use super::iter::next_preorder;
use super::pending::PendingLocal;
use super::slot::Slot;
use super::store::{SlotFlags, Topo, Trs};
use super::validate;

impl Hierarchy {
    /// Applies a batch atomically: checks every op against the state the earlier ops of
    /// the batch leave, and applies all or nothing.
    ///
    /// Ok: the id of every `add`, in order (given or server-assigned). Err: the first bad
    /// op's index and code; the hierarchy is exactly as before.
    pub fn apply_batch(&mut self, ops: &[Op]) -> Result<Vec<NodeId>, BatchError> {
        self.apply_ops(ops.iter().cloned())
    }

    /// [`apply_batch`](Self::apply_batch) over ops read one at a time (a pending batch
    /// is unpacked so, see `room/packed_ops.rs`, never decoded whole).
    pub fn apply_ops(
        &mut self,
        ops: impl IntoIterator<Item = Op>,
    ) -> Result<Vec<NodeId>, BatchError> {
        let mut ops = ops.into_iter().peekable();
        if ops.peek().is_none() {
            return Ok(Vec::new());
        }
        // The batch reads and journals stored local transforms: they must be current.
        self.flush_pending();
        self.begin_batch();
        self.touched.clear();
        self.walk_left = self.limits.max_batch_walk;
        let mut ids = Vec::new();
        for (i, op) in ops.enumerate() {
            match self.apply_op(i as u32, &op) {
                Ok(Some(id)) => ids.push(id),
                Ok(None) => {}
                Err(e) => {
                    self.rollback();
                    self.touched.clear();
                    return Err(BatchError::at(i, e));
                }
            }
        }
        let checked = self.check_touched();
        self.touched.clear();
        match checked {
            Ok(()) => {
                self.commit();
                self.updated = false;
                Ok(ids)
            }
            Err((i, e)) => {
                self.rollback();
                Err(BatchError::at(i as usize, e))
            }
        }
    }

    /// Replaces the given parts of a node's local transform (library call, used by update
    /// callbacks and demos) and marks its subtree for the next update. Checks the values
    /// like a batch op does, but not the world range of the subtree: callers are server
    /// code. The write is buffered (`pending.rs`); [`local`](Self::local) sees it at once.
    pub fn set_local(
        &mut self,
        id: NodeId,
        t: Option<Vec3>,
        r: Option<Quat>,
        s: Option<f32>,
    ) -> Result<(), SceneError> {
        let t = t.map(|t| validate::translation(t.to_array())).transpose()?;
        let r = r.map(validate::rotation_unnormalized).transpose()?;
        let s = s.map(validate::scale).transpose()?;
        if !self.slots.is_live(id) {
            return Err(SceneError::UnknownNode(id));
        }
        self.updated = false;
        // Written out with other edits later (see `pending.rs`); reads see it at once.
        self.defer_local(PendingLocal::new(id, t, r, s));
        self.dirty_roots.push(id);
        Ok(())
    }

    /// Adds one node outside a batch (a convenience over a one-op batch).
    pub fn add(
        &mut self,
        id: Option<NodeId>,
        parent: Option<NodeId>,
        local: Transform,
        extent: [f32; 3],
        mask: u32,
    ) -> Result<NodeId, BatchError> {
        let op = Op::Add {
            id,
            parent,
            local,
            extent,
            mask,
        };
        self.apply_batch(std::slice::from_ref(&op))
            .map(|ids| ids[0])
    }

    fn apply_op(&mut self, i: u32, op: &Op) -> Result<Option<NodeId>, SceneError> {
        match *op {
            Op::Add {
                id,
                parent,
                local,
                extent,
                mask,
            } => self.op_add(i, id, parent, &local, extent, mask).map(Some),
            Op::SetLocal { node, t, r, s } => {
                let t = t.map(validate::translation).transpose()?;
                let r = r.map(validate::rotation).transpose()?;
                let s = s.map(validate::scale).transpose()?;
                let slot = self.live_slot(node).ok_or(SceneError::UnknownNode(node))?;
                if self.local_unchanged(slot, t, r, s) {
                    // Nothing changes: O(1), no dirty subtree, no change listed.
                    return Ok(None);
                }
                self.write_local(slot, node, t, r, s);
                if t.is_some() || s.is_some() {
                    // A rotation alone keeps every length below it, so only translation
                    // and scale edits can push a world transform out of range.
                    self.touched.push(Touch::subtree(slot, i));
                }
                Ok(None)
            }
            Op::SetParent { node, parent } => self.op_set_parent(i, node, parent).map(|_| None),
            Op::SetShape { node, extent, mask } => {
                let extent = extent.map(validate::extent).transpose()?;
                let slot = self.live_slot(node).ok_or(SceneError::UnknownNode(node))?;
                let old_mask = self.store.mask[slot];
                let new_extent = extent.unwrap_or(self.store.extent[slot]);
                let new_mask = mask.unwrap_or(old_mask);
                if new_extent.to_array().map(f32::to_bits)
                    == self.store.extent[slot].to_array().map(f32::to_bits)
                    && new_mask == old_mask
                {
                    // Nothing changes: no change listed, nothing to send.
                    return Ok(None);
                }
                self.set_shape_fields(slot, new_extent, new_mask);
                let flags = self.store.topo[slot].flags;
                // The first reshape of the tick records the mask the tick began with.
                if !flags.intersects(SlotFlags::NEW | SlotFlags::RESHAPED) {
                    self.topo_mut(slot).flags.insert(SlotFlags::RESHAPED);
                    let reshaped = WithOldMask { id: node, old_mask };
                    self.changes.reshaped.push(reshaped);
                }
                if extent.is_some() {
                    self.touched.push(Touch::node(slot, i));
                }
                Ok(None)
            }
            Op::Remove { node } => {
                let slot = self.live_slot(node).ok_or(SceneError::UnknownNode(node))?;
                self.remove_subtree(slot);
                Ok(None)
            }
        }
    }

    /// True when writing the given parts would leave the local transform bit for bit
    /// as it is.
    fn local_unchanged(
        &self,
        slot: Slot,
        t: Option<Vec3>,
        r: Option<Quat>,
        s: Option<f32>,
    ) -> bool {
        let l = &self.store.xf[slot].local;
        let bits3 = |v: Vec3| v.to_array().map(f32::to_bits);
        t.is_none_or(|t| bits3(t) == bits3(l.t()))
            && r.is_none_or(|r| r.to_array().map(f32::to_bits) == l.r.to_array().map(f32::to_bits))
            && s.is_none_or(|s| s.to_bits() == l.s().to_bits())
    }

    /// Spends `steps` of the batch's ancestor-walk budget.
    fn spend_walk(&mut self, steps: usize) -> Result<(), SceneError> {
        match self.walk_left.checked_sub(steps) {
            Some(left) => {
                self.walk_left = left;
                Ok(())
            }
            None => Err(SceneError::TooLarge(format!(
                "the batch walks more than {} ancestors in its cycle and depth checks; \
                 split it",
                self.limits.max_batch_walk
            ))),
        }
    }

    fn write_local(
        &mut self,
        slot: Slot,
        id: NodeId,
        t: Option<Vec3>,
        r: Option<Quat>,
        s: Option<f32>,
    ) {
        let l = self.local_mut(slot);
        if let Some(t) = t {
            l.set_t(t);
        }
        if let Some(r) = r {
            l.r = r;
        }
        if let Some(s) = s {
            l.set_s(s);
        }
        self.dirty_roots.push(id);
    }

    fn op_add(
        &mut self,
        i: u32,
        id: Option<NodeId>,
        parent: Option<NodeId>,
        local: &Transform,
        extent: [f32; 3],
        mask: u32,
    ) -> Result<NodeId, SceneError> {
        let local = Trs::new(
            validate::translation(local.t)?,
            validate::rotation(local.r)?,
            validate::scale(local.s)?,
        );
        let extent = validate::extent(extent)?;
        let (id, assigned) = match id {
            Some(id) if self.slots.contains_key(id) => return Err(SceneError::DuplicateId(id)),
            Some(id) => (id, false),
            None => (self.assign_id()?, true),
        };
        let parent_slot = match parent {
            None => Slot::NONE,
            Some(p) => self.live_slot(p).ok_or(SceneError::UnknownParent(p))?,
        };
        if self.live >= self.limits.max_nodes {
            return Err(SceneError::TooLarge(format!(
                "the room already has the maximum of {} nodes",
                self.limits.max_nodes
            )));
        }
        // The new node's depth is its parent's plus one (a root's is 1).
        let max_depth = self.limits.max_depth;
        let depth_ok = if parent_slot.is_none() {
            max_depth >= 1
        } else {
            let depth = self.depth_within(parent_slot, max_depth - 1);
            self.spend_walk(depth.unwrap_or(max_depth))?;
            max_depth >= 2 && depth.is_some()
        };
        if !depth_ok {
            return Err(SceneError::TooLarge(format!(
                "node {id} would be deeper than the maximum depth {}",
                self.limits.max_depth
            )));
        }
        // Appending keeps the order valid: the parent's slot is lower than the new one.
        let topo = Topo::new(id, Slot::NONE, SlotFlags::ALIVE | SlotFlags::NEW);
        let slot = self.store.push(topo, local, local, extent, mask);
        self.map_set(id, slot);
        self.link_last(parent_slot, slot);
        self.live += 1;
        if assigned {
            self.next_id = u64::from(id) + 1;
        }
        self.changes.added.push(id);
        self.dirty_roots.push(id);
        self.touched.push(Touch::node(slot, i));
        Ok(id)
    }

    /// The smallest never-used id at or after the counter (see the module docs).
    fn assign_id(&self) -> Result<NodeId, SceneError> {
        self.next_assigned_id()
            .ok_or_else(|| SceneError::TooLarge("no unused node ids left".into()))
    }

    /// The depth of a slot (a root has depth 1) if it is at most `cap`, else `None`. Walks
    /// at most `cap + 1` ancestors, so a check never costs more than the depth limit.
    pub(crate) fn depth_within(&self, slot: Slot, cap: usize) -> Option<usize> {
        let mut depth = 0;
        let mut cur = slot;
        while cur.is_some() {
            depth += 1;
            if depth > cap {
                return None;
            }
            cur = self.store.topo[cur].parent;
        }
        Some(depth)
    }

    fn op_set_parent(
        &mut self,
        i: u32,
        node: NodeId,
        parent: Option<NodeId>,
    ) -> Result<(), SceneError> {
        let slot = self.live_slot(node).ok_or(SceneError::UnknownNode(node))?;
        let parent_slot = match parent {
            None => Slot::NONE,
            Some(p) => self.live_slot(p).ok_or(SceneError::UnknownParent(p))?,
        };
        if self.store.topo[slot].parent == parent_slot {
            // Already there: nothing changes (the child order is kept), and the state
            // was valid before, so no walk is needed: O(1).
            return Ok(());
        }
        if parent_slot.is_some() {
            // Walk up from the new parent: meeting the node means a cycle; a chain of
            // `max_depth` or more ancestors means the node would end up too deep. The walk
            // goes on to the root even past the limit: earlier ops of the batch may have
            // moved subtrees so that chains are deeper than the limit until the
            // end-of-batch check refuses them, and a move under one's own descendant is a
            // `cycle` however deep. Past the limit the op fails either way, so the long
            // walk happens at most once per batch; an op that succeeds walks fewer than
            // `max_depth` ancestors.
            let mut cur = parent_slot;
            let mut depth = 0;
            while cur.is_some() {
                if cur == slot {
                    return Err(SceneError::Cycle {
                        node,
                        parent: parent.unwrap_or_default(),
                    });
                }
                depth += 1;
                self.spend_walk(1)?;
                cur = self.store.topo[cur].parent;
            }
            if depth >= self.limits.max_depth {
                return Err(SceneError::TooLarge(format!(
                    "node {node} would be deeper than the maximum depth {}",
                    self.limits.max_depth
                )));
            }
        }
        self.unlink(slot);
        self.link_last(parent_slot, slot);
        let flags = self.store.topo[slot].flags;
        if !flags.intersects(SlotFlags::NEW | SlotFlags::REPARENTED) {
            self.topo_mut(slot).flags.insert(SlotFlags::REPARENTED);
            self.changes.reparented.push(node);
        }
        if parent_slot.is_some() && parent_slot > slot {
            // The slot order is stale until the next update relocates this subtree.
            self.misordered.push(node);
        }
        self.dirty_roots.push(node);
        self.touched.push(Touch::subtree(slot, i));
        Ok(())
    }

    /// Removes a node and its subtree: their slots become holes and their ids retire.
    fn remove_subtree(&mut self, root: Slot) {
        self.unlink(root);
        let mut cur = root;
        while cur.is_some() {
            let t = self.store.topo[cur];
            self.topo_mut(cur).flags.remove(SlotFlags::ALIVE);
            self.map_set(t.id, RETIRED);
            if !t.flags.contains(SlotFlags::NEW) {
                // The mask now, which is the tick's first unless a reshape of this tick
                // recorded an older one (`filter_removed_from_changes` carries that over).
                let old_mask = self.store.mask[cur];
                self.changes
                    .removed
                    .push(WithOldMask { id: t.id, old_mask });
            }
            self.live -= 1;
            self.dead += 1;
            cur = next_preorder(&self.store.topo, root, cur);
        }
        self.removed_this_tick = true;
    }
}
