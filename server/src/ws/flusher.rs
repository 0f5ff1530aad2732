//! A room's flushers: a few tasks (one per runtime worker) that write each tick's frames
//! into the plain-TCP sockets of its subscribers with non-blocking writes, in chunks,
//! instead of waking one writer task per subscriber (`room/flush.rs` says why).
//!
//! Invariant: a flusher never waits on a socket. What a socket does not take at once
//! stays in its outbox, and its writer task is woken to wait for it (see
//! `Outbox::flush_direct`), so one slow client never holds up the others.

use std::sync::Arc;

use crate::metrics::Metrics;
use crate::room::RoomShared;
use crate::room::flush::FlushQueue;
use crate::room::outbox::{DirectWrite, Front, Outbox, Wrote};

use super::frame::{Opcode, WirePlan};
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
#[derive(Default)]
struct Tally {
    bytes: u64,
    delta_frames: u64,
    delta_bytes: u64,
}

impl Tally {
    /// Adds the tally to the server's counters once per round, not once per frame: the
    /// counters are shared by every thread, and a frame is written in about a
    /// microsecond.
    fn record(&mut self, metrics: &Metrics) {
        metrics.bytes_sent.inc_by(self.bytes);
        metrics.delta_frames_sent.inc_by(self.delta_frames);
        metrics.delta_bytes_sent.inc_by(self.delta_bytes);
        *self = Tally::default();
    }
}

async fn run(queue: Arc<FlushQueue>, metrics: Arc<Metrics>) {
    let mut chunk = Vec::with_capacity(CHUNK);
    let mut tally = Tally::default();
    loop {
        queue.ready().await;
        if queue.is_closed() {
            return;
        }
        while queue.take(&mut chunk, CHUNK) {
            for outbox in chunk.drain(..) {
                flush(&outbox, &mut tally);
            }
            tokio::task::yield_now().await;
        }
        tally.record(&metrics);
    }
}

/// Writes what the outbox holds as far as its socket takes it without waiting.
fn flush(outbox: &Outbox, tally: &mut Tally) {
    let data = data_opcode(outbox.format);
    outbox.flush_direct(|socket, front, written| {
        let (payload, opcode, delta): (&[u8], Opcode, bool) = match front {
            Front::Data { bytes, delta } => (bytes, data, delta),
            Front::Ping => (&[], Opcode::Ping, false),
        };
        let wrote = write_now(socket, payload, opcode, written);
        if wrote == Wrote::All && opcode == data {
            tally.bytes += payload.len() as u64;
            if delta {
                tally.delta_frames += 1;
                tally.delta_bytes += payload.len() as u64;
            }
        }
        wrote
    });
}

/// Writes what is left of one message (`written` of its wire bytes are out already) as
/// far as the socket takes it now.
fn write_now(socket: &dyn DirectWrite, payload: &[u8], opcode: Opcode, written: usize) -> Wrote {
    let mut at = written;
    while let Some(plan) = WirePlan::new(payload, opcode, at) {
        let (slices, n) = plan.slices();
        match socket.try_write_vectored(&slices[..n]) {
            Ok(k) if k > 0 => at += k,
            // Full (WouldBlock), or an error the writer will meet and report.
            _ => {
                return if at > written {
                    Wrote::Part(at)
                } else {
                    Wrote::Nothing
                };
            }
        }
    }
    Wrote::All
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

    #[test]
    fn a_message_the_socket_takes_in_part_is_continued_from_its_byte() {
        let payload = vec![9u8; 300];
        let socket = Budget {
            room: Mutex::new(100),
            got: Mutex::default(),
        };
        assert_eq!(
            write_now(&socket, &payload, Opcode::Binary, 0),
            Wrote::Part(100)
        );
        assert_eq!(
            write_now(&socket, &payload, Opcode::Binary, 100),
            Wrote::Nothing
        );
        *socket.room.lock().unwrap() = 1000;
        assert_eq!(
            write_now(&socket, &payload, Opcode::Binary, 100),
            Wrote::All
        );
        let got = socket.got.lock().unwrap();
        // A 4-byte header (126 + u16 length), then the payload.
        assert_eq!(got.len(), 304);
        assert_eq!(&got[..4], &[0x82, 126, 1, 44]);
        assert!(got[4..].iter().all(|&b| b == 9));
    }
}
