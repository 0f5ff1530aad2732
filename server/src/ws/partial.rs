//! Unfinished client messages: [`Partial`] watches the frame headers of what a
//! connection reads, so the session knows when a message began and how many of its bytes
//! the server holds before it is complete, and charges those bytes to the caller's share
//! of the server's partial-message budget (`--max-partial-message-bytes`).
//!
//! Invariants: a message is in progress from the first byte of its first data frame
//! until the payload of its final (FIN) frame is read; control frames in between (a
//! pong) are not progress, so the session's deadline for completing a message
//! (`--ws-message-deadline-secs`) counts from that first byte however many pongs come;
//! the bytes of a message still in progress after a read are charged to the budget
//! (a message read whole within one read is never charged, so the common case takes no
//! lock), and given back when it completes or the connection ends; a read that would
//! take the caller past its share fails, and the session closes the connection with
//! `overloaded`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use canopy_room::budget::{Amount, CallerId, Charge, RoomKey, SharedBudget};
use parking_lot::Mutex;

/// Where the header parser is within the current frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum At {
    /// Reading the frame's header: `have` of its bytes so far.
    Header,
    /// Skipping `left` bytes of the frame's payload.
    Payload { left: u64 },
}

/// The frame-header parser and the message in progress.
#[derive(Debug)]
struct Frames {
    at: At,
    header: [u8; 14],
    have: usize,
    /// The frame being read ends the message (FIN on a data or continuation frame).
    ends_message: bool,
    /// The frame being read belongs to a data message (not a control frame).
    data: bool,
    /// When the message in progress began, and its payload bytes read so far.
    message: Option<(Instant, u64)>,
}

impl Default for Frames {
    fn default() -> Self {
        Frames {
            at: At::Header,
            header: [0; 14],
            have: 0,
            ends_message: false,
            data: false,
            message: None,
        }
    }
}

/// The header's length once its first two bytes are known.
fn header_len(b1: u8) -> usize {
    let ext = match b1 & 0x7F {
        126 => 2,
        127 => 8,
        _ => 0,
    };
    let mask = if b1 & 0x80 != 0 { 4 } else { 0 };
    2 + ext + mask
}

impl Frames {
    /// Feeds the bytes read, all of them.
    fn feed(&mut self, mut bytes: &[u8], now: Instant) {
        while !bytes.is_empty() {
            match self.at {
                At::Header => {
                    let need = if self.have < 2 {
                        2
                    } else {
                        header_len(self.header[1])
                    };
                    let take = (need - self.have).min(bytes.len());
                    self.header[self.have..self.have + take].copy_from_slice(&bytes[..take]);
                    self.have += take;
                    bytes = &bytes[take..];
                    if self.have >= 2 && self.have == header_len(self.header[1]) {
                        self.start_frame(now);
                    }
                }
                At::Payload { left } => {
                    let take = left.min(bytes.len() as u64);
                    bytes = &bytes[take as usize..];
                    if self.data
                        && let Some((_, n)) = &mut self.message
                    {
                        *n += take;
                    }
                    self.at = At::Payload { left: left - take };
                    self.end_frame_if_done();
                }
            }
        }
    }

    fn start_frame(&mut self, now: Instant) {
        let (b0, b1) = (self.header[0], self.header[1]);
        let len = match b1 & 0x7F {
            126 => u64::from(u16::from_be_bytes([self.header[2], self.header[3]])),
            127 => u64::from_be_bytes(self.header[2..10].try_into().expect("8 bytes")),
            n => u64::from(n),
        };
        let opcode = b0 & 0x0F;
        self.data = opcode < 8;
        self.ends_message = self.data && b0 & 0x80 != 0;
        if self.data && self.message.is_none() {
            self.message = Some((now, 0));
        }
        self.have = 0;
        self.at = At::Payload { left: len };
        self.end_frame_if_done();
    }

    fn end_frame_if_done(&mut self) {
        if self.at == (At::Payload { left: 0 }) {
            if self.ends_message {
                self.message = None;
            }
            self.at = At::Header;
        }
    }
}

/// What the session and the read side share about a connection's unfinished message.
#[derive(Debug)]
pub(super) struct Partial {
    frames: Mutex<(Frames, Vec<Charge>)>,
    /// A read failed for the caller's share: the session says `overloaded`.
    over: AtomicBool,
    budget: Arc<SharedBudget>,
    caller: CallerId,
    room: RoomKey,
}

impl Partial {
    /// The watch of a connection of `caller` in `room`, charged to `budget`.
    pub(super) fn new(budget: Arc<SharedBudget>, caller: CallerId, room: RoomKey) -> Arc<Self> {
        Arc::new(Partial {
            frames: Mutex::new((Frames::default(), Vec::new())),
            over: AtomicBool::new(false),
            budget,
            caller,
            room,
        })
    }

    /// Takes in bytes read from the client; an error when the message in progress takes
    /// the caller past its share of the partial-message budget.
    pub(super) fn read(&self, bytes: &[u8]) -> Result<(), canopy_room::budget::OverShare> {
        let mut guard = self.frames.lock();
        let (frames, charges) = &mut *guard;
        frames.feed(bytes, Instant::now());
        let Some((_, held)) = frames.message else {
            charges.clear();
            return Ok(());
        };
        let charged: u64 = charges.iter().map(|c| c.amount().0).sum();
        if held > charged {
            let more = Amount(held - charged);
            match self.budget.charge(self.caller, self.room, more) {
                Ok(c) => charges.push(c),
                Err(e) => {
                    self.over.store(true, Ordering::Release);
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// True once a read failed for the caller's share of the budget.
    pub(super) fn over_share(&self) -> bool {
        self.over.load(Ordering::Acquire)
    }

    /// When the message in progress began, if one is.
    pub(super) fn since(&self) -> Option<Instant> {
        self.frames.lock().0.message.map(|(at, _)| at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_room::budget::Shares;

    /// A client frame: FIN, opcode, masked, with `len` payload bytes of zeros.
    fn frame(fin: bool, opcode: u8, len: usize) -> Vec<u8> {
        let mut f = vec![(if fin { 0x80 } else { 0 }) | opcode];
        match len {
            0..=125 => f.push(0x80 | len as u8),
            126..=0xFFFF => {
                f.push(0x80 | 126);
                f.extend_from_slice(&(len as u16).to_be_bytes());
            }
            _ => {
                f.push(0x80 | 127);
                f.extend_from_slice(&(len as u64).to_be_bytes());
            }
        }
        f.extend_from_slice(&[1, 2, 3, 4]);
        f.extend(std::iter::repeat_n(0u8, len));
        f
    }

    fn partial(ceiling: u64) -> (Arc<Partial>, Arc<SharedBudget>) {
        let budget = SharedBudget::new("partial", Shares::divided(ceiling, 1, 1));
        let p = Partial::new(Arc::clone(&budget), CallerId::of("c"), RoomKey::of("r"));
        (p, budget)
    }

    #[test]
    fn whole_messages_hold_nothing_whatever_the_read_boundaries() {
        let (p, budget) = partial(1 << 20);
        let mut bytes = frame(true, 2, 70_000);
        bytes.extend(frame(true, 9, 3));
        bytes.extend(frame(true, 1, 10));
        // Whole in one read.
        p.read(&bytes).unwrap();
        assert_eq!(p.since(), None);
        // Byte by byte: in progress in between, nothing held at the end.
        for b in &bytes {
            p.read(std::slice::from_ref(b)).unwrap();
        }
        assert_eq!(p.since(), None);
        assert_eq!(budget.held(), Amount(0));
        budget.assert_well_formed();
    }

    #[test]
    fn a_fragmented_message_is_in_progress_across_pongs_and_is_charged() {
        let (p, budget) = partial(1 << 20);
        p.read(&frame(false, 2, 1000)).unwrap();
        let began = p.since().expect("in progress");
        p.read(&frame(true, 10, 0)).unwrap();
        p.read(&frame(false, 0, 1000)).unwrap();
        assert_eq!(p.since(), Some(began), "a pong is not progress");
        assert_eq!(budget.held(), Amount(2000));
        p.read(&frame(true, 0, 5)).unwrap();
        assert_eq!(p.since(), None);
        assert_eq!(budget.held(), Amount(0));
    }

    #[test]
    fn a_message_over_the_callers_share_fails_the_read() {
        let (p, budget) = partial(1500);
        p.read(&frame(false, 2, 1000)).unwrap();
        p.read(&frame(false, 0, 1000)).unwrap();
        assert!(p.read(&frame(false, 0, 1000)).is_err());
        drop(p);
        assert_eq!(budget.held(), Amount(0), "given back with the connection");
    }
}
