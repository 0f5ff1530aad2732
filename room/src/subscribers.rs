//! A room's subscribed connections: a dense list the fan-out walks, with an index by
//! connection so that subscribing and unsubscribing cost O(1) however many there are.
//!
//! **Invariant** ([`Subscribers::assert_well_formed`]): `index` maps each listed
//! connection to its position and holds nothing else; and once the subscribers leave,
//! the storage shrinks with them (at most four times what the remaining ones need,
//! beyond a small floor), so that a crowd that came and went is not paid for after.

use std::sync::Arc;

use canopy_protocol::NodeId;
use rustc_hash::{FxHashMap, FxHashSet};

use super::follow::FollowState;
use super::follow_band::reach;
use super::follow_index::{FollowIndex, Indexed};
use super::outbox::{ConnId, Outbox};
use super::pacing::Pacer;
use super::scope::Scope;

/// One subscribed connection, as the room sees it.
#[derive(Debug)]
pub(super) struct Subscriber {
    pub(super) outbox: Arc<Outbox>,
    pub(super) scope: Scope,
    /// For region, frustum and follow scopes: the ids the client holds now (or will
    /// hold once its held changes are sent). A region scope's set is shared by every
    /// subscriber of the same scope (they hold the same ids: `fanout.rs` keeps one set
    /// per scope, `subscribe.rs` hands new subscribers the scope's); a frustum's or a
    /// follow scope's is its own.
    pub(super) in_scope: Arc<FxHashSet<NodeId>>,
    /// For follow scopes: the centre and whether the followed node is gone. Boxed, as
    /// is the pacer: most subscribers have neither, and inline they tripled the size of
    /// every whole-room subscriber.
    pub(super) follow: Option<Box<FollowState>>,
    /// For paced subscriptions (`send_hz` or `tiers`): the changes held between sends.
    pub(super) pacer: Option<Box<Pacer>>,
}

impl Subscriber {
    /// A subscriber just answered with a snapshot (or resumed delta) of `scope` whose
    /// ids are `in_scope`; `centre` is the followed node's position then.
    pub(super) fn new(
        outbox: Arc<Outbox>,
        scope: Scope,
        in_scope: Arc<FxHashSet<NodeId>>,
        centre: Option<glam::Vec3>,
        tick_hz: u32,
    ) -> Self {
        Self {
            outbox,
            follow: scope
                .follow
                .and(centre)
                .map(|c| Box::new(FollowState::new(c))),
            pacer: scope
                .pacing
                .is_paced()
                .then(|| Box::new(Pacer::new(scope.pacing, tick_hz))),
            scope,
            in_scope,
        }
    }

    /// Panics unless its follow state and pacer keep their invariants against `scene`
    /// (a full scan of the room for a follow scope: for tests).
    pub(super) fn assert_well_formed(&self, scene: &super::SceneState) {
        if let (Some(f), Some(state)) = (&self.scope.follow, &self.follow) {
            state.assert_well_formed(scene, f, self.scope.mask, &self.in_scope);
        }
        if let Some(p) = &self.pacer {
            p.assert_well_formed();
        }
        if self.scope.is_whole_room() {
            assert!(self.in_scope.is_empty(), "a whole-room scope holds ids");
        }
    }
}

/// Indexes `sub` in `follows` if its scope is a live follow scope.
fn index(follows: &mut FollowIndex, sub: &Subscriber) {
    if let (Some(f), Some(state)) = (&sub.scope.follow, &sub.follow)
        && !state.is_lost()
    {
        let at = (f, sub.scope.mask, state.placed, reach(f));
        follows.register(sub.outbox.conn, at, sub.in_scope.iter().copied());
    }
}

/// Takes `sub` out of `follows` if its scope is a live follow scope.
fn unindex(follows: &mut FollowIndex, sub: &Subscriber) {
    if let (Some(f), Some(state)) = (&sub.scope.follow, &sub.follow)
        && !state.is_lost()
    {
        let ids = (sub.in_scope.iter().copied(), state.band.ids());
        follows.deregister(sub.outbox.conn, (f, state.placed, reach(f)), ids);
    }
}

/// The subscribed connections of one room (see the module doc).
#[derive(Debug, Default)]
pub(super) struct Subscribers {
    pub(super) list: Vec<Subscriber>,
    pub(super) index: FxHashMap<ConnId, usize>,
    /// The live follow scopes among them, indexed (`follow_index.rs`): kept in step by
    /// [`Subscribers::upsert`], [`Subscribers::remove`] and the scopes' own ticks.
    pub(super) follows: FollowIndex,
    /// The follow scopes whose centres a tick moves (reused).
    pub(super) moved: Vec<ConnId>,
}

/// Below this many slots the storage is never shrunk: a small room's subscribers come
/// and go without reallocating.
const KEEP_SLOTS: usize = 64;

impl Subscribers {
    /// The in-scope set a subscriber of `scope` already holds, to share.
    pub(super) fn in_scope_of(&self, scope: &Scope) -> Option<Arc<FxHashSet<NodeId>>> {
        self.list
            .iter()
            .find(|s| s.scope.region.is_some() && s.scope == *scope)
            .map(|s| Arc::clone(&s.in_scope))
    }

    /// In-scope entries the room holds: each distinct set counted once.
    pub(super) fn in_scope_entries(&self) -> usize {
        let mut seen: FxHashSet<*const FxHashSet<NodeId>> = FxHashSet::default();
        self.list
            .iter()
            .filter(|s| !s.in_scope.is_empty() && seen.insert(Arc::as_ptr(&s.in_scope)))
            .map(|s| s.in_scope.len())
            .sum()
    }

    pub(super) fn len(&self) -> usize {
        self.list.len()
    }

    pub(super) fn position(&self, conn: ConnId) -> Option<usize> {
        self.index.get(&conn).copied()
    }

    /// Inserts or replaces the subscriber of its connection; true when it is new.
    pub(super) fn upsert(&mut self, sub: Subscriber) -> bool {
        let (at, new) = match self.position(sub.outbox.conn) {
            Some(i) => {
                let old = std::mem::replace(&mut self.list[i], sub);
                // Out before the new one goes in: both are the same connection's.
                unindex(&mut self.follows, &old);
                (i, false)
            }
            None => {
                self.index.insert(sub.outbox.conn, self.list.len());
                self.list.push(sub);
                (self.list.len() - 1, true)
            }
        };
        index(&mut self.follows, &self.list[at]);
        new
    }

    pub(super) fn remove(&mut self, conn: ConnId) -> Option<Subscriber> {
        let i = self.index.remove(&conn)?;
        let sub = self.list.swap_remove(i);
        unindex(&mut self.follows, &sub);
        if let Some(moved) = self.list.get(i) {
            self.index.insert(moved.outbox.conn, i);
        }
        self.shrink_after_leaving();
        Some(sub)
    }

    /// Takes every subscriber out, and their storage with them.
    pub(super) fn drain(&mut self) -> impl Iterator<Item = Subscriber> + use<> {
        self.index = FxHashMap::default();
        self.follows = FollowIndex::default();
        std::mem::take(&mut self.list).into_iter()
    }

    /// Gives back the storage of subscribers that left once three quarters of it is
    /// unused, keeping room for twice those that remain: amortised O(1) per removal,
    /// since the next shrink needs the count to halve again. Measured with loadtest
    /// `many-subscribers`: 5,000 subscribers that left kept 0.7 MiB here.
    fn shrink_after_leaving(&mut self) {
        let keep = (self.list.len() * 2).max(KEEP_SLOTS);
        if self.list.capacity() >= keep * 2 {
            self.list.shrink_to(keep);
        }
        // A hash map's capacity is what it holds before growing, below its table size.
        if self.index.capacity() >= keep * 2 {
            self.index.shrink_to(keep);
        }
    }

    /// Panics unless the invariant in the module doc holds.
    pub(super) fn assert_well_formed(&self) {
        assert_eq!(self.index.len(), self.list.len(), "index and list disagree");
        for (i, sub) in self.list.iter().enumerate() {
            assert_eq!(
                self.index.get(&sub.outbox.conn),
                Some(&i),
                "connection {} is not indexed at its position {i}",
                sub.outbox.conn
            );
        }
        self.follows
            .assert_well_formed(self.list.iter().filter_map(|s| {
                let (f, state) = (s.scope.follow.as_ref()?, s.follow.as_ref()?);
                assert!(state.events.is_empty(), "events left over from a tick");
                (!state.is_lost()).then(|| Indexed {
                    conn: s.outbox.conn,
                    follow: f,
                    mask: s.scope.mask,
                    anchor: state.placed,
                    reach: reach(f),
                    held: &s.in_scope,
                    watched: Box::new(state.band.ids()),
                })
            }));
        let bound = (self.list.len() * 4).max(KEEP_SLOTS * 2);
        assert!(
            self.list.capacity() <= bound,
            "{} slots kept for {} subscribers",
            self.list.capacity(),
            self.list.len()
        );
    }
}

#[cfg(test)]
mod tests {
    use canopy_protocol::Format;
    use proptest::prelude::*;

    use super::*;
    use crate::outbox::OutboxLimits;

    fn sub(conn: ConnId) -> Subscriber {
        Subscriber::new(
            Outbox::new(conn, Format::Json, OutboxLimits::DEFAULT),
            Scope::WHOLE_ROOM,
            Arc::default(),
            None,
            30,
        )
    }

    #[test]
    fn storage_follows_a_crowd_that_leaves() {
        let mut subs = Subscribers::default();
        for conn in 0..5_000 {
            assert!(subs.upsert(sub(conn)));
        }
        subs.assert_well_formed();
        assert!(subs.list.capacity() >= 5_000);
        for conn in 0..4_990 {
            assert!(subs.remove(conn).is_some());
            subs.assert_well_formed();
        }
        assert_eq!(subs.len(), 10);
        assert!(
            subs.list.capacity() <= KEEP_SLOTS * 2,
            "{}",
            subs.list.capacity()
        );
        assert!(
            subs.index.capacity() <= KEEP_SLOTS * 2,
            "{}",
            subs.index.capacity()
        );
        let left: Vec<ConnId> = subs.drain().map(|s| s.outbox.conn).collect();
        assert_eq!(left.len(), 10);
        subs.assert_well_formed();
        assert_eq!(subs.list.capacity(), 0);
    }

    proptest! {
        /// Against a model: a map from connection to its scope, with `upsert` replacing.
        #[test]
        fn matches_a_map_of_connections(ops in proptest::collection::vec((any::<bool>(), 0u64..200), 0..600)) {
            let mut subs = Subscribers::default();
            let mut model = std::collections::BTreeSet::new();
            for (add, conn) in ops {
                if add {
                    prop_assert_eq!(subs.upsert(sub(conn)), model.insert(conn));
                } else {
                    prop_assert_eq!(subs.remove(conn).is_some(), model.remove(&conn));
                }
                subs.assert_well_formed();
                for &conn in &model {
                    let at = subs.position(conn);
                    prop_assert!(at.is_some_and(|i| subs.list[i].outbox.conn == conn));
                }
                prop_assert_eq!(subs.len(), model.len());
            }
        }
    }
}
