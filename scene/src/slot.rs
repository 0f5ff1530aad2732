//! [`Slot`], the index of a storage slot, and [`SlotVec`], an array indexed by it.
//!
//! Invariant: a slot indexes every per-slot array of the store, and only those; a node id
//! is never a slot (the id map turns one into the other). Both types are plain `u32` and
//! `Vec` underneath, so the typing costs nothing at run time.

use std::ops::{Index, IndexMut};

/// A storage slot of the hierarchy, or [`Slot::NONE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub(crate) struct Slot(u32);

impl Slot {
    /// "No slot": the value of every absent link.
    pub(crate) const NONE: Slot = Slot(u32::MAX);

    #[inline(always)]
    pub(crate) const fn new(index: u32) -> Slot {
        Slot(index)
    }

    /// The slot at `index` of the arrays.
    #[inline(always)]
    pub(crate) fn at(index: usize) -> Slot {
        debug_assert!(index < u32::MAX as usize);
        Slot(index as u32)
    }

    #[inline(always)]
    pub(crate) const fn index(self) -> usize {
        self.0 as usize
    }

    #[inline(always)]
    pub(crate) const fn is_none(self) -> bool {
        self.0 == Slot::NONE.0
    }

    #[inline(always)]
    pub(crate) const fn is_some(self) -> bool {
        !self.is_none()
    }

    /// The raw value, for dumps and for the id map's packed table.
    #[inline(always)]
    pub(crate) const fn raw(self) -> u32 {
        self.0
    }

    /// Every slot from `self` up to, not including, `end`.
    pub(crate) fn up_to(self, end: Slot) -> impl Iterator<Item = Slot> {
        (self.0..end.0).map(Slot)
    }
}

impl Default for Slot {
    /// [`Slot::NONE`]: a slot nothing has been given yet points nowhere.
    fn default() -> Slot {
        Slot::NONE
    }
}

/// An array with one element per slot.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SlotVec<T>(Vec<T>);

impl<T> Default for SlotVec<T> {
    fn default() -> Self {
        SlotVec(Vec::new())
    }
}

impl<T> SlotVec<T> {
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// The slot one past the last one.
    #[inline(always)]
    pub(crate) fn end(&self) -> Slot {
        Slot::at(self.0.len())
    }

    /// Appends `value` and returns its slot.
    #[inline]
    pub(crate) fn push(&mut self, value: T) -> Slot {
        let slot = self.end();
        self.0.push(value);
        slot
    }

    pub(crate) fn truncate(&mut self, len: usize) {
        self.0.truncate(len);
    }

    /// The elements as a plain slice indexed by `Slot::index`, for the linear sweeps that
    /// let the compiler drop the bounds checks.
    #[inline(always)]
    pub(crate) fn as_slice(&self) -> &[T] {
        &self.0
    }

    #[inline(always)]
    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.0
    }

    pub(crate) fn iter(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }

    pub(crate) fn iter_mut(&mut self) -> std::slice::IterMut<'_, T> {
        self.0.iter_mut()
    }

    /// Every (slot, element) pair in slot order.
    pub(crate) fn enumerate(&self) -> impl Iterator<Item = (Slot, &T)> {
        self.0.iter().enumerate().map(|(i, v)| (Slot::at(i), v))
    }

    /// Every (slot, element) pair in slot order, the elements writable.
    pub(crate) fn enumerate_mut(&mut self) -> impl Iterator<Item = (Slot, &mut T)> {
        self.0.iter_mut().enumerate().map(|(i, v)| (Slot::at(i), v))
    }
}

impl<T: Clone> SlotVec<T> {
    /// Grows the array to `len` elements, filling with `value` (never shrinks it).
    pub(crate) fn grow_to(&mut self, len: usize, value: T) {
        if self.0.len() < len {
            self.0.resize(len, value);
        }
    }
}

impl<T> Index<Slot> for SlotVec<T> {
    type Output = T;

    #[inline(always)]
    fn index(&self, slot: Slot) -> &T {
        &self.0[slot.index()]
    }
}

impl<T> IndexMut<Slot> for SlotVec<T> {
    #[inline(always)]
    fn index_mut(&mut self, slot: Slot) -> &mut T {
        &mut self.0[slot.index()]
    }
}
