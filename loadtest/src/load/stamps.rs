//! How an edit is recognised when it comes back in a delta: the run's clock, the scale
//! codes editors write, and the per-node table of the latest code sent and when.
//!
//! An editor gives each edited leaf a scale that no earlier edit of the run used
//! (`1 + k` ulps, see [`scale_code`]) and records `(code, send time)` in the node's slot
//! before sending. A subscriber that sees an update row whose world scale has the same
//! bits knows which send it shows and records `now - send time`. Since every ancestor of
//! a leaf has world scale exactly 1 (see `world`), the world scale equals the local
//! scale bit for bit.
//!
//! Invariant: a slot only ever holds the latest edit of its node; a subscriber that sees
//! an older value (overwritten before it arrived, or folded into a merged frame) simply
//! takes no sample, so no sample is ever attributed to the wrong send.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Instant;

use canopy_protocol::NodeId;

/// The run's monotonic clock, shared by editors and subscribers (one process).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    start: Instant,
}

impl Clock {
    pub(crate) fn start() -> Self {
        Clock {
            start: Instant::now(),
        }
    }

    /// Microseconds since the clock started.
    pub(crate) fn now_us(&self) -> u64 {
        self.start.elapsed().as_micros() as u64
    }
}

/// The number of distinct codes: every `f32` in `[1, 2)` but 1 itself, which is the
/// scale nodes start with.
const CODES: u32 = (1 << 23) - 1;

/// The scale that carries sequence number `seq`: `1 + (seq mod CODES) + 1` ulps, a
/// value in `(1, 2)` that is exact in `f32` and survives JSON and bincode unchanged.
pub(crate) fn scale_code(seq: u32) -> f32 {
    f32::from_bits(1.0f32.to_bits() + seq % CODES + 1)
}

/// The latest code sent per node of one room, with its send time.
#[derive(Debug)]
pub(crate) struct Stamps {
    /// High 32 bits: the scale's bits; low 32 bits: the send time in microseconds
    /// (modulo 2^32, about 71 minutes, far beyond any latency).
    slots: Vec<AtomicU64>,
    next_seq: AtomicU32,
}

impl Stamps {
    /// A table for ids `0..nodes`.
    pub(crate) fn new(nodes: usize) -> Self {
        Stamps {
            slots: (0..nodes).map(|_| AtomicU64::new(0)).collect(),
            next_seq: AtomicU32::new(0),
        }
    }

    /// A fresh scale code, unique within the run (up to 8 million edits).
    pub(crate) fn next_scale(&self) -> f32 {
        scale_code(self.next_seq.fetch_add(1, Ordering::Relaxed))
    }

    /// Records that `scale` is about to be sent for `id` at `now_us`.
    pub(crate) fn stamp(&self, id: NodeId, scale: f32, now_us: u64) {
        if let Some(slot) = self.slots.get(id as usize) {
            let packed = (u64::from(scale.to_bits()) << 32) | (now_us & 0xFFFF_FFFF);
            slot.store(packed, Ordering::Release);
        }
    }

    /// The latency in microseconds of a row showing `scale` for `id`, when it is the
    /// latest value sent for that node.
    pub(crate) fn latency_us(&self, id: NodeId, scale: f32, now_us: u64) -> Option<u64> {
        let packed = self.slots.get(id as usize)?.load(Ordering::Acquire);
        if packed == 0 || (packed >> 32) as u32 != scale.to_bits() {
            return None;
        }
        let sent = packed as u32;
        Some(u64::from((now_us as u32).wrapping_sub(sent)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_and_in_range() {
        let a = scale_code(0);
        let b = scale_code(1);
        assert!(a > 1.0 && b > a && b < 2.0);
        assert_eq!(scale_code(CODES), a);
        // JSON (shortest round-trip decimal) gives back the same bits.
        let text = serde_json::to_string(&b).unwrap();
        assert_eq!(
            serde_json::from_str::<f32>(&text).unwrap().to_bits(),
            b.to_bits()
        );
    }

    #[test]
    fn only_the_latest_send_is_matched() {
        let s = Stamps::new(4);
        let first = s.next_scale();
        let second = s.next_scale();
        s.stamp(2, first, 1_000);
        assert_eq!(s.latency_us(2, first, 1_500), Some(500));
        s.stamp(2, second, 2_000);
        assert_eq!(s.latency_us(2, first, 2_500), None);
        assert_eq!(s.latency_us(2, second, 2_100), Some(100));
        assert_eq!(s.latency_us(3, 1.0, 10), None);
        assert_eq!(s.latency_us(99, second, 10), None);
    }
}
