//! k-nearest query.
//!
//! Owns [`Octree::nearest`]: a best-first search over cells ordered by the distance from the
//! point to their subtree bounds. [`point_aabb_dist`] is monotone in the box, so a cell is
//! never nearer than the objects inside it, and the search stops once the next cell is
//! strictly farther than the k-th best object (a cell at exactly that distance is still
//! opened, since it may hold an object at the same distance with a smaller id).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use glam::Vec3;

use super::Octree;
use super::cell::CellIdx;
use super::narrow::point_aabb_dist;

/// Packs `(dist, id)` (an object id, or a cell's raw index in the frontier) so that
/// integer order is the contract's order. `dist` is never -0.0 or NaN here, and the bits
/// of non-negative floats (+inf included) order like their values.
#[inline]
fn key(dist: f32, id: u32) -> u64 {
    (u64::from(dist.to_bits()) << 32) | u64::from(id)
}

/// The k best `(dist, id)` keys seen so far, worst on top.
struct Best {
    k: usize,
    heap: BinaryHeap<u64>,
    /// Bits of the k-th best distance once k are known (`u32::MAX` before): a candidate
    /// farther than this cannot enter.
    cutoff: u32,
}

impl Best {
    #[inline]
    fn offer(&mut self, key: u64) {
        if self.heap.len() < self.k {
            self.heap.push(key);
        } else if let Some(mut worst) = self.heap.peek_mut()
            && key < *worst
        {
            *worst = key;
        } else {
            return;
        }
        if self.heap.len() == self.k {
            self.cutoff = self.heap.peek().map_or(u32::MAX, |&w| (w >> 32) as u32);
        }
    }
}

impl Octree {
    /// The `k` objects passing `mask` with the smallest `(point_aabb_dist(point, AABB), id)`,
    /// sorted that way, as `(id, dist)`; only those with `dist <= max_dist` when it is given.
    pub fn nearest(
        &self,
        point: Vec3,
        k: usize,
        max_dist: Option<f32>,
        mask: u32,
        out: &mut Vec<(u32, f32)>,
    ) {
        out.clear();
        if k == 0 {
            return;
        }
        let bound = max_dist.unwrap_or(f32::INFINITY);
        let mut best = Best {
            k,
            heap: BinaryHeap::with_capacity(k.min(1024) + 1),
            cutoff: u32::MAX,
        };
        for e in &self.outside.entries {
            if e.mask & mask != 0 {
                let d = point_aabb_dist(point, e.min, e.max);
                // NaN (only possible for non-finite boxes) never qualifies.
                if d <= bound {
                    best.offer(key(d, e.id));
                }
            }
        }
        let root = self.root_bounds;
        let d_root = point_aabb_dist(point, root.min, root.max);
        if root.mask & mask != 0 && d_root <= bound {
            let mut frontier: BinaryHeap<Reverse<u64>> = BinaryHeap::with_capacity(64);
            frontier.push(Reverse(key(d_root, CellIdx::ROOT.raw())));
            while let Some(Reverse(top)) = frontier.pop() {
                if (top >> 32) as u32 > best.cutoff {
                    break;
                }
                let c = CellIdx::from_raw((top & u64::from(u32::MAX)) as u32);
                let link = self.link(c);
                for e in &self.arena.entries[link.range()] {
                    if e.mask & mask == 0 {
                        continue;
                    }
                    let d = point_aabb_dist(point, e.min, e.max);
                    if d <= bound && d.to_bits() <= best.cutoff {
                        best.offer(key(d, e.id));
                    }
                }
                let first = link.first_child;
                if first == CellIdx::NONE {
                    continue;
                }
                let block = self.block(first);
                for k in 0..8 {
                    let child = block.get(k);
                    if child.mask & mask == 0 {
                        continue;
                    }
                    let d = point_aabb_dist(point, child.min, child.max);
                    if d <= bound && d.to_bits() <= best.cutoff {
                        frontier.push(Reverse(key(d, first.octant(k).raw())));
                    }
                }
            }
        }
        let mut keys = best.heap.into_vec();
        keys.sort_unstable();
        out.extend(keys.into_iter().map(|k| {
            (
                (k & u64::from(u32::MAX)) as u32,
                f32::from_bits((k >> 32) as u32),
            )
        }));
    }
}
