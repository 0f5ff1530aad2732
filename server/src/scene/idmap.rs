//! The id → slot index: O(1), and removed ids stay in it as retired tombstones so that
//! they are never reused.
//!
//! Ids below a bound live in a direct table (`dense`: one `u32` per id); the rest live in
//! an `FxHashMap`. The table pays off because server-assigned ids are dense from 0 and
//! many clients number their nodes densely too: a lookup is one memory access instead of
//! the hash map's two dependent ones (control bytes, then the bucket), which is what a
//! dirty update of a room far larger than the caches waits on. The table only grows while
//! it stays at least a quarter full (counting retired ids), so it never costs more than
//! 16 bytes per id it holds, about what a hash map entry costs. Invariant: an id is in
//! exactly one of the two parts.

use canopy_protocol::NodeId;
use rustc_hash::FxHashMap;

/// A table entry for an id that was never used.
const VACANT: u32 = u32::MAX - 1;
/// The table never shrinks below this size once created.
const MIN_DENSE: usize = 1024;

#[derive(Clone, Debug, Default)]
pub(crate) struct IdMap {
    dense: Vec<u32>,
    /// Entries of `dense` that are not `VACANT`.
    dense_used: usize,
    sparse: FxHashMap<NodeId, u32>,
}

impl IdMap {
    /// The value for `id` (a slot, or the caller's retired marker), if the id was used.
    #[inline]
    pub fn get(&self, id: NodeId) -> Option<u32> {
        match self.dense.get(id as usize) {
            Some(&v) if v != VACANT => Some(v),
            Some(_) => None,
            None => self.sparse.get(&id).copied(),
        }
    }

    #[inline]
    pub fn contains_key(&self, id: NodeId) -> bool {
        self.get(id).is_some()
    }

    /// Sets the value of `id`, returning the old one. `value` must not be `VACANT`.
    pub fn insert(&mut self, id: NodeId, value: u32) -> Option<u32> {
        debug_assert!(value != VACANT);
        let i = id as usize;
        if i >= self.dense.len() {
            self.maybe_grow(i);
        }
        match self.dense.get_mut(i) {
            Some(v) => {
                let old = std::mem::replace(v, value);
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
    pub fn remove(&mut self, id: NodeId) -> Option<u32> {
        match self.dense.get_mut(id as usize) {
            Some(v) if *v != VACANT => {
                self.dense_used -= 1;
                Some(std::mem::replace(v, VACANT))
            }
            Some(_) => None,
            None => self.sparse.remove(&id),
        }
    }

    pub fn get_mut(&mut self, id: NodeId) -> Option<&mut u32> {
        match self.dense.get_mut(id as usize) {
            Some(v) if *v != VACANT => Some(v),
            Some(_) => None,
            None => self.sparse.get_mut(&id),
        }
    }

    /// Every (id, value) pair, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (NodeId, u32)> + '_ {
        self.dense
            .iter()
            .enumerate()
            .filter(|(_, v)| **v != VACANT)
            .map(|(i, &v)| (i as NodeId, v))
            .chain(self.sparse.iter().map(|(&k, &v)| (k, v)))
    }

    /// Ids ever used (live and retired).
    pub fn len(&self) -> usize {
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
        let moved: Vec<(NodeId, u32)> = self
            .sparse
            .iter()
            .filter(|&(&k, _)| (k as usize) < new_len)
            .map(|(&k, &v)| (k, v))
            .collect();
        for (k, v) in moved {
            self.sparse.remove(&k);
            self.dense[k as usize] = v;
            self.dense_used += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_and_sparse_ids() {
        let mut m = IdMap::default();
        assert_eq!(m.insert(3, 30), None);
        assert_eq!(m.insert(4_000_000_000, 40), None);
        assert_eq!(m.get(3), Some(30));
        assert_eq!(m.get(4_000_000_000), Some(40));
        assert_eq!(m.get(5), None);
        assert_eq!(m.insert(3, 31), Some(30));
        // Dense growth while the table stays a quarter full.
        for id in 0..5000 {
            m.insert(id, id + 1);
        }
        assert!(m.dense.len() >= 5000);
        assert_eq!(m.len(), 5001);
        assert_eq!(m.remove(7), Some(8));
        assert_eq!(m.get(7), None);
        assert_eq!(m.remove(4_000_000_000), Some(40));
        assert_eq!(m.iter().count(), 4999);
        *m.get_mut(9).unwrap() = 99;
        assert_eq!(m.get(9), Some(99));
    }
}
