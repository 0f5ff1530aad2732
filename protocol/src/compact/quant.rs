//! Quantization of world transforms: [`quantize`] (the server's side) and
//! [`dequantize`] (every decoder's side), with their value types.
//!
//! Invariant: a [`Quantized`] value always holds numbers the layout can carry
//! (translation axes within ±[`T_MAX`], rotation values within [`R_MAX`], scale bits of a
//! normal binary16), because its fields are private and every constructor checks them;
//! so a writer never has to check, and dequantizing one always yields finite floats.
//! [`dequantize`] follows the module docs' arithmetic to the letter, because decoders in
//! other languages must produce the same `f32` bits.

use std::f64::consts::{FRAC_1_SQRT_2, SQRT_2};

use crate::model::Transform;

/// Grid steps per unit of translation (a step is 2⁻¹⁰ units).
pub const T_STEPS: f64 = 1024.0;

/// The largest magnitude of a quantized translation axis, 2²³ − 1 (about 8,192 units).
pub const T_MAX: i32 = (1 << 23) - 1;

/// The largest 15-bit rotation value.
pub const R_MAX: u16 = (1 << 15) - 1;

/// The 15-bit value of a rotation component 0: the grid is symmetric around it, so the
/// identity and axis-aligned rotations decode exactly. Quantizing writes 0 to
/// `2 · R_ZERO` (= 32766); 32767 is valid on the wire but never written.
pub const R_ZERO: u16 = 16383;

/// The binary16 bits of a scale of 1.
pub const S_ONE: u16 = 0x3c00;

/// A rotation in smallest-three form: the index (0 to 3, x y z w) of the dropped
/// component and the 15-bit values of the other three, in index order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QRot {
    index: u8,
    v: [u16; 3],
}

impl QRot {
    /// The identity: `w` dropped, the other three components zero.
    pub const IDENTITY: QRot = QRot {
        index: 3,
        v: [R_ZERO; 3],
    };

    /// `None` unless `index <= 3` and every value is at most [`R_MAX`].
    pub fn new(index: u8, v: [u16; 3]) -> Option<QRot> {
        (index <= 3 && v.iter().all(|&x| x <= R_MAX)).then_some(QRot { index, v })
    }

    /// The dropped component's index.
    pub fn index(&self) -> u8 {
        self.index
    }

    /// The kept components' 15-bit values, in index order.
    pub fn values(&self) -> [u16; 3] {
        self.v
    }
}

/// A quantized world transform: translation in grid steps, rotation in smallest-three
/// form, scale as binary16 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Quantized {
    t: [i32; 3],
    r: QRot,
    s: u16,
}

impl Quantized {
    /// The identity transform, which a row `A` starts from.
    pub const IDENTITY: Quantized = Quantized {
        t: [0; 3],
        r: QRot::IDENTITY,
        s: S_ONE,
    };

    /// `None` unless every axis of `t` is within ±[`T_MAX`] and `s` is the bits of a
    /// normal binary16 (either sign).
    pub fn new(t: [i32; 3], r: QRot, s: u16) -> Option<Quantized> {
        let t_ok = t.iter().all(|a| a.unsigned_abs() <= T_MAX as u32);
        (t_ok && is_normal_half(s)).then_some(Quantized { t, r, s })
    }

    /// The translation in grid steps.
    pub fn t(&self) -> [i32; 3] {
        self.t
    }

    /// The rotation.
    pub fn r(&self) -> QRot {
        self.r
    }

    /// The scale's binary16 bits.
    pub fn s(&self) -> u16 {
        self.s
    }
}

/// What a node's world transform is on a compact connection: quantized, or exact when
/// it is outside the quantized ranges.
#[derive(Clone, Copy, Debug)]
pub enum CompactValue {
    /// Within the compact ranges: sent as integers, held as their dequantization.
    Quantized(Quantized),
    /// Outside them: sent and held bit for bit.
    Exact(Transform),
}

/// Bit-exact equality: two exact values are equal when their `f32`s have the same bits
/// (so `NaN == NaN` and `0.0 != -0.0`), which is what "unchanged" means on the wire.
impl PartialEq for CompactValue {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (CompactValue::Quantized(a), CompactValue::Quantized(b)) => a == b,
            (CompactValue::Exact(a), CompactValue::Exact(b)) => {
                transform_bits(a) == transform_bits(b)
            }
            _ => false,
        }
    }
}

impl Eq for CompactValue {}

impl CompactValue {
    /// The world transform a client holds for this value.
    pub fn to_transform(&self) -> Transform {
        match self {
            CompactValue::Quantized(q) => dequantize(q),
            CompactValue::Exact(t) => *t,
        }
    }

    /// The quantized value, `None` for an exact one.
    pub fn quantized(&self) -> Option<&Quantized> {
        match self {
            CompactValue::Quantized(q) => Some(q),
            CompactValue::Exact(_) => None,
        }
    }
}

/// The eight `f32`s of a transform as bits, in wire order (t, r, s).
pub fn transform_bits(x: &Transform) -> [u32; 8] {
    [
        x.t[0].to_bits(),
        x.t[1].to_bits(),
        x.t[2].to_bits(),
        x.r[0].to_bits(),
        x.r[1].to_bits(),
        x.r[2].to_bits(),
        x.r[3].to_bits(),
        x.s.to_bits(),
    ]
}

/// Quantizes a world transform, or keeps it exact when any part is outside its range.
pub fn quantize(x: &Transform) -> CompactValue {
    match (
        quantize_translation(x.t),
        quantize_rotation(x.r),
        quantize_scale(x.s),
    ) {
        (Some(t), Some(r), Some(s)) => CompactValue::Quantized(Quantized { t, r, s }),
        _ => CompactValue::Exact(*x),
    }
}

/// Each axis as `round_half_away_from_zero(t · 1024)`; `None` when an axis is beyond
/// ±[`T_MAX`] steps (or not finite).
pub fn quantize_translation(t: [f32; 3]) -> Option<[i32; 3]> {
    let mut q = [0i32; 3];
    for (slot, &axis) in q.iter_mut().zip(&t) {
        // Exact in f64: an f32 times a power of two.
        let v = f64::from(axis) * T_STEPS;
        // |q| <= T_MAX exactly when |v| < T_MAX + 0.5; NaN is not in range either.
        let in_range = v.abs() < T_MAX as f64 + 0.5;
        if !in_range {
            return None;
        }
        // v has at most 24 significant bits, so v ± 0.5 is exact and truncating it
        // rounds half away from zero (without a libm call on baseline x86-64).
        *slot = if v >= 0.0 {
            (v + 0.5) as i32
        } else {
            -((0.5 - v) as i32)
        };
    }
    Some(q)
}

/// Smallest three of the quaternion normalized in f64; `None` when it is not finite or
/// has length 0.
pub fn quantize_rotation(r: [f32; 4]) -> Option<QRot> {
    let c = r.map(f64::from);
    let n2 = c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3];
    // f32 components cannot overflow or underflow this in f64; NaN fails the test.
    let usable = n2 > 0.0 && n2.is_finite();
    if !usable {
        return None;
    }
    let mut index = 0;
    for i in 1..4 {
        if c[i].abs() > c[index].abs() {
            index = i;
        }
    }
    // Normalizing, negating when the dropped component is negative (q and −q are the
    // same rotation), and the scale to steps of (1/√2)/16383, in one factor.
    let inv = 1.0 / n2.sqrt();
    let sign = if c[index] < 0.0 { -1.0 } else { 1.0 };
    let factor = sign * inv * (R_ZERO as f64 * SQRT_2);
    let mut v = [0u16; 3];
    let kept = (0..4).filter(|&i| i != index);
    for (slot, i) in v.iter_mut().zip(kept) {
        // ⌊x + ½⌋ after the shift to non-negative values: round half up, no libm call.
        let x = c[i] * factor + (R_ZERO as f64 + 0.5);
        // Clamped: the normalized f64 value can stray a rounding error past ±1/√2.
        *slot = (x.max(0.0) as u16).min(2 * R_ZERO);
    }
    Some(QRot {
        index: index as u8,
        v,
    })
}

/// The binary16 bits of `s` (round to nearest even); `None` unless they are a normal
/// half.
pub fn quantize_scale(s: f32) -> Option<u16> {
    let h = f32_to_f16(s);
    is_normal_half(h).then_some(h)
}

/// The transform a client holds for `q`, computed as the module docs prescribe.
pub fn dequantize(q: &Quantized) -> Transform {
    Transform {
        t: q.t.map(|a| a as f32 / T_STEPS as f32),
        r: dequantize_rotation(q.r),
        s: f16_to_f32(q.s),
    }
}

/// Smallest three back to a quaternion, in f64 with the documented order of operations,
/// rounded to f32 at the end.
pub fn dequantize_rotation(r: QRot) -> [f32; 4] {
    let c =
        r.v.map(|v| (v as f64 - R_ZERO as f64) / R_ZERO as f64 * FRAC_1_SQRT_2);
    let sum = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
    let dropped = (1.0 - sum).max(0.0).sqrt();
    let mut out = [0f32; 4];
    let mut k = 0;
    for (i, slot) in out.iter_mut().enumerate() {
        if i == r.index as usize {
            *slot = dropped as f32;
        } else {
            *slot = c[k] as f32;
            k += 1;
        }
    }
    out
}

/// Whether `h` is the bits of a normal, finite binary16 (exponent field 1 to 30).
pub fn is_normal_half(h: u16) -> bool {
    let e = (h >> 10) & 0x1f;
    (1..=30).contains(&e)
}

/// IEEE 754 binary32 to binary16, rounding to nearest even, for every input (subnormal
/// results, infinities and NaN included, so the "normal half" test sees the true
/// rounding).
pub fn f32_to_f16(x: f32) -> u16 {
    let x = x.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let man = x & 0x7f_ffff;
    if exp == 0xff {
        // Infinity, or a quiet NaN keeping the top of the payload.
        let nan = if man != 0 {
            0x200 | (man >> 13) as u16
        } else {
            0
        };
        return sign | 0x7c00 | nan;
    }
    let half_exp = exp - 127 + 15;
    if half_exp >= 0x1f {
        return sign | 0x7c00;
    }
    if half_exp <= 0 {
        // A subnormal half (or zero): the 24-bit significand shifted into 2⁻²⁴ steps.
        let shift = (14 - half_exp) as u32;
        if shift > 24 {
            return sign;
        }
        let full = man | 0x80_0000;
        let kept = full >> shift;
        let rest = full & ((1 << shift) - 1);
        let half_way = 1 << (shift - 1);
        let up = rest > half_way || (rest == half_way && kept & 1 == 1);
        // A carry out of the significand lands on the smallest normal, as it should.
        return sign | (kept + up as u32) as u16;
    }
    let h = ((half_exp as u32) << 10) | (man >> 13);
    let rest = man & 0x1fff;
    let up = rest > 0x1000 || (rest == 0x1000 && h & 1 == 1);
    // A carry may run into the exponent, up to infinity (0x7c00): also correct.
    sign | (h + up as u32) as u16
}

/// IEEE 754 binary16 to binary32, exactly (every half is an `f32`). The wire carries
/// normal halves only; the rest is handled so that no input is a trap.
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h & 0x8000) as u32) << 16;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    let bits = match (exp, man) {
        (0, 0) => sign,
        // Subnormal: man · 2⁻²⁴, renormalized for the f32 exponent.
        (0, _) => {
            let shift = man.leading_zeros() - 21;
            sign | (113 - shift) << 23 | ((man << shift) & 0x3ff) << 13
        }
        (0x1f, _) => sign | 0x7f80_0000 | man << 13,
        _ => sign | (exp + 127 - 15) << 23 | man << 13,
    };
    f32::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translation_rounds_half_away_from_zero_and_stops_at_the_range() {
        let step = 1.0 / 1024.0;
        assert_eq!(
            quantize_translation([0.5 * step, -0.5 * step, 1.5 * step]),
            Some([1, -1, 2])
        );
        assert_eq!(
            quantize_translation([0.49 * step, -0.49 * step, 0.0]),
            Some([0, 0, 0])
        );
        let edge = T_MAX as f32 / 1024.0;
        assert_eq!(
            quantize_translation([edge, -edge, 0.0]),
            Some([T_MAX, -T_MAX, 0])
        );
        assert_eq!(quantize_translation([8192.0, 0.0, 0.0]), None);
        assert_eq!(quantize_translation([f32::NAN, 0.0, 0.0]), None);
        assert_eq!(quantize_translation([0.0, f32::NEG_INFINITY, 0.0]), None);
    }

    #[test]
    fn rotation_drops_the_largest_and_keeps_it_positive() {
        // Identity: w dropped, the others at the zero value, and back exactly.
        let id = quantize_rotation([0.0, 0.0, 0.0, 1.0]).unwrap();
        assert_eq!((id.index(), id.values()), (3, [R_ZERO; 3]));
        assert_eq!(dequantize_rotation(id), [0.0, 0.0, 0.0, 1.0]);
        // −identity is the same rotation and quantizes the same.
        assert_eq!(quantize_rotation([0.0, 0.0, 0.0, -1.0]), Some(id));
        // A tie drops the first of the tied components; x is negative, so all negate.
        let h = FRAC_1_SQRT_2 as f32;
        let tie = quantize_rotation([-h, 0.0, h, 0.0]).unwrap();
        assert_eq!((tie.index(), tie.values()), (0, [R_ZERO, 0, R_ZERO]));
        // A quarter turn about z decodes exactly too.
        assert_eq!(dequantize_rotation(tie), [h, 0.0, -h, 0.0]);
        assert_eq!(quantize_rotation([0.0; 4]), None);
        assert_eq!(quantize_rotation([f32::NAN, 0.0, 0.0, 1.0]), None);
    }

    #[test]
    fn rotations_are_checked_and_the_identity_is_what_quantizing_gives() {
        assert_eq!(
            quantize_rotation([0.0, 0.0, 0.0, 1.0]),
            Some(QRot::IDENTITY)
        );
        assert_eq!(
            quantize(&Transform::IDENTITY).quantized(),
            Some(&Quantized::IDENTITY)
        );
        assert_eq!(QRot::new(4, [0; 3]), None);
        assert_eq!(QRot::new(0, [R_MAX + 1, 0, 0]), None);
    }

    #[test]
    fn scale_is_a_normal_half_or_nothing() {
        assert_eq!(quantize_scale(1.0), Some(0x3c00));
        assert_eq!(quantize_scale(65504.0), Some(0x7bff));
        // Rounds down to 65504 below the midpoint to 65536, to infinity from it.
        assert_eq!(quantize_scale(65519.0), Some(0x7bff));
        assert_eq!(quantize_scale(65520.0), None);
        assert_eq!(quantize_scale(2f32.powi(-14)), Some(0x0400));
        // Just below the smallest normal, rounding up to it counts; further down not.
        assert_eq!(
            quantize_scale(2f32.powi(-14) - 2f32.powi(-25)),
            Some(0x0400)
        );
        assert_eq!(quantize_scale(2f32.powi(-15)), None);
        assert_eq!(quantize_scale(0.0), None);
        assert_eq!(quantize_scale(f32::NAN), None);
        assert_eq!(f16_to_f32(0x3555), 0.333_251_95);
    }

    #[test]
    fn quantized_values_are_checked_on_construction() {
        let r = QRot::new(3, [0; 3]).unwrap();
        assert!(Quantized::new([T_MAX, -T_MAX, 0], r, 0x3c00).is_some());
        assert!(Quantized::new([-T_MAX - 1, 0, 0], r, 0x3c00).is_none());
        assert!(Quantized::new([0; 3], r, 0x0000).is_none());
        assert!(Quantized::new([0; 3], r, 0x7c00).is_none());
        assert!(Quantized::new([0; 3], r, 0x03ff).is_none());
    }

    #[test]
    fn exact_values_compare_by_bits() {
        let a = Transform {
            s: f32::NAN,
            ..Transform::IDENTITY
        };
        assert_eq!(CompactValue::Exact(a), CompactValue::Exact(a));
        let z = Transform {
            t: [-0.0, 0.0, 0.0],
            ..Transform::IDENTITY
        };
        assert_ne!(
            CompactValue::Exact(z),
            CompactValue::Exact(Transform::IDENTITY)
        );
    }
}
