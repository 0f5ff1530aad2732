//! Checks of the numbers an edit carries, before they reach the store (docs/protocol.md §2).
//!
//! Rules: every number finite; scale `> 0`; extent components `>= 0`; a quaternion of
//! length below 1e-6 is refused, any other is normalized (in f64, so that huge but finite
//! components do not overflow on the way). Whatever passes here is safe to store; whether
//! the resulting *world* transforms stay finite is `guard.rs`'s question.

use glam::{DQuat, Quat, Vec3};

use super::error::SceneError;

/// Quaternions shorter than this are refused rather than normalized.
pub const MIN_QUAT_LENGTH: f64 = 1e-6;

#[inline(always)]
pub(crate) fn translation(t: [f32; 3]) -> Result<Vec3, SceneError> {
    if t.iter().all(|v| v.is_finite()) {
        Ok(Vec3::from_array(t))
    } else {
        Err(not_finite("translation", &t))
    }
}

/// Kept out of line, so that the checks inline as a few compares.
#[cold]
#[inline(never)]
fn not_finite(what: &str, v: &[f32]) -> SceneError {
    SceneError::InvalidValue(format!("{what} {v:?} is not finite"))
}

pub(crate) fn rotation(r: [f32; 4]) -> Result<Quat, SceneError> {
    rotation_unnormalized(Quat::from_array(r)).map(|r| normalized(r.to_array()))
}

/// The checks of [`rotation`] without the normalization: `r` itself when it passes.
/// `set_local` defers the normalization (see `pending.rs`): its f64 square root and
/// divisions were a third of the call, waited on before the call could finish.
#[inline(always)]
pub(crate) fn rotation_unnormalized(r: Quat) -> Result<Quat, SceneError> {
    // The common case settled in a few vector instructions, in registers (passed through
    // memory, the quaternion's halves stalled its reload): finite, and a squared length
    // of at least 1e-11 even in f32 (its rounding errors are parts per million; an
    // overflow to infinity means a huge length), so the f64 length is over 3e-6.
    if r.is_finite() && r.length_squared() >= 1e-11 {
        return Ok(r);
    }
    rotation_unnormalized_slow(r.to_array()).map(Quat::from_array)
}

#[cold]
#[inline(never)]
fn rotation_unnormalized_slow(r: [f32; 4]) -> Result<[f32; 4], SceneError> {
    if !r.iter().all(|v| v.is_finite()) {
        return Err(not_finite("rotation", &r));
    }
    // The same decision as `length < MIN_QUAT_LENGTH`, without the square root when the
    // squared length already settles it (at least 4e-12: a length of about 2e-6).
    if quat_f64(r).length_squared() < 4.0 * MIN_QUAT_LENGTH * MIN_QUAT_LENGTH {
        let len = quat_f64(r).length();
        if len < MIN_QUAT_LENGTH {
            return Err(SceneError::InvalidValue(format!(
                "rotation {r:?} has length {len:e}, below {MIN_QUAT_LENGTH:e}"
            )));
        }
    }
    Ok(r)
}

/// A rotation that passed [`rotation_unnormalized`], normalized in f64 (one rounding to
/// f32 per component).
pub(crate) fn normalized(r: [f32; 4]) -> Quat {
    let q = quat_f64(r);
    let n = q / q.length();
    Quat::from_xyzw(n.x as f32, n.y as f32, n.z as f32, n.w as f32)
}

fn quat_f64(r: [f32; 4]) -> DQuat {
    DQuat::from_xyzw(r[0].into(), r[1].into(), r[2].into(), r[3].into())
}

#[inline(always)]
pub(crate) fn scale(s: f32) -> Result<f32, SceneError> {
    if s.is_finite() && s > 0.0 {
        Ok(s)
    } else {
        Err(bad_scale(s))
    }
}

#[cold]
#[inline(never)]
fn bad_scale(s: f32) -> SceneError {
    SceneError::InvalidValue(format!("scale {s} must be finite and > 0"))
}

pub(crate) fn extent(e: [f32; 3]) -> Result<Vec3, SceneError> {
    if e.iter().all(|v| v.is_finite() && *v >= 0.0) {
        Ok(Vec3::from_array(e))
    } else {
        Err(SceneError::InvalidValue(format!(
            "extent {e:?} must be finite and >= 0"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quaternions_are_normalized_or_refused() {
        let q = rotation([0.0, 0.0, 2.0, 0.0]).unwrap();
        assert_eq!(q, Quat::from_xyzw(0.0, 0.0, 1.0, 0.0));
        let q = rotation([1e30, 0.0, 0.0, 1e30]).unwrap();
        assert!((q.length() - 1.0).abs() < 1e-6);
        assert!(rotation([0.0, 0.0, 0.0, 1e-7]).is_err());
        // Around the limit, where the squared length does not settle it: the decision is
        // the length's.
        let near =
            |k: i32, scale: f32| f32::from_bits((scale * 1e-6f32).to_bits().wrapping_add_signed(k));
        for k in -50..50 {
            for r in [
                [0.0, 0.0, 0.0, near(k, 1.0)],
                [near(k, 0.5), near(-k, 0.5), near(k, 0.5), near(k, 0.5)],
                [near(k, 0.6), 0.0, near(k, 0.8), 0.0],
                [near(k, 1.9), 0.0, 0.0, 0.0],
            ] {
                let want = quat_f64(r).length() >= MIN_QUAT_LENGTH;
                assert_eq!(rotation(r).is_ok(), want, "{r:?}");
            }
        }
        assert!(rotation([2e-6, 0.0, 0.0, 0.0]).is_ok());
        // Around the f32 shortcut's bound, and past f32's range in the squared length.
        let old_decision = |r: [f32; 4]| quat_f64(r).length() >= MIN_QUAT_LENGTH;
        for k in -50..50 {
            for r in [
                [near(k, 3.1623), 0.0, 0.0, 0.0],
                [
                    near(k, 1.5811),
                    near(k, 1.5811),
                    near(-k, 1.5811),
                    near(k, 1.5811),
                ],
            ] {
                assert_eq!(rotation(r).is_ok(), old_decision(r), "{r:?}");
            }
        }
        // Random magnitudes over the whole f32 range, subnormal to huge.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..100_000 {
            let r = [0; 4].map(|_: u8| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                f32::from_bits((x >> 32) as u32 & 0xff7f_ffff)
            });
            assert_eq!(rotation(r).is_ok(), old_decision(r), "{r:?}");
        }
        assert!(rotation([f32::MAX, f32::MAX, 0.0, 0.0]).is_ok());
        assert!(rotation([1e-30, 1e-30, 0.0, 1e-30]).is_err());
        assert!(rotation([f32::NAN, 0.0, 0.0, 1.0]).is_err());
    }

    #[test]
    fn scale_and_extent_bounds() {
        assert!(scale(0.0).is_err());
        assert!(scale(-1.0).is_err());
        assert!(scale(f32::INFINITY).is_err());
        assert!(extent([0.0, -0.1, 0.0]).is_err());
        assert!(extent([0.0, 1.0, 2.0]).is_ok());
        assert!(translation([0.0, f32::NEG_INFINITY, 0.0]).is_err());
    }
}
