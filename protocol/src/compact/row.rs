//! A decoded row ([`Row`]) and [`Row::apply`]: the node's new value from the row and the
//! client's baseline.
//!
//! Invariant: `apply` either returns a value the layout can carry or a typed
//! [`ApplyError`], and it reads only the baseline it is given, so a row that fails
//! leaves the caller's copy as it was.

use super::quant::{CompactValue, QRot, Quantized, R_MAX, R_ZERO, T_MAX};
use super::write::{FLAG_A, FLAG_R, FLAG_S, FLAG_TA, FLAG_TX, FLAG_X};
use crate::model::Transform;

/// Why a decoded row cannot be applied to the client's baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ApplyError {
    /// A relative row (not `A`, not exact) for a node whose last value was exact, or
    /// that the client does not hold.
    #[error("relative row without a quantized baseline")]
    NoBaseline,
    /// A rotation difference under a dropped index other than the baseline's.
    #[error("rotation difference under another dropped index")]
    IndexChanged,
    /// A difference that takes a translation axis beyond ±(2²³ − 1) or a rotation value
    /// out of 15 bits.
    #[error("delta leaves the compact range")]
    OutOfRange,
}

impl ApplyError {
    /// A stable name for the kind of error (`no_baseline`, `index_changed`,
    /// `delta_out_of_range`), as the golden vectors spell it.
    pub fn kind(&self) -> &'static str {
        match self {
            ApplyError::NoBaseline => "no_baseline",
            ApplyError::IndexChanged => "index_changed",
            ApplyError::OutOfRange => "delta_out_of_range",
        }
    }
}

/// The translation part of a row: the axes it carries, all absolute or all differences.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TPart {
    /// Flag `TA`: the axes are grid values; without it, differences in grid steps.
    pub absolute: bool,
    /// Per axis (x y z), its value, or `None` when the row omits it.
    pub axes: [Option<i32>; 3],
}

/// One kept component of a rotation part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RValue {
    /// The 15-bit value.
    Absolute(u16),
    /// The difference from the baseline's value (same dropped index only).
    Delta(i32),
}

/// The rotation part of a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RPart {
    /// The dropped component's index (0-3: x y z w).
    pub index: u8,
    /// The kept components in index order, `None` when the row omits one: it keeps the
    /// baseline's value under the same index, and is zero (16383) under a new one.
    pub values: [Option<RValue>; 3],
}

/// One decoded row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Row {
    /// The exact transform (flag X).
    Exact(Transform),
    /// The parts present; an absent part keeps the baseline's value, or, in a row
    /// `absolute` (flag A), the identity's.
    Parts {
        /// Flag A: relative to the identity, not the baseline.
        absolute: bool,
        /// The translation axes carried.
        t: Option<TPart>,
        /// The rotation carried.
        r: Option<RPart>,
        /// The scale's binary16 bits.
        s: Option<u16>,
    },
}

impl Row {
    /// The flags byte this row was read from.
    pub fn flags(&self) -> u8 {
        match self {
            Row::Exact(_) => FLAG_X,
            Row::Parts { absolute, t, r, s } => {
                let mut f = if *absolute { FLAG_A } else { 0 };
                if let Some(t) = t {
                    for k in (0..3).filter(|&k| t.axes[k].is_some()) {
                        f |= FLAG_TX << k;
                    }
                    if t.absolute {
                        f |= FLAG_TA;
                    }
                }
                if r.is_some() {
                    f |= FLAG_R;
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
        let (absolute, t, r, s) = match *self {
            Row::Exact(x) => return Ok(CompactValue::Exact(x)),
            Row::Parts { absolute, t, r, s } => (absolute, t, r, s),
        };
        let base = match (absolute, base) {
            (true, _) => Quantized::IDENTITY,
            (false, Some(b)) => *b,
            (false, None) => return Err(ApplyError::NoBaseline),
        };
        let mut tv = base.t();
        if let Some(t) = t {
            for (k, axis) in t.axes.iter().enumerate() {
                let Some(v) = *axis else { continue };
                let v = if t.absolute {
                    i64::from(v)
                } else {
                    i64::from(tv[k]) + i64::from(v)
                };
                if v.abs() > i64::from(T_MAX) {
                    return Err(ApplyError::OutOfRange);
                }
                tv[k] = v as i32;
            }
        }
        let rv = match r {
            None => base.r(),
            Some(r) => {
                let same = !absolute && r.index == base.r().index();
                let b = base.r().values();
                let mut v = [0u16; 3];
                for k in 0..3 {
                    v[k] = match r.values[k] {
                        None if same => b[k],
                        None => R_ZERO,
                        Some(RValue::Absolute(x)) => x,
                        Some(RValue::Delta(_)) if !same => return Err(ApplyError::IndexChanged),
                        Some(RValue::Delta(d)) => {
                            let x = i64::from(b[k]) + i64::from(d);
                            if !(0..=i64::from(R_MAX)).contains(&x) {
                                return Err(ApplyError::OutOfRange);
                            }
                            x as u16
                        }
                    };
                }
                QRot::new(r.index, v).ok_or(ApplyError::OutOfRange)?
            }
        };
        let s = s.unwrap_or(base.s());
        Quantized::new(tv, rv, s)
            .map(CompactValue::Quantized)
            .ok_or(ApplyError::OutOfRange)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact::quant::quantize;

    #[test]
    fn relative_rows_need_a_quantized_baseline_and_stay_in_range() {
        let base = quantize(&Transform::IDENTITY);
        let base = base.quantized().unwrap();
        let t = |absolute, x| TPart {
            absolute,
            axes: [Some(x), None, None],
        };
        let step = Row::Parts {
            absolute: false,
            t: Some(t(false, 1)),
            r: None,
            s: None,
        };
        assert_eq!(step.apply(None), Err(ApplyError::NoBaseline));
        assert!(step.apply(Some(base)).is_ok());
        let far = Row::Parts {
            absolute: false,
            t: Some(t(false, T_MAX + 1)),
            r: None,
            s: None,
        };
        assert_eq!(far.apply(Some(base)), Err(ApplyError::OutOfRange));
        let spin = |index| Row::Parts {
            absolute: false,
            t: None,
            r: Some(RPart {
                index,
                values: [Some(RValue::Delta(i32::MAX)), None, None],
            }),
            s: None,
        };
        assert_eq!(spin(3).apply(Some(base)), Err(ApplyError::OutOfRange));
        assert_eq!(spin(0).apply(Some(base)), Err(ApplyError::IndexChanged));
        assert_eq!(spin(3).flags(), 0x10);
        // A row A needs no baseline and ignores one.
        let home = Row::Parts {
            absolute: true,
            t: Some(t(true, 7)),
            r: None,
            s: None,
        };
        let moved = quantize(&Transform {
            t: [7.0 / 1024.0, 0.0, 0.0],
            ..Transform::IDENTITY
        });
        assert_eq!(home.apply(None), Ok(moved));
        let elsewhere = quantize(&Transform {
            t: [1.0, 2.0, 3.0],
            ..Transform::IDENTITY
        });
        assert_eq!(home.apply(elsewhere.quantized()), Ok(moved));
        assert_eq!(home.flags(), 0x49);
    }

    #[test]
    fn omitted_rotation_components_keep_the_baseline_only_under_its_index() {
        let base = Quantized::new([0; 3], QRot::new(3, [1, 2, 3]).unwrap(), 0x3c00).unwrap();
        let row = |index| Row::Parts {
            absolute: false,
            t: None,
            r: Some(RPart {
                index,
                values: [None, Some(RValue::Absolute(9)), None],
            }),
            s: None,
        };
        let r_of = |row: Row| *row.apply(Some(&base)).unwrap().quantized().unwrap();
        assert_eq!(r_of(row(3)).r(), QRot::new(3, [1, 9, 3]).unwrap());
        assert_eq!(r_of(row(1)).r(), QRot::new(1, [R_ZERO, 9, R_ZERO]).unwrap());
    }
}
