//! Decoding compact blocks: [`BlockReader`] reads rows one by one, [`decode_snapshot`]
//! and [`decode_delta`] read whole blocks into reusable vectors, and [`Row::apply`]
//! turns a decoded row and the client's baseline into the node's new value.
//!
//! Invariant: decoding never panics and never allocates more than the input can hold;
//! every way bytes can differ from what a [`BlockWriter`](super::BlockWriter) emits (a
//! cut, an unknown flag, a longer LEB128 than needed, a value out of range, ids out of
//! order, bytes left over) is a typed [`CompactError`]. A decoded value is therefore
//! always one the layout can carry, and [`Row::apply`] checks what only the baseline can
//! tell (that a delta has something quantized to apply to, and stays in range).

use super::quant::{CompactValue, QRot, Quantized, R_MAX, T_MAX};
use super::write::{
    FLAG_EXACT, FLAG_R, FLAG_R_DELTA, FLAG_S, FLAG_T, FLAG_T_DELTA, FLAGS_ABSOLUTE, unzigzag,
};
use crate::model::{NodeId, Transform};

/// Why a compact block could not be decoded. `at` is the byte offset where the problem
/// starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompactError {
    #[error("compact block truncated at byte {at}")]
    Truncated { at: usize },
    #[error("invalid row flags {flags:#04x} at byte {at}")]
    BadFlags { flags: u8, at: usize },
    #[error("over-long or non-minimal LEB128 at byte {at}")]
    OverlongLeb128 { at: usize },
    #[error("value out of the compact range at byte {at}")]
    OutOfRange { at: usize },
    #[error("node ids not strictly ascending at byte {at}")]
    IdOrder { at: usize },
    #[error("{count} trailing bytes after the compact block")]
    TrailingBytes { count: usize },
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
}

/// Why a decoded row cannot be applied to the client's baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ApplyError {
    /// A row with a part missing or delta-coded, for a node whose last value was exact
    /// (or that the client does not hold).
    #[error("delta row without a quantized baseline")]
    NoBaseline,
    /// A delta that takes a translation axis beyond ±(2²³ − 1) or a rotation value out
    /// of 15 bits.
    #[error("delta leaves the compact range")]
    OutOfRange,
}

impl ApplyError {
    /// A stable name for the kind of error (`no_baseline`, `delta_out_of_range`), as the
    /// golden vectors spell it.
    pub fn kind(&self) -> &'static str {
        match self {
            ApplyError::NoBaseline => "no_baseline",
            ApplyError::OutOfRange => "delta_out_of_range",
        }
    }
}

/// A translation part of a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TPart {
    Absolute([i32; 3]),
    /// Differences in grid steps.
    Delta([i32; 3]),
}

/// A rotation part of a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RPart {
    Absolute(QRot),
    /// Differences of the three 15-bit values, same dropped component.
    Delta([i32; 3]),
}

/// One decoded row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Row {
    /// The exact transform (flag X).
    Exact(Transform),
    /// The parts present; an absent part keeps the baseline's value.
    Parts {
        t: Option<TPart>,
        r: Option<RPart>,
        s: Option<u16>,
    },
}

impl Row {
    /// The flags byte this row was read from.
    pub fn flags(&self) -> u8 {
        match self {
            Row::Exact(_) => FLAG_EXACT,
            Row::Parts { t, r, s } => {
                let mut f = 0;
                match t {
                    Some(TPart::Absolute(_)) => f |= FLAG_T,
                    Some(TPart::Delta(_)) => f |= FLAG_T | FLAG_T_DELTA,
                    None => {}
                }
                match r {
                    Some(RPart::Absolute(_)) => f |= FLAG_R,
                    Some(RPart::Delta(_)) => f |= FLAG_R | FLAG_R_DELTA,
                    None => {}
                }
                if s.is_some() {
                    f |= FLAG_S;
                }
                f
            }
        }
    }

    /// The node's value after this row, given its baseline (the last quantized value
    /// the client received for it; `None` when that was exact or there is none).
    pub fn apply(&self, base: Option<&Quantized>) -> Result<CompactValue, ApplyError> {
        let (t, r, s) = match *self {
            Row::Exact(x) => return Ok(CompactValue::Exact(x)),
            Row::Parts { t, r, s } => (t, r, s),
        };
        if let (Some(TPart::Absolute(t)), Some(RPart::Absolute(r)), Some(s)) = (t, r, s) {
            let q = Quantized::new(t, r, s).ok_or(ApplyError::OutOfRange)?;
            return Ok(CompactValue::Quantized(q));
        }
        let base = base.ok_or(ApplyError::NoBaseline)?;
        let t = match t {
            None => base.t(),
            Some(TPart::Absolute(t)) => t,
            Some(TPart::Delta(d)) => {
                let b = base.t();
                let mut t = [0; 3];
                for k in 0..3 {
                    let v = i64::from(b[k]) + i64::from(d[k]);
                    if v.abs() > i64::from(T_MAX) {
                        return Err(ApplyError::OutOfRange);
                    }
                    t[k] = v as i32;
                }
                t
            }
        };
        let r = match r {
            None => base.r(),
            Some(RPart::Absolute(r)) => r,
            Some(RPart::Delta(d)) => {
                let b = base.r().values();
                let mut v = [0u16; 3];
                for k in 0..3 {
                    let x = i64::from(b[k]) + i64::from(d[k]);
                    if !(0..=i64::from(R_MAX)).contains(&x) {
                        return Err(ApplyError::OutOfRange);
                    }
                    v[k] = x as u16;
                }
                QRot::new(base.r().index(), v).ok_or(ApplyError::OutOfRange)?
            }
        };
        let s = s.unwrap_or(base.s());
        Quantized::new(t, r, s)
            .map(CompactValue::Quantized)
            .ok_or(ApplyError::OutOfRange)
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

    fn t_absolute(&mut self) -> Result<[i32; 3], CompactError> {
        let mut t = [0; 3];
        for axis in &mut t {
            let at = self.pos;
            let [a, b, c] = self.take::<3>()?;
            // Sign-extend the 24 bits.
            let v = i32::from_le_bytes([a, b, c, 0]) << 8 >> 8;
            if v.unsigned_abs() > T_MAX as u32 {
                return Err(CompactError::OutOfRange { at });
            }
            *axis = v;
        }
        Ok(t)
    }

    fn r_absolute(&mut self) -> Result<QRot, CompactError> {
        let at = self.pos;
        let [a, b, c, d, e, f] = self.take::<6>()?;
        QRot::from_bits(u64::from_le_bytes([a, b, c, d, e, f, 0, 0]))
            .ok_or(CompactError::OutOfRange { at })
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

    /// One absolute row (flags `0x07` or `0x80`).
    pub fn absolute(&mut self) -> Result<CompactValue, CompactError> {
        let at = self.pos;
        let [flags] = self.take::<1>()?;
        match flags {
            FLAGS_ABSOLUTE => {
                let t = self.t_absolute()?;
                let r = self.r_absolute()?;
                let s = self.scale()?;
                let q = Quantized::new(t, r, s).ok_or(CompactError::OutOfRange { at })?;
                Ok(CompactValue::Quantized(q))
            }
            FLAG_EXACT => Ok(CompactValue::Exact(self.exact()?)),
            _ => Err(CompactError::BadFlags { flags, at }),
        }
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
        if flags == FLAG_EXACT {
            return Ok(Row::Exact(self.exact()?));
        }
        // Bits 5-7 are unused (X only alone), a delta bit needs its part, and a row
        // carries at least one part.
        let known = FLAG_T | FLAG_R | FLAG_S | FLAG_T_DELTA | FLAG_R_DELTA;
        let delta_without_part = (flags & FLAG_T_DELTA != 0 && flags & FLAG_T == 0)
            || (flags & FLAG_R_DELTA != 0 && flags & FLAG_R == 0);
        if flags & !known != 0 || delta_without_part || flags == 0 {
            return Err(bad);
        }
        let t = match (flags & FLAG_T != 0, flags & FLAG_T_DELTA != 0) {
            (false, _) => None,
            (true, false) => Some(TPart::Absolute(self.t_absolute()?)),
            (true, true) => Some(TPart::Delta([self.sleb()?, self.sleb()?, self.sleb()?])),
        };
        let r = match (flags & FLAG_R != 0, flags & FLAG_R_DELTA != 0) {
            (false, _) => None,
            (true, false) => Some(RPart::Absolute(self.r_absolute()?)),
            (true, true) => Some(RPart::Delta([self.sleb()?, self.sleb()?, self.sleb()?])),
        };
        let s = if flags & FLAG_S != 0 {
            Some(self.scale()?)
        } else {
            None
        };
        Ok(Row::Parts { t, r, s })
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
    // No absolute row is shorter than 18 bytes: never reserve more than the input holds.
    out.reserve(n.min(bytes.len() / 18));
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
    out.upsert.reserve(n_upsert.min(bytes.len() / 18));
    for _ in 0..n_upsert {
        out.upsert.push(reader.absolute()?);
    }
    let n = reader.count()? as usize;
    // An id-coded row takes at least 4 bytes (gap, flags, two bytes of scale).
    out.rows.reserve(n.min(reader.remaining() / 4));
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
        for flags in [0x00, 0x08, 0x10, 0x20, 0x40, 0x81, 0xff] {
            assert_eq!(
                err(&[1, 0, flags, 0, 0, 0], 0),
                CompactError::BadFlags { flags, at: 2 },
                "{flags:#x}"
            );
        }
        // An absolute row must be 0x07 or 0x80.
        assert_eq!(
            err(&[0x01, 0, 0, 0], 1),
            CompactError::BadFlags { flags: 1, at: 0 }
        );
    }

    #[test]
    fn ids_ascend_strictly_and_fit_in_32_bits() {
        // Scale-only rows: gap, 0x04, 0x3c00.
        let row = |gap: &[u8]| [gap, &[0x04, 0x00, 0x3c]].concat();
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
        let mut bad_t = vec![0x07, 0x00, 0x00, 0x80];
        bad_t.extend_from_slice(&[0; 14]);
        assert_eq!(err(&bad_t, 1), CompactError::OutOfRange { at: 1 });
        // The spare bit 47 of a rotation.
        let mut bad_r = vec![0x07];
        bad_r.extend_from_slice(&[0; 9]);
        bad_r.extend_from_slice(&[0, 0, 0, 0, 0, 0x80, 0x00, 0x3c]);
        assert_eq!(err(&bad_r, 1), CompactError::OutOfRange { at: 10 });
        // A subnormal, zero or infinite scale.
        for s in [0x0001u16, 0x0000, 0x7c00, 0xfe00] {
            let mut bytes = vec![1, 0, 0x04];
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
            Err(CompactError::Truncated { at: 18 })
        );
    }

    #[test]
    fn deltas_need_a_quantized_baseline_and_stay_in_range() {
        let base = quantize(&Transform::IDENTITY);
        let base = base.quantized().unwrap();
        let step = Row::Parts {
            t: Some(TPart::Delta([1, 0, 0])),
            r: None,
            s: None,
        };
        assert_eq!(step.apply(None), Err(ApplyError::NoBaseline));
        assert!(step.apply(Some(base)).is_ok());
        let far = Row::Parts {
            t: Some(TPart::Delta([T_MAX + 1, 0, 0])),
            r: None,
            s: None,
        };
        assert_eq!(far.apply(Some(base)), Err(ApplyError::OutOfRange));
        let spin = Row::Parts {
            t: None,
            r: Some(RPart::Delta([i32::MAX, 0, 0])),
            s: None,
        };
        assert_eq!(spin.apply(Some(base)), Err(ApplyError::OutOfRange));
        assert_eq!(spin.flags(), 0x12);
    }
}
