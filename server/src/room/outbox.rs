//! The outgoing side of one WebSocket connection, shared between the room's tick (which
//! pushes deltas, snapshots and acks) and the connection's writer task (which drains it
//! into the socket).
//!
//! Invariant: at most `max_frames` delta frames wait in the queue. When the queue is full
//! the connection is switched to merging: later deltas are folded into one
//! [`MergeState`] (latest value per node wins) that the writer sends as a single frame
//! once the queue has drained. So a slow reader costs bounded memory and never loses a
//! change. Control messages (acks, errors, query results, pongs) are never dropped; their
//! number is bounded by the connection's own in-flight requests.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::ws::Message;
use canopy_protocol::{Format, ServerMsg};
use parking_lot::Mutex;
use tokio::sync::Notify;

use super::delta::{SharedDelta, encode_message};
use super::merge::MergeState;

/// A connection's identity within the server.
pub type ConnId = u64;

/// What the writer task sends next.
#[derive(Debug)]
pub enum Outgoing {
    /// A message to encode in the connection's format (acks, snapshots, query results).
    Msg(ServerMsg),
    /// A delta frame, already encoded and shared with other subscribers.
    Frame(Message),
    /// The merged changes of several ticks, encoded by the writer.
    Merged(ServerMsg, u64),
    /// A WebSocket-level ping, to find half-open connections.
    Ping,
    /// Send `closed` with this reason, then close the socket with `code`.
    Close { reason: String, code: u16 },
}

#[derive(Debug, Default)]
struct State {
    queue: VecDeque<Outgoing>,
    frames_queued: usize,
    merge: Option<MergeState>,
    closing: bool,
}

/// The outgoing queue of one connection.
#[derive(Debug)]
pub struct Outbox {
    pub conn: ConnId,
    pub format: Format,
    max_frames: usize,
    state: Mutex<State>,
    notify: Notify,
    /// Merged frames handed to the writer so far.
    pub merged_frames: AtomicU64,
    /// Entries in this connection's pending merge state, sampled for the bound checks.
    pub pending_entries: AtomicU64,
}

impl Outbox {
    pub fn new(conn: ConnId, format: Format, max_frames: usize) -> Arc<Self> {
        Arc::new(Self {
            conn,
            format,
            max_frames: max_frames.max(1),
            state: Mutex::new(State::default()),
            notify: Notify::new(),
            merged_frames: AtomicU64::new(0),
            pending_entries: AtomicU64::new(0),
        })
    }

    /// Queues a control message; it is never dropped or merged.
    pub fn push_msg(&self, msg: ServerMsg) {
        let mut st = self.state.lock();
        if st.closing {
            return;
        }
        st.queue.push_back(Outgoing::Msg(msg));
        drop(st);
        self.notify.notify_one();
    }

    /// Queues a WebSocket ping frame.
    pub fn push_ping(&self) {
        let mut st = self.state.lock();
        if st.closing {
            return;
        }
        st.queue.push_back(Outgoing::Ping);
        drop(st);
        self.notify.notify_one();
    }

    /// Number of control messages and frames waiting.
    pub fn queued(&self) -> usize {
        self.state.lock().queue.len()
    }

    /// Queues a shared delta, or merges it into the pending state when the client is
    /// behind. Returns true when it was merged.
    pub fn push_delta(&self, delta: &SharedDelta) -> bool {
        let mut st = self.state.lock();
        if st.closing {
            return false;
        }
        let merged = if st.merge.is_some() || st.frames_queued >= self.max_frames {
            let m = st.merge.get_or_insert_with(MergeState::default);
            m.merge(delta.tick, delta.time, &delta.parts);
            self.pending_entries
                .store(m.len() as u64, Ordering::Relaxed);
            true
        } else {
            st.queue
                .push_back(Outgoing::Frame(delta.frame(self.format)));
            st.frames_queued += 1;
            false
        };
        drop(st);
        self.notify.notify_one();
        merged
    }

    /// Starts a new subscription: queued frames and merged changes of the old scope are
    /// dropped (the snapshot replaces the client's copy), then the snapshot is queued.
    pub fn restart_with(&self, snapshot: ServerMsg) {
        let mut st = self.state.lock();
        if st.closing {
            return;
        }
        st.queue.retain(|o| !matches!(o, Outgoing::Frame(_)));
        st.frames_queued = 0;
        st.merge = None;
        self.pending_entries.store(0, Ordering::Relaxed);
        st.queue.push_back(Outgoing::Msg(snapshot));
        drop(st);
        self.notify.notify_one();
    }

    /// Drops queued frames and merged changes (after `unsubscribe`).
    pub fn clear_frames(&self) {
        let mut st = self.state.lock();
        st.queue.retain(|o| !matches!(o, Outgoing::Frame(_)));
        st.frames_queued = 0;
        st.merge = None;
        self.pending_entries.store(0, Ordering::Relaxed);
    }

    /// Queues `closed` and the close frame; nothing queued after it is sent.
    pub fn close(&self, reason: &str, code: u16) {
        let mut st = self.state.lock();
        if st.closing {
            return;
        }
        st.closing = true;
        st.queue.push_back(Outgoing::Close {
            reason: reason.to_string(),
            code,
        });
        drop(st);
        self.notify.notify_one();
    }

    pub fn is_closing(&self) -> bool {
        self.state.lock().closing
    }

    /// The next thing to send, if any, without waiting.
    pub fn try_next(&self) -> Option<Outgoing> {
        let mut st = self.state.lock();
        if let Some(o) = st.queue.pop_front() {
            if matches!(o, Outgoing::Frame(_)) {
                st.frames_queued -= 1;
            }
            return Some(o);
        }
        let mut m = st.merge.take()?;
        self.pending_entries.store(0, Ordering::Relaxed);
        self.merged_frames.fetch_add(1, Ordering::Relaxed);
        let ticks = m.ticks_merged;
        let parts = m.take_parts();
        Some(Outgoing::Merged(parts.to_message(m.tick, m.time), ticks))
    }

    /// The writer task waits on this after [`Outbox::try_next`] found nothing; a push
    /// made in between leaves a permit, so no wake-up is lost.
    pub fn notifier(&self) -> &Notify {
        &self.notify
    }

    /// Encodes a control or merged message in this connection's format.
    pub fn encode(&self, msg: &ServerMsg) -> Message {
        encode_message(msg, self.format)
    }
}
