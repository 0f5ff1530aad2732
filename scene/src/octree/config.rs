//! Tuning knobs of the loose octree.
//!
//! Owns [`OctreeConfig`] and the sanitising step that turns any user-supplied values into
//! ones the tree can work with: after [`OctreeConfig::sanitized`], `looseness >= 1`,
//! `leaf_capacity >= 1` and `initial_half_size` is finite and positive.

/// How the octree subdivides space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OctreeConfig {
    /// A cell's loose bounds are its tight cube scaled by this factor around its centre.
    /// With 2.0 (the classic choice) any object no larger than a child's tight half-size
    /// fits the child that contains its centre, so moves rarely change cells.
    pub looseness: f32,
    /// A leaf holding more objects than this is split (unless it is at `max_depth`).
    pub leaf_capacity: usize,
    /// Deepest level below the initial root; cells at this level are never split.
    pub max_depth: u32,
    /// Half-size of the initial root cube, centred at the origin. The root grows (by
    /// doubling) when an object falls outside it.
    pub initial_half_size: f32,
}

impl OctreeConfig {
    /// The defaults (also the defaults of the `--octree-*` flags).
    pub const DEFAULT: OctreeConfig = OctreeConfig {
        looseness: 2.0,
        leaf_capacity: 16,
        max_depth: 12,
        initial_half_size: 1024.0,
    };
}

impl Default for OctreeConfig {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl OctreeConfig {
    /// Returns a copy with every field clamped into the range the tree supports, so a bad
    /// configuration degrades performance instead of correctness.
    pub fn sanitized(self) -> Self {
        let default = Self::default();
        let looseness = if self.looseness.is_finite() && self.looseness >= 1.0 {
            self.looseness.min(16.0)
        } else if self.looseness.is_finite() && self.looseness > 0.0 {
            // Loose bounds tighter than the cell itself would leave parts of space that
            // no child covers; 1.0 (a plain octree) is the tightest that still works well.
            1.0
        } else {
            default.looseness
        };
        let initial_half_size =
            if self.initial_half_size.is_finite() && self.initial_half_size > 0.0 {
                self.initial_half_size
            } else {
                default.initial_half_size
            };
        Self {
            looseness,
            leaf_capacity: self.leaf_capacity.max(1),
            // Beyond 64 halvings a cell is smaller than the f32 spacing of any useful
            // coordinate, so deeper levels would only add empty chains.
            max_depth: self.max_depth.min(64),
            initial_half_size,
        }
    }

    /// A cell whose subtree holds this many objects or fewer is merged back into one leaf.
    /// Half the leaf capacity gives hysteresis, so an object moving back and forth across a
    /// boundary cannot make a cell split and merge on every tick.
    pub(crate) fn merge_threshold(&self) -> u32 {
        (self.leaf_capacity / 2).min(u32::MAX as usize) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitized_fixes_bad_values() {
        let c = OctreeConfig {
            looseness: f32::NAN,
            leaf_capacity: 0,
            max_depth: 1000,
            initial_half_size: -1.0,
        }
        .sanitized();
        assert_eq!(c.looseness, 2.0);
        assert_eq!(c.leaf_capacity, 1);
        assert_eq!(c.max_depth, 64);
        assert_eq!(c.initial_half_size, 1024.0);
        assert_eq!(
            OctreeConfig {
                looseness: 0.5,
                ..c
            }
            .sanitized()
            .looseness,
            1.0
        );
    }
}
