//! The object arena: where every cell's own objects live, and the links that find them.
//!
//! Owns [`Arena`] and the tree's accessors for a cell's [`Link`] and object range. Each
//! cell owns the range `start .. start + cap` of two parallel vectors (the entries queries
//! scan and the full boxes ray tests need); its objects are the first `len` of it, the rest
//! is slack holding placeholders. Keeping the objects of a block's eight children next to
//! each other, instead of one heap vector per cell, is what lets a query go from a block's
//! bounds test straight to the children's objects in one contiguous stretch of memory:
//! measured, it is the difference between trailing and beating parry3d's BVH on small
//! region queries (a separate vector per cell costs a dependent load and a cold cache line
//! per visited cell).
//!
//! Invariants (checked by `assert_well_formed`): the ranges of live cells are disjoint and
//! inside the vectors, `len <= cap`, and every slot outside them is counted in `garbage`.
//! A cell that outgrows its range moves to the end of the arena (the old range becomes
//! garbage); when garbage exceeds the live capacity, or a quarter as many slots as are live
//! have been appended (out of depth-first order) since the last compaction,
//! [`Octree::compact`] rewrites the arena in depth-first order with every block's children
//! side by side. Each compaction copies at most four times the slots appended or discarded
//! since the previous one, and each of those was itself paid for by a copy, so compaction
//! costs O(1) amortized per object moved. (A cell of more than `BIG_CELL` objects keeps
//! slack for a quarter more through a compaction, or this would not hold for one that
//! dominates the tree: see `compact`.)
//! Object locations are relative to their cell's start, so neither a move of a range nor a
//! compaction touches the object table.

use super::Octree;
use super::cell::{Block, CellIdx, Entry, Link};
use super::object_box::ObjectBox;

/// Compaction waits until at least this many slots are garbage or out of order, so that
/// small trees do not compact on every other change.
const MIN_GARBAGE: usize = 4096;

/// Objects above which a cell keeps slack through a compaction (see [`Octree::compact`]).
const BIG_CELL: u32 = 64;

/// Filler for the slack of a range: an entry with an empty box and no layer.
const PLACEHOLDER_ENTRY: Entry = Entry {
    min: super::cell::EMPTY_MIN,
    max: super::cell::EMPTY_MAX,
    mask: 0,
    id: u32::MAX,
};

/// Filler for the slack of a range of boxes.
const PLACEHOLDER_BOX: ObjectBox = ObjectBox {
    center: glam::Vec3::ZERO,
    rot: glam::Quat::IDENTITY,
    half: glam::Vec3::ZERO,
    mask: 0,
};

/// The two parallel vectors every cell's objects live in.
#[derive(Clone, Debug, Default)]
pub(crate) struct Arena {
    pub entries: Vec<Entry>,
    pub boxes: Vec<ObjectBox>,
    /// Slots that belong to no cell's range.
    pub garbage: usize,
    /// Length of the vectors right after the last compaction: everything beyond was
    /// appended since, out of depth-first order.
    pub compacted_len: usize,
    /// The vectors the last compaction moved away from, kept (empty) for the next one, so
    /// that compacting in steady state allocates nothing.
    spare: (Vec<Entry>, Vec<ObjectBox>),
}

impl Arena {
    /// Appends a range of `cap` placeholder slots and returns its start.
    fn alloc(&mut self, cap: u32) -> u32 {
        let start = self.entries.len();
        let end = start + cap as usize;
        assert!(end <= u32::MAX as usize, "octree arena exceeds u32 indices");
        self.entries.resize(end, PLACEHOLDER_ENTRY);
        self.boxes.resize(end, PLACEHOLDER_BOX);
        start as u32
    }
}

/// The capacity a range for `len` objects gets: some slack, so that a cell that gains an
/// object or two does not move at once.
fn roomy(len: usize) -> u32 {
    let cap = len + len / 4 + 2;
    u32::try_from(cap).expect("octree cell exceeds u32 objects")
}

impl Octree {
    /// First child, start and length of cell `c`'s objects.
    #[inline]
    pub(super) fn link(&self, c: CellIdx) -> Link {
        if c == CellIdx::ROOT {
            self.root_link
        } else {
            let (b, k) = c.block_slot();
            self.blocks[b].link(k)
        }
    }

    #[inline]
    pub(super) fn set_link(&mut self, c: CellIdx, link: Link) {
        if c == CellIdx::ROOT {
            self.root_link = link;
        } else {
            let (b, k) = c.block_slot();
            self.blocks[b].set_link(k, link);
        }
    }

    #[inline]
    pub(super) fn first_child(&self, c: CellIdx) -> CellIdx {
        self.link(c).first_child
    }

    pub(super) fn set_first_child(&mut self, c: CellIdx, first: CellIdx) {
        let link = Link {
            first_child: first,
            ..self.link(c)
        };
        self.set_link(c, link);
    }

    /// The entries of cell `c`'s own objects.
    #[inline]
    pub(super) fn entries(&self, c: CellIdx) -> &[Entry] {
        &self.arena.entries[self.link(c).range()]
    }

    /// The full boxes of cell `c`'s own objects, at the same slots as its entries.
    #[inline]
    pub(super) fn boxes(&self, c: CellIdx) -> &[ObjectBox] {
        &self.arena.boxes[self.link(c).range()]
    }

    /// Appends an object to cell `c` and returns its slot; moves the cell's range to the
    /// end of the arena, twice as large, when it is full.
    pub(super) fn push_own(&mut self, c: CellIdx, entry: Entry, obj: ObjectBox) -> u32 {
        let mut link = self.link(c);
        let cap = self.meta[c].cap;
        if link.len == cap {
            let new_cap = roomy(cap as usize * 2);
            let start = self.arena.alloc(new_cap);
            let (from, to) = (link.range(), start as usize);
            self.arena.entries.copy_within(from.clone(), to);
            self.arena.boxes.copy_within(from, to);
            self.arena.garbage += cap as usize;
            self.meta[c].cap = new_cap;
            link.start = start;
        }
        let i = (link.start + link.len) as usize;
        self.arena.entries[i] = entry;
        self.arena.boxes[i] = obj;
        link.len += 1;
        self.set_link(c, link);
        link.len - 1
    }

    /// Removes the object at `slot` of cell `c` by moving the cell's last object into its
    /// place; returns the id of the object that moved, if any.
    pub(super) fn swap_remove_own(&mut self, c: CellIdx, slot: u32) -> Option<u32> {
        let mut link = self.link(c);
        debug_assert!(slot < link.len);
        let (i, last) = (
            (link.start + slot) as usize,
            (link.start + link.len - 1) as usize,
        );
        link.len -= 1;
        self.set_link(c, link);
        let moved = (i != last).then(|| self.arena.entries[last].id);
        self.arena.entries[i] = self.arena.entries[last];
        self.arena.boxes[i] = self.arena.boxes[last];
        self.arena.entries[last] = PLACEHOLDER_ENTRY;
        moved
    }

    /// Copies out cell `c`'s objects and empties it (its range stays its own).
    pub(super) fn take_own(&mut self, c: CellIdx) -> Vec<(Entry, ObjectBox)> {
        let mut link = self.link(c);
        let range = link.range();
        let out = self.arena.entries[range.clone()]
            .iter()
            .copied()
            .zip(self.arena.boxes[range.clone()].iter().copied())
            .collect();
        self.arena.entries[range].fill(PLACEHOLDER_ENTRY);
        link.len = 0;
        self.set_link(c, link);
        out
    }

    /// Makes `objects` the whole content of the empty cell `c`, moving its range to the end
    /// of the arena when they do not fit.
    pub(super) fn set_own(&mut self, c: CellIdx, objects: &[(Entry, ObjectBox)]) {
        let mut link = self.link(c);
        debug_assert_eq!(link.len, 0);
        let cap = self.meta[c].cap;
        if objects.len() > cap as usize {
            self.arena.garbage += cap as usize;
            let new_cap = roomy(objects.len());
            link.start = self.arena.alloc(new_cap);
            self.meta[c].cap = new_cap;
        }
        let start = link.start as usize;
        for (i, (e, b)) in objects.iter().enumerate() {
            self.arena.entries[start + i] = *e;
            self.arena.boxes[start + i] = *b;
        }
        link.len = objects.len() as u32;
        self.set_link(c, link);
    }

    /// Gives up cell `c`'s range (the cell must be empty): it becomes garbage.
    pub(super) fn release_own(&mut self, c: CellIdx) {
        let link = self.link(c);
        debug_assert_eq!(link.len, 0);
        self.arena.garbage += self.meta[c].cap as usize;
        self.meta[c].cap = 0;
        self.set_link(
            c,
            Link {
                start: 0,
                len: 0,
                ..link
            },
        );
    }

    /// Compacts the arena once its garbage outweighs the live ranges, or once a quarter as
    /// much as is live has been appended out of order since the last compaction (see the
    /// module docs).
    pub(super) fn maybe_compact(&mut self) {
        let len = self.arena.entries.len();
        let (garbage, appended) = (self.arena.garbage, len - self.arena.compacted_len);
        let live = len - garbage;
        if garbage.max(appended) >= MIN_GARBAGE && (garbage > live || appended > live / 4) {
            self.compact();
        }
    }

    /// Rewrites the arena without garbage, in depth-first order: the root's objects, then
    /// for each block the objects of its eight children side by side (each range with some
    /// slack), then the blocks below them. Queries that visit neighbouring cells then read
    /// neighbouring memory. Costs O(objects + cells); object locations do not change.
    pub fn compact(&mut self) {
        self.stats.compactions += 1;
        let live = self.arena.entries.len() - self.arena.garbage;
        let (mut entries, mut boxes) = std::mem::take(&mut self.arena.spare);
        entries.clear();
        boxes.clear();
        entries.reserve(live);
        boxes.reserve(live);
        let mut fresh = Arena {
            entries,
            boxes,
            garbage: 0,
            compacted_len: 0,
            spare: (Vec::new(), Vec::new()),
        };
        let moved = |tree: &mut Self, fresh: &mut Arena, c: CellIdx| {
            let mut link = tree.link(c);
            // Tight ranges for ordinary cells: slack would spread a block's objects over
            // more cache lines, and a small cell that later outgrows its range moves at
            // O(1) amortized cost anyway. A big cell keeps some: its move appends more
            // than a quarter of a tree it dominates, which compacts at once, and a tight
            // range then would move (and compact) again on its next insert, so that
            // thousands of objects at one point (which no split separates) cost
            // quadratic time. With slack for a quarter of its size, each move and
            // compaction is paid for by that many inserts.
            let cap = if link.len > BIG_CELL {
                roomy(link.len as usize)
            } else {
                link.len
            };
            let start = fresh.entries.len();
            fresh
                .entries
                .extend_from_slice(&tree.arena.entries[link.range()]);
            fresh
                .boxes
                .extend_from_slice(&tree.arena.boxes[link.range()]);
            fresh.alloc(cap - link.len);
            link.start = start as u32;
            tree.meta[c].cap = cap;
            tree.set_link(c, link);
        };
        moved(self, &mut fresh, CellIdx::ROOT);
        let mut stack = vec![self.root_link.first_child];
        while let Some(first) = stack.pop() {
            if first == CellIdx::NONE {
                continue;
            }
            for c in first.octants() {
                moved(self, &mut fresh, c);
            }
            let block: &Block = self.block(first);
            stack.extend(block.first_child.iter().rev());
        }
        fresh.compacted_len = fresh.entries.len();
        let old = std::mem::replace(&mut self.arena, fresh);
        self.arena.spare = (old.entries, old.boxes);
    }
}
