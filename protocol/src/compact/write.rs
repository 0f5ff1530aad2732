//! [`BlockWriter`]: builds snapshot and delta blocks from [`CompactValue`]s, delta-coding
//! each row against the value the same client received last.
//!
//! Invariant: what the writer emits decodes, with the baselines the caller named, to
//! exactly the `next` values it was given (never an approximation of a step), and it
//! is canonical: minimal LEB128, only the components that changed (or, in a row `A`,
//! that differ from the identity), each in its shorter form. Rows are composed in a
//! stack buffer and appended in one copy, and the two internal buffers are kept across
//! frames, so a row costs no allocation.

use super::CompactRows;
use super::quant::{CompactValue, QRot, Quantized, R_ZERO};
use crate::model::NodeId;

/// Row flag: translation axis x is present (axis `k` is bit `k`).
pub const FLAG_TX: u8 = 1 << 0;
/// Row flag: translation axis y is present.
pub const FLAG_TY: u8 = 1 << 1;
/// Row flag: translation axis z is present.
pub const FLAG_TZ: u8 = 1 << 2;
/// Row flag: the present axes are absolute `i24`s (without it, zigzag LEB128 steps).
pub const FLAG_TA: u8 = 1 << 3;
/// Row flag: a rotation part (its head byte, then its components) follows.
pub const FLAG_R: u8 = 1 << 4;
/// Row flag: a scale follows.
pub const FLAG_S: u8 = 1 << 5;
/// Row flag: the row is absolute: what it omits is the identity's, not the baseline's.
pub const FLAG_A: u8 = 1 << 6;
/// Row flag: the row is exact (eight `f32`s follow); no other bit is set.
pub const FLAG_X: u8 = 1 << 7;

/// Rotation head: the dropped component's index (bits 0-1).
pub const ROT_INDEX: u8 = 0b11;
/// Rotation head: kept component `k` is present (this bit shifted left by `k`).
pub const ROT_PRESENT: u8 = 1 << 2;
/// Rotation head: present component `k` is a zigzag LEB128 difference rather than an
/// absolute `u16` (this bit shifted left by `k`).
pub const ROT_DELTA: u8 = 1 << 5;

/// The longest row: a 5-byte id gap, the flags and an exact payload.
const MAX_ROW: usize = 5 + 1 + 32;

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
    /// and must now hold `next`. Writes only the components that changed, each in its
    /// shorter form; a row `A` when there is no quantized `prev`, and an exact row when
    /// `next` is exact.
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
            (Some(CompactValue::Quantized(p)), CompactValue::Quantized(n)) => row.parts(Some(p), n),
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

    fn u16(&mut self, v: u16) {
        self.put(&v.to_le_bytes());
    }

    fn i24(&mut self, v: i32) {
        self.put(&v.to_le_bytes()[..3]);
    }

    fn absolute(&mut self, value: &CompactValue) {
        match value {
            CompactValue::Quantized(q) => self.parts(None, q),
            CompactValue::Exact(x) => {
                self.put(&[FLAG_X]);
                for v in x.t.iter().chain(&x.r).chain([&x.s]) {
                    self.put(&v.to_le_bytes());
                }
            }
        }
    }

    /// A row of the parts of `next` that differ from `prev`, or, with no `prev`, a row
    /// `A` of the parts that differ from the identity. `prev` differs from `next`.
    fn parts(&mut self, prev: Option<&Quantized>, next: &Quantized) {
        let flags_at = self.len;
        self.put(&[0]);
        let (mut flags, base) = match prev {
            Some(p) => (0, *p),
            None => (FLAG_A, Quantized::IDENTITY),
        };
        let (pt, nt) = (base.t(), next.t());
        let axes = [0, 1, 2].map(|k| pt[k] != nt[k]);
        if axes.contains(&true) {
            // Differences of values within ±(2²³ − 1) fit in i32.
            let d = [0, 1, 2].map(|k| zigzag(nt[k] - pt[k]));
            let delta_len: usize = (0..3).filter(|&k| axes[k]).map(|k| uleb_len(d[k])).sum();
            let absolute_len = 3 * axes.iter().filter(|&&a| a).count();
            let absolute = prev.is_none() || absolute_len < delta_len;
            for k in (0..3).filter(|&k| axes[k]) {
                flags |= FLAG_TX << k;
                if absolute {
                    self.i24(nt[k]);
                } else {
                    self.uleb(d[k]);
                }
            }
            if absolute {
                flags |= FLAG_TA;
            }
        }
        if base.r() != next.r() {
            flags |= FLAG_R;
            self.rotation(prev.map(Quantized::r), next.r());
        }
        if base.s() != next.s() {
            flags |= FLAG_S;
            self.u16(next.s());
        }
        self.buf[flags_at] = flags;
    }

    /// A rotation part: against `prev` when it has the same dropped index (the
    /// components that changed, each a one-byte difference or an absolute value), else
    /// the components that are not zero, absolute.
    fn rotation(&mut self, prev: Option<QRot>, next: QRot) {
        let head_at = self.len;
        self.put(&[0]);
        let mut head = next.index();
        let same = prev.filter(|p| p.index() == next.index());
        for (k, v) in next.values().into_iter().enumerate() {
            let base = same.map_or(R_ZERO, |p| p.values()[k]);
            if v == base {
                continue;
            }
            head |= ROT_PRESENT << k;
            let z = zigzag(i32::from(v) - i32::from(base));
            // A difference of two LEB128 bytes is no shorter than the value itself.
            if same.is_some() && uleb_len(z) == 1 {
                head |= ROT_DELTA << k;
                self.uleb(z);
            } else {
                self.u16(v);
            }
        }
        self.buf[head_at] = head;
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
    use crate::compact::quant::{QRot, Quantized, R_ZERO, S_ONE};
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
        w.absolute(&q([1, -1, 0x12_3456], 2, [1, R_ZERO, 3], 0x4000));
        // Flags A|TA|TX|TY|TZ|R|S, t as i24 LE, the rotation head (index 2, components
        // a and c present, absolute), the two values, s LE.
        let want = vec![
            0x7f,
            0x01,
            0x00,
            0x00,
            0xff,
            0xff,
            0xff,
            0x56,
            0x34,
            0x12,
            0x02 | 0x04 | 0x10,
            0x01,
            0x00,
            0x03,
            0x00,
            0x00,
            0x40,
        ];
        assert_eq!(w.snapshot().0, want);
        // What equals the identity is left out: the identity itself is its flags alone.
        w.clear();
        w.absolute(&CompactValue::Quantized(Quantized::IDENTITY));
        w.absolute(&q([0, 5, 0], 3, [R_ZERO; 3], S_ONE));
        assert_eq!(w.snapshot().0, vec![0x40, 0x4a, 0x05, 0x00, 0x00]);
    }

    #[test]
    fn the_protocol_documents_worked_examples() {
        use crate::compact::quant::quantize;
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let t = [1.0, -2.0, 5.0 / 1024.0];
        let mut w = BlockWriter::new();
        w.absolute(&quantize(&Transform {
            t,
            ..Transform::IDENTITY
        }));
        w.absolute(&quantize(&Transform {
            t,
            r: [0.0, h, 0.0, h],
            s: 2.0,
        }));
        let xyz = [0x00, 0x04, 0x00, 0x00, 0xf8, 0xff, 0x05, 0x00, 0x00];
        let want = [
            &[0x4f][..],
            &xyz,
            &[0x7f],
            &xyz,
            &[0x11, 0xfe, 0x7f, 0x00, 0x40],
        ]
        .concat();
        assert_eq!(w.snapshot().0, want);
        w.clear();
        let a = q([100, 200, 300], 3, [R_ZERO; 3], S_ONE);
        w.update(5, Some(&a), &q([101, 199, 300], 3, [R_ZERO; 3], S_ONE));
        assert_eq!(w.delta().0, vec![1, 0x05, 0x03, 0x02, 0x01]);
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
        // Translation steps of +1 and -1 on x and y: gap 5, flags TX|TY, two bytes.
        assert!(w.update(5, Some(&a), &q([101, 199, 300], 3, [10, 20, 30], 0x3c00)));
        // Rotation: +1 on a and -29 on c, one-byte differences; b unchanged, left out.
        assert!(w.update(7, Some(&a), &q([100, 200, 300], 3, [11, 20, 1], 0x3c00)));
        // A big rotation step: the component absolute (a difference would take 3 bytes).
        assert!(w.update(
            8,
            Some(&a),
            &q([100, 200, 300], 3, [10, 20_000, 30], 0x3c00)
        ));
        // A new dropped index: the components that are not zero, absolute.
        assert!(w.update(
            9,
            Some(&a),
            &q([100, 200, 300], 1, [10, R_ZERO, 30], 0x3c00)
        ));
        // A jump too far for differences to be shorter: absolute axes (x only changes).
        assert!(w.update(
            10,
            Some(&a),
            &q([4_000_000, 200, 300], 3, [10, 20, 30], 0x3c00)
        ));
        // Only the scale.
        assert!(w.update(300, Some(&a), &q([100, 200, 300], 3, [10, 20, 30], 0x4000)));
        // Nothing changed: nothing written.
        assert!(!w.update(301, Some(&a), &a));
        assert_eq!(w.update_len(), 6);
        // The count, then each row: gap, flags, parts.
        let mut want = vec![6];
        want.extend_from_slice(&[5, 0x03, 2, 1]);
        want.extend_from_slice(&[2, 0x10, 0x03 | 0x14 | 0xa0, 2, 57]);
        want.extend_from_slice(&[1, 0x10, 0x03 | 0x08, 0x20, 0x4e]);
        want.extend_from_slice(&[1, 0x10, 0x01 | 0x14, 10, 0, 30, 0]);
        want.extend_from_slice(&[1, 0x09, 0x00, 0x09, 0x3d]);
        // Gap 290 is 0xa2 0x02 in LEB128.
        want.extend_from_slice(&[0xa2, 0x02, 0x20, 0x00, 0x40]);
        assert_eq!(w.delta().0, want);
    }

    #[test]
    fn exact_values_on_either_side_give_a_whole_row() {
        let a = q([0; 3], 3, [R_ZERO; 3], S_ONE);
        let x = CompactValue::Exact(Transform::IDENTITY);
        let mut w = BlockWriter::new();
        assert!(w.update(0, Some(&x), &a));
        assert!(w.update(1, Some(&a), &x));
        assert!(w.update(2, None, &a));
        let bytes = w.delta().0;
        // Rows A of the identity are their flags alone.
        assert_eq!(bytes.len(), 1 + (1 + 1) + (1 + 33) + (1 + 1));
        assert_eq!((bytes[0], bytes[1], bytes[2]), (3, 0, 0x40));
        assert_eq!((bytes[3], bytes[4]), (1, 0x80));
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
        assert_eq!(&bytes[..5], &[0xc8, 0x01, 0, 0x01, 2]);
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
