//! The independent model of the scene core, shared by the scene's property test
//! (`scene/tests/it/scene_props.rs`), its state-machine test
//! (`batch_state_machine.rs`), the server's kill-and-restart test (`persist_kill.rs`)
//! and the fuzz target (`fuzz/fuzz_targets/apply_batches.rs`), with the hostile
//! numbers they all draw from ([`num`]).
//!
//! Nodes live in a map with child lists in attachment order: an `add` or a real reparent
//! appends the node to its new parent's list, and a `set_parent` to the current parent
//! changes nothing. The contract's rules are written out plainly: the value checks of
//! docs/protocol.md §2, server-assigned ids, the node and depth limits, and the end-of-batch
//! world-range and depth check (`scene/guard.rs`), predicted from its documented rule:
//! the nodes an op touched (an `add` or an extent change: the node; a translation or
//! scale change, or a reparent: the subtree) are checked in the final state, and the
//! error blames the last op that touched the offending node or one of its ancestors.
//! When several nodes offend, the check may report any of them, so the prediction is the
//! set of possible errors. World transforms are computed recursively in f64.

pub mod num;

use std::collections::{BTreeMap, BTreeSet, HashSet};

use canopy_protocol::{ErrorCode, NodeId, Op};
use canopy_scene::{Hierarchy, HierarchyLimits, Parent, WORLD_LIMIT};
use glam::{DQuat, DVec3};

/// An id no test gives or assigns: "unknown" for every lookup.
pub const UNKNOWN: NodeId = 3_000_000_000;

/// One node of the model.
#[derive(Clone, Debug)]
pub struct MNode {
    /// Its parent, `None` for a root.
    pub parent: Option<NodeId>,
    /// In attachment order: an `add` or a real reparent appends.
    pub children: Vec<NodeId>,
    /// Local translation.
    pub t: [f32; 3],
    /// Normalized as the contract says (in f64, then stored as f32).
    pub r: [f32; 4],
    /// Local uniform scale.
    pub s: f32,
    /// Half-extents of the node's box.
    pub extent: [f32; 3],
    /// Layer bits.
    pub mask: u32,
}

/// A world transform in f64, plus what tolerances and the guard need.
#[derive(Clone, Copy, Debug)]
pub struct MWorld {
    /// World translation.
    pub t: DVec3,
    /// World rotation.
    pub r: DQuat,
    /// World scale.
    pub s: f64,
    /// An upper bound of the translation's magnitude along the chain (for tolerances).
    pub mag: f64,
    /// A root has depth 1.
    pub depth: usize,
}

/// What one op touched, for the end-of-batch check.
#[derive(Clone, Copy, Debug)]
pub struct Touch {
    /// The node the op touched.
    pub node: NodeId,
    /// The op's index in its batch.
    pub op: u32,
    /// Whether its whole subtree is touched (a translation, scale or parent change).
    pub subtree: bool,
}

/// What the ops applied to a model did, beyond the state, in order: the tests read it to
/// predict the change lists and the recomputed set, and empty it when they like.
#[derive(Clone, Debug, Default)]
pub struct Log {
    /// For the end-of-batch check.
    pub touched: Vec<Touch>,
    /// Roots of the subtrees whose world transforms an update must recompute.
    pub dirty: Vec<NodeId>,
    /// Nodes whose parent actually changed, in order.
    pub reparented: Vec<NodeId>,
    /// Nodes whose extent or mask actually changed, in order.
    pub reshaped: Vec<NodeId>,
}

/// The model's prediction of a batch's result.
#[derive(Debug)]
pub enum Expect {
    /// Accepted, with the ids of its adds in order.
    Ok(Vec<NodeId>),
    /// One of these (op, code) pairs: exact for per-op errors, a set for the guard.
    Err(HashSet<(u32, ErrorCode)>),
    /// A world value within rounding of the limit: either outcome is right.
    Either,
}

/// The whole model: nodes in a map, child lists in attachment order, world transforms
/// computed recursively in f64 when asked.
#[derive(Clone, Debug)]
pub struct Model {
    /// The limits the modelled hierarchy enforces.
    pub limits: HierarchyLimits,
    /// Every live node.
    pub nodes: BTreeMap<NodeId, MNode>,
    /// Every id ever used, live or retired.
    pub used: BTreeSet<NodeId>,
    /// Where the next server-assigned id search starts.
    pub next_id: u64,
    /// Ids in creation order, so that picks are deterministic.
    pub created: Vec<NodeId>,
    /// What the ops applied so far did.
    pub log: Log,
}

/// True when every number is finite.
pub fn finite(v: &[f32]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// The contract's quaternion rule: refused below length 1e-6, else normalized in f64.
pub fn norm_quat(r: [f32; 4]) -> Option<[f32; 4]> {
    if !finite(&r) {
        return None;
    }
    let d = r.map(f64::from);
    let len = d.iter().map(|x| x * x).sum::<f64>().sqrt();
    (len >= 1e-6).then(|| d.map(|x| (x / len) as f32))
}

/// The contract's scale rule: finite and positive.
pub fn scale_ok(s: f32) -> bool {
    s.is_finite() && s > 0.0
}

/// The contract's extent rule: finite and at least 0 on every axis.
pub fn extent_ok(e: [f32; 3]) -> bool {
    e.iter().all(|x| x.is_finite() && *x >= 0.0)
}

/// A vector widened to f64.
pub fn dvec(v: [f32; 3]) -> DVec3 {
    DVec3::new(v[0].into(), v[1].into(), v[2].into())
}

/// A quaternion widened to f64 (not normalized).
pub fn dquat(r: [f32; 4]) -> DQuat {
    DQuat::from_xyzw(r[0].into(), r[1].into(), r[2].into(), r[3].into())
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

impl Model {
    /// An empty model under `limits`.
    pub fn new(limits: HierarchyLimits) -> Model {
        Model {
            limits,
            nodes: BTreeMap::new(),
            used: BTreeSet::new(),
            next_id: 0,
            created: Vec::new(),
            log: Log::default(),
        }
    }

    /// The live ids in creation order.
    pub fn live(&self) -> Vec<NodeId> {
        let live = self.created.iter().copied();
        live.filter(|id| self.nodes.contains_key(id)).collect()
    }

    /// Live node number `i` (modulo their count), or [`UNKNOWN`] in an empty room.
    pub fn pick(&self, i: usize) -> NodeId {
        let live = self.live();
        if live.is_empty() {
            UNKNOWN
        } else {
            live[i % live.len()]
        }
    }

    /// Removed node number `i` (modulo their count), or [`UNKNOWN`] if none was removed.
    pub fn retired(&self, i: usize) -> NodeId {
        let dead: Vec<NodeId> = self
            .created
            .iter()
            .copied()
            .filter(|id| !self.nodes.contains_key(id))
            .collect();
        if dead.is_empty() {
            UNKNOWN
        } else {
            dead[i % dead.len()]
        }
    }

    /// The subtree of `id` in pre-order, `id` first.
    pub fn subtree(&self, id: NodeId, out: &mut Vec<NodeId>) {
        out.push(id);
        for &c in &self.nodes[&id].children {
            self.subtree(c, out);
        }
    }

    /// The chain from `id` up to its root, `id` first.
    pub fn chain(&self, id: NodeId) -> Vec<NodeId> {
        let mut out = vec![id];
        let mut cur = id;
        while let Some(p) = self.nodes[&cur].parent {
            out.push(p);
            cur = p;
        }
        out
    }

    /// The node's depth (a root has depth 1).
    pub fn depth(&self, id: NodeId) -> usize {
        self.chain(id).len()
    }

    /// The world transform of a node, recursively from its root, in f64.
    pub fn world(&self, id: NodeId) -> MWorld {
        let n = &self.nodes[&id];
        let (lt, lr, ls) = (dvec(n.t), dquat(n.r), f64::from(n.s));
        match n.parent {
            None => MWorld {
                t: lt,
                r: lr,
                s: ls,
                mag: lt.length(),
                depth: 1,
            },
            Some(p) => {
                let pw = self.world(p);
                MWorld {
                    t: pw.t + pw.r * (pw.s * lt),
                    r: (pw.r * lr).normalize(),
                    s: pw.s * ls,
                    mag: pw.mag + pw.s * lt.length(),
                    depth: pw.depth + 1,
                }
            }
        }
    }

    /// The id the server assigns next: the smallest never-used id at or after the
    /// counter, `None` once ids are exhausted.
    pub fn next_assigned_id(&self) -> Option<NodeId> {
        let mut n = self.next_id;
        while n <= u64::from(u32::MAX) && self.used.contains(&(n as u32)) {
            n += 1;
        }
        u32::try_from(n).ok()
    }

    fn unlink(&mut self, id: NodeId) {
        if let Some(p) = self.nodes[&id].parent {
            let siblings = &mut self.nodes.get_mut(&p).unwrap().children;
            siblings.retain(|&c| c != id);
        }
    }

    fn attach(&mut self, id: NodeId, parent: Option<NodeId>) {
        if let Some(p) = parent {
            self.nodes.get_mut(&p).unwrap().children.push(id);
        }
        self.nodes.get_mut(&id).unwrap().parent = parent;
    }

    fn touch(&mut self, node: NodeId, op: u32, subtree: bool) {
        self.log.touched.push(Touch { node, op, subtree });
    }

    /// Applies op number `i` of a batch; Err is the op's own error code. What it did
    /// goes to [`Model::log`].
    pub fn apply_op(&mut self, i: u32, op: &Op) -> Result<Option<NodeId>, ErrorCode> {
        use ErrorCode::*;
        match *op {
            Op::Add {
                id,
                parent,
                local,
                extent,
                mask,
            } => {
                // The order of the checks is the implementation's, which the contract
                // leaves open: values, then the id, then the parent, then the limits.
                if !finite(&local.t) || !scale_ok(local.s) || !extent_ok(extent) {
                    return Err(InvalidValue);
                }
                let r = norm_quat(local.r).ok_or(InvalidValue)?;
                let (id, assigned) = match id {
                    Some(id) if self.used.contains(&id) => return Err(DuplicateId),
                    Some(id) => (id, false),
                    None => (self.next_assigned_id().ok_or(TooLarge)?, true),
                };
                if parent.is_some_and(|p| !self.nodes.contains_key(&p)) {
                    return Err(UnknownNode);
                }
                if self.nodes.len() >= self.limits.max_nodes {
                    return Err(TooLarge);
                }
                if parent.map_or(0, |p| self.depth(p)) + 1 > self.limits.max_depth {
                    return Err(TooLarge);
                }
                if assigned {
                    self.next_id = u64::from(id) + 1;
                }
                self.used.insert(id);
                self.created.push(id);
                let (t, s, children) = (local.t, local.s, Vec::new());
                let node = MNode {
                    parent: None,
                    children,
                    t,
                    r,
                    s,
                    extent,
                    mask,
                };
                self.nodes.insert(id, node);
                self.attach(id, parent);
                self.touch(id, i, false);
                self.log.dirty.push(id);
                Ok(Some(id))
            }
            Op::SetLocal { node, t, r, s } => {
                if t.is_some_and(|t| !finite(&t)) || s.is_some_and(|s| !scale_ok(s)) {
                    return Err(InvalidValue);
                }
                let r = match r {
                    Some(r) => Some(norm_quat(r).ok_or(InvalidValue)?),
                    None => None,
                };
                let n = self.nodes.get_mut(&node).ok_or(UnknownNode)?;
                let unchanged = t.is_none_or(|t| bits(&t) == bits(&n.t))
                    && r.is_none_or(|r| bits(&r) == bits(&n.r))
                    && s.is_none_or(|s| s.to_bits() == n.s.to_bits());
                if unchanged {
                    // Nothing changes: nothing is touched, no subtree recomputed.
                    return Ok(None);
                }
                n.t = t.unwrap_or(n.t);
                n.r = r.unwrap_or(n.r);
                n.s = s.unwrap_or(n.s);
                if t.is_some() || s.is_some() {
                    self.touch(node, i, true);
                }
                self.log.dirty.push(node);
                Ok(None)
            }
            Op::SetParent { node, parent } => {
                if !self.nodes.contains_key(&node) {
                    return Err(UnknownNode);
                }
                if parent.is_some_and(|p| !self.nodes.contains_key(&p)) {
                    return Err(UnknownNode);
                }
                // Already there: nothing changes, nothing is checked or touched.
                if self.nodes[&node].parent == parent {
                    return Ok(None);
                }
                if let Some(p) = parent {
                    let chain = self.chain(p);
                    if chain.contains(&node) {
                        return Err(Cycle);
                    }
                    if chain.len() >= self.limits.max_depth {
                        return Err(TooLarge);
                    }
                }
                self.unlink(node);
                self.attach(node, parent);
                self.touch(node, i, true);
                self.log.dirty.push(node);
                self.log.reparented.push(node);
                Ok(None)
            }
            Op::SetShape { node, extent, mask } => {
                if extent.is_some_and(|e| !extent_ok(e)) {
                    return Err(InvalidValue);
                }
                let n = self.nodes.get_mut(&node).ok_or(UnknownNode)?;
                if extent.is_none_or(|e| bits(&e) == bits(&n.extent))
                    && mask.is_none_or(|m| m == n.mask)
                {
                    // Nothing changes: nothing is touched, no change listed.
                    return Ok(None);
                }
                n.extent = extent.unwrap_or(n.extent);
                n.mask = mask.unwrap_or(n.mask);
                if extent.is_some() {
                    self.touch(node, i, false);
                }
                self.log.reshaped.push(node);
                Ok(None)
            }
            Op::Remove { node } => {
                if !self.nodes.contains_key(&node) {
                    return Err(UnknownNode);
                }
                let mut sub = Vec::new();
                self.subtree(node, &mut sub);
                self.unlink(node);
                for id in sub {
                    self.nodes.remove(&id);
                }
                Ok(None)
            }
        }
    }

    /// The end-of-batch check (see the module docs): the possible errors, or `None` when
    /// a world value is too close to the limit to call.
    fn guard(&self, touched: &[Touch]) -> Option<HashSet<(u32, ErrorCode)>> {
        let mut covered = BTreeSet::new();
        for t in touched.iter().filter(|t| self.nodes.contains_key(&t.node)) {
            if t.subtree {
                let mut sub = Vec::new();
                self.subtree(t.node, &mut sub);
                covered.extend(sub);
            } else {
                covered.insert(t.node);
            }
        }
        let mut errors = HashSet::new();
        let mut close_call = false;
        for &id in &covered {
            let w = self.world(id);
            let code = if w.depth > self.limits.max_depth {
                ErrorCode::TooLarge
            } else {
                let extent = self.nodes[&id].extent.iter().copied().fold(0.0, f32::max);
                let half = w.s * f64::from(extent);
                let worst = w.t.length().max(w.s).max(half);
                let least = w.s * WORLD_LIMIT;
                if (worst / WORLD_LIMIT - 1.0).abs() < 1e-6 || (least - 1.0).abs() < 1e-6 {
                    close_call = true;
                }
                if worst <= WORLD_LIMIT && least >= 1.0 {
                    continue;
                }
                ErrorCode::InvalidValue
            };
            let chain = self.chain(id);
            let op = touched
                .iter()
                .filter(|t| chain.contains(&t.node))
                .map(|t| t.op)
                .max()
                .expect("a covered node has a touch on its chain");
            errors.insert((op, code));
        }
        (!close_call).then_some(errors)
    }

    /// Predicts a batch: the expected result and, when it is accepted, the new model,
    /// whose [`log`](Model::log) is this one's with what the batch did appended.
    pub fn apply_batch(&self, ops: &[Op]) -> (Expect, Option<Model>) {
        let mut trial = self.clone();
        let first_touch = trial.log.touched.len();
        let mut ids = Vec::new();
        for (i, op) in ops.iter().enumerate() {
            match trial.apply_op(i as u32, op) {
                Ok(Some(id)) => ids.push(id),
                Ok(None) => {}
                Err(code) => return (Expect::Err(HashSet::from([(i as u32, code)])), None),
            }
        }
        match trial.guard(&trial.log.touched[first_touch..]) {
            None => (Expect::Either, Some(trial)),
            Some(errors) if errors.is_empty() => (Expect::Ok(ids), Some(trial)),
            Some(errors) => (Expect::Err(errors), None),
        }
    }

    /// Panics unless the hierarchy's state, world transforms aside, equals the model's:
    /// live count, parents, child order, local transforms (rotations within 1e-6),
    /// extents, masks, used ids and the next server-assigned id.
    pub fn assert_matches(&self, h: &Hierarchy) {
        assert_eq!(h.len(), self.nodes.len(), "live count");
        for (&id, n) in &self.nodes {
            let parent = Some(Parent::from(n.parent));
            assert_eq!(h.parent(id), parent, "parent of {id}");
            let children: Vec<NodeId> = h.children(id).collect();
            assert_eq!(children, n.children, "children of {id}");
            let l = h.local(id).unwrap();
            assert_eq!((l.t, l.s), (n.t, n.s), "local t and s of {id}");
            let dr = (dquat(l.r) - dquat(n.r)).length();
            assert!(dr < 1e-6, "local r of {id}: {:?} vs {:?}", l.r, n.r);
            let extent = h.extent(id).map(|e| e.to_array());
            assert_eq!(extent, Some(n.extent), "extent of {id}");
            assert_eq!(h.mask(id), Some(n.mask), "mask of {id}");
        }
        for &id in &self.used {
            assert!(h.was_used(id), "{id} should count as used");
        }
        assert_eq!(h.was_used(UNKNOWN), self.used.contains(&UNKNOWN));
        let next = self.next_assigned_id();
        assert_eq!(h.next_assigned_id(), next, "next assigned id");
    }
}
