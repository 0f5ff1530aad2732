//! The end-of-batch guard: world transforms must stay finite and depths within the limit.
//!
//! Single ops are checked as they are applied (`batch.rs`), but two things depend on a
//! whole subtree: the world transforms below an edited node, and the depth of a moved
//! subtree's deepest node. Checking those per op would cost a subtree walk per op; instead
//! the batch records what each op touched, and this guard walks each touched subtree once
//! after the last op, computing the world transforms in f64 from the local ones.
//!
//! The rule (documented for clients): a batch is refused with `invalid_value` if, in the
//! state it leaves, some node it touched or that lies below a node it touched would have
//! a world translation longer than 1e30, a world scale above 1e30 or below 1e-30, or a
//! world half-extent (`world.s * extent`) above 1e30; and with `too_large` if such a node would be deeper
//! than the depth limit. Lengths are rotation-invariant, so rotation-only edits are not
//! checked. The error names the last op of the batch that touched the offending node or
//! one of its ancestors. The f32 values the update computes then stay far (a factor of
//! 1e8) from overflow.

use canopy_protocol::NodeId;
use glam::{DQuat, DVec3};
use rustc_hash::FxHashMap;

use super::Hierarchy;
use super::error::SceneError;
use super::slot::Slot;
use super::store::Trs;

/// The largest world length, scale or half-extent a batch may produce; world scales
/// must also stay above its inverse.
pub const WORLD_LIMIT: f64 = 1e30;

/// What one op of the running batch touched.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Touch {
    slot: Slot,
    op: u32,
    /// The whole subtree's world transforms may have changed (`set_local` of `t` or `s`,
    /// `set_parent`), not only the node's own values (`add`, `set_shape`).
    subtree: bool,
}

impl Touch {
    pub(crate) fn subtree(slot: Slot, op: u32) -> Touch {
        Touch {
            slot,
            op,
            subtree: true,
        }
    }

    pub(crate) fn node(slot: Slot, op: u32) -> Touch {
        Touch {
            slot,
            op,
            subtree: false,
        }
    }
}

/// A transform in f64.
#[derive(Clone, Copy, Debug)]
struct DTrs {
    r: DQuat,
    t: DVec3,
    s: f64,
}

impl DTrs {
    const IDENTITY: DTrs = DTrs {
        r: DQuat::IDENTITY,
        t: DVec3::ZERO,
        s: 1.0,
    };

    fn of(l: &Trs) -> DTrs {
        DTrs {
            r: l.r.as_dquat(),
            t: l.t().as_dvec3(),
            s: f64::from(l.s()),
        }
    }

    fn then(&self, local: &Trs) -> DTrs {
        let l = DTrs::of(local);
        DTrs {
            r: (self.r * l.r).normalize(),
            t: self.t + self.r * (self.s * l.t),
            s: self.s * l.s,
        }
    }
}

/// A touched node ready for checking: its depth and its parent's world transform.
struct Start {
    depth: usize,
    slot: Slot,
    subtree: bool,
    parent_world: DTrs,
}

impl Hierarchy {
    /// Checks what the batch touched (see the module docs). Err: the op to blame.
    pub(crate) fn check_touched(&mut self) -> Result<(), (u32, SceneError)> {
        if self.touched.is_empty() {
            return Ok(());
        }
        let max_depth = self.limits.max_depth;
        let mut starts = Vec::with_capacity(self.touched.len());
        let mut chain = Vec::new();
        // World transforms (and depths) of ancestors already composed in this check, so
        // that many touches under one chain (a batch building a deep branch) cost O(1)
        // each instead of a walk to the root each.
        let mut memo: FxHashMap<Slot, (DTrs, usize)> = FxHashMap::default();
        for k in 0..self.touched.len() {
            let touch = self.touched[k];
            if !self.store.topo[touch.slot].alive() {
                continue;
            }
            // The ancestors, nearest first, up to the first one already composed.
            chain.clear();
            let mut base = (DTrs::IDENTITY, 0);
            let mut cur = self.store.topo[touch.slot].parent;
            while cur.is_some() {
                if let Some(&known) = memo.get(&cur) {
                    base = known;
                    break;
                }
                if chain.len() >= max_depth {
                    return Err(self.blame(
                        touch.slot,
                        too_deep(self.store.topo[touch.slot].id, max_depth),
                    ));
                }
                chain.push(cur);
                cur = self.store.topo[cur].parent;
            }
            let (mut w, mut depth) = base;
            for &a in chain.iter().rev() {
                w = w.then(&self.store.xf[a].local);
                depth += 1;
                memo.insert(a, (w, depth));
            }
            if depth >= max_depth {
                return Err(self.blame(
                    touch.slot,
                    too_deep(self.store.topo[touch.slot].id, max_depth),
                ));
            }
            starts.push(Start {
                depth: depth + 1,
                slot: touch.slot,
                subtree: touch.subtree,
                parent_world: w,
            });
        }
        // Shallow first, subtree checks before node checks of the same node, so that a
        // walked subtree covers every touch inside it.
        starts.sort_unstable_by_key(|s| (s.depth, !s.subtree, s.slot));
        let stamp = self.fresh_stamp();
        let mut stack: Vec<(Slot, DTrs, usize)> = Vec::new();
        for start in &starts {
            if self.store.topo[start.slot].stamp == stamp {
                continue;
            }
            if !start.subtree {
                self.check_one(start.slot, &start.parent_world, start.depth)
                    .map_err(|e| self.blame(start.slot, e))?;
                continue;
            }
            stack.clear();
            stack.push((start.slot, start.parent_world, start.depth));
            while let Some((slot, parent_world, depth)) = stack.pop() {
                self.store.topo[slot].stamp = stamp;
                let w = self
                    .check_one(slot, &parent_world, depth)
                    .map_err(|e| self.blame(slot, e))?;
                let mut c = self.store.topo[slot].first_child;
                while c.is_some() {
                    stack.push((c, w, depth + 1));
                    c = self.store.topo[c].next;
                }
            }
        }
        Ok(())
    }

    /// Checks one node given its parent's world transform; returns its world transform.
    fn check_one(&self, slot: Slot, parent_world: &DTrs, depth: usize) -> Result<DTrs, SceneError> {
        let id = self.store.topo[slot].id;
        if depth > self.limits.max_depth {
            return Err(too_deep(id, self.limits.max_depth));
        }
        let w = parent_world.then(&self.store.xf[slot].local);
        let half = w.s * f64::from(self.store.extent[slot].max_element());
        let len = w.t.length();
        // Scales multiplied down a chain can also underflow f32 to zero or subnormals,
        // which would make the node's box and children degenerate: refuse that end too.
        if len > WORLD_LIMIT || w.s > WORLD_LIMIT || w.s < 1.0 / WORLD_LIMIT || half > WORLD_LIMIT {
            return Err(SceneError::InvalidValue(format!(
                "the world transform of node {id} would leave the supported range: \
                 translation length {len:e} and half-extent {half:e} must be at most \
                 {WORLD_LIMIT:e}, scale {:e} between {:e} and {WORLD_LIMIT:e}",
                w.s,
                1.0 / WORLD_LIMIT
            )));
        }
        Ok(w)
    }

    /// The op to blame for a failure at `slot`: the last op of the batch that touched it or
    /// one of its ancestors. Runs only on the failure path.
    fn blame(&self, slot: Slot, err: SceneError) -> (u32, SceneError) {
        let mut last_op: FxHashMap<Slot, u32> = FxHashMap::default();
        for t in &self.touched {
            let e = last_op.entry(t.slot).or_insert(t.op);
            *e = (*e).max(t.op);
        }
        let mut best = None;
        let mut cur = slot;
        let mut steps = 0;
        while cur.is_some() && steps <= self.limits.max_depth * 2 {
            if let Some(&op) = last_op.get(&cur) {
                best = best.max(Some(op));
            }
            cur = self.store.topo[cur].parent;
            steps += 1;
        }
        // A touched node is always on its own chain, so `best` is found; fall back to the
        // last op for safety.
        let op = best.unwrap_or_else(|| self.touched.iter().map(|t| t.op).max().unwrap_or(0));
        (op, err)
    }
}

fn too_deep(id: NodeId, max_depth: usize) -> SceneError {
    SceneError::TooLarge(format!(
        "node {id} would be deeper than the maximum depth {max_depth}"
    ))
}
