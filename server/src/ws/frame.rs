//! Server-to-client WebSocket framing (RFC 6455 §5.2): the bytes one outgoing message
//! becomes on the wire, walked from any byte offset, so that a message is written
//! straight from the outbox's shared buffer (no per-connection copy) and a write the
//! socket took only in part is continued where it stopped.
//!
//! Invariant: a data message longer than [`FRAGMENT_BYTES`] goes out as a fragmented
//! message (continuation frames of at most that size; a text message is cut only
//! between UTF-8 characters), so no client needs a frame limit above it; server frames
//! are never masked.

use std::io::IoSlice;

/// The largest frame the server sends; longer messages are fragmented.
pub const FRAGMENT_BYTES: usize = 16 * 1024;

/// Fragments one write call offers the socket at most (256 KiB of payload).
pub(super) const FRAGMENTS_PER_WRITE: usize = 16;

/// A frame's opcode (RFC 6455 §5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Opcode {
    /// A UTF-8 data message (JSON connections).
    Text = 0x1,
    /// A binary data message (bincode connections).
    Binary = 0x2,
    /// A control frame closing the connection.
    Close = 0x8,
    /// A control frame asking for a pong.
    Ping = 0x9,
    /// A control frame answering a ping.
    Pong = 0xA,
}

const CONTINUATION: u8 = 0x0;
const FIN: u8 = 0x80;

/// One frame header: at most 10 bytes for a server frame (no mask).
#[derive(Clone, Copy, Debug)]
struct Header {
    buf: [u8; 10],
    len: u8,
}

impl Header {
    const EMPTY: Header = Header {
        buf: [0; 10],
        len: 0,
    };

    fn new(fin: bool, opcode: u8, payload: usize) -> Header {
        let mut buf = [0u8; 10];
        buf[0] = opcode | if fin { FIN } else { 0 };
        let len = if payload < 126 {
            buf[1] = payload as u8;
            2
        } else if payload <= usize::from(u16::MAX) {
            buf[1] = 126;
            buf[2..4].copy_from_slice(&(payload as u16).to_be_bytes());
            4
        } else {
            buf[1] = 127;
            buf[2..10].copy_from_slice(&(payload as u64).to_be_bytes());
            10
        };
        Header { buf, len }
    }

    fn bytes(&self) -> &[u8] {
        &self.buf[..usize::from(self.len)]
    }
}

/// The next stretch of one message's wire bytes from a byte offset: up to
/// [`FRAGMENTS_PER_WRITE`] frames, as slices for one vectored write.
#[derive(Debug)]
pub(super) struct WirePlan<'a> {
    payload: &'a [u8],
    heads: [Header; FRAGMENTS_PER_WRITE],
    /// Each planned frame's payload range.
    ranges: [(usize, usize); FRAGMENTS_PER_WRITE],
    frames: usize,
    /// Bytes of the first planned frame already written (header first, then payload).
    skip: usize,
}

impl<'a> WirePlan<'a> {
    /// What is left of `payload` sent as one message with `opcode`, `offset` wire bytes
    /// in; `None` once everything was written. Control frames carry at most 125 bytes
    /// and are never fragmented (the caller keeps them that short).
    pub(super) fn new(payload: &'a [u8], opcode: Opcode, offset: usize) -> Option<WirePlan<'a>> {
        let mut plan = WirePlan {
            payload,
            heads: [Header::EMPTY; FRAGMENTS_PER_WRITE],
            ranges: [(0, 0); FRAGMENTS_PER_WRITE],
            frames: 0,
            skip: 0,
        };
        let mut start = 0;
        let mut wire = 0;
        let mut first = true;
        loop {
            let end = match opcode {
                Opcode::Text | Opcode::Binary => start + fragment_end(&payload[start..], opcode),
                _ => payload.len(),
            };
            let fin = end == payload.len();
            let code = if first { opcode as u8 } else { CONTINUATION };
            let head = Header::new(fin, code, end - start);
            let frame_wire = usize::from(head.len) + (end - start);
            if plan.frames > 0 || offset < wire + frame_wire {
                if plan.frames == 0 {
                    plan.skip = offset - wire;
                }
                plan.heads[plan.frames] = head;
                plan.ranges[plan.frames] = (start, end);
                plan.frames += 1;
                if plan.frames == FRAGMENTS_PER_WRITE {
                    break;
                }
            }
            wire += frame_wire;
            if fin {
                break;
            }
            start = end;
            first = false;
        }
        (plan.frames > 0).then_some(plan)
    }

    /// True when the plan runs to the message's end (a long message may need several).
    pub(super) fn reaches_end(&self) -> bool {
        self.frames > 0 && self.ranges[self.frames - 1].1 == self.payload.len()
    }

    /// The planned bytes as slices (at most two per frame), for one vectored write.
    pub(super) fn slices(&self) -> ([IoSlice<'_>; 2 * FRAGMENTS_PER_WRITE], usize) {
        let mut out = [IoSlice::new(&[]); 2 * FRAGMENTS_PER_WRITE];
        let mut n = 0;
        for i in 0..self.frames {
            let head = self.heads[i].bytes();
            let (start, end) = self.ranges[i];
            let mut body = &self.payload[start..end];
            if i == 0 && self.skip > 0 {
                if self.skip < head.len() {
                    out[n] = IoSlice::new(&head[self.skip..]);
                    n += 1;
                } else {
                    body = &body[self.skip - head.len()..];
                }
            } else {
                out[n] = IoSlice::new(head);
                n += 1;
            }
            if !body.is_empty() {
                out[n] = IoSlice::new(body);
                n += 1;
            }
        }
        (out, n)
    }
}

/// The bytes of a close frame with `code` and `reason`, the reason cut (between
/// characters) to fit a control frame's 125 bytes.
pub(super) fn close_payload(code: u16, reason: &str) -> Vec<u8> {
    let mut cut = reason.len().min(123);
    while !reason.is_char_boundary(cut) {
        cut -= 1;
    }
    let mut out = Vec::with_capacity(2 + cut);
    out.extend_from_slice(&code.to_be_bytes());
    out.extend_from_slice(&reason.as_bytes()[..cut]);
    out
}

/// Where the fragment that starts `rest` ends.
fn fragment_end(rest: &[u8], opcode: Opcode) -> usize {
    if rest.len() <= FRAGMENT_BYTES {
        return rest.len();
    }
    let mut cut = FRAGMENT_BYTES;
    if opcode == Opcode::Text {
        // Back off to the start of a character: continuation bytes are 0b10xx_xxxx.
        while cut > 0 && rest[cut] & 0xC0 == 0x80 {
            cut -= 1;
        }
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every wire byte of a message, written `step` bytes at a time through plans.
    fn wire(payload: &[u8], opcode: Opcode, step: usize) -> Vec<u8> {
        let mut out = Vec::new();
        let mut offset = 0;
        while let Some(plan) = WirePlan::new(payload, opcode, offset) {
            let (slices, n) = plan.slices();
            let mut all = Vec::new();
            for s in &slices[..n] {
                all.extend_from_slice(s);
            }
            let took = all.len().min(step);
            out.extend_from_slice(&all[..took]);
            offset += took;
        }
        out
    }

    /// Parses server frames back into (fin, opcode, payload).
    fn frames(mut wire: &[u8]) -> Vec<(bool, u8, Vec<u8>)> {
        let mut out = Vec::new();
        while !wire.is_empty() {
            let fin = wire[0] & FIN != 0;
            let op = wire[0] & 0x0F;
            assert_eq!(wire[1] & 0x80, 0, "server frames are not masked");
            let (len, head) = match wire[1] & 0x7F {
                126 => (usize::from(u16::from_be_bytes([wire[2], wire[3]])), 4),
                127 => (
                    u64::from_be_bytes(wire[2..10].try_into().unwrap()) as usize,
                    10,
                ),
                n => (usize::from(n), 2),
            };
            out.push((fin, op, wire[head..head + len].to_vec()));
            wire = &wire[head + len..];
        }
        out
    }

    #[test]
    fn short_messages_are_one_frame_with_the_shortest_length() {
        for len in [0, 1, 125, 126, 65_535.min(FRAGMENT_BYTES)] {
            let payload = vec![7u8; len];
            let w = wire(&payload, Opcode::Binary, usize::MAX);
            let head = if len < 126 { 2 } else { 4 };
            assert_eq!(w.len(), head + len);
            assert_eq!(frames(&w), vec![(true, 0x2, payload)]);
        }
    }

    #[test]
    fn long_messages_are_fragmented_and_resume_at_any_offset() {
        let payload: Vec<u8> = (0..(20 * FRAGMENT_BYTES + 17)).map(|i| i as u8).collect();
        let whole = wire(&payload, Opcode::Binary, usize::MAX);
        for step in [1, 3, 7, 1000, FRAGMENT_BYTES + 5] {
            assert_eq!(wire(&payload, Opcode::Binary, step), whole, "step {step}");
        }
        let parsed = frames(&whole);
        assert_eq!(parsed.len(), 21);
        assert_eq!(parsed[0].1, 0x2);
        assert!(parsed[1..].iter().all(|f| f.1 == CONTINUATION));
        assert!(
            parsed[..20]
                .iter()
                .all(|f| !f.0 && f.2.len() == FRAGMENT_BYTES)
        );
        assert!(parsed[20].0);
        let joined: Vec<u8> = parsed.into_iter().flat_map(|f| f.2).collect();
        assert_eq!(joined, payload);
    }

    #[test]
    fn text_fragments_end_between_characters() {
        let mut s = "a".repeat(FRAGMENT_BYTES - 1);
        s.push('é');
        s.push_str(&"b".repeat(100));
        let parsed = frames(&wire(s.as_bytes(), Opcode::Text, usize::MAX));
        assert_eq!(parsed.len(), 2);
        assert_eq!(parsed[0].2.len(), FRAGMENT_BYTES - 1);
        assert!(std::str::from_utf8(&parsed[0].2).is_ok());
        assert!(std::str::from_utf8(&parsed[1].2).is_ok());
        assert_eq!(fragment_end(s.as_bytes(), Opcode::Binary), FRAGMENT_BYTES);
        assert_eq!(fragment_end(b"short", Opcode::Text), 5);
    }

    #[test]
    fn control_frames_and_the_close_reason() {
        let ping = wire(&[], Opcode::Ping, usize::MAX);
        assert_eq!(ping, vec![0x89, 0x00]);
        let reason = "é".repeat(100);
        let body = close_payload(4000, &reason);
        assert!(body.len() <= 125);
        assert!(std::str::from_utf8(&body[2..]).is_ok());
        let parsed = frames(&wire(&body, Opcode::Close, 2));
        assert_eq!(parsed, vec![(true, 0x8, body)]);
    }
}
