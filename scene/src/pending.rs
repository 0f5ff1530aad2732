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
//! The call itself only checks that the id is live, which reads one bit (see `idmap.rs`);
//! the id is resolved to its slot when the buffer is written out, together with the others.
//! Likewise it only checks a rotation (finite, long enough): the normalization, an f64
//! square root and divisions whose latency the call otherwise waited out, runs when the
//! buffer is written out, for all its edits in one loop whose iterations overlap (or when
//! a read looks through the buffer). It is the same function either way, so the stored
//! rotation is the one an immediate normalization gives.
//!
//! Invariant: every buffered edit names a live node, the buffer is empty whenever a batch
//! runs or slots move (`layout.rs`), and the effective local transform of a node is its
//! stored one with the buffered edits for it applied in order.

use canopy_protocol::NodeId;
use glam::{Quat, Vec3};

use super::Hierarchy;
use super::idmap::RETIRED;
use super::slot::Slot;
use super::store::Trs;
use super::validate;

/// Edits buffered at most; also bounds the cost of a `local` read.
pub(crate) const PENDING_MAX: usize = 64;

bitflags::bitflags! {
    /// Which parts of the local transform an edit sets.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct Parts: u8 {
        const T = 1;
        const R = 1 << 1;
        const S = 1 << 2;
        /// The rotation is as the caller gave it, not normalized yet.
        const RAW_R = 1 << 3;
    }
}

/// One buffered edit: the values, and which of them to apply.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PendingLocal {
    id: NodeId,
    parts: Parts,
    value: Trs,
}

impl PendingLocal {
    /// An edit of the given parts; `r` is a rotation that passed
    /// `validate::rotation_unnormalized`, normalized later.
    pub(crate) fn new(
        id: NodeId,
        t: Option<Vec3>,
        r: Option<Quat>,
        s: Option<f32>,
    ) -> PendingLocal {
        let mut parts = Parts::empty();
        parts.set(Parts::T, t.is_some());
        parts.set(Parts::R | Parts::RAW_R, r.is_some());
        parts.set(Parts::S, s.is_some());
        PendingLocal {
            id,
            parts,
            value: Trs::new(
                t.unwrap_or(Vec3::ZERO),
                r.unwrap_or(Quat::IDENTITY),
                s.unwrap_or(1.0),
            ),
        }
    }

    /// Normalizes the rotation if it is not yet.
    fn normalize(&mut self) {
        if self.parts.contains(Parts::RAW_R) {
            self.value.r = validate::normalized(self.value.r.to_array());
            self.parts.remove(Parts::RAW_R);
        }
    }

    pub(crate) fn id(&self) -> NodeId {
        self.id
    }

    fn apply(&self, l: &mut Trs) {
        if self.parts.contains(Parts::T) {
            l.set_t(self.value.t());
        }
        if self.parts.contains(Parts::RAW_R) {
            l.r = validate::normalized(self.value.r.to_array());
        } else if self.parts.contains(Parts::R) {
            l.r = self.value.r;
        }
        if self.parts.contains(Parts::S) {
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
        // Resolve the ids, then read every target line, then write: each pass's cache
        // misses overlap (see the module docs). The links are read too: the update that
        // follows needs them, and their misses overlap with these.
        for p in &mut self.pending {
            p.normalize();
        }
        let mut slots = std::mem::take(&mut self.scratch.pending_slots);
        slots.clear();
        // Buffered edits name live nodes (see the invariant), so every id has a slot.
        slots.extend(
            self.pending
                .iter()
                .map(|p| self.slots.get(p.id).unwrap_or(RETIRED)),
        );
        let xf = &mut self.store.xf;
        let topo = &self.store.topo;
        let mut acc = 0u32;
        for &s in &slots {
            acc ^= xf[s].local.s().to_bits() ^ topo[s].parent.raw();
        }
        std::hint::black_box(acc);
        for (p, &s) in self.pending.drain(..).zip(&slots) {
            p.apply(&mut xf[s].local);
        }
        self.scratch.pending_slots = slots;
    }

    /// The local transform of a slot with the buffered edits applied.
    pub(crate) fn effective_local(&self, slot: Slot) -> Trs {
        let id = self.store.topo[slot].id;
        let mut l = self.store.xf[slot].local;
        for p in &self.pending {
            if p.id == id {
                p.apply(&mut l);
            }
        }
        l
    }
}
