//! [`BlockWriter`]: builds snapshot and delta blocks from [`CompactValue`]s, delta-coding
//! each row against the value the same client received last.
//!
//! Invariant: what the writer emits decodes, with the baselines the caller named, to
//! exactly the `next` values it was given (never an approximation of a step), and it
//! is canonical: minimal LEB128, only the parts that changed, each part in its shorter
//! form. Rows are composed in a stack buffer and appended in one copy, and the two
//! internal buffers are kept across frames, so a row costs no allocation.

use super::CompactRows;
use super::quant::{CompactValue, QRot, Quantized};
use crate::model::NodeId;

/// Flag bits of a row (see the module docs).
pub const FLAG_T: u8 = 1 << 0;
pub const FLAG_R: u8 = 1 << 1;
pub const FLAG_S: u8 = 1 << 2;
pub const FLAG_T_DELTA: u8 = 1 << 3;
pub const FLAG_R_DELTA: u8 = 1 << 4;
pub const FLAG_EXACT: u8 = 1 << 7;
/// The flags of an absolute quantized row.
pub const FLAGS_ABSOLUTE: u8 = FLAG_T | FLAG_R | FLAG_S;

/// The longest row: a 5-byte id gap, the flags and an exact payload.
const MAX_ROW: usize = 5 + 1 + 32;

/// Bytes of an absolute translation (3 × i24) and rotation (u48).
const T_ABS_LEN: usize = 9;
const R_ABS_LEN: usize = 6;

/// Builds one compact block. Push the absolute rows (a snapshot's nodes or a delta's
/// upserts) in the message's order with [`BlockWriter::absolute`], then, for a delta,
/// the changed nodes in ascending id order with [`BlockWriter::update`]; take the bytes
/// with [`BlockWriter::snapshot`] or [`BlockWriter::delta`], then [`BlockWriter::clear`]
/// to reuse the buffers for the next frame.
#[derive(Debug, Default, Clone)]
pub struct BlockWriter {
    absolute: Vec<u8>,
    rows: Vec<u8>,
    n_absolute: usize,
    n_rows: u32,
    last_id: Option<NodeId>,
}

impl BlockWriter {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets every row, keeping the buffers.
    pub fn clear(&mut self) {
        self.absolute.clear();
        self.rows.clear();
        self.n_absolute = 0;
        self.n_rows = 0;
        self.last_id = None;
    }

    /// The number of absolute rows pushed.
    pub fn absolute_len(&self) -> usize {
        self.n_absolute
    }

    /// The number of id-coded rows pushed.
    pub fn update_len(&self) -> usize {
        self.n_rows as usize
    }

    /// Appends the absolute row of a snapshot node or a delta's upsert node.
    pub fn absolute(&mut self, value: &CompactValue) {
        let mut row = Row::default();
        row.absolute(value);
        self.absolute.extend_from_slice(row.bytes());
        self.n_absolute += 1;
    }

    /// Appends the id-coded row of node `id` whose client holds `prev` (`None`: nothing
    /// it can delta against, such as a client that resumed, lagged or just got the node)
    /// and must now hold `next`. Writes only the parts that changed, each as a delta
    /// or absolute, whichever is shorter, and an exact row when either value is exact.
    /// Returns `false` (and writes nothing) when `next` equals `prev` bit for bit.
    ///
    /// # Panics
    ///
    /// When `id` is not greater than the previous row's id: the layout codes ids as
    /// ascending gaps, and a node appears at most once per frame.
    pub fn update(&mut self, id: NodeId, prev: Option<&CompactValue>, next: &CompactValue) -> bool {
        if prev == Some(next) {
            return false;
        }
        let gap = match self.last_id {
            None => id,
            Some(last) => {
                assert!(
                    id > last,
                    "compact rows must have ascending ids ({id} after {last})"
                );
                id - last
            }
        };
        let mut row = Row::default();
        row.uleb(gap);
        match (prev, next) {
            (Some(CompactValue::Quantized(p)), CompactValue::Quantized(n)) => row.delta(p, n),
            _ => row.absolute(next),
        }
        self.rows.extend_from_slice(row.bytes());
        self.n_rows += 1;
        self.last_id = Some(id);
        true
    }

    /// The bytes of a snapshot block (absolute rows only) in `out`, after what it holds.
    ///
    /// # Panics
    ///
    /// When id-coded rows were pushed: a snapshot block has none.
    pub fn write_snapshot(&self, out: &mut Vec<u8>) {
        assert_eq!(self.n_rows, 0, "a snapshot block has no id-coded rows");
        out.extend_from_slice(&self.absolute);
    }

    /// The bytes of a delta block (absolute rows, the count, the id-coded rows) in
    /// `out`, after what it holds.
    pub fn write_delta(&self, out: &mut Vec<u8>) {
        let mut count = Row::default();
        count.uleb(self.n_rows);
        out.reserve(self.absolute.len() + count.len + self.rows.len());
        out.extend_from_slice(&self.absolute);
        out.extend_from_slice(count.bytes());
        out.extend_from_slice(&self.rows);
    }

    /// A snapshot block; see [`BlockWriter::write_snapshot`].
    pub fn snapshot(&self) -> CompactRows {
        let mut out = Vec::new();
        self.write_snapshot(&mut out);
        CompactRows(out)
    }

    /// A delta block; see [`BlockWriter::write_delta`].
    pub fn delta(&self) -> CompactRows {
        let mut out = Vec::new();
        self.write_delta(&mut out);
        CompactRows(out)
    }
}

/// One row composed on the stack.
struct Row {
    buf: [u8; MAX_ROW],
    len: usize,
}

impl Default for Row {
    fn default() -> Self {
        Row {
            buf: [0; MAX_ROW],
            len: 0,
        }
    }
}

impl Row {
    fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    fn put(&mut self, bytes: &[u8]) {
        self.buf[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }

    fn uleb(&mut self, mut v: u32) {
        while v >= 0x80 {
            self.buf[self.len] = (v as u8) | 0x80;
            self.len += 1;
            v >>= 7;
        }
        self.buf[self.len] = v as u8;
        self.len += 1;
    }

    fn t_absolute(&mut self, t: [i32; 3]) {
        for a in t {
            self.put(&a.to_le_bytes()[..3]);
        }
    }

    fn r_absolute(&mut self, r: QRot) {
        self.put(&r.to_bits().to_le_bytes()[..6]);
    }

    fn absolute(&mut self, value: &CompactValue) {
        match value {
            CompactValue::Quantized(q) => {
                self.put(&[FLAGS_ABSOLUTE]);
                self.t_absolute(q.t());
                self.r_absolute(q.r());
                self.put(&q.s().to_le_bytes());
            }
            CompactValue::Exact(x) => {
                self.put(&[FLAG_EXACT]);
                for v in x.t.iter().chain(&x.r).chain([&x.s]) {
                    self.put(&v.to_le_bytes());
                }
            }
        }
    }

    /// The changed parts of `next` against `prev`, both quantized and different.
    fn delta(&mut self, prev: &Quantized, next: &Quantized) {
        let flags_at = self.len;
        self.put(&[0]);
        let mut flags = 0;
        let (pt, nt) = (prev.t(), next.t());
        if pt != nt {
            // Differences of values within ±(2²³ − 1) fit in i32.
            let d = [nt[0] - pt[0], nt[1] - pt[1], nt[2] - pt[2]].map(zigzag);
            if d.iter().map(|&z| uleb_len(z)).sum::<usize>() < T_ABS_LEN {
                flags |= FLAG_T | FLAG_T_DELTA;
                d.into_iter().for_each(|z| self.uleb(z));
            } else {
                flags |= FLAG_T;
                self.t_absolute(nt);
            }
        }
        let (pr, nr) = (prev.r(), next.r());
        if pr != nr {
            let (pv, nv) = (pr.values(), nr.values());
            let d = [0, 1, 2].map(|k| zigzag(nv[k] as i32 - pv[k] as i32));
            let short = d.iter().map(|&z| uleb_len(z)).sum::<usize>() < R_ABS_LEN;
            // A delta is against the same dropped component; a new one needs the index.
            if pr.index() == nr.index() && short {
                flags |= FLAG_R | FLAG_R_DELTA;
                d.into_iter().for_each(|z| self.uleb(z));
            } else {
                flags |= FLAG_R;
                self.r_absolute(nr);
            }
        }
        if prev.s() != next.s() {
            flags |= FLAG_S;
            self.put(&next.s().to_le_bytes());
        }
        self.buf[flags_at] = flags;
    }
}

/// Zigzag: 0, −1, 1, −2, … as 0, 1, 2, 3, …
pub(crate) fn zigzag(v: i32) -> u32 {
    ((v << 1) ^ (v >> 31)) as u32
}

/// The inverse of [`zigzag`].
pub(crate) fn unzigzag(z: u32) -> i32 {
    ((z >> 1) as i32) ^ -((z & 1) as i32)
}

/// The bytes of `v` in minimal unsigned LEB128.
fn uleb_len(v: u32) -> usize {
    match v {
        0..0x80 => 1,
        0x80..0x4000 => 2,
        0x4000..0x20_0000 => 3,
        0x20_0000..0x1000_0000 => 4,
        _ => 5,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact::quant::{QRot, Quantized};
    use crate::model::Transform;

    fn q(t: [i32; 3], index: u8, v: [u16; 3], s: u16) -> CompactValue {
        CompactValue::Quantized(Quantized::new(t, QRot::new(index, v).unwrap(), s).unwrap())
    }

    #[test]
    fn zigzag_maps_small_magnitudes_to_small_codes() {
        assert_eq!([0, -1, 1, -2, 2].map(zigzag), [0, 1, 2, 3, 4]);
        assert_eq!(zigzag(i32::MIN), u32::MAX);
        for v in [0, 1, -1, 63, -64, 1 << 24, -(1 << 24), i32::MAX, i32::MIN] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
    }

    #[test]
    fn an_absolute_row_is_laid_out_byte_by_byte() {
        let mut w = BlockWriter::new();
        w.absolute(&q([1, -1, 0x12_3456], 3, [1, 2, 3], 0x3c00));
        // flags, t as i24 LE, r as u48 LE (3 | 1 << 2 | 2 << 17 | 3 << 32), s LE.
        let r = 3u64 | 1 << 2 | 2 << 17 | 3 << 32;
        let mut want = vec![0x07, 0x01, 0x00, 0x00, 0xff, 0xff, 0xff, 0x56, 0x34, 0x12];
        want.extend_from_slice(&r.to_le_bytes()[..6]);
        want.extend_from_slice(&[0x00, 0x3c]);
        assert_eq!(w.snapshot().0, want);
    }

    #[test]
    fn an_exact_row_carries_the_eight_floats() {
        let x = Transform {
            t: [1.0, 2.0, 3.0],
            r: [0.0, 0.0, 0.0, 1.0],
            s: 1e9,
        };
        let mut w = BlockWriter::new();
        w.absolute(&CompactValue::Exact(x));
        let bytes = w.snapshot().0;
        assert_eq!(bytes.len(), 33);
        assert_eq!(bytes[0], 0x80);
        assert_eq!(&bytes[1..5], &1.0f32.to_le_bytes());
        assert_eq!(&bytes[29..33], &1e9f32.to_le_bytes());
    }

    #[test]
    fn delta_rows_carry_only_what_changed_in_its_shorter_form() {
        let a = q([100, 200, 300], 3, [10, 20, 30], 0x3c00);
        let mut w = BlockWriter::new();
        // Translation step of +1, -1, 0 only: gap 5, flags T|TD, three zigzag bytes.
        assert!(w.update(5, Some(&a), &q([101, 199, 300], 3, [10, 20, 30], 0x3c00)));
        // Rotation step: gap 2 (id 7), R|RD, 3 bytes.
        assert!(w.update(7, Some(&a), &q([100, 200, 300], 3, [11, 20, 29], 0x3c00)));
        // A new dropped index: absolute rotation.
        assert!(w.update(8, Some(&a), &q([100, 200, 300], 1, [10, 20, 30], 0x3c00)));
        // A jump too far for deltas to be shorter: absolute translation.
        assert!(w.update(
            9,
            Some(&a),
            &q([4_000_000, -4_000_000, 300], 3, [10, 20, 30], 0x3c00)
        ));
        // Only the scale.
        assert!(w.update(300, Some(&a), &q([100, 200, 300], 3, [10, 20, 30], 0x4000)));
        // Nothing changed: nothing written.
        assert!(!w.update(301, Some(&a), &a));
        assert_eq!(w.update_len(), 5);
        let r1 = QRot::new(1, [10, 20, 30]).unwrap().to_bits().to_le_bytes();
        // The count, then each row: gap, flags, parts.
        let mut want = vec![5];
        want.extend_from_slice(&[5, 0x09, 2, 1, 0]);
        want.extend_from_slice(&[2, 0x12, 2, 0, 1]);
        want.extend_from_slice(&[1, 0x02]);
        want.extend_from_slice(&r1[..6]);
        want.extend_from_slice(&[
            1, 0x01, 0x00, 0x09, 0x3d, 0x00, 0xf7, 0xc2, 0x2c, 0x01, 0x00,
        ]);
        // Gap 291 is 0xa3 0x02 in LEB128.
        want.extend_from_slice(&[0xa3, 0x02, 0x04, 0x00, 0x40]);
        assert_eq!(w.delta().0, want);
    }

    #[test]
    fn exact_values_on_either_side_give_a_whole_row() {
        let a = q([0; 3], 3, [0; 3], 0x3c00);
        let x = CompactValue::Exact(Transform::IDENTITY);
        let mut w = BlockWriter::new();
        assert!(w.update(0, Some(&x), &a));
        assert!(w.update(1, Some(&a), &x));
        assert!(w.update(2, None, &a));
        let bytes = w.delta().0;
        assert_eq!(bytes.len(), 1 + (1 + 18) + (1 + 33) + (1 + 18));
        assert_eq!((bytes[0], bytes[1], bytes[2]), (3, 0, 0x07));
        assert_eq!((bytes[20], bytes[21]), (1, 0x80));
    }

    #[test]
    fn buffers_are_reused_and_the_count_is_leb128() {
        let a = q([0; 3], 3, [0; 3], 0x3c00);
        let b = q([1, 0, 0], 3, [0; 3], 0x3c00);
        let mut w = BlockWriter::new();
        for id in 0..200 {
            w.update(id, Some(&a), &b);
        }
        let bytes = w.delta().0;
        // 200 = 0xc8 0x01 in LEB128; the first gap is 0, the others 1.
        assert_eq!(&bytes[..4], &[0xc8, 0x01, 0, 0x09]);
        w.clear();
        assert_eq!((w.absolute_len(), w.update_len()), (0, 0));
        assert_eq!(w.delta().0, vec![0]);
        // After clear the id order starts over.
        assert!(w.update(0, None, &a));
    }

    #[test]
    #[should_panic(expected = "ascending ids")]
    fn ids_must_ascend() {
        let a = q([0; 3], 3, [0; 3], 0x3c00);
        let mut w = BlockWriter::new();
        w.update(5, None, &a);
        w.update(5, None, &a);
    }
}
