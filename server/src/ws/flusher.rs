//! A room's flushers: a few tasks (one per runtime worker) that write each tick's frames
//! into the plain-TCP sockets of its subscribers with non-blocking writes, in chunks,
//! instead of waking one writer task per subscriber (`room/flush.rs` says why).
//!
//! Invariant: a flusher never waits on a socket. What a socket does not take at once
//! stays in its outbox, and its writer task is woken to wait for it (see
//! `Outbox::flush_direct`), so one slow client never holds up the others.

use std::sync::Arc;
use std::time::Instant;

use prometheus::local::LocalHistogram;

use crate::metrics::Metrics;
use canopy_room::RoomShared;
use canopy_room::flush::FlushQueue;
use std::io::IoSlice;

use canopy_room::outbox::{DirectWrite, FLUSH_BATCH, Front, Outbox, Wrote};

use super::frame::{FRAGMENTS_PER_WRITE, Opcode, WirePlan};
use super::writer::data_opcode;

/// Outboxes a flusher takes at a time before it lets other tasks of its worker run.
const CHUNK: usize = 64;

/// Starts the room's flushers unless they run already.
pub(super) fn start(room: &RoomShared, metrics: &Arc<Metrics>) {
    if !room.flush.start() {
        return;
    }
    let workers = tokio::runtime::Handle::current()
        .metrics()
        .num_workers()
        .max(1);
    for _ in 0..workers {
        tokio::spawn(run(Arc::clone(&room.flush), Arc::clone(metrics)));
    }
}

/// What a flusher wrote since it last told the metrics.
struct Tally {
    bytes: u64,
    delta_frames: u64,
    delta_bytes: u64,
    /// `canopy_fanout_delay_seconds`, kept locally until the end of the round.
    delay: LocalHistogram,
}

impl Tally {
    fn new(metrics: &Metrics) -> Tally {
        Tally {
            bytes: 0,
            delta_frames: 0,
            delta_bytes: 0,
            delay: metrics.fanout_delay_seconds.local(),
        }
    }

    /// Adds the tally to the server's counters once per round, not once per frame: the
    /// counters are shared by every thread, and a frame is written in about a
    /// microsecond.
    fn record(&mut self, metrics: &Metrics) {
        metrics.bytes_sent.inc_by(self.bytes);
        metrics.delta_frames_sent.inc_by(self.delta_frames);
        metrics.flushed_delta_frames.inc_by(self.delta_frames);
        metrics.delta_bytes_sent.inc_by(self.delta_bytes);
        (self.bytes, self.delta_frames, self.delta_bytes) = (0, 0, 0);
        self.delay.flush();
    }
}

async fn run(queue: Arc<FlushQueue>, metrics: Arc<Metrics>) {
    let mut chunk = Vec::with_capacity(CHUNK);
    let mut tally = Tally::new(&metrics);
    loop {
        queue.ready().await;
        if queue.is_closed() {
            return;
        }
        while queue.take(&mut chunk, CHUNK) {
            for (outbox, _) in &chunk {
                flush(outbox, &mut tally);
            }
            // One clock read per chunk: each outbox counts as written when its chunk
            // ends, at most 64 writes (a few hundred microseconds) late.
            let now = Instant::now();
            for (_, handed) in chunk.drain(..) {
                tally
                    .delay
                    .observe(now.saturating_duration_since(handed).as_secs_f64());
            }
            tokio::task::yield_now().await;
        }
        tally.record(&metrics);
    }
}

/// Writes what the outbox holds as far as its socket takes it without waiting.
fn flush(outbox: &Outbox, tally: &mut Tally) {
    let data = data_opcode(outbox.format);
    outbox.flush_direct(|socket, fronts, written| {
        let wrote = write_now(socket, fronts, data, written);
        for front in &fronts[..wrote.done] {
            if let Front::Data { bytes, delta } = front {
                tally.bytes += bytes.len() as u64;
                if *delta {
                    tally.delta_frames += 1;
                    tally.delta_bytes += bytes.len() as u64;
                }
            }
        }
        wrote
    });
}

/// Slices one vectored write offers at most.
const SLICES_PER_WRITE: usize = 2 * FRAGMENTS_PER_WRITE;

/// Writes what is left of `fronts` (`written` wire bytes of the first are out already)
/// with one vectored write, as far as the socket takes it now: the messages after the
/// first go in the same write while their frames fit in it.
fn write_now(
    socket: &dyn DirectWrite,
    fronts: &[Front<'_>],
    data: Opcode,
    written: usize,
) -> Wrote {
    let mut plans: [Option<WirePlan<'_>>; FLUSH_BATCH] = Default::default();
    let mut wire = [0usize; FLUSH_BATCH];
    let mut planned = 0;
    let mut slices_used = 0;
    for (i, front) in fronts.iter().enumerate() {
        let (payload, opcode): (&[u8], Opcode) = match *front {
            Front::Data { bytes, .. } => (bytes, data),
            Front::Ping => (&[], Opcode::Ping),
        };
        let offset = if i == 0 { written } else { 0 };
        let Some(plan) = WirePlan::new(payload, opcode, offset) else {
            break;
        };
        let (slices, n) = plan.slices();
        if i > 0 && slices_used + n > SLICES_PER_WRITE {
            break;
        }
        slices_used += n;
        wire[i] = slices[..n].iter().map(|s| s.len()).sum();
        let whole = plan.reaches_end();
        plans[i] = Some(plan);
        planned = i + 1;
        if !whole {
            break;
        }
    }
    let mut slices = [IoSlice::new(&[]); SLICES_PER_WRITE];
    let mut n = 0;
    for plan in plans[..planned].iter().flatten() {
        let (s, k) = plan.slices();
        let k = k.min(SLICES_PER_WRITE - n);
        slices[n..n + k].copy_from_slice(&s[..k]);
        n += k;
    }
    let offered: usize = wire[..planned].iter().sum();
    // Full (WouldBlock), or an error the writer will meet and report: nothing taken.
    let mut took = socket.try_write_vectored(&slices[..n]).unwrap_or_default();
    let mut wrote = Wrote {
        done: 0,
        written,
        blocked: took < offered,
    };
    for (i, &w) in wire[..planned].iter().enumerate() {
        let start = if i == 0 { written } else { 0 };
        let whole = plans[i].as_ref().is_some_and(WirePlan::reaches_end);
        if took >= w && whole {
            took -= w;
            wrote.done += 1;
            wrote.written = 0;
        } else {
            // Part of this message (a long one may take more writes even if this one
            // took all it was offered).
            wrote.written = start + took.min(w);
            break;
        }
    }
    wrote
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::IoSlice;
    use std::sync::Mutex;

    /// A socket that takes at most `room` more bytes, then would block.
    #[derive(Debug)]
    struct Budget {
        room: Mutex<usize>,
        got: Mutex<Vec<u8>>,
    }

    impl DirectWrite for Budget {
        fn try_write_vectored(&self, bufs: &[IoSlice<'_>]) -> std::io::Result<usize> {
            let mut room = self.room.lock().unwrap();
            if *room == 0 {
                return Err(std::io::ErrorKind::WouldBlock.into());
            }
            let mut took = 0;
            for b in bufs {
                let n = b.len().min(*room - took);
                self.got.lock().unwrap().extend_from_slice(&b[..n]);
                took += n;
                if took == *room {
                    break;
                }
            }
            *room -= took;
            Ok(took)
        }
    }

    fn data(bytes: &[u8]) -> Front<'_> {
        Front::Data { bytes, delta: true }
    }

    #[test]
    fn a_message_the_socket_takes_in_part_is_continued_from_its_byte() {
        let payload = vec![9u8; 300];
        let socket = Budget {
            room: Mutex::new(100),
            got: Mutex::default(),
        };
        let fronts = [data(&payload)];
        let wrote = write_now(&socket, &fronts, Opcode::Binary, 0);
        assert_eq!((wrote.done, wrote.written, wrote.blocked), (0, 100, true));
        let wrote = write_now(&socket, &fronts, Opcode::Binary, 100);
        assert_eq!((wrote.done, wrote.written, wrote.blocked), (0, 100, true));
        *socket.room.lock().unwrap() = 1000;
        let wrote = write_now(&socket, &fronts, Opcode::Binary, 100);
        assert_eq!((wrote.done, wrote.written, wrote.blocked), (1, 0, false));
        let got = socket.got.lock().unwrap();
        // A 4-byte header (126 + u16 length), then the payload.
        assert_eq!(got.len(), 304);
        assert_eq!(&got[..4], &[0x82, 126, 1, 44]);
        assert!(got[4..].iter().all(|&b| b == 9));
    }

    #[test]
    fn several_messages_go_in_one_write_and_a_cut_one_is_resumed() {
        let a = vec![1u8; 10];
        let b = vec![2u8; 10];
        let c = vec![3u8; 10];
        let socket = Budget {
            room: Mutex::new(12 + 12 + 5),
            got: Mutex::default(),
        };
        let fronts = [data(&a), data(&b), data(&c)];
        let wrote = write_now(&socket, &fronts, Opcode::Binary, 0);
        assert_eq!((wrote.done, wrote.written, wrote.blocked), (2, 5, true));
        *socket.room.lock().unwrap() = 100;
        let wrote = write_now(&socket, &fronts[2..], Opcode::Binary, 5);
        assert_eq!((wrote.done, wrote.written, wrote.blocked), (1, 0, false));
        let mut want = Vec::new();
        for (x, p) in [(0x82u8, &a), (0x82, &b), (0x82, &c)] {
            want.extend([x, 10]);
            want.extend_from_slice(p);
        }
        assert_eq!(*socket.got.lock().unwrap(), want);
    }

    #[test]
    fn a_long_message_is_written_over_several_plans() {
        let long = vec![5u8; 20 * super::super::frame::FRAGMENT_BYTES];
        let socket = Budget {
            room: Mutex::new(usize::MAX),
            got: Mutex::default(),
        };
        let fronts = [data(&long), data(b"x")];
        let mut written = 0;
        let mut done = 0;
        for _ in 0..3 {
            let wrote = write_now(&socket, &fronts[done..], Opcode::Binary, written);
            assert!(!wrote.blocked);
            done += wrote.done;
            written = wrote.written;
            if done == fronts.len() {
                break;
            }
        }
        assert_eq!(done, 2);
        // 20 frames of 4-byte headers, then "x" with 2.
        assert_eq!(socket.got.lock().unwrap().len(), long.len() + 80 + 3);
    }
}
