//! How queued items leave an outbox: the writer task takes them one by one
//! ([`Outbox::take_next`]), and while it is idle the WebSocket edge's flusher writes them
//! straight into a socket that takes non-blocking writes ([`Outbox::flush_direct`]).
//!
//! Invariant: one of the two writes at a time (the writer counts as busy from the item
//! it takes until it finds the queue empty; the flusher writes only under the queue's
//! lock, and only while the writer is not busy), and an item the socket took in part
//! stays at the front with its progress, so the writer goes on from the right byte.

use std::io::IoSlice;
use std::sync::atomic::Ordering;

use bytes::Bytes;
use canopy_protocol::codec;

use super::{Item, Outbox, Outgoing, State};
use crate::CloseCause;
use crate::gate::Passage;

/// A socket that takes writes without waiting: the WebSocket edge's handle on a plain
/// TCP connection, kept by the outbox so the flusher can reach it. Room code never
/// calls it; [`Outbox::flush_direct`] lends it to the flusher's closure.
pub trait DirectWrite: Send + Sync + std::fmt::Debug {
    /// Writes what the socket takes now from `bufs`, in order, without waiting: the
    /// bytes taken, or `WouldBlock` when it takes nothing.
    fn try_write_vectored(&self, bufs: &[IoSlice<'_>]) -> std::io::Result<usize>;
}

/// The next item for the writer task, and how many of its wire bytes the flusher
/// already wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Next {
    /// What to send.
    pub item: Outgoing,
    /// Wire bytes of it already written (0 unless the flusher started it).
    pub written: usize,
}

/// An item the flusher may write, lent by [`Outbox::flush_direct`].
#[derive(Debug, Clone, Copy)]
pub enum Front<'a> {
    /// An encoded message in the connection's format; `delta` for delta frames.
    Data {
        /// The message.
        bytes: &'a [u8],
        /// True for a delta frame (counted as such).
        delta: bool,
    },
    /// A WebSocket ping.
    Ping,
}

/// Items [`Outbox::flush_direct`] lends its closure at most at once.
pub const FLUSH_BATCH: usize = 8;

/// The largest item the flusher writes itself, and about the most it writes into one
/// socket in one turn. The flusher writes under the outbox's lock, which the tick takes
/// to queue the next frame: a long write there (a 20,000-node snapshot is about 1 MB, a
/// few hundred microseconds of kernel copy on loopback, and a reconnect storm brings
/// dozens) would stall the tick. Anything bigger goes to the connection's writer task,
/// which writes outside the lock.
pub const DIRECT_MAX_BYTES: usize = 64 * 1024;

/// What the flusher's closure did with the items it was lent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wrote {
    /// Items written whole, from the first.
    pub done: usize,
    /// Wire bytes of the next item written so far (the first item's count when it was
    /// lent with some already written and `done` is 0).
    pub written: usize,
    /// The socket took less than it was offered (it is full, or failed): the writer
    /// takes over.
    pub blocked: bool,
}

impl Outbox {
    /// The next thing to send, if any, without waiting (for tests and tools: the wire
    /// offset of an item the flusher started is dropped; the writer uses
    /// [`Outbox::take_next`]).
    pub fn try_next(&self) -> Option<Outgoing> {
        self.take_next().map(|n| n.item)
    }

    /// The writer task's next item and how much of it was written already. Until it
    /// finds nothing, the writer counts as busy and the flusher leaves the socket alone.
    pub fn take_next(&self) -> Option<Next> {
        let mut st = self.state.lock();
        let next = self.take_front(&mut st);
        st.busy = next.is_some();
        next
    }

    /// Whether the front item may go now (false: it waits for its answer, or for
    /// durability). A storage failure replaces what waits with a close and lets that go.
    fn front_passage(&self, st: &mut State) -> bool {
        let front_need = match st.queue.front() {
            // Wait for the answer; filling it wakes the writer.
            Some((_, Item::Held(_))) => return false,
            Some((need, _)) => Some(*need),
            None if st.merge.is_some() => Some(st.merge_need),
            None => None,
        };
        let Some(need) = front_need else {
            return true;
        };
        match self.gate.get().map_or(Passage::Open, |g| g.check(need)) {
            Passage::Open => true,
            // The writer waits for the durable watermark (or a push) and asks again.
            Passage::Wait => false,
            Passage::Failed => {
                // What waits shows a tick that will never be durable (acks among it):
                // close instead of sending it; the client's copy and its unanswered
                // batches are doubtful, and it reconnects to a server that says so by
                // refusing edits. An item already partly written (it passed the gate
                // before) is finished first, so the close is not cut into it.
                let started = if st.front_written > 0 {
                    st.queue.pop_front()
                } else {
                    None
                };
                st.queue.clear();
                st.merge = None;
                (st.replies, st.reply_bytes, st.frames, st.frame_bytes) = match &started {
                    Some((_, Item::Reply(b))) => (1, b.len(), 0, 0),
                    Some((_, Item::Frame(_, b))) => (0, 0, 1, b.len()),
                    _ => (0, 0, 0, 0),
                };
                if let Some((_, item)) = started {
                    st.queue.push_back((0, item));
                }
                st.queue
                    .push_back((0, Item::Close(CloseCause::StorageFailed)));
                st.closing = true;
                self.space.notify_waiters();
                true
            }
        }
    }

    fn take_front(&self, st: &mut State) -> Option<Next> {
        if !self.front_passage(st) {
            return None;
        }
        let written = std::mem::take(&mut st.front_written);
        if let Some((_, item)) = st.queue.pop_front() {
            let item = match item {
                Item::Reply(b) => {
                    self.reply_sent(st, b.len());
                    Outgoing::Message(b)
                }
                Item::Snapshot(b) => Outgoing::Message(b),
                Item::Held(_) => unreachable!("a held place is never popped"),
                Item::Frame(_, b) => {
                    st.frames -= 1;
                    st.frame_bytes -= b.len();
                    Outgoing::Frame(b)
                }
                Item::Ping => Outgoing::Ping,
                Item::Pong(b) => Outgoing::Pong(b),
                Item::CloseReply(code) => Outgoing::CloseReply { code },
                Item::Close(cause) => Outgoing::Close(cause),
            };
            return Some(Next { item, written });
        }
        let mut m = st.merge.take()?;
        self.pending_entries.store(0, Ordering::Relaxed);
        self.merged_frames.fetch_add(1, Ordering::Relaxed);
        let parts = m.take_parts();
        // A merged frame covers ticks the client did not get one by one: compact rows
        // are absolute, setting its baseline to the server's.
        let msg = if self.is_compact() {
            crate::compact::absolute_delta(&parts, m.tick, m.time, false)
        } else {
            parts.to_message(m.tick, m.time)
        };
        let bytes = Bytes::from(codec::encode_server(&msg, self.format));
        Some(Next {
            item: Outgoing::Merged(bytes),
            written: 0,
        })
    }

    fn reply_sent(&self, st: &mut State, len: usize) {
        let was_full = st.replies > self.limits.replies || st.reply_bytes > self.limits.reply_bytes;
        st.replies -= 1;
        st.reply_bytes -= len;
        if was_full {
            self.space.notify_waiters();
        }
    }

    /// The flusher's turn, while the writer task is idle: lends the ready items at the
    /// front, in order (at most [`FLUSH_BATCH`], so that the closure can write them with
    /// one vectored write), with the bytes of the first already written, to `write`
    /// together with the direct socket, under the queue's lock (so nothing comes in
    /// between), and drops what was written whole; an item written in part stays at the
    /// front with its progress. Stops when the socket is full, once it wrote
    /// [`DIRECT_MAX_BYTES`], at anything only the writer sends (a message above
    /// [`DIRECT_MAX_BYTES`], a close, merged changes, a pong, a place held for an
    /// answer) or at items waiting for durability; the writer is woken whenever something
    /// is left for it. Answers the items written whole.
    pub fn flush_direct(
        &self,
        mut write: impl FnMut(&dyn DirectWrite, &[Front<'_>], usize) -> Wrote,
    ) -> usize {
        let mut st = self.state.lock();
        // This flusher's entry is taken: what is pushed from now on needs a new one.
        st.flush_queued = false;
        let Some(socket) = st.direct.clone() else {
            return 0;
        };
        if st.busy {
            return 0;
        }
        let mut done = 0;
        let mut turn_bytes = 0;
        loop {
            if !self.front_passage(&mut st) {
                // Held, or waiting for durability: the writer (or the gate's watch)
                // takes it from here.
                return done;
            }
            let mut fronts = [Front::Ping; FLUSH_BATCH];
            let mut n = 0;
            let mut batch_bytes = 0;
            for (i, (need, item)) in st.queue.iter().enumerate().take(FLUSH_BATCH) {
                // The first passed above; the others are checked here, since later
                // items may wait for a later record.
                if i > 0
                    && self
                        .gate
                        .get()
                        .is_some_and(|g| g.check(*need) != Passage::Open)
                {
                    break;
                }
                let front = match item {
                    Item::Reply(b) | Item::Snapshot(b) => Front::Data {
                        bytes: b,
                        delta: false,
                    },
                    Item::Frame(_, b) => Front::Data {
                        bytes: b,
                        delta: true,
                    },
                    Item::Ping => Front::Ping,
                    // Merged changes, pongs, closes, held places: the writer's.
                    _ => break,
                };
                let len = match front {
                    Front::Data { bytes, .. } => bytes.len(),
                    Front::Ping => 0,
                };
                // What would take the turn past the bound is the writer's (a message
                // above it always is, since a turn starts at 0 bytes).
                if turn_bytes + batch_bytes + len > DIRECT_MAX_BYTES {
                    break;
                }
                batch_bytes += len;
                fronts[n] = front;
                n += 1;
            }
            if n == 0 {
                if !st.queue.is_empty() || st.merge.is_some() {
                    drop(st);
                    self.writer.notify_one();
                }
                return done;
            }
            let wrote = write(socket.as_ref(), &fronts[..n], st.front_written);
            for _ in 0..wrote.done.min(n) {
                match st.queue.pop_front() {
                    Some((_, Item::Reply(b))) => {
                        turn_bytes += b.len();
                        self.reply_sent(&mut st, b.len());
                    }
                    Some((_, Item::Frame(_, b))) => {
                        turn_bytes += b.len();
                        st.frames -= 1;
                        st.frame_bytes -= b.len();
                    }
                    Some((_, Item::Snapshot(b))) => turn_bytes += b.len(),
                    _ => {}
                }
            }
            done += wrote.done;
            st.front_written = wrote.written;
            if wrote.blocked {
                drop(st);
                self.writer.notify_one();
                return done;
            }
        }
    }
}

/// Test doubles shared with `check.rs`'s tests: a socket that takes a set number of
/// bytes, and the flusher's closure without framing.
#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::delta::{DeltaParts, SharedDelta};
    use crate::gate::{DurableGate, JournalMark};
    use crate::outbox::OutboxLimits;
    use canopy_protocol::Format;
    use std::sync::{Arc, Mutex};

    /// A socket that takes at most `room` more bytes, then would block.
    #[derive(Debug, Default)]
    pub(crate) struct Sock {
        pub(crate) room: Mutex<usize>,
        pub(crate) got: Mutex<Vec<u8>>,
    }

    impl DirectWrite for Sock {
        fn try_write_vectored(&self, bufs: &[IoSlice<'_>]) -> std::io::Result<usize> {
            let mut room = self.room.lock().unwrap();
            let mut took = 0;
            for b in bufs {
                let n = b.len().min(*room - took);
                self.got.lock().unwrap().extend_from_slice(&b[..n]);
                took += n;
            }
            *room -= took;
            if took == 0 {
                return Err(std::io::ErrorKind::WouldBlock.into());
            }
            Ok(took)
        }
    }

    fn outbox(room: usize) -> (Arc<Outbox>, Arc<Sock>) {
        outbox_with(room, OutboxLimits::DEFAULT)
    }

    /// An outbox with these limits whose direct socket takes `room` bytes.
    pub(crate) fn outbox_with(room: usize, limits: OutboxLimits) -> (Arc<Outbox>, Arc<Sock>) {
        let ob = Outbox::new(1, Format::Bincode, limits);
        let sock = Arc::new(Sock {
            room: Mutex::new(room),
            got: Mutex::default(),
        });
        ob.set_direct(Arc::clone(&sock) as Arc<dyn DirectWrite>);
        (ob, sock)
    }

    pub(crate) fn delta(tick: u64) -> SharedDelta {
        let mut parts = DeltaParts::default();
        parts.remove.push(tick as u32);
        SharedDelta::new(tick, 0, parts)
    }

    /// The flusher's closure without framing: each item's bytes as they are, one write
    /// call per batch.
    pub(crate) fn flush(ob: &Outbox) -> usize {
        let done = flush_unchecked(ob);
        ob.assert_well_formed();
        done
    }

    fn flush_unchecked(ob: &Outbox) -> usize {
        ob.flush_direct(|socket, fronts, written| {
            let bytes: Vec<&[u8]> = fronts
                .iter()
                .map(|f| match f {
                    Front::Data { bytes, .. } => *bytes,
                    Front::Ping => b"P",
                })
                .collect();
            let mut slices = vec![IoSlice::new(&bytes[0][written..])];
            slices.extend(bytes[1..].iter().map(|b| IoSlice::new(b)));
            let mut took = socket.try_write_vectored(&slices).unwrap_or_default();
            let offered: usize = slices.iter().map(|s| s.len()).sum();
            let mut wrote = Wrote {
                done: 0,
                written,
                blocked: took < offered,
            };
            for (i, b) in bytes.iter().enumerate() {
                let left = b.len() - if i == 0 { written } else { 0 };
                if took >= left {
                    took -= left;
                    wrote.done += 1;
                    wrote.written = 0;
                } else {
                    wrote.written = if i == 0 { written + took } else { took };
                    break;
                }
            }
            wrote
        })
    }

    fn frame_bytes(tick: u64) -> Vec<u8> {
        delta(tick).frame(Format::Bincode).to_vec()
    }

    #[test]
    fn the_flusher_writes_in_order_and_the_writer_finishes_what_it_started() {
        let (ob, sock) = outbox(1 << 20);
        for tick in 1..=3 {
            let pushed = ob.push_delta(&delta(tick));
            assert!(!pushed.merged);
            // An idle writer is left asleep; one flush entry serves all three frames.
            assert_eq!(pushed.flush, tick == 1, "tick {tick}");
        }
        assert_eq!(flush(&ob), 3);
        let want: Vec<u8> = (1..=3).flat_map(frame_bytes).collect();
        assert_eq!(*sock.got.lock().unwrap(), want);
        assert_eq!(ob.queued_bytes(), 0);
        assert_eq!(ob.take_next(), None);
        // Once a flusher has started on the entry, the next frame needs a new one.
        assert!(ob.push_delta(&delta(10)).flush);
        assert!(!ob.push_delta(&delta(11)).flush);
        assert_eq!(flush(&ob), 2);
        sock.got.lock().unwrap().clear();

        // A socket that takes 5 bytes of the next frame: the rest is the writer's.
        *sock.room.lock().unwrap() = 5;
        ob.push_delta(&delta(4));
        ob.push_delta(&delta(5));
        assert_eq!(flush(&ob), 0);
        let next = ob.take_next().expect("the started frame");
        assert_eq!(next.written, 5);
        assert_eq!(next.item, Outgoing::Frame(frame_bytes(4).into()));
        // The writer holds an item: the flusher keeps off the socket.
        *sock.room.lock().unwrap() = 1 << 20;
        let pushed = ob.push_delta(&delta(6));
        assert!(!pushed.flush, "a busy writer finds it itself");
        assert_eq!(flush(&ob), 0);
        assert!(matches!(ob.take_next(), Some(Next { written: 0, .. })));
        assert!(ob.take_next().is_some());
        assert_eq!(ob.take_next(), None);
        assert_eq!(ob.queued_bytes(), 0);
    }

    #[test]
    fn a_push_tried_while_a_flusher_writes_does_nothing_until_tried_again() {
        let (ob, sock) = outbox(1 << 20);
        ob.push_delta(&delta(1));
        let mut tried = None;
        let written = ob.flush_direct(|socket, fronts, _| {
            // The flusher holds the outbox through its write: the tick's try fails
            // and leaves the queue as it was.
            tried = Some(ob.try_push_delta(&delta(2)));
            let Front::Data { bytes, .. } = fronts[0] else {
                panic!("a frame")
            };
            let took = socket.try_write_vectored(&[IoSlice::new(bytes)]).unwrap();
            Wrote {
                done: usize::from(took == bytes.len()),
                written: 0,
                blocked: false,
            }
        });
        assert_eq!(written, 1);
        assert_eq!(tried, Some(None));
        assert_eq!(ob.queued_bytes(), 0);
        // Tried again once the flusher let go: queued like any push.
        let pushed = ob.try_push_delta(&delta(2)).expect("the outbox is free");
        assert!(pushed.flush && !pushed.merged);
        assert_eq!(flush(&ob), 1);
        let want: Vec<u8> = (1..=2).flat_map(frame_bytes).collect();
        assert_eq!(*sock.got.lock().unwrap(), want);
    }

    #[test]
    fn a_new_subscription_keeps_a_frame_the_flusher_started() {
        let (ob, sock) = outbox(3);
        ob.push_delta(&delta(1));
        ob.push_delta(&delta(2));
        assert_eq!(flush(&ob), 0);
        ob.restart_with(Bytes::from_static(b"snapshot"));
        // Half a frame is on the wire: it is finished, then the snapshot; frame 2 went.
        let first = ob.take_next().unwrap();
        assert_eq!(
            (first.item, first.written),
            (Outgoing::Frame(frame_bytes(1).into()), 3)
        );
        assert_eq!(
            ob.take_next().unwrap().item,
            Outgoing::Message(Bytes::from_static(b"snapshot"))
        );
        assert_eq!(ob.take_next(), None);
        drop(sock);
    }

    #[test]
    fn big_messages_and_long_turns_are_left_to_the_writer() {
        let (ob, sock) = outbox(1 << 30);
        // A snapshot above the bound: the flusher does not write it under the lock.
        let big = Bytes::from(vec![7u8; DIRECT_MAX_BYTES + 1]);
        ob.restart_with(big.clone());
        ob.push_delta(&delta(1));
        assert_eq!(flush(&ob), 0);
        assert!(sock.got.lock().unwrap().is_empty());
        assert_eq!(ob.take_next().unwrap().item, Outgoing::Message(big));
        assert!(ob.take_next().is_some(), "then the frame");
        assert_eq!(ob.take_next(), None);

        // Frames of a quarter of the bound: a turn writes four at most (the bound),
        // the writer the rest.
        let (ob, sock) = outbox(1 << 30);
        let quarter = |tick: u64| {
            let mut parts = DeltaParts::default();
            // Five bytes each in bincode's varints.
            parts
                .remove
                .extend((1u32 << 20..).take(DIRECT_MAX_BYTES / 4 / 5 - 8));
            SharedDelta::new(tick, 0, parts)
        };
        let len = quarter(1).frame(Format::Bincode).len();
        assert!(
            len <= DIRECT_MAX_BYTES / 4 && len > DIRECT_MAX_BYTES / 5,
            "{len}"
        );
        for tick in 1..=6 {
            ob.push_delta(&quarter(tick));
        }
        assert_eq!(flush(&ob), 4);
        assert_eq!(sock.got.lock().unwrap().len(), 4 * len);
        let rest = std::iter::from_fn(|| ob.take_next()).count();
        assert_eq!(rest, 2, "the writer sends the rest");
    }

    #[test]
    fn at_most_one_pong_waits() {
        let ob = Outbox::new(1, Format::Bincode, OutboxLimits::DEFAULT);
        for n in 0..1000u32 {
            ob.push_pong(Bytes::from(n.to_be_bytes().to_vec()));
        }
        assert_eq!(
            ob.take_next().map(|n| n.item),
            Some(Outgoing::Pong(Bytes::from(999u32.to_be_bytes().to_vec())))
        );
        assert_eq!(ob.take_next(), None);
    }

    #[test]
    fn without_a_direct_socket_the_writer_is_woken_as_before() {
        let ob = Outbox::new(1, Format::Bincode, OutboxLimits::DEFAULT);
        let pushed = ob.push_delta(&delta(1));
        assert!(!pushed.flush);
        assert_eq!(flush(&ob), 0, "no socket to write to");
        assert!(ob.take_next().is_some());
    }

    #[test]
    fn the_flusher_stops_at_what_waits_for_durability_and_a_failure_closes() {
        let (ob, sock) = outbox(1 << 20);
        let mark = JournalMark::new(1);
        let gate = DurableGate::on_journal(Arc::clone(&mark), crate::FramePassage::Durable);
        ob.set_gate(Arc::clone(&gate));
        gate.set_need(1);
        ob.push_delta(&delta(1));
        gate.set_need(2);
        ob.push_delta(&delta(2));
        assert_eq!(flush(&ob), 1, "record 1 is stored, record 2 is not");
        assert_eq!(*sock.got.lock().unwrap(), frame_bytes(1));
        mark.fail("fenced".into());
        assert_eq!(flush(&ob), 0);
        assert!(matches!(
            ob.take_next().map(|n| n.item),
            Some(Outgoing::Close(CloseCause::StorageFailed))
        ));
    }
}
