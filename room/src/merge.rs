//! The pending state of a slow subscriber: the changes it has not been sent yet, merged
//! per node with the latest value winning.
//!
//! Invariant: the map holds at most one entry per node, and an entry exists only for a
//! node the client has been told of or is in scope now. A node that entered the scope
//! and left it again while the client was behind leaves no entry, so the map stays
//! bounded by the nodes in scope (plus removals of nodes the client knows).

use canopy_protocol::{NodeId, Transform, UpdateRow};
use rustc_hash::FxHashMap;

use super::delta::{DeltaParts, Upsert};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Pending {
    /// Send the node in full; `held` says whether the client already has it.
    Upsert {
        node: canopy_protocol::Node,
        held: bool,
    },
    /// Send the new world transform only.
    Update(Transform),
    /// Tell the client the node left its scope.
    Remove,
}

/// Changes waiting for a slow client, merged to their latest values.
#[derive(Debug, Default)]
pub struct MergeState {
    entries: FxHashMap<NodeId, Pending>,
    /// The latest tick and time the merged changes cover.
    pub tick: u64,
    /// The time of that tick, milliseconds since the Unix epoch.
    pub time: u64,
    /// How many ticks were folded in (for metrics).
    pub ticks_merged: u64,
}

impl MergeState {
    /// Nodes with a change waiting (at most one entry each).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing is waiting.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Folds one tick's parts in.
    pub fn merge(&mut self, tick: u64, time: u64, parts: &DeltaParts) {
        self.tick = tick;
        self.time = time;
        self.ticks_merged += 1;
        for &id in &parts.remove {
            match self.entries.get(&id) {
                // The client never saw this node: forget it entirely.
                Some(Pending::Upsert { held: false, .. }) => {
                    self.entries.remove(&id);
                }
                _ => {
                    self.entries.insert(id, Pending::Remove);
                }
            }
        }
        for &Upsert { node, held } in &parts.upsert {
            let held = match self.entries.get(&node.id) {
                Some(Pending::Upsert { held, .. }) => *held,
                // The client still has the node it was told of before it left (a remove
                // is pending), or it has the node now: either way it holds it.
                Some(Pending::Remove) => true,
                Some(Pending::Update(_)) => true,
                None => held,
            };
            self.entries.insert(node.id, Pending::Upsert { node, held });
        }
        for row in &parts.update {
            match self.entries.get_mut(&row.id) {
                Some(Pending::Upsert { node, .. }) => node.world = row.world,
                Some(p) => *p = Pending::Update(row.world),
                None => {
                    self.entries.insert(row.id, Pending::Update(row.world));
                }
            }
        }
    }

    /// True when the change waiting for `id` is a world transform only (an `update`).
    pub fn is_update(&self, id: NodeId) -> bool {
        matches!(self.entries.get(&id), Some(Pending::Update(_)))
    }

    /// The ids whose waiting change is a world transform only.
    pub fn update_ids(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.entries
            .iter()
            .filter(|(_, p)| matches!(p, Pending::Update(_)))
            .map(|(&id, _)| id)
    }

    /// Takes the waiting changes that are due into `parts` (cleared first), sorted by
    /// id, and keeps the others: every `upsert` and `remove`, and the `update`s for which
    /// `update_due(id)` holds.
    pub fn take_due(&mut self, parts: &mut DeltaParts, mut update_due: impl FnMut(NodeId) -> bool) {
        parts.clear();
        self.entries.retain(|&id, p| {
            match *p {
                Pending::Upsert { node, held } => parts.upsert.push(Upsert { node, held }),
                Pending::Update(world) if update_due(id) => {
                    parts.update.push(UpdateRow { id, world })
                }
                Pending::Update(_) => return true,
                Pending::Remove => parts.remove.push(id),
            }
            false
        });
        parts.upsert.sort_unstable_by_key(|u| u.node.id);
        parts.update.sort_unstable_by_key(|u| u.id);
        parts.remove.sort_unstable();
        if self.entries.is_empty() {
            self.ticks_merged = 0;
        }
    }

    /// The merged changes as one delta's parts, emptying the state. Lists are sorted by
    /// id so the frame is deterministic.
    pub fn take_parts(&mut self) -> DeltaParts {
        let mut parts = DeltaParts::default();
        for (&id, p) in self.entries.iter() {
            match *p {
                Pending::Upsert { node, held } => parts.upsert.push(Upsert { node, held }),
                Pending::Update(world) => parts.update.push(UpdateRow { id, world }),
                Pending::Remove => parts.remove.push(id),
            }
        }
        parts.upsert.sort_unstable_by_key(|u| u.node.id);
        parts.update.sort_unstable_by_key(|u| u.id);
        parts.remove.sort_unstable();
        self.entries.clear();
        self.ticks_merged = 0;
        parts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_protocol::Node;

    fn node(id: u32, x: f32) -> Node {
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

    fn row(id: u32, x: f32) -> UpdateRow {
        UpdateRow {
            id,
            world: node(id, x).world,
        }
    }

    #[test]
    fn latest_value_wins_and_upsert_absorbs_updates() {
        let mut m = MergeState::default();
        let mut p = DeltaParts::default();
        p.update.push(row(1, 1.0));
        p.upsert.push(Upsert {
            node: node(2, 0.0),
            held: false,
        });
        m.merge(1, 10, &p);
        let mut q = DeltaParts::default();
        q.update.push(row(1, 2.0));
        q.update.push(row(2, 5.0));
        m.merge(2, 20, &q);
        assert_eq!(m.tick, 2);
        let out = m.take_parts();
        assert_eq!(out.update, vec![row(1, 2.0)]);
        assert_eq!(out.upsert.len(), 1);
        assert_eq!(out.upsert[0].node.world.t[0], 5.0);
        assert!(m.is_empty());
    }

    #[test]
    fn entered_then_removed_leaves_nothing_but_known_removal_stays() {
        let mut m = MergeState::default();
        let mut p = DeltaParts::default();
        p.upsert.push(Upsert {
            node: node(7, 0.0),
            held: false,
        });
        p.update.push(row(8, 1.0));
        m.merge(1, 0, &p);
        let mut q = DeltaParts::default();
        q.remove.extend([7, 8]);
        m.merge(2, 0, &q);
        let out = m.take_parts();
        assert!(out.upsert.is_empty() && out.update.is_empty());
        assert_eq!(out.remove, vec![8]);
    }
}
