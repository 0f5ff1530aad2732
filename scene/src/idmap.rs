//! The id → slot index: O(1), and removed ids stay in it as retired tombstones so that
//! they are never reused.
//!
//! Ids below a bound live in a direct table (`dense`: one `u32` per id); the rest live in
//! an `FxHashMap`. The table pays off because server-assigned ids are dense from 0 and
//! many clients number their nodes densely too: a lookup is one memory access instead of
//! the hash map's two dependent ones (control bytes, then the bucket), which is what a
//! dirty update of a room far larger than the caches waits on. The table only grows while
//! it stays at least a quarter full (counting retired ids), so it never costs more than
//! 16 bytes per id it holds, about what a hash map entry costs. Beside the table, one bit
//! per id says whether it is live (its value is a slot, not `RETIRED`): at one bit per
//! id that set stays in the caches of even a million-node room, so checking that an id
//! exists costs no memory round trip. Invariant: an id is in exactly one of the two
//! parts, and its live bit (dense range only) is set exactly when its value is a slot.

use canopy_protocol::NodeId;
use rustc_hash::FxHashMap;

use super::slot::Slot;

/// The value the hierarchy stores for a removed id: its "no slot" value.
pub(crate) const RETIRED: Slot = Slot::NONE;
/// A table entry for an id that was never used.
const VACANT: Slot = Slot::new(u32::MAX - 1);
/// The table never shrinks below this size once created.
const MIN_DENSE: usize = 1024;

#[derive(Clone, Debug, Default)]
pub(crate) struct IdMap {
    dense: Vec<Slot>,
    /// Entries of `dense` that are not `VACANT`.
    dense_used: usize,
    /// Bit `id` is set when `dense[id]` is a slot (neither `VACANT` nor `RETIRED`).
    live: Vec<u64>,
    sparse: FxHashMap<NodeId, Slot>,
}

impl IdMap {
    /// The value for `id` (a slot, or [`RETIRED`]), if the id was used.
    #[inline]
    pub(crate) fn get(&self, id: NodeId) -> Option<Slot> {
        match self.dense.get(id as usize) {
            Some(&v) if v != VACANT => Some(v),
            Some(_) => None,
            None => self.sparse.get(&id).copied(),
        }
    }

    #[inline]
    pub(crate) fn contains_key(&self, id: NodeId) -> bool {
        self.get(id).is_some()
    }

    /// True if `id` maps to a slot (a live node). For ids in the table this reads only the
    /// live bits.
    #[inline]
    pub(crate) fn is_live(&self, id: NodeId) -> bool {
        let i = id as usize;
        if i < self.dense.len() {
            self.live[i / 64] & (1 << (i % 64)) != 0
        } else {
            self.sparse.get(&id).is_some_and(|&v| v != RETIRED)
        }
    }

    /// The slot of `id` if it is live.
    #[inline]
    pub(crate) fn live(&self, id: NodeId) -> Option<Slot> {
        self.get(id).filter(|&s| s != RETIRED)
    }

    fn set_live(&mut self, i: usize, value: Slot) {
        let bit = 1u64 << (i % 64);
        if value == VACANT || value == RETIRED {
            self.live[i / 64] &= !bit;
        } else {
            self.live[i / 64] |= bit;
        }
    }

    /// Sets the value of `id`, returning the old one. `value` must not be `VACANT`.
    pub(crate) fn insert(&mut self, id: NodeId, value: Slot) -> Option<Slot> {
        debug_assert!(value != VACANT);
        let i = id as usize;
        if i >= self.dense.len() {
            self.maybe_grow(i);
        }
        match self.dense.get_mut(i) {
            Some(v) => {
                let old = std::mem::replace(v, value);
                self.set_live(i, value);
                if old == VACANT {
                    self.dense_used += 1;
                    None
                } else {
                    Some(old)
                }
            }
            None => self.sparse.insert(id, value),
        }
    }

    /// Forgets `id` entirely (only undoing an insert does this: ids otherwise retire).
    pub(crate) fn remove(&mut self, id: NodeId) -> Option<Slot> {
        match self.dense.get_mut(id as usize) {
            Some(v) if *v != VACANT => {
                let old = std::mem::replace(v, VACANT);
                self.dense_used -= 1;
                self.set_live(id as usize, VACANT);
                Some(old)
            }
            Some(_) => None,
            None => self.sparse.remove(&id),
        }
    }

    /// Moves a live id to another slot (the live bit does not change).
    pub(crate) fn relocate(&mut self, id: NodeId, slot: Slot) {
        debug_assert!(slot != VACANT && slot != RETIRED);
        match self.dense.get_mut(id as usize) {
            Some(v) => *v = slot,
            None => {
                self.sparse.insert(id, slot);
            }
        }
    }

    /// Every (id, value) pair, in no particular order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (NodeId, Slot)> + '_ {
        self.dense
            .iter()
            .enumerate()
            .filter(|(_, v)| **v != VACANT)
            .map(|(i, &v)| (i as NodeId, v))
            .chain(self.sparse.iter().map(|(&k, &v)| (k, v)))
    }

    /// Ids ever used (live and retired).
    pub(crate) fn len(&self) -> usize {
        self.dense_used + self.sparse.len()
    }

    /// Grows the table to cover index `i` if it would stay at least a quarter full, and
    /// moves the ids it now covers out of the hash map.
    fn maybe_grow(&mut self, i: usize) {
        let Some(want) = (i + 1).checked_next_power_of_two() else {
            return;
        };
        let new_len = want.max(MIN_DENSE);
        if new_len > 4 * (self.len() + 1) && new_len > MIN_DENSE {
            return;
        }
        self.dense.resize(new_len, VACANT);
        self.live.resize(new_len.div_ceil(64), 0);
        let moved: Vec<(NodeId, Slot)> = self
            .sparse
            .iter()
            .filter(|&(&k, _)| (k as usize) < new_len)
            .map(|(&k, &v)| (k, v))
            .collect();
        for (k, v) in moved {
            self.sparse.remove(&k);
            self.dense[k as usize] = v;
            self.dense_used += 1;
            self.set_live(k as usize, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_and_sparse_ids() {
        let mut m = IdMap::default();
        let s = Slot::new;
        assert_eq!(m.insert(3, s(30)), None);
        assert_eq!(m.insert(4_000_000_000, s(40)), None);
        assert_eq!(m.get(3), Some(s(30)));
        assert_eq!(m.get(4_000_000_000), Some(s(40)));
        assert_eq!(m.get(5), None);
        assert_eq!(m.insert(3, s(31)), Some(s(30)));
        // Dense growth while the table stays a quarter full.
        for id in 0..5000 {
            m.insert(id, s(id + 1));
        }
        assert!(m.dense.len() >= 5000);
        assert_eq!(m.len(), 5001);
        assert_eq!(m.remove(7), Some(s(8)));
        assert_eq!(m.get(7), None);
        assert_eq!(m.remove(4_000_000_000), Some(s(40)));
        assert_eq!(m.iter().count(), 4999);
        m.relocate(9, s(99));
        assert_eq!(m.get(9), Some(s(99)));
        assert!(m.is_live(9) && !m.is_live(7) && !m.is_live(6000));
        m.insert(9, RETIRED);
        assert!(!m.is_live(9));
        assert_eq!((m.live(9), m.live(10)), (None, Some(s(11))));
        m.insert(4_000_000_001, s(5));
        assert!(m.is_live(4_000_000_001));
        m.insert(4_000_000_001, RETIRED);
        assert!(!m.is_live(4_000_000_001));
    }
}
