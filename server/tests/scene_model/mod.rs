//! The independent model of the scene core used by `scene_props.rs`: nodes in a map
//! with child lists in attachment order (an `add` or a `set_parent` appends the node to
//! its new parent's list; a `set_parent` to the current parent changes nothing), the
//! contract's validation rules written out plainly, and world transforms computed
//! recursively in f64.

use std::collections::{BTreeMap, BTreeSet};

use canopy_protocol::{ErrorCode, Op};
use glam::{DQuat, DVec3};

/// A world transform in f64 with, for tolerances, a bound of the translation's magnitude
/// and the node's depth.
pub type World = (DVec3, DQuat, f64, f64, usize);

#[derive(Clone, Debug)]
pub struct MNode {
    pub parent: Option<u32>,
    pub children: Vec<u32>,
    pub t: [f32; 3],
    pub r: [f32; 4],
    pub s: f32,
    pub extent: [f32; 3],
    pub mask: u32,
}

#[derive(Clone, Debug, Default)]
pub struct Model {
    pub nodes: BTreeMap<u32, MNode>,
    pub used: BTreeSet<u32>,
    pub next_id: u64,
    /// Every id ever added, in creation order (picks index the live ones).
    pub created: Vec<u32>,
    /// Nodes whose parent actually changed (cleared by the test each tick).
    pub reparent_log: Vec<u32>,
    /// Nodes whose extent or mask a `set_shape` changed, in order.
    pub reshape_log: Vec<u32>,
}

/// A quaternion normalized the way the server does (in f64, then rounded to f32), so
/// that "unchanged" can be decided bit for bit.
pub fn normalized(r: [f32; 4]) -> [f32; 4] {
    let q = glam::DQuat::from_xyzw(r[0].into(), r[1].into(), r[2].into(), r[3].into());
    let n = q / q.length();
    [n.x as f32, n.y as f32, n.z as f32, n.w as f32]
}

fn bits<const N: usize>(v: [f32; N]) -> [u32; N] {
    v.map(f32::to_bits)
}

pub fn finite(v: &[f32]) -> bool {
    v.iter().all(|x| x.is_finite())
}

pub fn quat_ok(r: [f32; 4]) -> bool {
    finite(&r) && r.iter().map(|&x| f64::from(x).powi(2)).sum::<f64>().sqrt() >= 1e-6
}

pub fn scale_ok(s: f32) -> bool {
    s.is_finite() && s > 0.0
}

pub fn extent_ok(e: [f32; 3]) -> bool {
    e.iter().all(|x| x.is_finite() && *x >= 0.0)
}

impl Model {
    pub fn live(&self) -> Vec<u32> {
        self.created
            .iter()
            .copied()
            .filter(|id| self.nodes.contains_key(id))
            .collect()
    }

    pub fn pick(&self, i: usize) -> Option<u32> {
        let live = self.live();
        (!live.is_empty()).then(|| live[i % live.len()])
    }

    pub fn subtree(&self, id: u32, out: &mut Vec<u32>) {
        out.push(id);
        for &c in &self.nodes[&id].children {
            self.subtree(c, out);
        }
    }

    pub fn is_ancestor_or_self(&self, a: u32, mut n: u32) -> bool {
        loop {
            if n == a {
                return true;
            }
            match self.nodes[&n].parent {
                Some(p) => n = p,
                None => return false,
            }
        }
    }

    /// Applies one op with the contract's rules; `edits` collects the dirty roots.
    pub fn apply(&mut self, op: &Op, edits: &mut Vec<u32>) -> Result<Option<u32>, ErrorCode> {
        use ErrorCode::*;
        match *op {
            Op::Add {
                id,
                parent,
                local,
                extent,
                mask,
            } => {
                if !finite(&local.t)
                    || !quat_ok(local.r)
                    || !scale_ok(local.s)
                    || !extent_ok(extent)
                {
                    return Err(InvalidValue);
                }
                let (id, auto) = match id {
                    Some(id) if self.used.contains(&id) => return Err(DuplicateId),
                    Some(id) => (id, false),
                    None => {
                        let mut n = self.next_id;
                        while self.used.contains(&(n as u32)) {
                            n += 1;
                        }
                        (n as u32, true)
                    }
                };
                if let Some(p) = parent
                    && !self.nodes.contains_key(&p)
                {
                    return Err(UnknownNode);
                }
                if auto {
                    self.next_id = u64::from(id) + 1;
                }
                self.used.insert(id);
                self.created.push(id);
                self.nodes.insert(
                    id,
                    MNode {
                        parent,
                        children: Vec::new(),
                        t: local.t,
                        r: local.r,
                        s: local.s,
                        extent,
                        mask,
                    },
                );
                if let Some(p) = parent {
                    self.nodes.get_mut(&p).unwrap().children.push(id);
                }
                edits.push(id);
                Ok(Some(id))
            }
            Op::SetLocal { node, t, r, s } => {
                if t.is_some_and(|t| !finite(&t))
                    || r.is_some_and(|r| !quat_ok(r))
                    || s.is_some_and(|s| !scale_ok(s))
                {
                    return Err(InvalidValue);
                }
                let n = self.nodes.get_mut(&node).ok_or(UnknownNode)?;
                // An edit that leaves the local transform bit for bit as it is changes
                // nothing: no subtree is recomputed.
                let unchanged = t.is_none_or(|t| bits(t) == bits(n.t))
                    && r.is_none_or(|r| bits(normalized(r)) == bits(normalized(n.r)))
                    && s.is_none_or(|s| s.to_bits() == n.s.to_bits());
                if let Some(t) = t {
                    n.t = t;
                }
                if let Some(r) = r {
                    n.r = r;
                }
                if let Some(s) = s {
                    n.s = s;
                }
                if !unchanged {
                    edits.push(node);
                }
                Ok(None)
            }
            Op::SetParent { node, parent } => {
                if !self.nodes.contains_key(&node) {
                    return Err(UnknownNode);
                }
                if let Some(p) = parent {
                    if !self.nodes.contains_key(&p) {
                        return Err(UnknownNode);
                    }
                    if self.is_ancestor_or_self(node, p) {
                        return Err(Cycle);
                    }
                }
                let old = self.nodes[&node].parent;
                if old == parent {
                    return Ok(None);
                }
                if let Some(o) = old {
                    self.nodes
                        .get_mut(&o)
                        .unwrap()
                        .children
                        .retain(|&c| c != node);
                }
                if let Some(p) = parent {
                    self.nodes.get_mut(&p).unwrap().children.push(node);
                }
                self.nodes.get_mut(&node).unwrap().parent = parent;
                self.reparent_log.push(node);
                edits.push(node);
                Ok(None)
            }
            Op::SetShape { node, extent, mask } => {
                if extent.is_some_and(|e| !extent_ok(e)) {
                    return Err(InvalidValue);
                }
                let n = self.nodes.get_mut(&node).ok_or(UnknownNode)?;
                let changed = extent.is_some_and(|e| bits(e) != bits(n.extent))
                    || mask.is_some_and(|m| m != n.mask);
                if let Some(e) = extent {
                    n.extent = e;
                }
                if let Some(m) = mask {
                    n.mask = m;
                }
                if changed {
                    self.reshape_log.push(node);
                }
                Ok(None)
            }
            Op::Remove { node } => {
                if !self.nodes.contains_key(&node) {
                    return Err(UnknownNode);
                }
                let mut sub = Vec::new();
                self.subtree(node, &mut sub);
                if let Some(p) = self.nodes[&node].parent {
                    self.nodes
                        .get_mut(&p)
                        .unwrap()
                        .children
                        .retain(|&c| c != node);
                }
                for id in sub {
                    self.nodes.remove(&id);
                }
                Ok(None)
            }
        }
    }

    /// World transforms in f64, with a magnitude bound of each translation for tolerances.
    pub fn worlds(&self) -> BTreeMap<u32, World> {
        let mut out = BTreeMap::new();
        let roots: Vec<u32> = self
            .nodes
            .iter()
            .filter(|(_, n)| n.parent.is_none())
            .map(|(&id, _)| id)
            .collect();
        for r in roots {
            self.world_rec(r, None, &mut out);
        }
        out
    }

    pub fn world_rec(&self, id: u32, parent: Option<World>, out: &mut BTreeMap<u32, World>) {
        let n = &self.nodes[&id];
        let lt = DVec3::new(n.t[0].into(), n.t[1].into(), n.t[2].into());
        let lr = DQuat::from_xyzw(n.r[0].into(), n.r[1].into(), n.r[2].into(), n.r[3].into())
            .normalize();
        let ls = f64::from(n.s);
        let w = match parent {
            None => (lt, lr, ls, lt.length(), 1),
            Some((pt, pr, ps, pm, pd)) => (
                pt + pr * (ps * lt),
                (pr * lr).normalize(),
                ps * ls,
                pm + ps * lt.length(),
                pd + 1,
            ),
        };
        out.insert(id, w);
        for &c in &n.children {
            self.world_rec(c, Some(w), out);
        }
    }
}
