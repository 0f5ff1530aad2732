//! The log's on-disk format: segment headers and CRC32C-framed records.
//!
//! All integers are little-endian.
//!
//! **Segment file** `log/<first_seq:020>.clog`: a 40-byte header, then records.
//!
//! | bytes  | field                                                            |
//! |--------|------------------------------------------------------------------|
//! | 0..8   | magic `CANOPYLG`                                                 |
//! | 8..10  | format version, u16 = 1                                          |
//! | 10     | checksum algorithm, u8: 1 = CRC32C (Castagnoli)                  |
//! | 11     | reserved, 0                                                      |
//! | 12..20 | first seq, u64 (equal to the file name's)                       |
//! | 20..36 | binary version that wrote the segment, UTF-8, NUL-padded         |
//! | 36..40 | CRC32C of bytes 0..36                                            |
//!
//! **Record**: `len u32 | crc32c u32 | kind u8 | epoch u64 | seq u64 | payload`, where
//! `len` counts the bytes after the crc field (17 + payload) and the CRC covers exactly
//! those bytes. `seq` is gapless across segments (the first record of a segment has the
//! segment's first seq); `epoch` is 0 on a single node and never decreases.
//!
//! **Payloads**, by kind (`str8` = u8 length + UTF-8; `opt` = u8 0, or 1 + u32 length +
//! UTF-8; `prev` = the seq of the same room's previous record, so that recovery can
//! prove that no record of a room is missing between a snapshot and the log):
//!
//! | kind | record        | payload                                                   |
//! |------|---------------|-----------------------------------------------------------|
//! | 1    | room created  | room str8, tick_hz u32, created_ms u64, editor opt, viewer opt |
//! | 2    | room deleted  | room str8, prev u64                                       |
//! | 3    | room tick     | room str8, prev u64, tick u64, time_ms u64, batches       |
//! | 4    | checkpoint    | room str8, prev u64, tick u64, time_ms u64                |
//!
//! `batches` is the rest of the record: the tick's applied batches, `Vec<Vec<Op>>` in the
//! contract's bincode encoding (`canopy_protocol::codec::to_bincode`).
//!
//! Invariant: [`encode_payload`] and [`decode_payload`] are inverse, and a frame is
//! accepted only if its length fits and its CRC matches.

use canopy_protocol::Op;
use canopy_protocol::codec::{MAX_DECODE_BYTES, from_bincode, to_bincode};

use super::bytes::{Put, ReadError, Reader};

/// Segment header length.
pub const SEGMENT_HEADER_LEN: usize = 40;
/// Record framing before the payload: len, crc, kind, epoch, seq.
pub const FRAME_LEN: usize = 25;
/// The largest record payload: what bincode decoding accepts.
pub(super) const MAX_PAYLOAD: usize = MAX_DECODE_BYTES - 1024;

const SEGMENT_MAGIC: &[u8; 8] = b"CANOPYLG";
const FORMAT_VERSION: u16 = 1;
const CHECKSUM_CRC32C: u8 = 1;

/// Kind byte of a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// 1: a room was created.
    Created = 1,
    /// 2: a room was deleted.
    Deleted = 2,
    /// 3: a room's tick applied batches.
    Tick = 3,
    /// 4: a room's tick counter, logged while it applies nothing.
    Checkpoint = 4,
}

impl Kind {
    fn from_u8(v: u8) -> Option<Kind> {
        Some(match v {
            1 => Kind::Created,
            2 => Kind::Deleted,
            3 => Kind::Tick,
            4 => Kind::Checkpoint,
            _ => return None,
        })
    }
}

/// What a room is made with: its id, rate, tokens and creation time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoomMeta {
    /// The room's id.
    pub id: String,
    /// Its tick rate, ticks per second.
    pub tick_hz: u32,
    /// Its editor token; `None` on a server without room tokens.
    pub editor_token: Option<String>,
    /// Its viewer token; `None` on a server without room tokens.
    pub viewer_token: Option<String>,
    /// When it was created, milliseconds since the Unix epoch.
    pub created_ms: u64,
}

/// A decoded record's content.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// The room was created with this metadata.
    Created(RoomMeta),
    /// The room was deleted.
    Deleted,
    /// `batches` stays encoded until it is replayed: recovery decodes only what it returns.
    Tick {
        /// The tick that applied the batches.
        tick: u64,
        /// The tick's time, milliseconds since the Unix epoch.
        time_ms: u64,
        /// The tick's applied batches, `Vec<Vec<Op>>` in the contract's bincode.
        batches: Vec<u8>,
    },
    /// The room's tick counter while it applies nothing.
    Checkpoint {
        /// The room's tick when it was logged.
        tick: u64,
        /// That tick's time, milliseconds since the Unix epoch.
        time_ms: u64,
    },
}

/// A decoded record.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// 0 on a single node; never decreases.
    pub epoch: u64,
    /// The record's sequence number, gapless across segments.
    pub seq: u64,
    /// The room the record is about.
    pub room: String,
    /// The seq of the room's previous record; for `Created`, the record's own seq.
    pub prev: u64,
    /// What the record says.
    pub body: Body,
}

impl Record {
    /// The kind byte of this record.
    pub fn kind(&self) -> Kind {
        match self.body {
            Body::Created(_) => Kind::Created,
            Body::Deleted => Kind::Deleted,
            Body::Tick { .. } => Kind::Tick,
            Body::Checkpoint { .. } => Kind::Checkpoint,
        }
    }

    /// The payload of this record.
    pub fn payload(&self) -> Vec<u8> {
        encode_payload(&self.room, self.prev, &self.body)
    }
}

/// Encodes the batches of a tick as they are logged.
pub fn encode_batches(batches: &[Vec<Op>]) -> Vec<u8> {
    to_bincode(&batches)
}

/// Decodes the batches of a tick record.
pub fn decode_batches(bytes: &[u8]) -> Result<Vec<Vec<Op>>, ReadError> {
    from_bincode(bytes).map_err(|e| format!("tick batches: {e}"))
}

/// The payload of a record of `room` with `body`.
pub(super) fn encode_payload(room: &str, prev: u64, body: &Body) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    out.put_str8(room);
    match body {
        Body::Created(meta) => {
            out.put_u32(meta.tick_hz);
            out.put_u64(meta.created_ms);
            out.put_opt_str(meta.editor_token.as_deref());
            out.put_opt_str(meta.viewer_token.as_deref());
        }
        Body::Deleted => out.put_u64(prev),
        Body::Tick {
            tick,
            time_ms,
            batches,
        } => {
            out.put_u64(prev);
            out.put_u64(*tick);
            out.put_u64(*time_ms);
            out.extend_from_slice(batches);
        }
        Body::Checkpoint { tick, time_ms } => {
            out.put_u64(prev);
            out.put_u64(*tick);
            out.put_u64(*time_ms);
        }
    }
    out
}

/// Decodes a payload of `kind`; returns the room, its `prev` and the body.
pub(super) fn decode_payload(
    kind: Kind,
    seq: u64,
    payload: &[u8],
) -> Result<(String, u64, Body), ReadError> {
    let mut r = Reader::new(payload);
    let room = r.str8("room id")?;
    let (prev, body) = match kind {
        Kind::Created => {
            let tick_hz = r.u32("tick_hz")?;
            let created_ms = r.u64("created_ms")?;
            let editor_token = r.opt_str("editor token")?;
            let viewer_token = r.opt_str("viewer token")?;
            let meta = RoomMeta {
                id: room.clone(),
                tick_hz,
                editor_token,
                viewer_token,
                created_ms,
            };
            (seq, Body::Created(meta))
        }
        Kind::Deleted => (r.u64("prev")?, Body::Deleted),
        Kind::Tick => {
            let prev = r.u64("prev")?;
            let tick = r.u64("tick")?;
            let time_ms = r.u64("time_ms")?;
            let batches = r.rest().to_vec();
            let body = Body::Tick {
                tick,
                time_ms,
                batches,
            };
            (prev, body)
        }
        Kind::Checkpoint => {
            let prev = r.u64("prev")?;
            let tick = r.u64("tick")?;
            let time_ms = r.u64("time_ms")?;
            (prev, Body::Checkpoint { tick, time_ms })
        }
    };
    r.end("record payload")?;
    if kind != Kind::Created && prev >= seq {
        return Err(format!("prev {prev} is not before the record's seq {seq}"));
    }
    Ok((room, prev, body))
}

/// Appends one framed record to `out`.
pub(super) fn put_frame(out: &mut Vec<u8>, kind: Kind, epoch: u64, seq: u64, payload: &[u8]) {
    let len = (17 + payload.len()) as u32;
    out.put_u32(len);
    let crc_at = out.len();
    out.put_u32(0);
    let body_at = out.len();
    out.put_u8(kind as u8);
    out.put_u64(epoch);
    out.put_u64(seq);
    out.extend_from_slice(payload);
    let crc = crc32c::crc32c(&out[body_at..]);
    out[crc_at..crc_at + 4].copy_from_slice(&crc.to_le_bytes());
}

/// The framed bytes of `record`.
pub fn encode_record(record: &Record) -> Vec<u8> {
    let mut out = Vec::new();
    put_frame(
        &mut out,
        record.kind(),
        record.epoch,
        record.seq,
        &record.payload(),
    );
    out
}

/// What is at a position of a segment.
#[derive(Debug)]
pub(super) enum Frame<'a> {
    /// A whole record with a good CRC: its length in the file, and its fields.
    Ok {
        size: usize,
        kind: u8,
        epoch: u64,
        seq: u64,
        payload: &'a [u8],
    },
    /// Fewer bytes remain than the frame needs (a torn write looks like this).
    Short,
    /// The length field is impossible.
    BadLen(u32),
    /// The bytes are all there but the CRC does not match.
    BadCrc,
}

/// Reads the frame at the start of `buf`.
pub(super) fn read_frame(buf: &[u8]) -> Frame<'_> {
    if buf.len() < 8 {
        return Frame::Short;
    }
    let len = u32::from_le_bytes(buf[0..4].try_into().expect("4 bytes"));
    if (len as usize) < 17 || len as usize > MAX_PAYLOAD + 17 {
        return Frame::BadLen(len);
    }
    let size = 8 + len as usize;
    if buf.len() < size {
        return Frame::Short;
    }
    let crc = u32::from_le_bytes(buf[4..8].try_into().expect("4 bytes"));
    let body = &buf[8..size];
    if crc32c::crc32c(body) != crc {
        return Frame::BadCrc;
    }
    Frame::Ok {
        size,
        kind: body[0],
        epoch: u64::from_le_bytes(body[1..9].try_into().expect("8 bytes")),
        seq: u64::from_le_bytes(body[9..17].try_into().expect("8 bytes")),
        payload: &body[17..],
    }
}

/// Decodes a whole frame into a record (for tests and tools).
pub fn decode_record(buf: &[u8]) -> Result<(Record, usize), ReadError> {
    match read_frame(buf) {
        Frame::Ok {
            size,
            kind,
            epoch,
            seq,
            payload,
        } => {
            let kind = Kind::from_u8(kind).ok_or_else(|| format!("unknown record kind {kind}"))?;
            let (room, prev, body) = decode_payload(kind, seq, payload)?;
            let record = Record {
                epoch,
                seq,
                room,
                prev,
                body,
            };
            Ok((record, size))
        }
        Frame::Short => Err("record cut short".into()),
        Frame::BadLen(len) => Err(format!("impossible record length {len}")),
        Frame::BadCrc => Err("record checksum mismatch".into()),
    }
}

/// The kind for a kind byte, if known.
pub(super) fn kind_of(v: u8) -> Option<Kind> {
    Kind::from_u8(v)
}

/// A segment's header.
pub(super) fn segment_header(first_seq: u64, binary_version: &str) -> [u8; SEGMENT_HEADER_LEN] {
    let mut out = Vec::with_capacity(SEGMENT_HEADER_LEN);
    out.extend_from_slice(SEGMENT_MAGIC);
    out.put_u16(FORMAT_VERSION);
    out.put_u8(CHECKSUM_CRC32C);
    out.put_u8(0);
    out.put_u64(first_seq);
    let mut version = [0u8; 16];
    let v = binary_version.as_bytes();
    let n = v.len().min(16);
    version[..n].copy_from_slice(&v[..n]);
    out.extend_from_slice(&version);
    let crc = crc32c::crc32c(&out);
    out.put_u32(crc);
    out.try_into().expect("40 bytes")
}

/// Checks a segment header; returns its first seq and binary version.
pub(super) fn read_segment_header(buf: &[u8]) -> Result<(u64, String), ReadError> {
    let mut r = Reader::new(buf);
    let magic = r.take(8, "segment magic")?;
    if magic != SEGMENT_MAGIC {
        return Err("not a Canopy log segment (bad magic)".into());
    }
    let crc = u32::from_le_bytes(buf[36..40].try_into().map_err(|_| "short header")?);
    if crc32c::crc32c(&buf[..36]) != crc {
        return Err("segment header checksum mismatch".into());
    }
    let version = r.u16("format version")?;
    if version != FORMAT_VERSION {
        return Err(format!(
            "segment format version {version}, this binary reads {FORMAT_VERSION}"
        ));
    }
    let alg = r.u8("checksum algorithm")?;
    if alg != CHECKSUM_CRC32C {
        return Err(format!("unknown checksum algorithm {alg}"));
    }
    r.u8("reserved")?;
    let first = r.u64("first seq")?;
    let v = r.take(16, "binary version")?;
    let end = v.iter().position(|&b| b == 0).unwrap_or(16);
    Ok((first, String::from_utf8_lossy(&v[..end]).into_owned()))
}

/// The file name of the segment starting at `first_seq`.
pub fn segment_name(first_seq: u64) -> String {
    format!("{first_seq:020}.clog")
}

/// The first seq of a segment file name, if it is one.
pub(super) fn parse_segment_name(name: &str) -> Option<u64> {
    let digits = name.strip_suffix(".clog")?;
    (digits.len() == 20 && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}
