//! Deferred local edits: what library `set_local` calls (update callbacks, demos) write.
//!
//! A `set_local` call checks its values and its node at once, but instead of writing the
//! node's transform record it appends the edit to a short buffer. The buffer is written
//! out in one go: when it is full, before a batch, and at the start of an update. In a
//! room far larger than the caches each record is a cache miss; written one call at a
//! time they queue behind each other, written together (after one pass that reads every
//! target line) they overlap. Reads of a local transform look through the buffer, which
//! is never longer than `PENDING_MAX`.
//!
//! Invariant: every buffered edit names a live slot, the buffer is empty whenever a batch
//! runs or slots move (`layout.rs`), and the effective local transform of a node is its
//! stored one with the buffered edits for its slot applied in order.

use glam::{Quat, Vec3};

use super::Hierarchy;
use super::store::Trs;

/// Edits buffered at most; also bounds the cost of a `local` read.
pub(crate) const PENDING_MAX: usize = 64;

/// Which parts of the local transform an edit sets.
const SET_T: u8 = 1;
const SET_R: u8 = 2;
const SET_S: u8 = 4;

/// One buffered edit: the values, and which of them to apply.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PendingLocal {
    slot: u32,
    parts: u8,
    value: Trs,
}

impl PendingLocal {
    pub fn new(slot: u32, t: Option<Vec3>, r: Option<Quat>, s: Option<f32>) -> PendingLocal {
        let mut parts = 0;
        if t.is_some() {
            parts |= SET_T;
        }
        if r.is_some() {
            parts |= SET_R;
        }
        if s.is_some() {
            parts |= SET_S;
        }
        PendingLocal {
            slot,
            parts,
            value: Trs::new(
                t.unwrap_or(Vec3::ZERO),
                r.unwrap_or(Quat::IDENTITY),
                s.unwrap_or(1.0),
            ),
        }
    }

    pub fn slot(&self) -> u32 {
        self.slot
    }

    fn apply(&self, l: &mut Trs) {
        if self.parts & SET_T != 0 {
            l.set_t(self.value.t());
        }
        if self.parts & SET_R != 0 {
            l.r = self.value.r;
        }
        if self.parts & SET_S != 0 {
            l.set_s(self.value.s());
        }
    }
}

impl Hierarchy {
    /// Buffers an edit, writing the buffer out when it is full.
    pub(crate) fn defer_local(&mut self, edit: PendingLocal) {
        self.pending.push(edit);
        if self.pending.len() >= PENDING_MAX {
            self.flush_pending();
        }
    }

    /// Writes every buffered edit to the store, in order.
    pub(crate) fn flush_pending(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        debug_assert!(
            !self.journal.active,
            "edits are flushed before a batch starts"
        );
        let xf = &mut self.store.xf;
        // Read every target line first, so that their misses overlap (see the module docs).
        let mut acc = 0u32;
        for p in &self.pending {
            acc ^= xf[p.slot as usize].local.s().to_bits();
        }
        std::hint::black_box(acc);
        for p in self.pending.drain(..) {
            p.apply(&mut xf[p.slot as usize].local);
        }
    }

    /// The local transform of a slot with the buffered edits applied.
    pub(crate) fn effective_local(&self, slot: usize) -> Trs {
        let mut l = self.store.xf[slot].local;
        for p in &self.pending {
            if p.slot as usize == slot {
                p.apply(&mut l);
            }
        }
        l
    }
}
