//! [`DenseMirror`]: a subscriber's copy of its in-scope nodes, stored in a vector
//! indexed by node id.
//!
//! The harness creates its rooms with ids `0..nodes` (see `world`), so a dense vector
//! holds a room exactly, and applying a row costs one indexed store instead of a hash
//! lookup. That matters at this scale: 550 subscribers of 20,000 nodes apply 3.3
//! million rows a second, and measured on this machine the SDK's `Mirror` (a
//! SipHash `HashMap`) took 0.78 s of CPU per second of that load, an `FxHashMap` 0.21 s,
//! and this vector 0.04 s. The apply rules are the SDK's and the contract's: a snapshot
//! replaces the copy; a delta upserts whole nodes, replaces the world transform of held
//! nodes, and removes nodes.
//!
//! A scope of a few hundred nodes (a follow scope, `--bench s2`) is kept sparse instead
//! ([`DenseMirror::sparse`], a map by id): 500 dense copies of 20,000 nodes would be
//! 640 MB, and such a scope sees a few rows a frame, where a map lookup costs nothing.
//!
//! Invariant: an `update` or `remove` of a node the copy does not hold, or an id
//! outside the room's range, is counted as an inconsistency and changes nothing; after
//! a snapshot and every later frame of a connection, the copy equals the server's
//! in-scope state at the last frame's tick.

use std::collections::HashMap;

use canopy_protocol::{Node, NodeId, UpdateRow};

/// The nodes in scope, by id.
#[derive(Clone, Debug, Default)]
pub(crate) struct DenseMirror {
    slots: Vec<Option<Node>>,
    /// `Some`: a sparse copy, any id; `slots` is then empty.
    sparse: Option<HashMap<NodeId, Node>>,
    len: usize,
    /// Entries that named a node the copy did not hold (0 against a correct server).
    inconsistencies: u64,
}

impl DenseMirror {
    /// An empty mirror for ids `0..capacity`.
    pub(crate) fn new(capacity: usize) -> Self {
        DenseMirror {
            slots: vec![None; capacity],
            ..DenseMirror::default()
        }
    }

    /// An empty sparse mirror, for a scope far smaller than its room.
    pub(crate) fn sparse() -> Self {
        DenseMirror {
            sparse: Some(HashMap::new()),
            ..DenseMirror::default()
        }
    }

    /// The node with this id, if it is in scope.
    pub(crate) fn get(&self, id: NodeId) -> Option<&Node> {
        match &self.sparse {
            Some(map) => map.get(&id),
            None => self.slots.get(id as usize)?.as_ref(),
        }
    }

    /// Every node in scope, in no particular order.
    pub(crate) fn nodes(&self) -> Box<dyn Iterator<Item = &Node> + '_> {
        match &self.sparse {
            Some(map) => Box::new(map.values()),
            None => Box::new(self.slots.iter().flatten()),
        }
    }

    fn slot_mut(&mut self, id: NodeId) -> Option<&mut Node> {
        match &mut self.sparse {
            Some(map) => map.get_mut(&id),
            None => self.slots.get_mut(id as usize)?.as_mut(),
        }
    }

    /// Takes the node out; whether it was held.
    fn take(&mut self, id: NodeId) -> bool {
        let held = match &mut self.sparse {
            Some(map) => map.remove(&id).is_some(),
            None => self
                .slots
                .get_mut(id as usize)
                .and_then(Option::take)
                .is_some(),
        };
        if held {
            self.len -= 1;
        }
        held
    }

    /// The number of nodes in scope.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Replaces the copy with a snapshot's nodes; returns whether every id was in range.
    pub(crate) fn apply_snapshot(&mut self, nodes: &[Node]) -> bool {
        let before = self.inconsistencies;
        self.slots.iter_mut().for_each(|s| *s = None);
        if let Some(map) = &mut self.sparse {
            map.clear();
        }
        self.len = 0;
        for node in nodes {
            self.upsert(node);
        }
        self.inconsistencies == before
    }

    /// Applies a delta; returns whether it was consistent with the copy.
    pub(crate) fn apply_delta(
        &mut self,
        upsert: &[Node],
        update: &[UpdateRow],
        remove: &[NodeId],
    ) -> bool {
        let before = self.inconsistencies;
        for node in upsert {
            self.upsert(node);
        }
        for row in update {
            match self.slot_mut(row.id) {
                Some(node) => node.world = row.world,
                None => self.inconsistencies += 1,
            }
        }
        for &id in remove {
            if !self.take(id) {
                self.inconsistencies += 1;
            }
        }
        self.inconsistencies == before
    }

    fn upsert(&mut self, node: &Node) {
        if let Some(map) = &mut self.sparse {
            if map.insert(node.id, *node).is_none() {
                self.len += 1;
            }
            return;
        }
        match self.slots.get_mut(node.id as usize) {
            Some(slot) => {
                if slot.is_none() {
                    self.len += 1;
                }
                *slot = Some(*node);
            }
            None => self.inconsistencies += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_protocol::Transform;

    fn node(id: NodeId, x: f32) -> Node {
        Node {
            id,
            parent: None,
            world: Transform {
                t: [x, 0.0, 0.0],
                ..Transform::IDENTITY
            },
            extent: [0.0; 3],
            mask: u32::MAX,
        }
    }

    #[test]
    fn snapshot_then_deltas() {
        let mut m = DenseMirror::new(4);
        assert!(m.apply_snapshot(&[node(0, 0.0), node(1, 0.0)]));
        assert_eq!(m.len(), 2);
        let moved = node(1, 7.0).world;
        assert!(m.apply_delta(
            &[node(2, 1.0)],
            &[UpdateRow {
                id: 1,
                world: moved
            }],
            &[0],
        ));
        assert_eq!(m.len(), 2);
        assert_eq!(m.get(1).unwrap().world, moved);
        assert!(m.get(0).is_none() && m.get(2).is_some());
        // A new snapshot replaces everything.
        m.apply_snapshot(&[node(3, 0.0)]);
        assert_eq!(m.len(), 1);
        assert!(m.get(1).is_none());
    }

    #[test]
    fn a_sparse_copy_applies_the_same_rules() {
        let mut m = DenseMirror::sparse();
        assert!(m.apply_snapshot(&[node(0, 0.0), node(90_000, 0.0)]));
        let moved = node(90_000, 3.0).world;
        assert!(m.apply_delta(
            &[node(2, 1.0)],
            &[UpdateRow {
                id: 90_000,
                world: moved
            }],
            &[0],
        ));
        assert_eq!(m.len(), 2);
        assert_eq!(m.get(90_000).unwrap().world, moved);
        assert_eq!(m.nodes().count(), 2);
        let row = UpdateRow {
            id: 7,
            world: Transform::IDENTITY,
        };
        assert!(!m.apply_delta(&[], &[row], &[0]));
        assert_eq!(m.len(), 2);
    }

    #[test]
    fn unknown_or_out_of_range_nodes_are_inconsistencies() {
        let mut m = DenseMirror::new(2);
        let row = UpdateRow {
            id: 1,
            world: Transform::IDENTITY,
        };
        assert!(!m.apply_delta(&[node(9, 0.0)], &[row], &[0]));
        assert!(!m.apply_snapshot(&[node(5, 0.0)]));
        assert_eq!(m.len(), 0);
    }
}
