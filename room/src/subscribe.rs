//! The subscribe phase of a tick: waiting subscriptions answered with a snapshot of the
//! tick just finished, until the tick's snapshot budget (in nodes) is spent.
//!
//! Invariants: at most one subscription per connection waits (a newer one replaces it,
//! an unsubscription drops it), so a flood of `subscribe` messages costs one snapshot;
//! snapshots of the same scope and format taken in the same tick are built and encoded
//! once and shared by reference; every encoded snapshot counts in
//! `canopy_unsent_snapshot_bytes` until its last holder drops it, and no new one is
//! taken while that is at `--max-unsent-snapshot-bytes`; and the deltas a new
//! subscriber gets start at the next tick, so snapshot plus deltas cover every change
//! exactly once.

use std::collections::VecDeque;

use bytes::Bytes;
use canopy_protocol::{ErrorCode, Format, Node, NodeId, ServerMsg, codec};
use prometheus::IntGauge;
use rustc_hash::FxHashSet;

use super::Room;
use super::command::SubscribeRequest;
use super::outbox::ConnId;
use super::scene_state::SceneState;
use super::scope::{self, Scope};
use crate::refusal::Refusal;
use crate::subscribers::Subscriber;

/// Subscriptions waiting for the tick, at most one per connection, in arrival order.
#[derive(Debug, Default)]
pub(super) struct SubscribeQueue {
    queue: VecDeque<SubscribeRequest>,
}

impl SubscribeQueue {
    /// Queues a subscription, dropping one of the same connection still waiting.
    pub(super) fn push(&mut self, req: SubscribeRequest) {
        self.cancel(req.outbox.conn);
        self.queue.push_back(req);
    }

    /// Drops the waiting subscription of `conn`, if any.
    pub(super) fn cancel(&mut self, conn: ConnId) {
        self.queue.retain(|r| r.outbox.conn != conn);
    }

    pub(super) fn drain(&mut self) -> impl Iterator<Item = SubscribeRequest> + '_ {
        self.queue.drain(..)
    }
}

/// One scope's snapshot at this tick: the nodes (and, for a region, their ids) and the
/// encodings made so far, by format and compactness.
struct Taken {
    scope: Scope,
    nodes: Vec<Node>,
    ids: FxHashSet<NodeId>,
    encoded: Vec<((Format, bool), Bytes)>,
}

/// An encoded snapshot's buffer, counted in `canopy_unsent_snapshot_bytes` for as long
/// as an outbox holds it (the last clone of its `Bytes` drops it once written, or with
/// the connection).
struct Unsent {
    buf: Vec<u8>,
    gauge: IntGauge,
}

impl Unsent {
    fn track(buf: Vec<u8>, gauge: &IntGauge) -> Bytes {
        gauge.add(buf.len() as i64);
        Bytes::from_owner(Unsent {
            buf,
            gauge: gauge.clone(),
        })
    }
}

impl AsRef<[u8]> for Unsent {
    fn as_ref(&self) -> &[u8] {
        &self.buf
    }
}

impl Drop for Unsent {
    fn drop(&mut self) {
        self.gauge.sub(self.buf.len() as i64);
    }
}

impl Taken {
    fn encoded(
        &mut self,
        format: Format,
        compact: bool,
        (tick, time): (u64, u64),
        unsent: &IntGauge,
    ) -> Bytes {
        let key = (format, compact);
        if let Some((_, b)) = self.encoded.iter().find(|(k, _)| *k == key) {
            return b.clone();
        }
        let nodes = std::mem::take(&mut self.nodes);
        let msg = if compact {
            super::compact::snapshot(tick, time, nodes)
        } else {
            ServerMsg::snapshot(tick, time, nodes)
        };
        let bytes = Unsent::track(codec::encode_server(&msg, format), unsent);
        let ServerMsg::Snapshot { nodes, .. } = msg else {
            unreachable!("built as a snapshot")
        };
        self.nodes = nodes;
        self.encoded.push((key, bytes.clone()));
        bytes
    }
}

impl Room {
    /// Sets the connection's encoding for its new subscription; true when it is
    /// compact (asked for, on a bincode connection), and then the room keeps a baseline.
    fn start_encoding(&mut self, req: &SubscribeRequest, scene: &SceneState) -> bool {
        req.outbox
            .set_compact(req.encoding == canopy_protocol::Encoding::Compact);
        let compact = req.outbox.is_compact();
        if compact {
            self.compact.activate(scene);
        }
        compact
    }

    /// Answers a subscription whose client holds the scope as of a tick the history
    /// still covers with one resumed delta (see `resume.rs`).
    fn resume(
        &mut self,
        req: SubscribeRequest,
        changed: &rustc_hash::FxHashMap<NodeId, super::diff::NodeChange>,
        scene: &SceneState,
    ) {
        super::resume::resumed_parts(changed, scene, &req.scope, &mut self.parts);
        let msg = if self.start_encoding(&req, scene) {
            super::compact::absolute_delta(&self.parts, scene.tick(), scene.time_ms(), true)
        } else {
            let mut msg = self.parts.to_message(scene.tick(), scene.time_ms());
            if let ServerMsg::Delta { resumed, .. } = &mut msg {
                *resumed = true;
            }
            msg
        };
        req.outbox
            .restart_with(Bytes::from(codec::encode_server(&msg, req.outbox.format)));
        let mut in_scope = FxHashSet::default();
        if let Some(r) = &req.scope.region {
            let (min, max) = (glam::Vec3::from_array(r.min), glam::Vec3::from_array(r.max));
            let mut ids = Vec::new();
            scene.octree().region(min, max, req.scope.mask, &mut ids);
            in_scope.extend(ids);
        }
        let sub = Subscriber::new(req.outbox, req.scope, in_scope, None, self.shared.tick_hz);
        if self.subscribers.upsert(sub) {
            self.metrics.subscribers.inc();
        }
        self.metrics.resumed_subscriptions.inc();
    }

    /// True while encoded snapshots not yet written reach `--max-unsent-snapshot-bytes`.
    fn unsent_snapshots_full(&self) -> bool {
        let held = usize::try_from(self.metrics.unsent_snapshot_bytes.get()).unwrap_or(0);
        held >= self.config.max_unsent_snapshot_bytes
    }

    /// Answers waiting subscriptions with this tick's snapshots, within the budget.
    pub(super) fn answer_subscribes(&mut self, scene: &SceneState) -> usize {
        let budget = self.config.tick_snapshot_budget;
        let mut taken: Vec<Taken> = Vec::new();
        let mut spent = 0usize;
        let mut answered = 0;
        while let Some(req) = self.subscribes.queue.front() {
            let conn = req.outbox.conn;
            let existing = self.subscribers.position(conn).is_some();
            if !existing && self.subscribers.len() >= self.config.max_subscribers {
                let req = self.subscribes.queue.pop_front().expect("front exists");
                let refusal = Refusal::new(
                    ErrorCode::Overloaded,
                    format!(
                        "room {} has {} subscribers, the limit",
                        self.shared.id, self.config.max_subscribers
                    ),
                );
                req.outbox.push_reply(&refusal.to_ws(None, None));
                continue;
            }
            // The followed node must exist when the snapshot is taken; if not, the
            // subscription is refused and the connection keeps what it had.
            if let Some(f) = req.scope.follow
                && !scene.hierarchy().contains(f.node)
            {
                let req = self.subscribes.queue.pop_front().expect("front exists");
                let refusal = super::interest::lost_follow(f.node);
                req.outbox.push_reply(&refusal.to_ws(None, None));
                continue;
            }
            if let Some(since) = req.since
                && req.scope.resumable()
                && let Some(changed) = self.history.since(since, scene.tick())
            {
                let req = self.subscribes.queue.pop_front().expect("front exists");
                self.resume(req, &changed, scene);
                answered += 1;
                continue;
            }
            let cached = taken.iter().position(|t| t.scope == req.scope);
            if cached.is_none() && spent > 0 && spent >= budget {
                break;
            }
            // Checked before each new snapshot, the first of a tick too: while slow
            // readers hold this much, subscriptions wait (in order) for them to drain
            // or be dropped by the write deadline.
            if cached.is_none() && self.unsent_snapshots_full() {
                break;
            }
            let req = self.subscribes.queue.pop_front().expect("front exists");
            let i = match cached {
                Some(i) => i,
                None => {
                    let mut ids = FxHashSet::default();
                    let nodes = scope::snapshot(scene, &req.scope, &mut ids);
                    spent += nodes.len().max(1);
                    taken.push(Taken {
                        scope: req.scope,
                        nodes,
                        ids,
                        encoded: Vec::new(),
                    });
                    taken.len() - 1
                }
            };
            let t = &mut taken[i];
            let compact = self.start_encoding(&req, scene);
            let bytes = t.encoded(
                req.outbox.format,
                compact,
                (scene.tick(), scene.time_ms()),
                &self.metrics.unsent_snapshot_bytes,
            );
            req.outbox.restart_with(bytes);
            let in_scope = if req.scope.is_whole_room() {
                FxHashSet::default()
            } else {
                t.ids.clone()
            };
            let centre = req
                .scope
                .follow
                .and_then(|f| super::follow::centre_of(scene, f.node));
            let sub = Subscriber::new(req.outbox, req.scope, in_scope, centre, self.shared.tick_hz);
            if self.subscribers.upsert(sub) {
                self.metrics.subscribers.inc();
            }
            answered += 1;
        }
        self.shared
            .stats
            .set_subscribers(self.subscribers.len() as u64);
        answered
    }
}
