//! A paced subscriber's held changes (v1.2 `send_hz` and `tiers`): what its scope's
//! deltas said since its last send, merged per node (latest value wins, as for a slow
//! reader, `merge.rs`), and which of them each send carries.
//!
//! **Sends.** With `send_hz` N in a room ticking at T, tick `t` is a send when
//! `floor(t·N/T) > floor((t-1)·N/T)`, and its send number is `s = floor(t·N/T)`: exactly
//! N sends in any T consecutive ticks, evenly spread. Without `send_hz` every tick is a
//! send and `s = t`. (A relay's replica may skip ticks: a send whose tick it skipped
//! happens at the next tick it replays.) A send's frame carries `tick = t`, the newest tick folded in.
//!
//! **Tiers.** At send `s`, every held `upsert` (entered, reshaped, reparented) and
//! `remove` goes out; a held `update` (world transform only) of a node in tier `i` goes
//! out when `s` is a multiple of tier `i`'s `every`, or when the node's tier now differs
//! from the tier it was in when the update was first held. A node's tier comes from the
//! distance of its world AABB to the scope's centre at the time of the send.
//!
//! Invariant ([`Pacer::assert_well_formed`]): `held_tier` has an entry exactly for each
//! held `update`; after a send nothing held is due at that send.

use canopy_protocol::NodeId;
use rustc_hash::FxHashMap;

use super::delta::DeltaParts;
use super::interest::Pacing;
use super::merge::MergeState;

/// A paced subscriber's held changes and send schedule (see the module doc).
#[derive(Debug)]
pub(super) struct Pacer {
    pacing: Pacing,
    tick_hz: u64,
    held: MergeState,
    /// The tier each held update was in when it was first held.
    held_tier: FxHashMap<NodeId, u8>,
    /// The followed node was removed: its error goes out after the next send's frame.
    pub(super) lost: Option<NodeId>,
    /// The last tick this pacer was given: a replica's ticks may skip some, and a send
    /// whose tick was skipped happens at the next tick it is given.
    last_tick: Option<u64>,
}

impl Pacer {
    /// A pacer for `pacing` in a room ticking at `tick_hz`, holding nothing.
    pub(super) fn new(pacing: Pacing, tick_hz: u32) -> Self {
        Self {
            pacing,
            tick_hz: u64::from(tick_hz.max(1)),
            held: MergeState::default(),
            held_tier: FxHashMap::default(),
            lost: None,
            last_tick: None,
        }
    }

    /// The send number of tick `tick` when a send falls in `(after, tick]`, else `None`.
    pub(super) fn send_number(&self, after: u64, tick: u64) -> Option<u64> {
        let Some(hz) = self.pacing.send_hz else {
            return (tick > after).then_some(tick);
        };
        let hz = u64::from(hz).min(self.tick_hz);
        let s = tick * hz / self.tick_hz;
        (s > after * hz / self.tick_hz).then_some(s)
    }

    /// Folds one tick's parts of the scope in; `tier_of` gives a node's tier now.
    pub(super) fn fold(
        &mut self,
        tick: u64,
        time: u64,
        parts: &DeltaParts,
        tier_of: impl Fn(NodeId) -> u8,
    ) {
        if parts.is_empty() {
            return;
        }
        self.held.merge(tick, time, parts);
        for u in &parts.upsert {
            self.held_tier.remove(&u.node.id);
        }
        for id in &parts.remove {
            self.held_tier.remove(id);
        }
        for row in &parts.update {
            if self.held.is_update(row.id) {
                self.held_tier
                    .entry(row.id)
                    .or_insert_with(|| tier_of(row.id));
            }
        }
    }

    /// At a send (`tick` is one), the due changes into `out` (cleared first); answers
    /// false, with `out` untouched, when `tick` is not a send.
    pub(super) fn take_send(
        &mut self,
        tick: u64,
        out: &mut DeltaParts,
        tier_of: impl Fn(NodeId) -> u8,
    ) -> bool {
        let after = self.last_tick.unwrap_or(tick.saturating_sub(1));
        self.last_tick = Some(tick);
        let Some(s) = self.send_number(after, tick) else {
            return false;
        };
        let tiers = &self.pacing.tiers;
        let held_tier = &self.held_tier;
        self.held.take_due(out, |id| {
            if tiers.is_empty() {
                return true;
            }
            let now = tier_of(id);
            held_tier.get(&id) != Some(&now) || s % u64::from(tiers.every(now)) == 0
        });
        let held = &self.held;
        self.held_tier.retain(|id, _| held.is_update(*id));
        true
    }

    /// Panics unless the invariant of the module doc holds.
    pub(super) fn assert_well_formed(&self) {
        let updates = self.held.update_ids().count();
        assert_eq!(
            updates,
            self.held_tier.len(),
            "held updates and their tiers differ"
        );
        for id in self.held.update_ids() {
            assert!(
                self.held_tier.contains_key(&id),
                "held update {id} has no tier"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interest::Tiers;

    #[test]
    fn twenty_sends_in_every_thirty_ticks() {
        let p = Pacer::new(
            Pacing {
                send_hz: Some(20),
                tiers: Tiers::NONE,
            },
            30,
        );
        for start in [1u64, 7, 1000] {
            let sends: Vec<u64> = (start..start + 30)
                .filter_map(|t| p.send_number(t - 1, t))
                .collect();
            assert_eq!(sends.len(), 20, "from {start}");
            assert!(
                sends.windows(2).all(|w| w[1] == w[0] + 1),
                "consecutive numbers"
            );
        }
        let every = Pacer::new(Pacing::EVERY_TICK, 30);
        assert_eq!(every.send_number(4, 5), Some(5));
        // A replica that skipped ticks 6 to 11 sends at 12 for the send of tick 6.
        assert_eq!(p.send_number(5, 12), Some(8));
        assert_eq!(p.send_number(6, 7), None);
    }
}
