//! Hostile numbers: the one vocabulary of values that break geometry code, drawn from by
//! the property tests (with proptest) and the fuzz target (with `arbitrary`, whose
//! `Arbitrary` impl for [`Num`] lives in the target, the only crate that has it).
//!
//! Exact powers of two ([`Num::Pow`]) make products down a chain exact, so that the
//! world-range check of a chain of them is never a close call.

/// A number for a field of an op.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    /// The value as it is: small values, fractions, raw bit patterns.
    Plain(f32),
    /// `±2^k`: subnormal below `k = -126`, near `f32::MAX` at 127, infinite from 128.
    Pow(bool, i32),
    /// Entry `k % SPECIAL.len()` of [`SPECIAL`].
    #[allow(
        dead_code,
        reason = "drawn by the fuzz target, which includes this module"
    )]
    Special(u8),
}

/// The values that are not finite: every field refuses them.
pub const NON_FINITE: [f32; 3] = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY];

/// The edges of the f32 range and of the contract's rules (signed zeros, the extremes,
/// the smallest normal and subnormal values), then the non-finite values.
pub const SPECIAL: [f32; 11] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    f32::MAX,
    f32::MIN,
    f32::MIN_POSITIVE,
    f32::from_bits(1),
    NON_FINITE[0],
    NON_FINITE[1],
    NON_FINITE[2],
];

impl Num {
    /// The number this stands for.
    pub fn get(self) -> f32 {
        match self {
            Num::Plain(v) => v,
            Num::Pow(neg, k) => {
                let v = 2f32.powi(k);
                if neg { -v } else { v }
            }
            Num::Special(k) => SPECIAL[usize::from(k) % SPECIAL.len()],
        }
    }
}

/// Three numbers as an `[f32; 3]`.
pub fn v3(v: [Num; 3]) -> [f32; 3] {
    v.map(Num::get)
}

#[allow(
    dead_code,
    reason = "used by the fuzz target, which includes this module"
)]
/// Four numbers as an `[f32; 4]`.
pub fn v4(v: [Num; 4]) -> [f32; 4] {
    v.map(Num::get)
}
