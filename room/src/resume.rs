//! Resuming a subscription (v1.1 `subscribe` with `since`): the room's recent history of
//! which nodes changed how, and the one `delta` that brings a client's copy of a scope
//! from tick `since` up to now, instead of a snapshot.
//!
//! Invariants: the history holds, for every tick after [`History::covered_from`], the id
//! and change kinds of every node that changed; it is bounded in ticks and in bytes
//! (`--resume-ticks`, `--resume-bytes`), dropping the oldest ticks first, and reuses the
//! buffers of the ticks it drops, so steady state allocates nothing. A resumed delta
//! names every node that changed since `since` in the scope's terms: an upsert in full
//! where the client may lack it or hold stale parent, extent or mask, an update where it
//! holds the node and only the transform moved, a remove where the node is gone or out
//! of scope (a remove of a node the client never held is a no-op for it). Nodes that did
//! not change are the same as at `since`, in scope or not.

use std::collections::VecDeque;

use canopy_protocol::{NodeId, UpdateRow};
use rustc_hash::FxHashMap;

use super::delta::{DeltaParts, Upsert};
use super::diff::{NodeChange, TickDiff};
use super::scene_state::SceneState;
use super::scope::{Scope, in_scope};

/// One tick's changes.
#[derive(Debug)]
struct Tick {
    tick: u64,
    changes: Vec<(NodeId, NodeChange)>,
}

/// The bounds of a room's history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistoryLimits {
    /// Ticks that changed something kept at most (`--resume-ticks`).
    pub ticks: usize,
    /// Bytes of entries kept at most, 8 per changed node per tick (`--resume-bytes`).
    pub bytes: usize,
}

impl HistoryLimits {
    /// The flags' defaults: 900 ticks (30 s at 30 Hz) and 8 MiB.
    pub const DEFAULT: HistoryLimits = HistoryLimits {
        ticks: 900,
        bytes: 8 << 20,
    };
}

/// A room's recent changes, for resuming subscriptions.
#[derive(Debug)]
pub struct History {
    limits: HistoryLimits,
    ticks: VecDeque<Tick>,
    bytes: usize,
    covered_from: u64,
    spare: Vec<Vec<(NodeId, NodeChange)>>,
}

const ENTRY_BYTES: usize = std::mem::size_of::<(NodeId, NodeChange)>();

impl History {
    /// An empty history whose state at `tick` is the oldest it can resume from.
    pub fn new(limits: HistoryLimits, tick: u64) -> Self {
        History {
            limits,
            ticks: VecDeque::new(),
            bytes: 0,
            covered_from: tick,
            spare: Vec::new(),
        }
    }

    /// Panics unless the history keeps its invariant: its ticks are in increasing order,
    /// all after [`covered_from`](Self::covered_from), each with at least one change; its
    /// byte count is the sum of theirs; and it is within its limits (in bytes, unless a
    /// single tick is over them alone). For tests, after every mutation.
    pub fn assert_well_formed(&self) {
        let mut last = self.covered_from;
        let mut bytes = 0;
        for t in &self.ticks {
            assert!(
                t.tick > last,
                "history tick {} follows tick {last}, out of order or not after covered_from",
                t.tick
            );
            assert!(!t.changes.is_empty(), "history tick {} is empty", t.tick);
            last = t.tick;
            bytes += t.changes.len() * ENTRY_BYTES;
        }
        assert_eq!(self.bytes, bytes, "the history's byte count is off");
        assert!(
            self.ticks.len() <= self.limits.ticks,
            "the history keeps {} ticks, over its limit of {}",
            self.ticks.len(),
            self.limits.ticks
        );
        assert!(
            self.bytes <= self.limits.bytes || self.ticks.len() == 1,
            "the history keeps {} bytes in {} ticks, over its limit of {}",
            self.bytes,
            self.ticks.len(),
            self.limits.bytes
        );
    }

    /// The oldest tick a client may resume from.
    pub fn covered_from(&self) -> u64 {
        self.covered_from
    }

    /// Records the changes of `tick` (ticks that changed nothing need no entry).
    pub fn record(&mut self, tick: u64, diff: &TickDiff) {
        if diff.is_empty() {
            return;
        }
        let mut changes = self.spare.pop().unwrap_or_default();
        changes.clear();
        changes.extend(diff.entries.iter().map(|e| (e.id, e.change)));
        self.bytes += changes.len() * ENTRY_BYTES;
        self.ticks.push_back(Tick { tick, changes });
        while self.ticks.len() > self.limits.ticks
            || (self.bytes > self.limits.bytes && self.ticks.len() > 1)
        {
            let old = self.ticks.pop_front().expect("not empty");
            self.bytes -= old.changes.len() * ENTRY_BYTES;
            self.covered_from = old.tick;
            self.spare.push(old.changes);
        }
    }

    /// Every node that changed after `since`, with the union of its change kinds, or
    /// `None` when the history no longer reaches back to `since` (or `since` is ahead of
    /// `now`, a tick this room never showed).
    pub fn since(&self, since: u64, now: u64) -> Option<FxHashMap<NodeId, NodeChange>> {
        if since < self.covered_from || since > now {
            return None;
        }
        let mut out: FxHashMap<NodeId, NodeChange> = FxHashMap::default();
        for t in self.ticks.iter().filter(|t| t.tick > since) {
            for &(id, change) in &t.changes {
                *out.entry(id).or_insert(NodeChange::empty()) |= change;
            }
        }
        Some(out)
    }
}

/// The resumed delta's parts for `scope`, from the nodes that changed since the
/// client's tick.
pub fn resumed_parts(
    changed: &FxHashMap<NodeId, NodeChange>,
    scene: &SceneState,
    scope: &Scope,
    out: &mut DeltaParts,
) {
    out.clear();
    let mut ids: Vec<(&NodeId, &NodeChange)> = changed.iter().collect();
    ids.sort_unstable_by_key(|(id, _)| **id);
    for (&id, &change) in ids {
        if !scene.hierarchy().contains(id) {
            // Gone: the client drops it if it held it (a node added and removed since
            // `since` it never held, and a remove of it changes nothing).
            if !change.contains(NodeChange::ADDED) {
                out.remove.push(id);
            }
            continue;
        }
        if !in_scope(scene, id, scope) {
            out.remove.push(id);
            continue;
        }
        let only_moved =
            !change.intersects(NodeChange::ADDED | NodeChange::RESHAPED | NodeChange::REPARENTED);
        // A moved node of a region scope may have moved into the region: the client
        // may not hold it, so it comes in full; in a whole-room scope it was in scope.
        if only_moved && scope.region.is_none() {
            if let Some(world) = scene.hierarchy().world(id) {
                out.update.push(UpdateRow { id, world });
            }
        } else if let Some(node) = scene.hierarchy().node(id) {
            out.upsert.push(Upsert { node, held: false });
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::diff::DiffEntry;

    proptest! {
        /// Ticks of any size recorded under small limits: after each the history is
        /// well formed, and it answers for every tick it still covers the union of the
        /// changes recorded since, as a plain list of every tick would.
        #[test]
        fn the_history_stays_bounded_and_answers_as_a_full_list_would(
            sizes in prop::collection::vec(0usize..12, 1..60),
            ticks in 1usize..8,
            bytes in 0usize..400,
        ) {
            let mut history = History::new(HistoryLimits { ticks, bytes }, 0);
            let mut all: Vec<(u64, Vec<NodeId>)> = Vec::new();
            let mut diff = TickDiff::default();
            for (i, &n) in sizes.iter().enumerate() {
                let tick = i as u64 + 1;
                diff.entries.clear();
                diff.entries.extend((0..n as u32).map(|k| DiffEntry {
                    id: (tick as u32 * 7 + k) % 23,
                    change: NodeChange::MOVED,
                    old_mask: 0,
                }));
                diff.entries.dedup_by_key(|e| e.id);
                history.record(tick, &diff);
                history.assert_well_formed();
                all.push((tick, diff.entries.iter().map(|e| e.id).collect()));
                for since in 0..=tick {
                    let got = history.since(since, tick);
                    prop_assert_eq!(got.is_some(), since >= history.covered_from());
                    if let Some(got) = got {
                        let mut want: Vec<NodeId> = all
                            .iter()
                            .filter(|(t, _)| *t > since)
                            .flat_map(|(_, ids)| ids.iter().copied())
                            .collect();
                        want.sort_unstable();
                        want.dedup();
                        let mut got: Vec<NodeId> = got.into_keys().collect();
                        got.sort_unstable();
                        prop_assert_eq!(got, want, "since {}", since);
                    }
                }
            }
        }
    }
}
