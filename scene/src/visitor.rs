//! Visitors in the manner of OpenSceneGraph's `NodeVisitor`.
//!
//! A visitor has a traversal mode (down to the children, up to the parent, or nowhere)
//! and a traversal mask. [`Hierarchy::accept`] applies the visitor to a node only if
//! `node.mask & visitor.mask != 0`; the visitor's `apply` does its work and, by default,
//! calls `traverse`, which goes on in the visitor's mode. As in OSG, a node that fails the
//! mask is not applied and its subtree (or, going up, its ancestors) is not reached
//! through it. Visitors read the hierarchy; edits go through callbacks or batches.

use canopy_protocol::NodeId;

use super::Hierarchy;
use super::hierarchy::Parent;

/// Where `traverse` goes from a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TraversalMode {
    /// Nowhere: only the node the visitor was applied to.
    None,
    /// Up: the parent (and from there on up).
    Parents,
    /// Down: every child, in attachment order (depth first).
    #[default]
    Children,
}

/// A visitor over the hierarchy.
pub trait NodeVisitor {
    /// Where the traversal goes from each visited node; down the children by default.
    fn traversal_mode(&self) -> TraversalMode {
        TraversalMode::Children
    }

    /// Nodes whose mask shares no bit with this one are skipped.
    fn traversal_mask(&self) -> u32 {
        u32::MAX
    }

    /// Visits one node. The default just traverses on; override it to do work, and call
    /// [`traverse`](Self::traverse) to continue.
    fn apply(&mut self, hierarchy: &Hierarchy, id: NodeId) {
        self.traverse(hierarchy, id);
    }

    /// Goes on from `id` as the traversal mode says.
    fn traverse(&mut self, hierarchy: &Hierarchy, id: NodeId) {
        match self.traversal_mode() {
            TraversalMode::None => {}
            TraversalMode::Parents => {
                if let Some(Parent::Node(parent)) = hierarchy.parent(id) {
                    hierarchy.accept(parent, self);
                }
            }
            TraversalMode::Children => {
                for child in hierarchy.children(id) {
                    hierarchy.accept(child, self);
                }
            }
        }
    }
}

impl Hierarchy {
    /// Applies the visitor to `id` if the node exists and passes the visitor's mask.
    pub fn accept<V: NodeVisitor + ?Sized>(&self, id: NodeId, visitor: &mut V) {
        if let Some(mask) = self.mask(id)
            && mask & visitor.traversal_mask() != 0
        {
            visitor.apply(self, id);
        }
    }

    /// Applies the visitor to every root in turn (for a whole-room traversal).
    pub fn accept_roots<V: NodeVisitor + ?Sized>(&self, visitor: &mut V) {
        let roots: Vec<NodeId> = self.roots().collect();
        for r in roots {
            self.accept(r, visitor);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_protocol::{Op, Transform};

    struct Collect {
        mode: TraversalMode,
        mask: u32,
        seen: Vec<NodeId>,
    }

    impl NodeVisitor for Collect {
        fn traversal_mode(&self) -> TraversalMode {
            self.mode
        }
        fn traversal_mask(&self) -> u32 {
            self.mask
        }
        fn apply(&mut self, h: &Hierarchy, id: NodeId) {
            self.seen.push(id);
            self.traverse(h, id);
        }
    }

    fn tree() -> Hierarchy {
        let mut h = Hierarchy::new();
        const ID: Transform = Transform::IDENTITY;
        h.apply_batch(&[
            Op::add_root(1, ID).with_mask(1),
            Op::add_child(2, 1, ID).with_mask(1),
            Op::add_child(3, 2, ID).with_mask(1),
            Op::add_child(4, 1, ID).with_mask(2),
            Op::add_child(5, 4, ID).with_mask(1),
        ])
        .unwrap();
        h.update_dirty();
        h
    }

    fn visit(h: &Hierarchy, from: NodeId, mode: TraversalMode, mask: u32) -> Vec<NodeId> {
        let mut v = Collect {
            mode,
            mask,
            seen: Vec::new(),
        };
        h.accept(from, &mut v);
        v.seen
    }

    #[test]
    fn modes_and_masks() {
        let h = tree();
        assert_eq!(
            visit(&h, 1, TraversalMode::Children, u32::MAX),
            [1, 2, 3, 4, 5]
        );
        // Node 4 fails mask 1, so neither it nor its subtree is reached.
        assert_eq!(visit(&h, 1, TraversalMode::Children, 1), [1, 2, 3]);
        assert_eq!(visit(&h, 3, TraversalMode::Parents, u32::MAX), [3, 2, 1]);
        assert_eq!(visit(&h, 3, TraversalMode::None, u32::MAX), [3]);
        assert_eq!(
            visit(&h, 4, TraversalMode::Children, 1),
            Vec::<NodeId>::new()
        );
    }
}
