//! A generator of random but valid edit batches, for convergence tests. It keeps a model
//! of the room's hierarchy (which ids are live, and their parents) so that every op it
//! writes is valid against the state the ops before it leave: no unknown nodes, no
//! cycles, no reused ids.

use std::collections::{HashMap, HashSet};

use canopy_client::{Op, Transform};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// The model: live node id to parent.
type Tree = HashMap<u32, Option<u32>>;

pub(crate) struct RandomEditor {
    rng: SmallRng,
    live: Tree,
    used: HashSet<u32>,
    next_id: u32,
}

/// A batch and the model it leads to once acked.
pub(crate) struct Planned {
    pub ops: Vec<Op>,
    after: Tree,
    /// The parent of the batch's trailing server-numbered `add`, if it has one.
    anonymous_parent: Option<Option<u32>>,
}

impl RandomEditor {
    pub(crate) fn new(seed: u64) -> Self {
        RandomEditor {
            rng: SmallRng::seed_from_u64(seed),
            live: Tree::new(),
            used: HashSet::new(),
            next_id: 1,
        }
    }

    pub(crate) fn live(&self) -> usize {
        self.live.len()
    }

    fn fresh_id(&mut self) -> u32 {
        while self.used.contains(&self.next_id) {
            self.next_id += 1;
        }
        let id = self.next_id;
        self.used.insert(id);
        id
    }

    fn transform(&mut self) -> Transform {
        let mut r = [0f32; 4];
        for v in &mut r {
            *v = self.rng.random_range(-1.0..1.0);
        }
        if r.iter().map(|v| v * v).sum::<f32>() < 0.01 {
            r = [0.0, 0.0, 0.0, 1.0];
        }
        Transform {
            t: [
                self.rng.random_range(-30.0..30.0),
                self.rng.random_range(-30.0..30.0),
                self.rng.random_range(-30.0..30.0),
            ],
            r,
            s: self.rng.random_range(0.5..1.5),
        }
    }

    fn pick(&mut self, tree: &Tree) -> Option<u32> {
        if tree.is_empty() {
            return None;
        }
        let mut ids: Vec<u32> = tree.keys().copied().collect();
        ids.sort_unstable();
        Some(ids[self.rng.random_range(0..ids.len())])
    }

    fn mask(&mut self) -> u32 {
        [1, 2, 3, u32::MAX][self.rng.random_range(0..4)]
    }

    /// A batch of 1 to `max_ops` ops, valid in order against the model.
    pub(crate) fn plan(&mut self, max_ops: usize) -> Planned {
        let mut tree = self.live.clone();
        let mut ops = Vec::new();
        let n = self.rng.random_range(1..=max_ops);
        for _ in 0..n {
            let roll = self.rng.random_range(0..100);
            let target = self.pick(&tree);
            let op = match (roll, target) {
                (0..25, _) | (_, None) => {
                    let id = self.fresh_id();
                    let parent = if self.rng.random_bool(0.6) {
                        self.pick(&tree)
                    } else {
                        None
                    };
                    tree.insert(id, parent);
                    Op::Add {
                        id: Some(id),
                        parent,
                        local: self.transform(),
                        extent: [self.rng.random_range(0.0..2.0); 3],
                        mask: self.mask(),
                    }
                }
                (25..65, Some(node)) => {
                    let t = self.transform();
                    Op::SetLocal {
                        node,
                        t: self.rng.random_bool(0.8).then_some(t.t),
                        r: self.rng.random_bool(0.5).then_some(t.r),
                        s: self.rng.random_bool(0.3).then_some(t.s),
                    }
                }
                (65..78, Some(node)) => {
                    let candidate = if self.rng.random_bool(0.7) {
                        self.pick(&tree)
                    } else {
                        None
                    };
                    // A parent inside the node's own subtree would be a cycle: make it a
                    // root instead.
                    let parent = candidate.filter(|&p| !is_in_subtree(&tree, p, node));
                    tree.insert(node, parent);
                    Op::SetParent { node, parent }
                }
                (78..92, Some(node)) => Op::SetShape {
                    node,
                    extent: self
                        .rng
                        .random_bool(0.7)
                        .then(|| [self.rng.random_range(0.0..3.0); 3]),
                    mask: self.rng.random_bool(0.5).then(|| self.mask()),
                },
                (_, Some(node)) => {
                    remove_subtree(&mut tree, node);
                    Op::Remove { node }
                }
            };
            ops.push(op);
        }
        // Sometimes end with an add the server numbers; nothing after it can name it.
        let mut anonymous_parent = None;
        if self.rng.random_bool(0.15) {
            let parent = self.pick(&tree);
            ops.push(Op::Add {
                id: None,
                parent,
                local: self.transform(),
                extent: [0.5; 3],
                mask: self.mask(),
            });
            anonymous_parent = Some(parent);
        }
        Planned {
            ops,
            after: tree,
            anonymous_parent,
        }
    }

    /// Records an acked batch: its model, and the id the server gave its trailing add.
    pub(crate) fn commit(&mut self, planned: Planned, ids: &[u32]) {
        self.live = planned.after;
        self.used.extend(ids.iter().copied());
        if let (Some(parent), Some(&id)) = (planned.anonymous_parent, ids.last()) {
            self.live.insert(id, parent);
        }
    }
}

/// Whether `node` is `root` or one of its descendants.
fn is_in_subtree(tree: &Tree, node: u32, root: u32) -> bool {
    let mut at = Some(node);
    let mut steps = 0;
    while let Some(id) = at {
        if id == root {
            return true;
        }
        at = tree.get(&id).copied().flatten();
        steps += 1;
        assert!(steps <= tree.len() + 1, "the model has a cycle");
    }
    false
}

fn remove_subtree(tree: &mut Tree, root: u32) {
    let doomed: Vec<u32> = tree
        .keys()
        .copied()
        .filter(|&id| is_in_subtree(tree, id, root))
        .collect();
    for id in doomed {
        tree.remove(&id);
    }
}
