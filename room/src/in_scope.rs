//! Each caller's share of a room's in-scope entries: the ids a room's region, follow and
//! frustum subscribers hold in their in-scope sets are charged to callers in a [`SharedBudget`] whose
//! ceiling is the room's `--max-in-scope-entries-per-room` and whose caller share is its
//! `1/--caller-share-divisor` (the rule of every other budget), so one caller's many
//! distinct region scopes cannot take the room's whole cap; a caller over its share is
//! refused `overloaded` on subscribe while other callers still subscribe.
//!
//! Invariants: a distinct region scope held by the room's subscribers is charged once,
//! as its set is held once (subscribers of one scope share it), and each follow or
//! frustum subscriber's set (its own, never shared) once for it; to the caller whose
//! subscription added it or, once that caller holds it no more, to another caller that
//! still does; a charge is the set's size when it was added; and the ledger is brought
//! up to date with the room's subscribers ([`InScopeShares::sync`]) before any
//! subscription of a tick is admitted, so a scope nobody holds any more is given back
//! before anyone is refused for it. Only the room's tick thread touches it.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::budget::{Amount, CallerId, Charge, OverShare, RoomKey, SharedBudget, Shares};
use super::outbox::ConnId;
use super::scope::Scope;
use super::subscribers::Subscribers;

/// One distinct region scope the room holds (or one follow or frustum subscriber's
/// set), and who pays for it.
#[derive(Debug)]
struct HeldSet {
    scope: Scope,
    /// The caller charged for the set.
    caller: CallerId,
    charge: Charge,
    /// The connections that hold it, with their callers.
    holders: FxHashMap<ConnId, CallerId>,
}

/// A room's ledger of in-scope entries by caller (see the module doc).
#[derive(Debug)]
pub(crate) struct InScopeShares {
    budget: Arc<SharedBudget>,
    room: RoomKey,
    /// Each region subscriber's scope, as charged.
    conns: FxHashMap<ConnId, Scope>,
    /// The distinct scopes; few (the room's cap bounds them), so searched in order, as
    /// `Subscribers::in_scope_of` does.
    sets: Vec<HeldSet>,
}

impl InScopeShares {
    /// The ledger of room `room_id`, whose cap is `cap` ids and a caller's share
    /// `1/caller_divisor` of it.
    pub(crate) fn new(room_id: &str, cap: usize, caller_divisor: u64) -> Self {
        let cap = u64::try_from(cap).unwrap_or(u64::MAX);
        InScopeShares {
            // The room is the budget's only room: its share is the whole cap.
            budget: SharedBudget::new(
                "in-scope entries of this room",
                Shares::divided(cap, caller_divisor, 1),
            ),
            room: RoomKey::of(room_id),
            conns: FxHashMap::default(),
            sets: Vec::new(),
        }
    }

    /// Forgets the connections that no longer subscribe with the scope they were
    /// charged for (unsubscribed, closed, or subscribed again otherwise).
    pub(crate) fn sync(&mut self, subscribers: &Subscribers) {
        if self.conns.is_empty() {
            return;
        }
        let gone: Vec<ConnId> = self
            .conns
            .iter()
            .filter(|&(conn, scope)| {
                subscribers
                    .position(*conn)
                    .is_none_or(|i| subscribers.list[i].scope != *scope)
            })
            .map(|(conn, _)| *conn)
            .collect();
        for conn in gone {
            self.forget(conn);
        }
    }

    /// Admits `conn` of `caller` as a subscriber of region scope `scope`, whose set has
    /// `entries` ids: a scope the room holds already costs nothing more; a new one is
    /// charged to `caller` while it is under its share. On refusal the connection keeps
    /// what it had.
    pub(crate) fn admit(
        &mut self,
        conn: ConnId,
        caller: CallerId,
        scope: Scope,
        entries: usize,
    ) -> Result<(), OverShare> {
        if self.conns.get(&conn) == Some(&scope) {
            return Ok(());
        }
        // Only region scopes share one set; a follow or frustum scope's is its own.
        let held = scope.region.is_some() && self.sets.iter().any(|s| s.scope == scope);
        let charge = if held {
            None
        } else {
            Some(self.budget.charge(caller, self.room, Amount::of(entries))?)
        };
        self.forget(conn);
        match charge {
            Some(charge) => self.sets.push(HeldSet {
                scope,
                caller,
                charge,
                holders: [(conn, caller)].into_iter().collect(),
            }),
            None => {
                if let Some(set) = self.sets.iter_mut().find(|s| s.scope == scope) {
                    set.holders.insert(conn, caller);
                }
            }
        }
        self.conns.insert(conn, scope);
        Ok(())
    }

    /// Drops `conn` from the set it held: the set's charge is given back with its last
    /// holder, or moves to another holder's caller when its own caller holds it no more.
    fn forget(&mut self, conn: ConnId) {
        let Some(scope) = self.conns.remove(&conn) else {
            return;
        };
        let shared = scope.region.is_some();
        let ours = |s: &HeldSet| s.scope == scope && (shared || s.holders.contains_key(&conn));
        let Some(i) = self.sets.iter().position(ours) else {
            return;
        };
        let set = &mut self.sets[i];
        set.holders.remove(&conn);
        let Some(&next) = set.holders.values().next() else {
            self.sets.swap_remove(i);
            return;
        };
        if !set.holders.values().any(|&c| c == set.caller) {
            // Charged over the share: the ids are held already, whoever pays for them.
            set.charge = self
                .budget
                .charge_over(next, self.room, set.charge.amount());
            set.caller = next;
        }
    }

    /// What `caller` is charged for, in ids.
    #[cfg(test)]
    fn held_by(&self, caller: CallerId) -> u64 {
        self.budget.held_by_caller(caller).0
    }
}

#[cfg(test)]
mod tests {
    use canopy_protocol::message::Region;

    use super::*;

    fn region(x: f32) -> Scope {
        Scope::region(
            Some(Region {
                min: [x, 0.0, 0.0],
                max: [x + 1.0, 1.0, 1.0],
            }),
            u32::MAX,
        )
    }

    #[test]
    fn a_caller_past_its_share_is_refused_and_another_is_not() {
        // A cap of 800 ids: a caller's share is 100.
        let mut l = InScopeShares::new("r", 800, 8);
        let (a, b) = (CallerId::of("addr:a"), CallerId::of("addr:b"));
        l.admit(1, a, region(0.0), 60).unwrap();
        l.admit(2, a, region(1.0), 60).unwrap();
        let over = l.admit(3, a, region(2.0), 60).unwrap_err();
        assert!(over.is_callers(), "{over}");
        // A scope the room holds costs nothing more, whoever asks.
        l.admit(4, a, region(0.0), 60).unwrap();
        l.admit(5, b, region(3.0), 60).unwrap();
        assert_eq!((l.held_by(a), l.held_by(b)), (120, 60));
        // The first set's charge moves to `b` when `a` holds it no more.
        l.admit(6, b, region(0.0), 60).unwrap();
        l.forget(1);
        l.forget(4);
        assert_eq!((l.held_by(a), l.held_by(b)), (60, 120));
        l.admit(3, a, region(2.0), 60).unwrap();
        for conn in [2, 3, 5, 6] {
            l.forget(conn);
        }
        assert_eq!((l.held_by(a), l.held_by(b)), (0, 0));
        assert!(l.sets.is_empty() && l.conns.is_empty());
        l.budget.assert_well_formed();
    }

    #[test]
    fn follow_scopes_are_each_charged_for_their_own_set() {
        let mut l = InScopeShares::new("r", 800, 8);
        let (a, b) = (CallerId::of("addr:a"), CallerId::of("addr:b"));
        let around = Scope {
            follow: Some(canopy_protocol::interest::Follow {
                node: 1,
                radius: 1e9,
                margin: None,
            }),
            ..Scope::WHOLE_ROOM
        };
        // Subscribers of one follow scope hold a set each: `a` is admitted while under
        // its share (100), then refused; another caller is not.
        l.admit(1, a, around, 90).unwrap();
        l.admit(2, a, around, 90).unwrap();
        assert!(l.admit(4, a, around, 90).unwrap_err().is_callers());
        l.admit(3, b, around, 90).unwrap();
        assert_eq!((l.held_by(a), l.held_by(b)), (180, 90));
        l.forget(1);
        assert_eq!((l.held_by(a), l.held_by(b)), (90, 90));
        l.forget(2);
        l.forget(3);
        assert!(l.sets.is_empty() && l.conns.is_empty());
        l.budget.assert_well_formed();
    }
}
