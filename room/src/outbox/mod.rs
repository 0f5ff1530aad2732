//! The outgoing side of one WebSocket connection, shared between the room's tick (which
//! pushes deltas, snapshots and acks), the connection's reader (query answers, pongs) and
//! its writer task (which drains it into the socket). It holds encoded bytes only; the
//! WebSocket writer turns them into frames.
//!
//! Invariants, every one a bound a client cannot move:
//! - at most [`OutboxLimits::frames`] delta frames and [`OutboxLimits::frame_bytes`]
//!   bytes of them wait; past that the connection merges (latest value per node wins,
//!   see [`MergeState`]) and the writer sends one frame once the queue drains, so a slow
//!   reader costs memory bounded by its scope and never loses a change;
//! - at most one snapshot waits: a new subscription replaces a queued snapshot, queued
//!   frames and merged changes, since its snapshot replaces the client's copy;
//! - replies (acks, errors, query answers, pongs) are never dropped; once more than
//!   [`OutboxLimits::replies`] or [`OutboxLimits::reply_bytes`] of them wait, the reader
//!   stops reading the socket ([`Outbox::wait_for_space`]) until the writer catches up,
//!   and the room's acks are bounded by the edit quota the connection's batches were
//!   admitted under (its caller's, at the WebSocket edge);
//! - once closing (by the room, the reader or a writer that gave up), nothing more is
//!   queued, and a reader waiting for space is woken;
//! - one writer at a time: the connection's writer task, or (for a socket that takes
//!   non-blocking writes, see [`DirectWrite`]) the WebSocket edge's flusher while the
//!   writer task is idle, which writes what is queued without waking the writer
//!   ([`Outbox::flush_direct`]); an item the socket took only in part stays at the front
//!   with the count of its bytes written, and the writer goes on from there.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use canopy_protocol::{Format, ServerMsg, codec};
use parking_lot::Mutex;
use tokio::sync::Notify;

use super::delta::SharedDelta;
use super::gate::DurableGate;
use super::merge::MergeState;

mod check;
mod drain;
pub use drain::{DIRECT_MAX_BYTES, DirectWrite, FLUSH_BATCH, Front, Next, Wrote};

/// A connection's identity within the server.
pub type ConnId = u64;

/// What the writer task sends next.
#[derive(Debug, Clone, PartialEq)]
pub enum Outgoing {
    /// One encoded message in the connection's format: a reply or a snapshot.
    Message(Bytes),
    /// A delta frame, encoded once and shared with other subscribers.
    Frame(Bytes),
    /// The merged changes of several ticks for a connection that fell behind.
    Merged(Bytes),
    /// A WebSocket-level ping, to find half-open connections.
    Ping,
    /// The answer to the client's ping, with its payload.
    Pong(Bytes),
    /// The answer to the client's close frame: a close frame with its code, then the
    /// end of the connection.
    CloseReply {
        /// The client's close code, echoed.
        code: u16,
    },
    /// Send `closed` with this cause's reason, then close the socket with the code the
    /// WebSocket edge gives the cause.
    Close(crate::CloseCause),
}

/// The bounds of one outbox (flags `--ws-queue-frames`, `--ws-queue-frame-bytes`,
/// `--ws-queue-replies`, `--ws-queue-reply-bytes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutboxLimits {
    /// Delta frames that may wait before the connection merges (at least 1).
    pub frames: usize,
    /// Bytes of delta frames that may wait before the connection merges.
    pub frame_bytes: usize,
    /// Replies that may wait before the reader stops reading the socket.
    pub replies: usize,
    /// Bytes of replies that may wait before the reader stops reading the socket.
    pub reply_bytes: usize,
}

impl OutboxLimits {
    /// The flags' defaults: 8 frames, 1 MiB of frames, 1,024 replies, 4 MiB of replies.
    pub const DEFAULT: OutboxLimits = OutboxLimits {
        frames: 8,
        frame_bytes: 1 << 20,
        replies: 1024,
        reply_bytes: 4 << 20,
    };
}

impl Default for OutboxLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// A place held in an outbox for a reply to come ([`Outbox::hold_reply`]).
#[derive(Debug)]
pub struct HeldReply {
    outbox: Arc<Outbox>,
    id: u64,
    filled: bool,
}

impl HeldReply {
    /// Queues the reply in its place; `tick` is the tick an `ack` names.
    pub fn fill(mut self, msg: &ServerMsg, tick: Option<u64>) {
        self.filled = true;
        self.outbox.fill_held(self.id, Some((msg, tick)));
    }
}

impl Drop for HeldReply {
    fn drop(&mut self) {
        if !self.filled {
            self.outbox.fill_held(self.id, None);
        }
    }
}

#[derive(Debug)]
enum Item {
    Reply(Bytes),
    Snapshot(Bytes),
    /// A delta frame and the tick it shows.
    Frame(u64, Bytes),
    /// The place of an answer that is not known yet ([`Outbox::hold_reply`]): the writer
    /// stops here until it is filled.
    Held(u64),
    Ping,
    Pong(Bytes),
    CloseReply(u16),
    Close(crate::CloseCause),
}

#[derive(Debug, Default)]
struct State {
    /// Each item with the log seq that must be durable before it is sent (0: none).
    queue: VecDeque<(u64, Item)>,
    /// The seq the merged changes need: the latest merged tick's.
    merge_need: u64,
    frames: usize,
    frame_bytes: usize,
    replies: usize,
    reply_bytes: usize,
    merge: Option<MergeState>,
    closing: bool,
    /// The id of the next held place.
    next_held: u64,
    /// The writer task holds an item it is writing (or has not yet found the queue
    /// empty since): the flusher leaves the socket to it.
    busy: bool,
    /// Wire bytes of the front item the flusher already wrote (the socket took it in
    /// part); the writer goes on from there.
    front_written: usize,
    /// The socket, for writes that do not wait (plain TCP connections).
    direct: Option<Arc<dyn DirectWrite>>,
    /// The room's flush queue holds an entry for this outbox that no flusher has started
    /// on: frames pushed meanwhile go with it, so they need no entry of their own (a
    /// flusher that falls behind would otherwise meet several entries per outbox, all but
    /// the first finding nothing to write). Cleared when a flusher starts on it.
    flush_queued: bool,
}

/// What [`Outbox::push_delta`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pushed {
    /// The delta was merged into the pending state (the client is behind).
    pub merged: bool,
    /// The outbox wants the flusher: it has a direct socket and an idle writer, which
    /// was not woken, and no flush entry waits for it already. The caller must hand it
    /// to the flusher (`FlushQueue::submit`).
    pub flush: bool,
}

/// The outgoing queue of one connection.
#[derive(Debug)]
pub struct Outbox {
    /// The connection this outbox belongs to.
    pub conn: ConnId,
    /// The connection's format; everything queued is encoded in it.
    pub format: Format,
    limits: OutboxLimits,
    state: Mutex<State>,
    /// Wakes the writer after a push.
    writer: Notify,
    /// Wakes a reader waiting for the replies to drain (or for the close).
    space: Notify,
    /// Its subscription asked for compact frames (bincode only).
    compact: AtomicBool,
    /// Merged frames handed to the writer so far.
    pub merged_frames: AtomicU64,
    /// Entries in this connection's pending merge state, sampled for the statistics.
    pub pending_entries: AtomicU64,
    /// The room's durability gate, when its ticks are logged.
    gate: OnceLock<Arc<DurableGate>>,
}

impl Outbox {
    /// An empty, open outbox for connection `conn`.
    pub fn new(conn: ConnId, format: Format, limits: OutboxLimits) -> Arc<Self> {
        Arc::new(Self {
            conn,
            format,
            limits: OutboxLimits {
                frames: limits.frames.max(1),
                ..limits
            },
            state: Mutex::new(State::default()),
            writer: Notify::new(),
            space: Notify::new(),
            compact: AtomicBool::new(false),
            merged_frames: AtomicU64::new(0),
            pending_entries: AtomicU64::new(0),
            gate: OnceLock::new(),
        })
    }

    /// Holds what this outbox sends behind the room's durability gate (set once, when
    /// the connection opens on a logged room).
    pub fn set_gate(&self, gate: Arc<DurableGate>) {
        let _ = self.gate.set(gate);
    }

    /// The gate's watch, for a writer waiting on durability.
    pub fn durability_watch(
        &self,
    ) -> Option<tokio::sync::watch::Receiver<canopy_store::Watermark>> {
        self.gate.get().and_then(|g| g.watch())
    }

    fn need(&self) -> u64 {
        self.gate.get().map_or(0, |g| g.need())
    }

    /// What a delta frame or snapshot waits for (see [`DurableGate::frame_need`]).
    fn frame_need(&self) -> u64 {
        self.gate.get().map_or(0, |g| g.frame_need())
    }

    /// What a reply waits for: an `ack` reports a durable batch, so it waits for the
    /// room's last record; anything else (a query's answer, a pong, a refusal) shows
    /// nothing that is not live, and waits only as frames do.
    fn reply_need(&self, msg: &ServerMsg) -> u64 {
        match msg {
            ServerMsg::Ack { .. } => self.need(),
            _ => self.frame_need(),
        }
    }

    fn push(&self, st: parking_lot::MutexGuard<'_, State>) {
        drop(st);
        self.writer.notify_one();
    }

    /// Gives the outbox its socket for writes that do not wait: from now on a pushed
    /// delta asks for the flusher instead of waking the writer while the writer is idle.
    pub fn set_direct(&self, socket: Arc<dyn DirectWrite>) {
        self.state.lock().direct = Some(socket);
    }

    /// Whether frames go out compact (set by each subscription; bincode only).
    pub fn set_compact(&self, compact: bool) {
        self.compact
            .store(compact && self.format == Format::Bincode, Ordering::Release);
    }

    /// Whether frames go out compact (see [`Outbox::set_compact`]).
    pub fn is_compact(&self) -> bool {
        self.compact.load(Ordering::Acquire)
    }

    /// Queues a reply, encoded in the connection's format; never dropped while open.
    pub fn push_reply(&self, msg: &ServerMsg) {
        let bytes = Bytes::from(codec::encode_server(msg, self.format));
        let mut st = self.state.lock();
        if st.closing {
            return;
        }
        st.replies += 1;
        st.reply_bytes += bytes.len();
        let need = self.reply_need(msg);
        st.queue.push_back((need, Item::Reply(bytes)));
        self.push(st);
    }

    /// Holds the place of a reply that will come later (a relay's edit answered by the
    /// room's owner): nothing queued after it is sent before it is filled, so an `ack`
    /// still comes before the delta of its tick even when the replica showed that tick
    /// first. Dropping the [`HeldReply`] unfilled gives the place up.
    pub fn hold_reply(self: &Arc<Self>) -> HeldReply {
        let mut st = self.state.lock();
        let id = st.next_held;
        st.next_held += 1;
        if !st.closing {
            st.queue.push_back((0, Item::Held(id)));
        }
        drop(st);
        HeldReply {
            outbox: Arc::clone(self),
            id,
            filled: false,
        }
    }

    /// Puts `msg` in place of held place `id`, or after the frames that follow the
    /// place and show ticks before `tick` (the owner sent those before the answer).
    /// `None` gives the place up.
    fn fill_held(&self, id: u64, msg: Option<(&ServerMsg, Option<u64>)>) {
        let mut st = self.state.lock();
        let Some(at) = st
            .queue
            .iter()
            .position(|(_, i)| matches!(i, Item::Held(h) if *h == id))
        else {
            return;
        };
        st.queue.remove(at);
        if let Some((msg, tick)) = msg {
            let bytes = Bytes::from(codec::encode_server(msg, self.format));
            let mut to = at;
            if let Some(tick) = tick {
                while matches!(st.queue.get(to), Some((_, Item::Frame(t, _))) if *t < tick) {
                    to += 1;
                }
            }
            st.replies += 1;
            st.reply_bytes += bytes.len();
            let need = self.reply_need(msg);
            st.queue.insert(to, (need, Item::Reply(bytes)));
        }
        self.push(st);
    }

    /// True while more replies wait than the limits allow: the reader should stop
    /// reading until [`Outbox::wait_for_space`] returns.
    pub fn replies_full(&self) -> bool {
        let st = self.state.lock();
        !st.closing
            && (st.replies > self.limits.replies || st.reply_bytes > self.limits.reply_bytes)
    }

    /// Waits until the replies are back within their limits or the outbox is closing.
    pub async fn wait_for_space(&self) {
        loop {
            let notified = self.space.notified();
            tokio::pin!(notified);
            // Registered before the check, so a drain in between is not missed.
            notified.as_mut().enable();
            if !self.replies_full() {
                return;
            }
            notified.await;
        }
    }

    /// Queues a WebSocket ping frame.
    pub fn push_ping(&self) {
        let mut st = self.state.lock();
        if st.closing {
            return;
        }
        st.queue.push_back((0, Item::Ping));
        self.push(st);
    }

    /// Queues the answer to the client's ping (a control frame's payload: at most 125
    /// bytes, as the socket library checked). At most one pong waits: a newer ping's
    /// payload replaces the waiting one's (RFC 6455 §5.5.3 lets a pong answer only the
    /// latest ping), so a flood of pings that never reads costs one pong, not a queue.
    pub fn push_pong(&self, payload: Bytes) {
        let mut st = self.state.lock();
        if st.closing {
            return;
        }
        // A queued pong is never partly written: the writer pops what it writes, and
        // the flusher leaves pongs to it.
        let waiting = st.queue.iter_mut().find_map(|(_, i)| match i {
            Item::Pong(p) => Some(p),
            _ => None,
        });
        match waiting {
            Some(p) => *p = payload,
            None => st.queue.push_back((0, Item::Pong(payload))),
        }
        self.push(st);
    }

    /// Answers the client's close frame with its code after what is queued (without a
    /// `closed` message: the client ended the connection); nothing more is queued.
    pub fn close_reply(&self, code: u16) {
        let mut st = self.state.lock();
        if st.closing {
            return;
        }
        st.closing = true;
        st.queue.retain(|(_, i)| !matches!(i, Item::Held(_)));
        st.queue.push_back((0, Item::CloseReply(code)));
        self.push_closing(st);
    }

    /// Queues a shared delta, or merges it into the pending state when the client is
    /// behind. An outbox with a direct socket and an idle writer does not wake the
    /// writer: it answers [`Pushed::flush`], and the caller hands it to the flusher.
    pub fn push_delta(&self, delta: &SharedDelta) -> Pushed {
        self.push_delta_locked(self.state.lock(), delta)
    }

    /// [`push_delta`](Self::push_delta) if the outbox is not locked at the moment (a
    /// flusher writing its socket holds the lock through the `sendmsg`); `None`, with
    /// nothing done, if it is. The tick tries each outbox so and comes back for the
    /// locked ones last, by which time their flusher has moved on, instead of parking
    /// behind a flusher the scheduler preempted mid-write.
    pub fn try_push_delta(&self, delta: &SharedDelta) -> Option<Pushed> {
        Some(self.push_delta_locked(self.state.try_lock()?, delta))
    }

    fn push_delta_locked(
        &self,
        mut st: parking_lot::MutexGuard<'_, State>,
        delta: &SharedDelta,
    ) -> Pushed {
        if st.closing {
            return Pushed::default();
        }
        let frame = match delta.compact_frame().filter(|_| self.is_compact()) {
            Some(f) => f,
            None => delta.frame(self.format),
        };
        let behind = st.merge.is_some()
            || st.frames >= self.limits.frames
            || st.frame_bytes + frame.len() > self.limits.frame_bytes;
        if behind {
            st.merge_need = self.frame_need();
            let m = st.merge.get_or_insert_with(MergeState::default);
            m.merge(delta.tick, delta.time, &delta.parts);
            self.pending_entries
                .store(m.len() as u64, Ordering::Relaxed);
        } else {
            st.frames += 1;
            st.frame_bytes += frame.len();
            let need = self.frame_need();
            st.queue.push_back((need, Item::Frame(delta.tick, frame)));
        }
        // A busy writer finds the new item before it next waits; an idle one is left
        // asleep when the flusher can write for it, and the flusher needs one queue
        // entry for all the frames that wait for it.
        let direct_idle = st.direct.is_some() && !st.busy;
        let flush = direct_idle && !st.flush_queued;
        st.flush_queued |= flush;
        if direct_idle || st.busy {
            drop(st);
        } else {
            self.push(st);
        }
        Pushed {
            merged: behind,
            flush,
        }
    }

    /// Starts a new subscription with its encoded snapshot: a snapshot, frames and
    /// merged changes still queued for the old scope are dropped (the snapshot replaces
    /// the client's copy).
    pub fn restart_with(&self, snapshot: Bytes) {
        let mut st = self.state.lock();
        if st.closing {
            return;
        }
        Self::drop_scope_items(&mut st);
        self.pending_entries.store(0, Ordering::Relaxed);
        let need = self.frame_need();
        st.queue.push_back((need, Item::Snapshot(snapshot)));
        self.push(st);
    }

    fn drop_scope_items(st: &mut State) {
        // A front item the flusher wrote in part stays: half a frame is on the wire.
        let keep_front = st.front_written > 0;
        let mut first = true;
        st.queue.retain(|(_, o)| {
            let keep = (first && keep_front) || !matches!(o, Item::Frame(..) | Item::Snapshot(_));
            first = false;
            keep
        });
        (st.frames, st.frame_bytes) = match st.queue.front() {
            Some((_, Item::Frame(_, b))) if keep_front => (1, b.len()),
            _ => (0, 0),
        };
        st.merge = None;
    }

    /// Drops queued snapshots, frames and merged changes (after `unsubscribe`).
    pub fn clear_frames(&self) {
        let mut st = self.state.lock();
        Self::drop_scope_items(&mut st);
        self.pending_entries.store(0, Ordering::Relaxed);
    }

    /// Queues `closed` and the close frame; nothing queued after it is sent.
    pub fn close(&self, cause: crate::CloseCause) {
        let mut st = self.state.lock();
        if st.closing {
            return;
        }
        st.closing = true;
        // An answer still to come will not be sent: its place must not hold the close.
        st.queue.retain(|(_, i)| !matches!(i, Item::Held(_)));
        st.queue.push_back((0, Item::Close(cause)));
        self.push_closing(st);
    }

    /// The writer stopped (the socket broke or made no progress): nothing more can be
    /// sent, so everything queued is dropped and a waiting reader is woken.
    pub fn writer_gone(&self) {
        let mut st = self.state.lock();
        st.closing = true;
        st.queue.clear();
        st.merge = None;
        (st.frames, st.frame_bytes, st.replies, st.reply_bytes) = (0, 0, 0, 0);
        st.front_written = 0;
        st.direct = None;
        self.push_closing(st);
    }

    fn push_closing(&self, st: parking_lot::MutexGuard<'_, State>) {
        drop(st);
        self.writer.notify_one();
        self.space.notify_waiters();
    }

    /// True once the outbox is closing: nothing more is queued.
    pub fn is_closing(&self) -> bool {
        self.state.lock().closing
    }

    /// Bytes waiting in the queue (replies, snapshot and frames), for tests and metrics.
    pub fn queued_bytes(&self) -> usize {
        let st = self.state.lock();
        st.queue
            .iter()
            .map(|(_, i)| match i {
                Item::Reply(b) | Item::Snapshot(b) | Item::Frame(_, b) => b.len(),
                _ => 0,
            })
            .sum()
    }

    /// Completes after a push; a push made since the last [`Outbox::try_next`] that
    /// found nothing leaves a permit, so no wake-up is lost.
    pub async fn notified(&self) {
        self.writer.notified().await
    }
}
