//! Reading one log segment back: every record, or the exact place it stops being
//! readable.
//!
//! Invariant (SpacetimeDB's rule): only the end of the *last* segment may be repaired.
//! There, a record that is cut short, has an impossible length or a bad CRC, with no
//! valid record anywhere after it, is a torn write and is reported as a tail to cut.
//! Everything else (a bad record in any other segment, a bad record followed by a valid
//! one, a bad header, a seq gap, an unknown kind, a payload that does not decode, an
//! epoch that goes back) is an error naming the file and byte offset.

use std::path::Path;

use super::error::{PersistError, Result};
use super::record::{
    FRAME_LEN, Frame, Record, SEGMENT_HEADER_LEN, decode_payload, kind_of, read_frame,
    read_segment_header,
};

/// A torn end found in the last segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Torn {
    /// Where the readable part ends (the length the file is cut to).
    pub offset: u64,
    /// Bytes after it.
    pub bytes: u64,
    /// Why the record there was not readable.
    pub why: String,
}

/// One segment, read.
#[derive(Debug)]
pub(super) struct SegmentScan {
    pub first_seq: u64,
    /// The binary version in its header (empty if the header itself was torn).
    pub binary_version: String,
    pub records: Vec<Record>,
    /// The byte offset of each record.
    pub offsets: Vec<u64>,
    /// Bytes of the file.
    pub file_len: u64,
    /// A torn end (last segment only).
    pub torn: Option<Torn>,
}

/// Reads segment `bytes` named for `first_seq`. `last` says whether it is the newest
/// segment (the only one whose end may be torn); `min_epoch` is the epoch of the record
/// before it.
pub(super) fn scan(
    path: &Path,
    bytes: &[u8],
    first_seq: u64,
    last: bool,
    mut min_epoch: u64,
) -> Result<SegmentScan> {
    let file_len = bytes.len() as u64;
    let mut out = SegmentScan {
        first_seq,
        binary_version: String::new(),
        records: Vec::new(),
        offsets: Vec::new(),
        file_len,
        torn: None,
    };
    if bytes.len() < SEGMENT_HEADER_LEN {
        if last {
            // A segment created just before a crash: its header did not all reach disk.
            out.torn = Some(Torn {
                offset: 0,
                bytes: file_len,
                why: "segment header cut short".into(),
            });
            return Ok(out);
        }
        return Err(PersistError::corrupt(path, 0, "segment header cut short"));
    }
    let (header_first, version) = read_segment_header(&bytes[..SEGMENT_HEADER_LEN])
        .map_err(|e| PersistError::corrupt(path, 0, e))?;
    if header_first != first_seq {
        return Err(PersistError::corrupt(
            path,
            12,
            format!("header says first seq {header_first}, the file name {first_seq}"),
        ));
    }
    out.binary_version = version;
    let mut pos = SEGMENT_HEADER_LEN;
    let mut expect = first_seq;
    while pos < bytes.len() {
        let why = match read_frame(&bytes[pos..]) {
            Frame::Ok {
                size,
                kind,
                epoch,
                seq,
                payload,
            } => {
                let at = pos as u64;
                if seq != expect {
                    let what = format!("seq gap: expected record {expect}, found {seq}");
                    return Err(PersistError::corrupt(path, at, what));
                }
                let kind = kind_of(kind).ok_or_else(|| {
                    PersistError::corrupt(path, at, format!("unknown record kind {kind}"))
                })?;
                if epoch < min_epoch {
                    let what = format!("epoch {epoch} after epoch {min_epoch}");
                    return Err(PersistError::corrupt(path, at, what));
                }
                let (room, prev, body) = decode_payload(kind, seq, payload)
                    .map_err(|e| PersistError::corrupt(path, at, format!("record {seq}: {e}")))?;
                min_epoch = epoch;
                out.offsets.push(at);
                out.records.push(Record {
                    epoch,
                    seq,
                    room,
                    prev,
                    body,
                });
                expect += 1;
                pos += size;
                continue;
            }
            Frame::Short => "record cut short".to_string(),
            Frame::BadLen(len) => format!("impossible record length {len}"),
            Frame::BadCrc => "record checksum mismatch".to_string(),
        };
        let at = pos as u64;
        if !last {
            return Err(PersistError::corrupt(
                path,
                at,
                format!("record {expect}: {why}"),
            ));
        }
        if let Some(next) = valid_record_after(bytes, pos + 1, expect) {
            let what = format!(
                "record {expect}: {why}, and a valid record follows at byte {next}: \
                 the log is damaged in the middle"
            );
            return Err(PersistError::corrupt(path, at, what));
        }
        out.torn = Some(Torn {
            offset: at,
            bytes: file_len - at,
            why,
        });
        break;
    }
    Ok(out)
}

/// The offset of a well-framed record at or after `from` whose seq is `expect` or later,
/// if any: its presence proves that a bad record before it is damage, not a torn end.
fn valid_record_after(bytes: &[u8], from: usize, expect: u64) -> Option<usize> {
    let end = bytes.len().saturating_sub(FRAME_LEN);
    (from..=end).find(|&at| {
        let b = &bytes[at..];
        // Cheap filters first (kind and seq range), so the CRC runs on few candidates.
        let kind = b[8];
        let seq = u64::from_le_bytes(b[17..25].try_into().expect("8 bytes"));
        if kind_of(kind).is_none() || seq < expect || seq - expect > u64::from(u32::MAX) {
            return false;
        }
        matches!(read_frame(b), Frame::Ok { .. })
    })
}
