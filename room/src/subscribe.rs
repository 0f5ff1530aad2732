//! The subscribe phase of a tick: waiting subscriptions answered with a snapshot of the
//! tick just finished (or a resumed delta), until the tick's snapshot budget (in nodes)
//! is spent, within the shares of the unsent snapshot bytes.
//!
//! Invariants: at most one subscription per connection waits (a newer one replaces it,
//! an unsubscription drops it), so a flood of `subscribe` messages costs one snapshot;
//! snapshots of the same scope and format taken in the same tick are built and encoded
//! once and shared by reference; every encoded snapshot and resumed delta counts in
//! `canopy_unsent_snapshot_bytes` and is charged to its caller's and room's share of
//! `--max-unsent-snapshot-bytes` until its last holder drops it (`budget.rs`); a region
//! scope's in-scope set is charged to a caller's share of the room's in-scope entries
//! (`in_scope.rs`); a subscription whose caller holds its whole share of either is
//! refused with `overloaded`, one
//! whose room or server holds its share waits without holding up the others; resumed
//! deltas count against the tick's snapshot budget like snapshots; and the deltas a new
//! subscriber gets start at the next tick, so snapshot plus deltas cover every change
//! exactly once.

use std::collections::VecDeque;

use bytes::Bytes;
use canopy_protocol::{ErrorCode, Format, Node, NodeId, ServerMsg, codec};
use prometheus::IntGauge;
use rustc_hash::FxHashSet;

use std::sync::Arc;

use super::Room;
use super::budget::{Amount, CallerId, Charge, RoomKey, SharedBudget};
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
    /// For a region scope, its ids: the set its subscribers already share, if any.
    ids: Arc<FxHashSet<NodeId>>,
    encoded: Vec<((Format, bool), Bytes)>,
}

/// An encoded snapshot's buffer (or a resumed delta's), counted in
/// `canopy_unsent_snapshot_bytes` and charged to its caller's and room's share of the
/// unsent snapshot bytes for as long as an outbox holds it (the last clone of its
/// `Bytes` drops it once written, or with the connection).
struct Unsent {
    buf: Vec<u8>,
    gauge: IntGauge,
    _charge: Charge,
}

impl Unsent {
    fn track(buf: Vec<u8>, gauge: &IntGauge, charge: Charge) -> Bytes {
        gauge.add(buf.len() as i64);
        Bytes::from_owner(Unsent {
            buf,
            gauge: gauge.clone(),
            _charge: charge,
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

/// Where a tick's snapshot bytes are charged: the server's budget and the room.
struct Account<'a> {
    budget: &'a Arc<SharedBudget>,
    room: RoomKey,
    gauge: &'a IntGauge,
}

impl Account<'_> {
    /// Tracks `buf` as unsent, charged to `caller`. The share was checked before the
    /// bytes were made; another room's tick may have taken the rest meanwhile, and
    /// then the bytes are charged all the same (a charge that may pass its share by one
    /// item is the budget's rule: one snapshot over, never a crowd of them).
    fn track(&self, buf: Vec<u8>, caller: CallerId) -> Bytes {
        let amount = Amount::of(buf.len());
        let charge = match self.budget.charge(caller, self.room, amount) {
            Ok(c) => c,
            Err(_) => self.budget.charge_over(caller, self.room, amount),
        };
        Unsent::track(buf, self.gauge, charge)
    }
}

impl Taken {
    fn encoded(
        &mut self,
        format: Format,
        compact: bool,
        (tick, time): (u64, u64),
        (account, caller): (&Account<'_>, CallerId),
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
        let bytes = account.track(codec::encode_server(&msg, format), caller);
        let ServerMsg::Snapshot { nodes, .. } = msg else {
            unreachable!("built as a snapshot")
        };
        self.nodes = nodes;
        self.encoded.push((key, bytes.clone()));
        bytes
    }
}

/// What the unsent-snapshot shares say of a subscription that needs new bytes.
enum Admission {
    /// It may go on.
    Go(SubscribeRequest),
    /// Its room or the server holds its share (not its caller's doing): it waits for
    /// those bytes to be written or cut off.
    Wait(SubscribeRequest),
    /// Its caller holds its whole share: refused (answered already).
    Refused,
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

    /// Where this room's snapshot bytes are charged.
    fn account(&self) -> Account<'_> {
        Account {
            budget: &self.config.snapshot_bytes,
            room: RoomKey::of(&self.shared.id),
            gauge: &self.metrics.unsent_snapshot_bytes,
        }
    }

    /// Answers a subscription whose client holds the scope as of a tick the history
    /// still covers with one resumed delta (see `resume.rs`); returns the rows it
    /// carries, what it costs of the tick's snapshot budget.
    fn resume(
        &mut self,
        req: SubscribeRequest,
        changed: &rustc_hash::FxHashMap<NodeId, super::diff::NodeChange>,
        scene: &SceneState,
    ) -> usize {
        let in_scope = match &req.scope.region {
            None => Arc::default(),
            Some(r) => self.subscribers.in_scope_of(&req.scope).unwrap_or_else(|| {
                let (min, max) = (glam::Vec3::from_array(r.min), glam::Vec3::from_array(r.max));
                let mut ids = Vec::new();
                scene.octree().region(min, max, req.scope.mask, &mut ids);
                Arc::new(ids.into_iter().collect())
            }),
        };
        if req.scope.region.is_some()
            && let Err(over) = self.admit_in_scope(&req, in_scope.len())
        {
            Self::refuse(req, over);
            return 1;
        }
        super::resume::resumed_parts(changed, scene, &req.scope, &mut self.parts);
        let rows = self.parts.upsert.len() + self.parts.update.len() + self.parts.remove.len();
        let msg = if self.start_encoding(&req, scene) {
            super::compact::absolute_delta(&self.parts, scene.tick(), scene.time_ms(), true)
        } else {
            let mut msg = self.parts.to_message(scene.tick(), scene.time_ms());
            if let ServerMsg::Delta { resumed, .. } = &mut msg {
                *resumed = true;
            }
            msg
        };
        let buf = codec::encode_server(&msg, req.outbox.format);
        req.outbox
            .restart_with(self.account().track(buf, req.caller));
        let sub = Subscriber::new(req.outbox, req.scope, in_scope, None, self.shared.tick_hz);
        if self.subscribers.upsert(sub) {
            self.metrics.subscribers.inc();
        }
        self.metrics.resumed_subscriptions.inc();
        rows.max(1)
    }

    /// Refuses `req` with `overloaded`, naming why.
    fn refuse(req: SubscribeRequest, message: String) {
        let refusal = Refusal::new(ErrorCode::Overloaded, message);
        req.outbox.push_reply(&refusal.to_ws(None, None));
    }

    /// Checks a subscription that needs new bytes (a snapshot not yet taken this tick,
    /// or a resumed delta) against the unsent-snapshot shares.
    fn admit(&self, req: SubscribeRequest) -> Admission {
        let account = self.account();
        match account.budget.check(req.caller, account.room) {
            Ok(()) => Admission::Go(req),
            Err(over) if over.is_callers() => {
                Self::refuse(req, format!("{over}; subscribe again once it is read"));
                Admission::Refused
            }
            Err(_) => Admission::Wait(req),
        }
    }

    /// Answers waiting subscriptions with this tick's snapshots, within the budgets: the
    /// tick's snapshot budget in nodes (resumed deltas count their rows), and each
    /// caller's and room's share of the unsent snapshot bytes.
    pub(super) fn answer_subscribes(&mut self, scene: &SceneState) -> usize {
        let budget = self.config.tick_snapshot_budget;
        let mut taken: Vec<Taken> = Vec::new();
        let mut spent = 0usize;
        let mut answered = 0;
        // Subscriptions that wait for their room's or the server's share, in order; they
        // go back to the front of the queue, while later ones are still answered (a
        // refusal for a caller over its share, or a snapshot this tick already took).
        let mut waiting = VecDeque::new();
        if !self.subscribes.queue.is_empty() {
            self.in_scope.sync(&self.subscribers);
        }
        while let Some(req) = self.subscribes.queue.pop_front() {
            let conn = req.outbox.conn;
            let existing = self.subscribers.position(conn).is_some();
            if !existing && self.subscribers.len() >= self.config.max_subscribers {
                let message = format!(
                    "room {} has {} subscribers, the limit",
                    self.shared.id, self.config.max_subscribers
                );
                Self::refuse(req, message);
                continue;
            }
            // The followed node must exist when the snapshot is taken; if not, the
            // subscription is refused and the connection keeps what it had.
            if let Some(f) = req.scope.follow
                && !scene.hierarchy().contains(f.node)
            {
                let refusal = super::interest::lost_follow(f.node);
                req.outbox.push_reply(&refusal.to_ws(None, None));
                continue;
            }
            let cached = taken.iter().position(|t| t.scope == req.scope);
            if cached.is_none() && spent > 0 && spent >= budget {
                self.subscribes.queue.push_front(req);
                break;
            }
            let req = if cached.is_none() {
                match self.admit(req) {
                    Admission::Go(req) => req,
                    Admission::Wait(req) => {
                        waiting.push_back(req);
                        continue;
                    }
                    Admission::Refused => continue,
                }
            } else {
                req
            };
            if let Some(since) = req.since
                && req.scope.resumable()
                && let Some(changed) = self.history.since(since, scene.tick())
            {
                spent += self.resume(req, &changed, scene);
                answered += 1;
                continue;
            }
            self.snapshot(req, scene, (&mut taken, cached), &mut spent);
            answered += 1;
        }
        while let Some(req) = waiting.pop_back() {
            self.subscribes.queue.push_front(req);
        }
        self.shared
            .stats
            .set_subscribers(self.subscribers.len() as u64);
        answered
    }

    /// True when a new region subscriber of `scope`, whose set has `entries` ids, would
    /// take the room past `--max-in-scope-entries-per-room` (a scope already held
    /// shares its set and costs nothing more).
    fn over_in_scope_cap(&self, scope: &Scope, entries: usize) -> bool {
        self.subscribers.in_scope_of(scope).is_none()
            && self.subscribers.in_scope_entries() + entries > self.config.max_in_scope_entries
    }

    /// Charges a region, follow or frustum subscription's set of `entries` ids to its
    /// caller's share of the room's in-scope entries (`in_scope.rs`); the refusal's
    /// message when it is over.
    fn admit_in_scope(&mut self, req: &SubscribeRequest, entries: usize) -> Result<(), String> {
        let conn = req.outbox.conn;
        self.in_scope
            .admit(conn, req.caller, req.scope, entries)
            .map_err(|over| format!("{over}; a subscription of a scope the room holds is served"))
    }

    /// Answers `req` with this tick's snapshot of its scope: `cached`, the one taken
    /// already this tick, or a new one (its nodes added to `spent`).
    fn snapshot(
        &mut self,
        req: SubscribeRequest,
        scene: &SceneState,
        (taken, cached): (&mut Vec<Taken>, Option<usize>),
        spent: &mut usize,
    ) {
        let i = match cached {
            Some(i) => i,
            None => {
                let mut ids = FxHashSet::default();
                let nodes = scope::snapshot(scene, &req.scope, &mut ids);
                *spent += nodes.len().max(1);
                // A region scope already held shares its set; a follow scope's set (its
                // margin band included) is its subscriber's own, never handed on.
                let held = req.scope.region.is_some();
                let ids = match held.then(|| self.subscribers.in_scope_of(&req.scope)) {
                    Some(Some(shared)) => shared,
                    _ => Arc::new(ids),
                };
                taken.push(Taken {
                    scope: req.scope,
                    nodes,
                    ids,
                    encoded: Vec::new(),
                });
                taken.len() - 1
            }
        };
        if req.scope.region.is_some() && self.over_in_scope_cap(&req.scope, taken[i].ids.len()) {
            let message = format!(
                "room {} holds {} in-scope entries of region subscribers, the limit",
                self.shared.id, self.config.max_in_scope_entries
            );
            Self::refuse(req, message);
            return;
        }
        if !req.scope.is_whole_room()
            && let Err(over) = self.admit_in_scope(&req, taken[i].ids.len())
        {
            Self::refuse(req, over);
            return;
        }
        let compact = self.start_encoding(&req, scene);
        let account = self.account();
        let t = &mut taken[i];
        let bytes = t.encoded(
            req.outbox.format,
            compact,
            (scene.tick(), scene.time_ms()),
            (&account, req.caller),
        );
        req.outbox.restart_with(bytes);
        // Shared until a frustum's or follow scope's subscriber first changes it
        // (`Arc::make_mut` in `fanout.rs`).
        let in_scope = if req.scope.is_whole_room() {
            Arc::default()
        } else {
            Arc::clone(&t.ids)
        };
        let centre = req
            .scope
            .follow
            .and_then(|f| super::scope::centre_of(scene, f.node));
        let sub = Subscriber::new(req.outbox, req.scope, in_scope, centre, self.shared.tick_hz);
        if self.subscribers.upsert(sub) {
            self.metrics.subscribers.inc();
        }
    }
}
