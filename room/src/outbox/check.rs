//! [`Outbox::assert_well_formed`]: the outbox's invariants (see the module doc of
//! `room/outbox/mod.rs`) checked whole, for tests after every mutation.

use super::{Item, Outbox};

impl Outbox {
    /// Panics unless the outbox keeps its invariants: its frame and reply counts (in items
    /// and bytes) are those of its queue, and the frames within their limits; at most one
    /// snapshot waits (besides one partly written, which must go out whole); queued
    /// frames show increasing ticks; a close, once queued, is the last item and no place
    /// is held before it; a partly written item is at the front; only an outbox with a
    /// direct socket (or one closed since it queued) waits for the flusher.
    pub fn assert_well_formed(&self) {
        let st = self.state.lock();
        let (mut frames, mut frame_bytes, mut replies, mut reply_bytes) = (0, 0, 0, 0);
        let (mut snapshots, mut closes, mut held) = (0, 0, 0);
        let mut last_tick = None;
        for (at, (_, item)) in st.queue.iter().enumerate() {
            assert_eq!(closes, 0, "conn {}: item {at} follows a close", self.conn);
            match item {
                Item::Frame(tick, b) => {
                    frames += 1;
                    frame_bytes += b.len();
                    assert!(
                        last_tick < Some(*tick),
                        "conn {}: frame of tick {tick} queued after tick {last_tick:?}",
                        self.conn
                    );
                    last_tick = Some(*tick);
                }
                Item::Reply(b) => {
                    replies += 1;
                    reply_bytes += b.len();
                }
                // A snapshot the flusher started stays whole ahead of a newer one.
                Item::Snapshot(_) if !(at == 0 && st.front_written > 0) => snapshots += 1,
                Item::Snapshot(_) => {}
                Item::Held(_) => held += 1,
                Item::Close(_) | Item::CloseReply(_) => closes += 1,
                Item::Ping | Item::Pong(_) => {}
            }
        }
        let counted = (st.frames, st.frame_bytes, st.replies, st.reply_bytes);
        assert_eq!(
            counted,
            (frames, frame_bytes, replies, reply_bytes),
            "conn {}: the counts (frames, frame bytes, replies, reply bytes) are off",
            self.conn
        );
        assert!(
            st.frames <= self.limits.frames && st.frame_bytes <= self.limits.frame_bytes,
            "conn {}: {} frames of {} bytes wait, over the limits {:?}",
            self.conn,
            st.frames,
            st.frame_bytes,
            self.limits
        );
        assert!(
            snapshots <= 1,
            "conn {}: {snapshots} snapshots wait",
            self.conn
        );
        assert!(
            closes == 0 || (st.closing && held == 0),
            "conn {}: a close is queued on an outbox not closing, or behind a held place",
            self.conn
        );
        assert!(
            st.front_written == 0 || !st.queue.is_empty(),
            "conn {}: {} bytes written of a front item that is not there",
            self.conn,
            st.front_written
        );
        assert!(
            !st.flush_queued || st.direct.is_some() || st.closing,
            "conn {}: waits for the flusher without a direct socket",
            self.conn
        );
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use canopy_protocol::ServerMsg;
    use proptest::prelude::*;

    use super::super::OutboxLimits;
    use super::super::drain::tests::{delta, flush, outbox_with};

    /// What a tick, a reader, a writer or the flusher may do to an outbox.
    #[derive(Debug, Clone)]
    enum Step {
        Delta,
        Reply,
        Subscribe,
        Unsubscribe,
        Ping,
        Pong(u8),
        /// The socket takes this many more bytes, then the flusher runs.
        Flush(u16),
        Take,
        Close,
        CloseReply,
        WriterGone,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            6 => Just(Step::Delta),
            2 => Just(Step::Reply),
            1 => Just(Step::Subscribe),
            1 => Just(Step::Unsubscribe),
            1 => Just(Step::Ping),
            1 => any::<u8>().prop_map(Step::Pong),
            4 => any::<u16>().prop_map(Step::Flush),
            4 => Just(Step::Take),
            1 => Just(Step::Close),
            1 => Just(Step::CloseReply),
            1 => Just(Step::WriterGone),
        ]
    }

    proptest! {
        /// Whatever the tick, the reader, the writer and the flusher do, in any order,
        /// the outbox stays well formed after each step, with tight limits so that
        /// merging and partial writes happen often.
        #[test]
        fn every_step_keeps_the_outbox_well_formed(
            steps in prop::collection::vec(step(), 1..120),
            frames in 1usize..4,
            frame_bytes in 8usize..64,
        ) {
            let limits = OutboxLimits { frames, frame_bytes, ..OutboxLimits::DEFAULT };
            let (ob, sock) = outbox_with(0, limits);
            let mut tick = 0;
            for s in steps {
                match s {
                    Step::Delta => {
                        tick += 1;
                        ob.push_delta(&delta(tick));
                    }
                    Step::Reply => ob.push_reply(&ServerMsg::Pong { nonce: tick, tick }),
                    Step::Subscribe => ob.restart_with(Bytes::from(vec![1; 40])),
                    Step::Unsubscribe => ob.clear_frames(),
                    Step::Ping => ob.push_ping(),
                    Step::Pong(n) => ob.push_pong(Bytes::from(vec![n; 3])),
                    Step::Flush(room) => {
                        *sock.room.lock().unwrap() = usize::from(room % 200);
                        flush(&ob);
                    }
                    Step::Take => {
                        ob.take_next();
                    }
                    Step::Close => ob.close(crate::CloseCause::ConnectionClosed),
                    Step::CloseReply => ob.close_reply(1000),
                    Step::WriterGone => ob.writer_gone(),
                }
                ob.assert_well_formed();
            }
        }
    }

    #[test]
    fn a_miscounted_outbox_is_caught() {
        let (ob, _sock) = outbox_with(0, OutboxLimits::DEFAULT);
        ob.push_delta(&delta(1));
        ob.assert_well_formed();
        ob.state.lock().frame_bytes += 1;
        let caught =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ob.assert_well_formed()));
        assert!(caught.is_err(), "a frame byte count off by one passed");
    }
}
