//! Decoding compact blocks: [`BlockReader`] reads rows one by one, and [`decode_snapshot`]
//! and [`decode_delta`] read whole blocks into reusable vectors of [`Row`]s and values.
//!
//! Invariant: decoding never panics and never allocates more than the input can hold;
//! every way bytes can differ from what a [`BlockWriter`](super::BlockWriter) emits (a
//! cut, an unknown flag, a longer LEB128 than needed, a value out of range, ids out of
//! order, bytes left over) is a typed [`CompactError`]. A decoded value is therefore
//! always one the layout can carry; [`Row::apply`] checks what only the baseline can tell.

use super::quant::{CompactValue, R_MAX, T_MAX};
use super::row::{RPart, RValue, Row, TPart};
use super::write::{
    FLAG_A, FLAG_R, FLAG_S, FLAG_TA, FLAG_TX, FLAG_X, ROT_DELTA, ROT_INDEX, ROT_PRESENT, unzigzag,
};
use crate::model::{NodeId, Transform};

/// Why a compact block could not be decoded. `at` is the byte offset where the problem
/// starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompactError {
    /// The block ends inside a row or a number.
    #[error("compact block truncated at byte {at}")]
    Truncated {
        /// Where the cut row or number starts.
        at: usize,
    },
    /// A flags byte or rotation head the layout does not allow.
    #[error("invalid row flags {flags:#04x} at byte {at}")]
    BadFlags {
        /// The byte as read.
        flags: u8,
        /// Its offset.
        at: usize,
    },
    /// A LEB128 longer than needed or over 32 bits.
    #[error("over-long or non-minimal LEB128 at byte {at}")]
    OverlongLeb128 {
        /// Where the number starts.
        at: usize,
    },
    /// A translation of −2²³, a rotation value over 15 bits or a scale that is not a
    /// normal binary16.
    #[error("value out of the compact range at byte {at}")]
    OutOfRange {
        /// Where the value starts.
        at: usize,
    },
    /// A gap of 0 after the first row, or an id past 2³² − 1.
    #[error("node ids not strictly ascending at byte {at}")]
    IdOrder {
        /// Where the gap starts.
        at: usize,
    },
    /// Bytes after the last row.
    #[error("{count} trailing bytes after the compact block")]
    TrailingBytes {
        /// How many.
        count: usize,
    },
}

impl CompactError {
    /// A stable name for the kind of error (`truncated`, `bad_flags`, `overlong_leb128`,
    /// `out_of_range`, `id_order`, `trailing_bytes`), as the golden vectors spell it.
    pub fn kind(&self) -> &'static str {
        match self {
            CompactError::Truncated { .. } => "truncated",
            CompactError::BadFlags { .. } => "bad_flags",
            CompactError::OverlongLeb128 { .. } => "overlong_leb128",
            CompactError::OutOfRange { .. } => "out_of_range",
            CompactError::IdOrder { .. } => "id_order",
            CompactError::TrailingBytes { .. } => "trailing_bytes",
        }
    }

    /// The byte offset where the problem starts (for trailing bytes, the first of them,
    /// given the block's length).
    pub fn offset(&self, block_len: usize) -> usize {
        match *self {
            CompactError::Truncated { at }
            | CompactError::BadFlags { at, .. }
            | CompactError::OverlongLeb128 { at }
            | CompactError::OutOfRange { at }
            | CompactError::IdOrder { at } => at,
            CompactError::TrailingBytes { count } => block_len - count,
        }
    }
}

/// Reads the rows of one block in order. Call [`BlockReader::absolute`] once per
/// absolute row, then (for a delta block) [`BlockReader::count`] and
/// [`BlockReader::update`] that many times, then [`BlockReader::finish`].
#[derive(Debug, Clone)]
pub struct BlockReader<'a> {
    bytes: &'a [u8],
    pos: usize,
    last_id: Option<NodeId>,
}

impl<'a> BlockReader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        BlockReader {
            bytes,
            pos: 0,
            last_id: None,
        }
    }

    /// The offset of the next byte to read.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    fn take<const N: usize>(&mut self) -> Result<[u8; N], CompactError> {
        let end = self.pos + N;
        let slice = self
            .bytes
            .get(self.pos..end)
            .ok_or(CompactError::Truncated { at: self.pos })?;
        self.pos = end;
        let mut out = [0; N];
        out.copy_from_slice(slice);
        Ok(out)
    }

    /// A minimal unsigned LEB128 of at most 32 bits.
    fn uleb(&mut self) -> Result<u32, CompactError> {
        let at = self.pos;
        let mut value = 0u32;
        for i in 0..5 {
            let [b] = self.take::<1>()?;
            if i == 4 && b > 0x0f {
                // A fifth byte holds the top 4 bits only; more is past 32 bits.
                return Err(CompactError::OverlongLeb128 { at });
            }
            value |= u32::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                if b == 0 && i > 0 {
                    return Err(CompactError::OverlongLeb128 { at });
                }
                return Ok(value);
            }
        }
        Err(CompactError::OverlongLeb128 { at })
    }

    fn sleb(&mut self) -> Result<i32, CompactError> {
        self.uleb().map(unzigzag)
    }

    fn i24(&mut self) -> Result<i32, CompactError> {
        let at = self.pos;
        let [a, b, c] = self.take::<3>()?;
        // Sign-extend the 24 bits.
        let v = i32::from_le_bytes([a, b, c, 0]) << 8 >> 8;
        if v.unsigned_abs() > T_MAX as u32 {
            return Err(CompactError::OutOfRange { at });
        }
        Ok(v)
    }

    fn r_value(&mut self) -> Result<u16, CompactError> {
        let at = self.pos;
        let v = u16::from_le_bytes(self.take::<2>()?);
        if v > R_MAX {
            return Err(CompactError::OutOfRange { at });
        }
        Ok(v)
    }

    fn scale(&mut self) -> Result<u16, CompactError> {
        let at = self.pos;
        let s = u16::from_le_bytes(self.take::<2>()?);
        if super::quant::is_normal_half(s) {
            Ok(s)
        } else {
            Err(CompactError::OutOfRange { at })
        }
    }

    fn exact(&mut self) -> Result<Transform, CompactError> {
        let mut v = [0f32; 8];
        for slot in &mut v {
            *slot = f32::from_le_bytes(self.take::<4>()?);
        }
        Ok(Transform {
            t: [v[0], v[1], v[2]],
            r: [v[3], v[4], v[5], v[6]],
            s: v[7],
        })
    }

    /// One absolute row (flag A, or exact), as read.
    pub fn absolute_row(&mut self) -> Result<Row, CompactError> {
        let at = self.pos;
        let row = self.row()?;
        match row {
            Row::Exact(_) | Row::Parts { absolute: true, .. } => Ok(row),
            Row::Parts { .. } => Err(CompactError::BadFlags {
                flags: row.flags(),
                at,
            }),
        }
    }

    /// One absolute row (flag A, or exact): the value it gives.
    pub fn absolute(&mut self) -> Result<CompactValue, CompactError> {
        let at = self.pos;
        // An absolute row carries only in-range values, which `apply` takes as they are.
        self.absolute_row()?
            .apply(None)
            .map_err(|_| CompactError::OutOfRange { at })
    }

    /// The number of id-coded rows that follow a delta block's absolute rows.
    pub fn count(&mut self) -> Result<u32, CompactError> {
        self.uleb()
    }

    /// One id-coded row: the node id (from the gap) and the row.
    pub fn update(&mut self) -> Result<(NodeId, Row), CompactError> {
        let at = self.pos;
        let gap = self.uleb()?;
        let id = match self.last_id {
            None => gap,
            Some(last) => match last.checked_add(gap) {
                Some(id) if gap > 0 => id,
                _ => return Err(CompactError::IdOrder { at }),
            },
        };
        self.last_id = Some(id);
        Ok((id, self.row()?))
    }

    fn row(&mut self) -> Result<Row, CompactError> {
        let at = self.pos;
        let [flags] = self.take::<1>()?;
        let bad = CompactError::BadFlags { flags, at };
        if flags & FLAG_X != 0 {
            return match flags {
                FLAG_X => Ok(Row::Exact(self.exact()?)),
                _ => Err(bad),
            };
        }
        let axes = flags & (FLAG_TA - 1);
        let absolute = flags & FLAG_A != 0;
        let t_absolute = flags & FLAG_TA != 0;
        // TA needs an axis; a row A codes its axes absolute; a relative row carries
        // something.
        if (t_absolute && axes == 0) || (absolute && axes != 0 && !t_absolute) || flags == 0 {
            return Err(bad);
        }
        let t = if axes == 0 {
            None
        } else {
            let mut part = TPart {
                absolute: t_absolute,
                axes: [None; 3],
            };
            for k in (0..3).filter(|&k| axes & (FLAG_TX << k) != 0) {
                part.axes[k] = Some(if t_absolute {
                    self.i24()?
                } else {
                    self.sleb()?
                });
            }
            Some(part)
        };
        let r = if flags & FLAG_R != 0 {
            Some(self.rotation(absolute)?)
        } else {
            None
        };
        let s = if flags & FLAG_S != 0 {
            Some(self.scale()?)
        } else {
            None
        };
        Ok(Row::Parts { absolute, t, r, s })
    }

    fn rotation(&mut self, absolute: bool) -> Result<RPart, CompactError> {
        let at = self.pos;
        let [head] = self.take::<1>()?;
        let present = (head >> 2) & 0b111;
        let delta = head >> 5;
        // A difference needs its component, and a row A has nothing to differ from.
        if delta & !present != 0 || (absolute && delta != 0) {
            return Err(CompactError::BadFlags { flags: head, at });
        }
        let mut part = RPart {
            index: head & ROT_INDEX,
            values: [None; 3],
        };
        for k in (0..3).filter(|&k| head & (ROT_PRESENT << k) != 0) {
            part.values[k] = Some(if head & (ROT_DELTA << k) != 0 {
                RValue::Delta(self.sleb()?)
            } else {
                RValue::Absolute(self.r_value()?)
            });
        }
        Ok(part)
    }

    /// Checks that the whole block was read.
    pub fn finish(&self) -> Result<(), CompactError> {
        match self.remaining() {
            0 => Ok(()),
            count => Err(CompactError::TrailingBytes { count }),
        }
    }
}

/// The rows of a delta block.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeltaRows {
    /// One value per `upsert` node, in the same order.
    pub upsert: Vec<CompactValue>,
    /// The id-coded rows, ids ascending.
    pub rows: Vec<(NodeId, Row)>,
}

/// Decodes a snapshot block of `n` rows (`snapshot.nodes.len()`) into `out`, which is
/// cleared first. On error `out` holds the rows read before it.
pub fn decode_snapshot(
    bytes: &[u8],
    n: usize,
    out: &mut Vec<CompactValue>,
) -> Result<(), CompactError> {
    out.clear();
    let mut reader = BlockReader::new(bytes);
    // A row is at least its flags byte: never reserve more than the input holds.
    out.reserve(n.min(bytes.len()));
    for _ in 0..n {
        out.push(reader.absolute()?);
    }
    reader.finish()
}

/// Decodes a delta block with `n_upsert` absolute rows (`delta.upsert.len()`) into
/// `out`, which is cleared first. On error `out` holds the rows read before it.
pub fn decode_delta(
    bytes: &[u8],
    n_upsert: usize,
    out: &mut DeltaRows,
) -> Result<(), CompactError> {
    out.upsert.clear();
    out.rows.clear();
    let mut reader = BlockReader::new(bytes);
    out.upsert.reserve(n_upsert.min(bytes.len()));
    for _ in 0..n_upsert {
        out.upsert.push(reader.absolute()?);
    }
    let n = reader.count()? as usize;
    // An id-coded row takes at least 2 bytes (gap, flags).
    out.rows.reserve(n.min(reader.remaining() / 2));
    for _ in 0..n {
        out.rows.push(reader.update()?);
    }
    reader.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact::quant::quantize;
    use crate::compact::write::BlockWriter;

    fn err(bytes: &[u8], n_upsert: usize) -> CompactError {
        decode_delta(bytes, n_upsert, &mut DeltaRows::default()).unwrap_err()
    }

    #[test]
    fn what_the_writer_writes_reads_back() {
        let a = quantize(&Transform::IDENTITY);
        let b = quantize(&Transform {
            t: [1.0, -2.0, 3.5],
            ..Transform::IDENTITY
        });
        let far = quantize(&Transform {
            t: [1e6, 0.0, 0.0],
            ..Transform::IDENTITY
        });
        let mut w = BlockWriter::new();
        w.absolute(&a);
        w.absolute(&far);
        w.update(0, Some(&a), &b);
        w.update(u32::MAX, None, &far);
        let mut rows = DeltaRows::default();
        decode_delta(&w.delta().0, 2, &mut rows).unwrap();
        assert_eq!(rows.upsert, vec![a, far]);
        let got: Vec<_> = rows
            .rows
            .iter()
            .map(|(id, row)| (*id, row.apply(a.quantized()).unwrap()))
            .collect();
        assert_eq!(got, vec![(0, b), (u32::MAX, far)]);
    }

    #[test]
    fn leb128_must_be_minimal_and_32_bits() {
        // count 0 written as 0x80 0x00: not minimal.
        assert_eq!(
            err(&[0x80, 0x00], 0),
            CompactError::OverlongLeb128 { at: 0 }
        );
        // count 2^32 needs 33 bits.
        assert_eq!(
            err(&[0x80, 0x80, 0x80, 0x80, 0x10], 0),
            CompactError::OverlongLeb128 { at: 0 }
        );
        // Six bytes.
        assert_eq!(
            err(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x00], 0),
            CompactError::OverlongLeb128 { at: 0 }
        );
        // u32::MAX is fine as a count, but the rows are missing.
        assert_eq!(
            err(&[0xff, 0xff, 0xff, 0xff, 0x0f], 0),
            CompactError::Truncated { at: 5 }
        );
    }

    #[test]
    fn flags_are_checked() {
        // TA without an axis; nothing at all; X with another bit.
        for flags in [0x08, 0x00, 0x81, 0xc0, 0xff] {
            assert_eq!(
                err(&[1, 0, flags, 0, 0, 0], 0),
                CompactError::BadFlags { flags, at: 2 },
                "{flags:#x}"
            );
        }
        // A row A with differences for axes (no TA).
        assert_eq!(
            err(&[1, 0, 0x41, 2], 0),
            CompactError::BadFlags { flags: 0x41, at: 2 }
        );
        // A rotation difference without its component; any difference in a row A.
        for (flags, head) in [(0x10, 0x23), (0x50, 0x27)] {
            assert_eq!(
                err(&[1, 0, flags, head, 0, 0, 0], 0),
                CompactError::BadFlags { flags: head, at: 3 },
                "{head:#x}"
            );
        }
        // An absolute (upsert) row must be A or X.
        assert_eq!(
            err(&[0x20, 0x00, 0x3c, 0], 1),
            CompactError::BadFlags { flags: 0x20, at: 0 }
        );
    }

    #[test]
    fn ids_ascend_strictly_and_fit_in_32_bits() {
        // Scale-only rows: gap, 0x20, 0x3c00.
        let row = |gap: &[u8]| [gap, &[0x20, 0x00, 0x3c]].concat();
        let two = |a: &[u8], b: &[u8]| [&[2u8][..], &row(a), &row(b)].concat();
        assert_eq!(err(&two(&[0], &[0]), 0), CompactError::IdOrder { at: 5 });
        let max = [0xff, 0xff, 0xff, 0xff, 0x0f];
        assert_eq!(err(&two(&max, &[1]), 0), CompactError::IdOrder { at: 9 });
        let mut rows = DeltaRows::default();
        decode_delta(&two(&[0], &[1]), 0, &mut rows).unwrap();
        assert_eq!(
            rows.rows.iter().map(|r| r.0).collect::<Vec<_>>(),
            vec![0, 1]
        );
    }

    #[test]
    fn values_out_of_range_are_refused() {
        // i24 −2²³ (0x800000).
        assert_eq!(
            err(&[0x49, 0x00, 0x00, 0x80, 0], 1),
            CompactError::OutOfRange { at: 1 }
        );
        // A rotation value with bit 15 set.
        assert_eq!(
            err(&[0x50, 0x07, 0x00, 0x80, 0], 1),
            CompactError::OutOfRange { at: 2 }
        );
        // A subnormal, zero or infinite scale.
        for s in [0x0001u16, 0x0000, 0x7c00, 0xfe00] {
            let mut bytes = vec![1, 0, 0x20];
            bytes.extend_from_slice(&s.to_le_bytes());
            assert_eq!(err(&bytes, 0), CompactError::OutOfRange { at: 3 });
        }
    }

    #[test]
    fn cuts_and_leftovers_are_reported() {
        let mut w = BlockWriter::new();
        w.absolute(&quantize(&Transform::IDENTITY));
        let bytes = w.delta().0;
        for cut in 0..bytes.len() {
            assert!(
                matches!(err(&bytes[..cut], 1), CompactError::Truncated { .. }),
                "{cut}"
            );
        }
        let mut long = bytes.clone();
        long.push(0);
        assert_eq!(err(&long, 1), CompactError::TrailingBytes { count: 1 });
        let mut out = Vec::new();
        assert_eq!(
            decode_snapshot(&w.snapshot().0, 2, &mut out),
            Err(CompactError::Truncated { at: 1 })
        );
    }
}
