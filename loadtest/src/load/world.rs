//! The shape of a test room: a forest of trees with a given fanout and depth, laid out
//! on a grid, and the `add` ops that build it.
//!
//! Invariant: every node's local rotation is the identity and every local scale is 1,
//! so a node's world scale is exactly its own local scale as long as only leaves are
//! given other scales. The editors rely on that: they write a sequence code into a
//! leaf's scale and the subscribers recognise it bit for bit in the world transform
//! (see `stamps`). Ids are dense, `0..nodes`, and parents come before children.

use canopy_protocol::{NodeId, Op, Transform};

/// The distance from a root to its children; each deeper level is closer by `SHRINK`.
const BASE_RADIUS: f32 = 10.0;
const SHRINK: f32 = 0.4;
/// The height of each level above its parent.
const LEVEL_RISE: f32 = 1.0;
/// Half-extent of every node's box.
const HALF_EXTENT: f32 = 0.5;

/// One node of the layout.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct NodeSpec {
    pub id: NodeId,
    pub parent: Option<NodeId>,
    /// Local translation (its parent's frame, which is only translated).
    pub local_t: [f32; 3],
    pub extent: [f32; 3],
    /// Whether the node has no children (editors only move leaves).
    pub leaf: bool,
}

/// A room's layout and the box that holds every node's world AABB.
#[derive(Clone, Debug)]
pub(crate) struct World {
    pub nodes: Vec<NodeSpec>,
    pub min: [f32; 3],
    pub max: [f32; 3],
}

/// The number of nodes in one full tree.
pub(crate) fn tree_size(fanout: usize, depth: usize) -> usize {
    let mut total = 0usize;
    let mut level = 1usize;
    for _ in 0..depth {
        total = total.saturating_add(level);
        level = level.saturating_mul(fanout);
    }
    total
}

impl World {
    /// Builds `nodes` nodes as full trees of `fanout` and `depth` (the last tree may be
    /// partial), roots on a square grid on the ground plane.
    pub(crate) fn build(nodes: usize, fanout: usize, depth: usize) -> World {
        let per_tree = tree_size(fanout, depth).max(1);
        let trees = nodes.div_ceil(per_tree).max(1);
        let side = (trees as f64).sqrt().ceil() as usize;
        // Children of a root reach BASE_RADIUS / (1 - SHRINK) at most; keep a margin so
        // neighbouring trees do not overlap.
        let spacing = 2.0 * BASE_RADIUS / (1.0 - SHRINK) + 4.0;
        let mut specs: Vec<NodeSpec> = Vec::with_capacity(nodes);
        let mut world_t: Vec<[f32; 3]> = Vec::with_capacity(nodes);
        let mut has_child: Vec<bool> = Vec::with_capacity(nodes);
        let mut tree = 0usize;
        while specs.len() < nodes {
            let root = specs.len();
            let t = [
                (tree % side) as f32 * spacing,
                0.0,
                (tree / side) as f32 * spacing,
            ];
            push(&mut specs, &mut world_t, &mut has_child, None, t, t);
            // Breadth-first: the frontier of the current level.
            let mut frontier = vec![root];
            for level in 1..depth {
                let radius = BASE_RADIUS * SHRINK.powi(level as i32 - 1);
                let mut next = Vec::with_capacity(frontier.len() * fanout);
                'level: for &parent in &frontier {
                    for child in 0..fanout {
                        if specs.len() >= nodes {
                            break 'level;
                        }
                        let angle = std::f32::consts::TAU * child as f32 / fanout as f32
                            + level as f32 * 0.37;
                        let local = [radius * angle.cos(), LEVEL_RISE, radius * angle.sin()];
                        let p = world_t[parent];
                        let world = [p[0] + local[0], p[1] + local[1], p[2] + local[2]];
                        has_child[parent] = true;
                        next.push(specs.len());
                        push(
                            &mut specs,
                            &mut world_t,
                            &mut has_child,
                            Some(parent as NodeId),
                            local,
                            world,
                        );
                    }
                }
                frontier = next;
            }
            tree += 1;
        }
        for (spec, &child) in specs.iter_mut().zip(&has_child) {
            spec.leaf = !child;
        }
        // Editors move leaves by up to EDIT_JITTER and scale them by up to 2: pad the
        // bounds so queries and regions cover where nodes go.
        let pad = HALF_EXTENT * 2.0 + crate::load::editor::EDIT_JITTER;
        let mut min = [f32::MAX; 3];
        let mut max = [f32::MIN; 3];
        for t in &world_t {
            for a in 0..3 {
                min[a] = min[a].min(t[a] - pad);
                max[a] = max[a].max(t[a] + pad);
            }
        }
        World {
            nodes: specs,
            min,
            max,
        }
    }

    /// An interior node and a leaf under it: parenting the first under the second is
    /// a cycle (the soak's invalid batches use it). `None` for a flat world.
    pub(crate) fn cycle_pair(&self) -> Option<(NodeId, NodeId)> {
        self.leaves()
            .find_map(|n| n.parent.map(|parent| (parent, n.id)))
    }

    /// The leaves, which the editors share out.
    pub(crate) fn leaves(&self) -> impl Iterator<Item = &NodeSpec> {
        self.nodes.iter().filter(|n| n.leaf)
    }

    /// The `add` ops that build the room, in chunks of at most `chunk` ops (each chunk
    /// only names parents added by itself or an earlier chunk).
    pub(crate) fn add_batches(&self, chunk: usize) -> Vec<Vec<Op>> {
        self.nodes
            .chunks(chunk.max(1))
            .map(|c| {
                c.iter()
                    .map(|n| Op::Add {
                        id: Some(n.id),
                        parent: n.parent,
                        local: Transform {
                            t: n.local_t,
                            ..Transform::IDENTITY
                        },
                        extent: n.extent,
                        mask: u32::MAX,
                    })
                    .collect()
            })
            .collect()
    }
}

fn push(
    specs: &mut Vec<NodeSpec>,
    world_t: &mut Vec<[f32; 3]>,
    has_child: &mut Vec<bool>,
    parent: Option<NodeId>,
    local_t: [f32; 3],
    world: [f32; 3],
) {
    specs.push(NodeSpec {
        id: specs.len() as NodeId,
        parent,
        local_t,
        extent: [HALF_EXTENT; 3],
        leaf: false,
    });
    world_t.push(world);
    has_child.push(false);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_full_trees_then_a_partial_one() {
        assert_eq!(tree_size(8, 4), 585);
        assert_eq!(tree_size(3, 1), 1);
        let w = World::build(1000, 8, 4);
        assert_eq!(w.nodes.len(), 1000);
        // Parents always come first, ids are dense.
        for (i, n) in w.nodes.iter().enumerate() {
            assert_eq!(n.id as usize, i);
            if let Some(p) = n.parent {
                assert!((p as usize) < i);
            }
        }
        assert_eq!(w.nodes.iter().filter(|n| n.parent.is_none()).count(), 2);
        // The first tree has 512 leaves at its last level.
        assert_eq!(w.nodes[..585].iter().filter(|n| n.leaf).count(), 512);
        assert!(w.min.iter().zip(&w.max).all(|(a, b)| a < b));
    }

    #[test]
    fn depth_one_is_all_roots_and_leaves() {
        let w = World::build(10, 4, 1);
        assert!(w.nodes.iter().all(|n| n.parent.is_none() && n.leaf));
        assert_eq!(w.add_batches(4).len(), 3);
    }
}
