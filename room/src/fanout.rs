//! The fan-out phase of a tick: each subscriber's delta, built from the tick's diff and
//! pushed into its outbox (queued, or merged for a client that is behind).
//!
//! Outboxes whose writers were left asleep (see `Outbox::push_delta`) go to the room's
//! flush queue in one batch after the last subscriber, for the WebSocket edge's flushers.
//! An outbox a flusher holds (it writes under the outbox's lock) is not waited for where
//! the tick meets it but tried again after the others: on a busy core the tick would
//! otherwise park behind a flusher preempted mid-write, once per such outbox, which at
//! 5,000 subscribers on one core made a 33 ms tick take 40 to 60 ms.
//!
//! Invariant: subscribers of the same scope share one [`SharedDelta`], so a tick's
//! frame is built once and encoded at most once per format however many subscribers
//! read it (a region scope's in O(changed nodes)); and subscribers of the same region
//! scope share one in-scope set, updated once per tick in place (taken from them while
//! it changes, so it is never copied).

use std::sync::Arc;

use super::Room;
use super::delta::SharedDelta;
use super::outbox::{Outbox, Pushed};
use super::scene_state::SceneState;
use super::scope::{self, Scope, ScopeKey};
use rustc_hash::FxHashMap;

impl Room {
    /// Pushes this tick's deltas; answers how many subscribers had theirs merged.
    pub(super) fn fan_out(&mut self, scene: &SceneState, now_ms: u64) -> usize {
        let merged = self.push_deltas(scene, now_ms);
        // Only now: the tick's compact frames were coded against the old baseline.
        self.compact.advance(&self.diff, scene);
        merged
    }

    fn push_deltas(&mut self, scene: &SceneState, now_ms: u64) -> usize {
        if self.diff.is_empty() || self.subscribers.len() == 0 {
            return 0;
        }
        let tick = scene.tick();
        let mut merged = 0;
        let regions = self.region_deltas(scene, now_ms);
        let mut groups: Vec<(u32, Option<Arc<SharedDelta>>)> = Vec::new();
        for sub in &mut self.subscribers.list {
            let delta = match &sub.scope.region {
                None => {
                    let mask = sub.scope.mask;
                    match groups.iter().find(|(m, _)| *m == mask) {
                        Some((_, d)) => d.clone(),
                        None => {
                            scope::whole_room_parts(&self.diff, scene, mask, &mut self.parts);
                            let d = (!self.parts.is_empty()).then(|| {
                                Arc::new(SharedDelta::new(
                                    tick,
                                    now_ms,
                                    std::mem::take(&mut self.parts),
                                ))
                            });
                            groups.push((mask, d.clone()));
                            d
                        }
                    }
                }
                Some(_) => {
                    let (set, d) = regions
                        .get(&sub.scope.key())
                        .expect("every region scope has its group");
                    sub.in_scope = Arc::clone(set);
                    d.clone()
                }
            };
            if let Some(d) = delta {
                if sub.outbox.is_compact() {
                    let compact = &mut self.compact;
                    d.set_compact(|| compact.frame(&d.parts, tick, now_ms));
                }
                match sub.outbox.try_push_delta(&d) {
                    Some(pushed) => {
                        merged += note(pushed, &sub.outbox, &mut self.flush_batch);
                    }
                    None => self.locked_outboxes.push((Arc::clone(&sub.outbox), d)),
                }
            }
        }
        // The outboxes a flusher held a moment ago: each gets its one delta of the tick
        // (per outbox the order is unchanged, and every push lands before the batch
        // goes to the flushers below).
        for (outbox, d) in self.locked_outboxes.drain(..) {
            merged += note(outbox.push_delta(&d), &outbox, &mut self.flush_batch);
        }
        self.shared.flush.submit(&mut self.flush_batch);
        merged
    }
}

/// A region scope's group of a tick: its in-scope set after the tick and its delta.
type RegionGroup = (
    Arc<rustc_hash::FxHashSet<canopy_protocol::NodeId>>,
    Option<Arc<SharedDelta>>,
);

impl Room {
    /// This tick's delta and in-scope set of each region scope, built once per scope.
    /// The sets are first taken from the subscribers (each then holds an empty one),
    /// so the group's set has one holder and is updated in place.
    fn region_deltas(
        &mut self,
        scene: &SceneState,
        now_ms: u64,
    ) -> FxHashMap<ScopeKey, RegionGroup> {
        let empty: Arc<rustc_hash::FxHashSet<_>> = Arc::default();
        let mut groups: FxHashMap<ScopeKey, (Scope, RegionGroup)> = FxHashMap::default();
        for sub in self.subscribers.list.iter_mut() {
            if sub.scope.region.is_none() {
                continue;
            }
            let set = std::mem::replace(&mut sub.in_scope, Arc::clone(&empty));
            groups
                .entry(sub.scope.key())
                .or_insert((sub.scope, (set, None)));
        }
        let tick = scene.tick();
        let mut out = FxHashMap::with_capacity_and_hasher(groups.len(), Default::default());
        for (key, (scope, (mut set, _))) in groups {
            let region = scope.region.as_ref().expect("a region scope");
            let ids = Arc::make_mut(&mut set);
            scope::region_parts(&self.diff, scene, region, scope.mask, ids, &mut self.parts);
            let delta = (!self.parts.is_empty()).then(|| {
                Arc::new(SharedDelta::new(
                    tick,
                    now_ms,
                    std::mem::take(&mut self.parts),
                ))
            });
            out.insert(key, (set, delta));
        }
        out
    }
}

/// Books one push: the outbox goes to the flushers' batch if it asked for it; answers 1
/// when its delta was merged.
fn note(pushed: Pushed, outbox: &Arc<Outbox>, flush_batch: &mut Vec<Arc<Outbox>>) -> usize {
    if pushed.flush {
        flush_batch.push(Arc::clone(outbox));
    }
    usize::from(pushed.merged)
}
