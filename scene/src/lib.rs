//! Canopy's scene core: the transform hierarchy of a room and the loose octree over
//! its world boxes ([`octree`]), with no runtime, no networking and no I/O in them
//! (**Architecture invariant**: this crate depends on no async runtime; Cargo enforces
//! it).
//!
//! The hierarchy owns the nodes of a room (local TRS, extent, mask, parent), their world
//! transforms and what each tick changed. Its central invariant: after every update, every
//! live node comes after its parent in the flat slot order and its world transform is its
//! parent's world composed with its local transform (docs/protocol.md §1).
//!
//! A room's tick: [`Hierarchy::apply_batch`] for each accepted batch (atomic; ids of the
//! adds back), [`Hierarchy::run_update_callbacks`], then [`Hierarchy::update_dirty`], whose
//! [`TickChanges`] (ids of the added, removed, reparented, reshaped and moved nodes, with
//! the masks the removed and reshaped ones began the tick with) feed the octree and the
//! delta stream; [`Hierarchy::finish_tick`] ends the tick.
//! Children are listed in attachment order; server-assigned ids are the smallest
//! never-used id at or after a running counter (`batch.rs`); batches that would push a
//! world transform past [`WORLD_LIMIT`] or a node past the depth limit are refused whole
//! (`guard.rs`).
//!
//! Files, one concept each:
//! - `hierarchy.rs`: the [`Hierarchy`] type, its limits and read accessors;
//! - `store.rs`: the flat structure-of-arrays storage; `slot.rs`: the slot index type and
//!   per-slot arrays; `idmap.rs`: the id → slot index;
//! - `links.rs`: first-child / next-sibling links;
//! - `batch.rs`: atomic edit batches and single edits; `pending.rs`: deferred writes of
//!   single edits; `validate.rs`: value checks; `journal.rs`: the undo log behind
//!   atomicity; `guard.rs`: the end-of-batch world-range and depth check;
//! - `layout.rs`: keeping the slot order parent-before-child;
//! - `propagate.rs`: dirty and full world-transform updates; `lanes.rs`: the arithmetic of
//!   one world transform, for one node or four at a time; `sweep.rs`: the full sweep's
//!   loop over a run of slots; `par_sweep.rs`: the full
//!   update split across threads in big rooms;
//! - `changes.rs`: the per-tick change set;
//! - `iter.rs`: children, subtree, ancestors and whole-room iteration;
//! - `visitor.rs` and `callbacks.rs`: OSG-style visitors and per-node update callbacks;
//! - `check.rs`: invariant checks and state dumps for tests;
//! - `durable_ids.rs`: retired ids and the id counter, for snapshots.

pub mod octree;

mod batch;
mod callbacks;
mod changes;
mod check;
mod durable_ids;
mod error;
mod guard;
mod hierarchy;
mod idmap;
mod iter;
mod journal;
mod lanes;
mod layout;
mod links;
mod par_sweep;
mod pending;
mod propagate;
mod slot;
mod store;
mod sweep;
mod validate;
mod visitor;

pub use callbacks::{Bob, Orbit, Spin, UpdateCallback, UpdateContext};
pub use changes::{TickChanges, WithOldMask};
pub use error::{BatchError, RebuildError, SceneError};
pub use guard::WORLD_LIMIT;
pub use hierarchy::{Hierarchy, HierarchyLimits, Parent};
pub use iter::{Ancestors, Children, Descendants};
pub use par_sweep::ParallelSweep;
pub use validate::MIN_QUAT_LENGTH;
pub use visitor::{NodeVisitor, TraversalMode};

#[cfg(test)]
mod tests;
