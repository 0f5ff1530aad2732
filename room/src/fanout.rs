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
//! Invariant: whole-room scopes with the same mask, and region scopes of the same region
//! and mask, share one [`SharedDelta`], so a tick's frame is built once and encoded at
//! most once per format however many subscribers read it (a region scope's in O(changed
//! nodes)); subscribers of the same region scope share one in-scope set, updated once
//! per tick in place (taken from them while it changes, so it is never copied). Frustum
//! scopes build their own in O(changed nodes); follow scopes build their own from the
//! changes the room's follow index hands each (plus, for one whose centre moved, the
//! nodes crossing its sphere), so a follow scope nothing near changed costs nothing.
//! A paced subscriber (v1.2 `send_hz`, `tiers`) folds its scope's parts into its
//! [`Pacer`](super::pacing::Pacer) every tick and gets a frame of its own on its sends
//! only, written with absolute compact rows (it is never in step with the baseline).

use std::sync::Arc;

use bytes::Bytes;
use canopy_protocol::{Format, NodeId, codec};
use canopy_scene::octree::point_aabb_dist;

use super::Room;
use super::delta::{DeltaParts, SharedDelta};
use super::diff::TickDiff;
use super::follow::{ChangedBoxes, FollowPass, Held};
use super::follow_index::FollowIndex;
use super::interest::lost_follow;
use super::outbox::{Outbox, Pushed};
use super::scene_state::SceneState;
use super::scope::{self, Scope, ScopeKey};
use super::subscribers::Subscriber;
use rustc_hash::FxHashMap;

/// Whole-room deltas of this tick by mask, shared by their subscribers.
type Groups = Vec<(u32, Option<Arc<SharedDelta>>)>;

impl Room {
    /// Pushes this tick's deltas; answers how many subscribers had theirs merged.
    pub(super) fn fan_out(&mut self, scene: &SceneState, now_ms: u64) -> usize {
        let merged = self.push_deltas(scene, now_ms);
        // Only now: the tick's compact frames were coded against the old baseline.
        self.compact.advance(&self.diff, scene);
        merged
    }

    fn push_deltas(&mut self, scene: &SceneState, now_ms: u64) -> usize {
        if self.subscribers.len() == 0 {
            return 0;
        }
        // Paced subscribers may have a send due even in a tick that changed nothing.
        let paced = || self.subscribers.list.iter().any(|s| s.pacer.is_some());
        if self.diff.is_empty() && !paced() {
            return 0;
        }
        let tick = scene.tick();
        let mut merged = 0;
        let regions = self.region_deltas(scene, now_ms);
        let mut groups: Groups = Vec::new();
        let pass = if self.subscribers.follows.is_empty() {
            FollowPass::Events
        } else {
            self.changed_boxes.fill(&self.diff, scene);
            let subs = &mut self.subscribers;
            subs.route_follow_changes(&self.diff, scene, &self.changed_boxes)
        };
        let follows = &mut self.subscribers.follows;
        for sub in &mut self.subscribers.list {
            let scratch = (&mut groups, &regions, &mut self.parts);
            let tick_state = (&self.diff, scene, &self.changed_boxes);
            let follow = (pass, &mut *follows);
            let (delta, error) = subscriber_delta(sub, scratch, tick_state, follow, now_ms);
            if let Some(d) = delta {
                if sub.outbox.is_compact() {
                    if sub.pacer.is_some() {
                        d.set_compact(|| absolute_compact(&d));
                    } else {
                        let compact = &mut self.compact;
                        d.set_compact(|| compact.frame(&d.parts, tick, now_ms));
                    }
                }
                match sub.outbox.try_push_delta(&d) {
                    Some(pushed) => {
                        merged += note(pushed, &sub.outbox, &mut self.flush_batch);
                    }
                    None => self.locked_outboxes.push((Arc::clone(&sub.outbox), d)),
                }
            }
            if let Some(node) = error {
                // After the frame that emptied the scope (it may wait behind a flusher's
                // lock below; the error is a reply and goes after what is queued).
                self.lost_follows.push((Arc::clone(&sub.outbox), node));
            }
        }
        // The outboxes a flusher held a moment ago: each gets its one delta of the tick
        // (per outbox the order is unchanged, and every push lands before the batch
        // goes to the flushers below).
        for (outbox, d) in self.locked_outboxes.drain(..) {
            merged += note(outbox.push_delta(&d), &outbox, &mut self.flush_batch);
        }
        for (outbox, node) in self.lost_follows.drain(..) {
            outbox.push_reply(&lost_follow(node).to_ws(None, None));
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

/// The region groups of a tick, by scope.
type RegionGroups = FxHashMap<ScopeKey, RegionGroup>;

/// One subscriber's frame of this tick, if it gets one, and the followed node whose
/// error it is owed now (after that frame).
fn subscriber_delta(
    sub: &mut Subscriber,
    (groups, regions, parts): (&mut Groups, &RegionGroups, &mut DeltaParts),
    (diff, scene, boxes): (&TickDiff, &SceneState, &ChangedBoxes),
    follow: (FollowPass, &mut FollowIndex),
    now_ms: u64,
) -> (Option<Arc<SharedDelta>>, Option<NodeId>) {
    let (delta, lost) = if sub.scope.is_whole_room() {
        let mask = sub.scope.mask;
        (group_delta(groups, diff, scene, mask, now_ms, parts), None)
    } else if sub.scope.region.is_some() {
        let (set, d) = regions
            .get(&sub.scope.key())
            .expect("every region scope has its group");
        sub.in_scope = Arc::clone(set);
        (d.clone(), None)
    } else {
        let lost = own_parts(sub, (diff, scene, boxes), follow, parts);
        let own = (!parts.is_empty()).then(|| {
            Arc::new(SharedDelta::new(
                scene.tick(),
                now_ms,
                std::mem::take(parts),
            ))
        });
        (own, lost)
    };
    if sub.pacer.is_none() {
        return (delta, lost);
    }
    pace(sub, delta.as_deref(), lost, scene, now_ms, parts)
}

/// The whole-room delta of `mask` for this tick, built once per mask.
fn group_delta(
    groups: &mut Groups,
    diff: &TickDiff,
    scene: &SceneState,
    mask: u32,
    now_ms: u64,
    parts: &mut DeltaParts,
) -> Option<Arc<SharedDelta>> {
    if let Some((_, d)) = groups.iter().find(|(m, _)| *m == mask) {
        return d.clone();
    }
    scope::whole_room_parts(diff, scene, mask, parts);
    let d = (!parts.is_empty()).then(|| {
        Arc::new(SharedDelta::new(
            scene.tick(),
            now_ms,
            std::mem::take(parts),
        ))
    });
    groups.push((mask, d.clone()));
    d
}

/// A shaped scope's parts for this tick into `parts`; answers the followed node when
/// this tick removed it.
fn own_parts(
    sub: &mut Subscriber,
    (diff, scene, boxes): (&TickDiff, &SceneState, &ChangedBoxes),
    (pass, follows): (FollowPass, &mut FollowIndex),
    parts: &mut DeltaParts,
) -> Option<NodeId> {
    let mask = sub.scope.mask;
    if let (Some(f), Some(state)) = (&sub.scope.follow, &mut sub.follow) {
        if !state.has_work(pass) {
            parts.clear();
            return None;
        }
        // A follow scope's set is its subscriber's alone: updated in place.
        let in_scope = Arc::make_mut(&mut sub.in_scope);
        let held = Held::new(in_scope, follows, sub.outbox.conn);
        return state.tick_parts((diff, scene, boxes), (pass, f, mask), held, parts);
    }
    let in_scope = Arc::make_mut(&mut sub.in_scope);
    if let Some(f) = &sub.scope.frustum {
        scope::frustum_parts(diff, scene, f, mask, in_scope, parts);
    } else {
        // A follow scope refused at its answer has no state and sends nothing.
        parts.clear();
    }
    None
}

/// A paced subscriber's tick: this tick's `delta` folded in, and on a send the due
/// changes as its own frame. A lost followed node's error waits for that send.
fn pace(
    sub: &mut Subscriber,
    delta: Option<&SharedDelta>,
    lost: Option<NodeId>,
    scene: &SceneState,
    now_ms: u64,
    scratch: &mut DeltaParts,
) -> (Option<Arc<SharedDelta>>, Option<NodeId>) {
    let tick = scene.tick();
    let centre = match &sub.follow {
        Some(f) => Some(f.centre()),
        None => sub.scope.region_centre(),
    };
    let tiers = sub.scope.pacing.tiers;
    let tier_of = |id: NodeId| match (centre, scene.octree().get(id)) {
        (Some(c), Some(b)) => {
            let (lo, hi) = b.aabb();
            tiers.tier_of(point_aabb_dist(c, lo, hi))
        }
        _ => 0,
    };
    let pacer = sub.pacer.as_mut().expect("a paced subscriber");
    if let Some(d) = delta {
        pacer.fold(tick, now_ms, &d.parts, tier_of);
    }
    if lost.is_some() {
        pacer.lost = lost;
    }
    if !pacer.take_send(tick, scratch, tier_of) {
        return (None, None);
    }
    let frame = (!scratch.is_empty())
        .then(|| Arc::new(SharedDelta::new(tick, now_ms, std::mem::take(scratch))));
    (frame, pacer.lost.take())
}

/// A paced frame in compact form: absolute rows, since the client is not in step with
/// the room's baseline between its sends.
fn absolute_compact(d: &SharedDelta) -> Bytes {
    let msg = super::compact::absolute_delta(&d.parts, d.tick, d.time, false);
    Bytes::from(codec::encode_server(&msg, Format::Bincode))
}

/// Books one push: the outbox goes to the flushers' batch if it asked for it; answers 1
/// when its delta was merged.
fn note(pushed: Pushed, outbox: &Arc<Outbox>, flush_batch: &mut Vec<Arc<Outbox>>) -> usize {
    if pushed.flush {
        flush_batch.push(Arc::clone(outbox));
    }
    usize::from(pushed.merged)
}
