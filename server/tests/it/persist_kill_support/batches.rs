//! Random batches, valid against the model as the batches before them leave it, from a
//! SplitMix64 generator (so the sequence does not depend on any crate's version).

use std::collections::HashSet;

use canopy_protocol::{NodeId, Op, Transform};

use crate::persist_kill::MAX_DEPTH;
use canopy_scene_model::{Expect, Log, Model};

pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub(crate) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub(crate) fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    pub(crate) fn f32_in(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit() as f32
    }
}

pub(crate) fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    let v = v.trim();
    match v.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => v.parse().ok(),
    }
}

#[derive(Default)]
pub(crate) struct Counts {
    pub(crate) add: u64,
    pub(crate) set_local: u64,
    pub(crate) set_parent: u64,
    pub(crate) set_shape: u64,
    pub(crate) remove: u64,
}

impl Counts {
    pub(crate) fn count(&mut self, op: &Op) {
        match op {
            Op::Add { .. } => self.add += 1,
            Op::SetLocal { .. } => self.set_local += 1,
            Op::SetParent { .. } => self.set_parent += 1,
            Op::SetShape { .. } => self.set_shape += 1,
            Op::Remove { .. } => self.remove += 1,
        }
    }
}

/// Ids for `add`: never sent before in this run (applied or not), so that which batches
/// survived never makes an id ambiguous. 0 and `u32::MAX` among them.
pub(crate) struct Ids {
    pub(crate) next: u64,
    pub(crate) sent: HashSet<NodeId>,
}

impl Ids {
    pub(crate) fn fresh(&mut self, rng: &mut Rng) -> NodeId {
        loop {
            let id = if self.sent.is_empty() {
                0
            } else if rng.chance(0.01) {
                u32::MAX - rng.below(1000) as u32
            } else {
                self.next += 1 + rng.below(4) as u64;
                self.next as NodeId
            };
            if self.sent.insert(id) {
                return id;
            }
        }
    }
}

pub(crate) fn rand_t(rng: &mut Rng) -> [f32; 3] {
    [(); 3].map(|_| rng.f32_in(-20.0, 20.0))
}

pub(crate) fn rand_r(rng: &mut Rng) -> [f32; 4] {
    loop {
        let r = [(); 4].map(|_| rng.f32_in(-1.0, 1.0));
        if r.iter().map(|x| x * x).sum::<f32>() > 0.01 {
            return r;
        }
    }
}

pub(crate) fn rand_s(rng: &mut Rng) -> f32 {
    rng.f32_in(0.7, 1.4)
}

pub(crate) fn rand_extent(rng: &mut Rng) -> [f32; 3] {
    if rng.chance(0.1) {
        [0.0; 3]
    } else {
        [(); 3].map(|_| rng.f32_in(0.0, 4.0))
    }
}

pub(crate) fn rand_mask(rng: &mut Rng) -> u32 {
    match rng.below(4) {
        0 => u32::MAX,
        1 => 1 << rng.below(32),
        2 => 0,
        _ => rng.next() as u32,
    }
}

/// Levels below `id` (a leaf: 0).
pub(crate) fn height(m: &Model, id: NodeId) -> usize {
    let n = &m.nodes[&id];
    n.children
        .iter()
        .map(|&c| 1 + height(m, c))
        .max()
        .unwrap_or(0)
}

/// One op valid against `trial` (or None when the draw did not fit).
pub(crate) fn rand_op(trial: &Model, rng: &mut Rng, ids: &mut Ids) -> Option<Op> {
    let live = trial.live();
    let pick = |rng: &mut Rng| live[rng.below(live.len())];
    let (add, remove) = match live.len() {
        0 => (1.0, 0.0),
        n if n < 40 => (0.6, 0.05),
        n if n > 300 => (0.05, 0.3),
        _ => (0.25, 0.1),
    };
    let x = rng.unit();
    if x < add {
        let parent = if live.is_empty() || rng.chance(0.25) {
            None
        } else {
            Some(pick(rng)).filter(|&p| trial.depth(p) < MAX_DEPTH)
        };
        let local = Transform {
            t: rand_t(rng),
            r: rand_r(rng),
            s: rand_s(rng),
        };
        let op = Op::Add {
            id: Some(ids.fresh(rng)),
            parent,
            local,
            extent: rand_extent(rng),
            mask: rand_mask(rng),
        };
        return Some(op);
    }
    if x < add + remove {
        return Some(Op::Remove { node: pick(rng) });
    }
    let node = pick(rng);
    Some(match rng.below(10) {
        0..=4 => {
            let mut parts = 0;
            while parts == 0 {
                parts = rng.below(8);
            }
            Op::SetLocal {
                node,
                t: (parts & 1 != 0).then(|| rand_t(rng)),
                r: (parts & 2 != 0).then(|| rand_r(rng)),
                s: (parts & 4 != 0).then(|| rand_s(rng)),
            }
        }
        5..=7 => {
            let parent = if rng.chance(0.2) {
                None
            } else {
                let p = pick(rng);
                if trial.chain(p).contains(&node)
                    || trial.depth(p) + 1 + height(trial, node) > MAX_DEPTH
                {
                    return None;
                }
                Some(p)
            };
            Op::SetParent { node, parent }
        }
        _ => {
            let parts = 1 + rng.below(3);
            Op::SetShape {
                node,
                extent: (parts & 1 != 0).then(|| rand_extent(rng)),
                mask: (parts & 2 != 0).then(|| rand_mask(rng)),
            }
        }
    })
}

/// A random batch valid against `m`: its ops, the ids its ack must name, and the model
/// after it.
pub(crate) fn rand_batch(m: &Model, rng: &mut Rng, ids: &mut Ids) -> (Vec<Op>, Vec<NodeId>, Model) {
    loop {
        let mut trial = m.clone();
        let mut ops = Vec::new();
        let len = 1 + rng.below(12);
        for _ in 0..len * 3 {
            if ops.len() == len {
                break;
            }
            if let Some(op) = rand_op(&trial, rng, ids)
                && trial.apply_op(ops.len() as u32, &op).is_ok()
            {
                ops.push(op);
            }
        }
        if ops.is_empty() {
            continue;
        }
        if let (Expect::Ok(want), Some(mut next)) = m.apply_batch(&ops) {
            next.log = Log::default();
            return (ops, want, next);
        }
    }
}

/// Ops one batch needs to make the room due for a snapshot (`SNAPSHOT_MIN_OPS` in
/// `room/durable.rs`), so that kills also land while a snapshot is written and
/// restarts recover from snapshot plus log.
pub(crate) const BULK_OPS: usize = 10_000;

/// A batch of [`BULK_OPS`] mask changes (cheap to model and to apply).
pub(crate) fn bulk_batch(m: &Model, rng: &mut Rng) -> (Vec<Op>, Vec<NodeId>, Model) {
    let live = m.live();
    let ops: Vec<Op> = (0..BULK_OPS)
        .map(|_| Op::SetShape {
            node: live[rng.below(live.len())],
            extent: None,
            mask: Some(rand_mask(rng)),
        })
        .collect();
    match m.apply_batch(&ops) {
        (Expect::Ok(want), Some(mut next)) => {
            next.log = Log::default();
            (ops, want, next)
        }
        (other, _) => panic!("the model refuses a bulk batch: {other:?}"),
    }
}
