//! Fair shares of a server-wide budget: [`SharedBudget`] accounts what each caller and
//! each room holds of one server-wide ceiling (bytes of unsent snapshots, whole-room
//! read slots, bytes of unfinished WebSocket messages), so that one caller or one room
//! cannot take what every other one needs.
//!
//! Invariants: the budget's total, and what each caller and each room holds, are
//! exactly the sums of the live [`Charge`]s (a charge gives back what it took when it
//! is dropped, whoever drops it, on whichever thread); a charge is admitted only while
//! the caller, the room and the server are each under their limit, so each holds at
//! most its limit plus one charge (a single item larger than a share, such as the
//! snapshot of a huge room, still passes when its holder holds nothing else); and no
//! entry is kept for a caller or room that holds nothing, so the ledger's size is
//! bounded by the live charges.
//!
//! Taking and giving back are a few map operations under a short lock: never held across
//! an await, callable from tick threads and async workers alike.

use std::collections::hash_map::Entry;
use std::hash::{BuildHasher, Hash};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use rustc_hash::FxHashMap;

/// Who consumes a budget: a hash of the caller's identity (its JWT's `sub`, its room or
/// admin token, or for anonymous access its address), so no token is kept here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CallerId(u64);

/// Which room a charge is for: a hash of the room's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RoomKey(u64);

/// The process's hasher for identities: randomly keyed, so a client cannot choose a
/// name that collides with another's.
fn identity_hash(value: impl Hash) -> u64 {
    static KEYS: OnceLock<std::collections::hash_map::RandomState> = OnceLock::new();
    KEYS.get_or_init(Default::default).hash_one(value)
}

impl CallerId {
    /// The caller named by `key` (the edges' rate-limit key: `sub:…`, `token:…`,
    /// `addr:…`).
    pub fn of(key: &str) -> Self {
        CallerId(identity_hash(("caller", key)))
    }
}

impl RoomKey {
    /// The room with id `id`.
    pub fn of(id: &str) -> Self {
        RoomKey(identity_hash(("room", id)))
    }
}

/// An amount of a budget: bytes, or slots (one each).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Amount(pub u64);

impl Amount {
    /// `n` bytes (or slots).
    pub fn of(n: usize) -> Self {
        Amount(u64::try_from(n).unwrap_or(u64::MAX))
    }
}

/// The limits of one budget: the server-wide ceiling and the most one caller or one
/// room may hold of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shares {
    /// The whole budget, server-wide.
    pub ceiling: u64,
    /// The most one caller may hold.
    pub caller: u64,
    /// The most one room may hold.
    pub room: u64,
}

impl Shares {
    /// The default divisor of a share: a caller or a room holds at most 1/8 of a budget.
    pub const DEFAULT_DIVISOR: u64 = 8;

    /// A ceiling whose callers hold at most `1/caller_divisor` of it and rooms
    /// `1/room_divisor` (never less than one unit, so a one-slot pool still serves).
    pub fn divided(ceiling: u64, caller_divisor: u64, room_divisor: u64) -> Self {
        let part = |d: u64| (ceiling / d.max(1)).max(1);
        Shares {
            ceiling,
            caller: part(caller_divisor),
            room: part(room_divisor),
        }
    }
}

/// Who was over its limit when a charge was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OverShare {
    /// The caller holds its whole share.
    #[error("this caller holds {held} of its share of {share} of the server's {budget}")]
    Caller {
        /// The budget's name.
        budget: &'static str,
        /// What the caller holds.
        held: u64,
        /// Its share.
        share: u64,
    },
    /// The room holds its whole share.
    #[error("this room holds {held} of its share of {share} of the server's {budget}")]
    Room {
        /// The budget's name.
        budget: &'static str,
        /// What the room holds.
        held: u64,
        /// Its share.
        share: u64,
    },
    /// The whole budget is held.
    #[error("the server's {budget} are all held ({held} of {ceiling})")]
    Server {
        /// The budget's name.
        budget: &'static str,
        /// What is held, server-wide.
        held: u64,
        /// The ceiling.
        ceiling: u64,
    },
}

impl OverShare {
    /// True when the refusal is the caller's own doing (it holds its whole share), not
    /// its room's or the server's.
    pub fn is_callers(&self) -> bool {
        matches!(self, OverShare::Caller { .. })
    }
}

#[derive(Debug, Default)]
struct Ledger {
    total: u64,
    callers: FxHashMap<CallerId, u64>,
    rooms: FxHashMap<RoomKey, u64>,
}

/// Adds `amount` to `key`'s entry (none for nothing: no empty entries).
fn add<K: Hash + Eq>(map: &mut FxHashMap<K, u64>, key: K, amount: u64) {
    if amount > 0 {
        *map.entry(key).or_default() += amount;
    }
}

/// Takes `amount` from `key`'s entry, dropping it at zero.
fn sub<K: Hash + Eq>(map: &mut FxHashMap<K, u64>, key: K, amount: u64) {
    if let Entry::Occupied(mut e) = map.entry(key) {
        *e.get_mut() -= amount;
        if *e.get() == 0 {
            e.remove();
        }
    }
}

/// One server-wide budget with per-caller and per-room shares.
#[derive(Debug)]
pub struct SharedBudget {
    name: &'static str,
    shares: Shares,
    ledger: Mutex<Ledger>,
}

impl SharedBudget {
    /// A budget named `name` (for refusals: "unsent snapshot bytes") with `shares`.
    pub fn new(name: &'static str, shares: Shares) -> Arc<Self> {
        Arc::new(SharedBudget {
            name,
            shares,
            ledger: Mutex::new(Ledger::default()),
        })
    }

    /// The budget's limits.
    pub fn shares(&self) -> Shares {
        self.shares
    }

    /// Whether a charge for `caller` in `room` would be admitted now.
    pub fn check(&self, caller: CallerId, room: RoomKey) -> Result<(), OverShare> {
        self.admit(&self.ledger.lock(), caller, room)
    }

    fn admit(&self, ledger: &Ledger, caller: CallerId, room: RoomKey) -> Result<(), OverShare> {
        let budget = self.name;
        let held = ledger.callers.get(&caller).copied().unwrap_or(0);
        if held >= self.shares.caller {
            let share = self.shares.caller;
            return Err(OverShare::Caller {
                budget,
                held,
                share,
            });
        }
        let held = ledger.rooms.get(&room).copied().unwrap_or(0);
        if held >= self.shares.room {
            let share = self.shares.room;
            return Err(OverShare::Room {
                budget,
                held,
                share,
            });
        }
        if ledger.total >= self.shares.ceiling {
            let (held, ceiling) = (ledger.total, self.shares.ceiling);
            return Err(OverShare::Server {
                budget,
                held,
                ceiling,
            });
        }
        Ok(())
    }

    /// Takes `amount` for `caller` in `room`, while each is under its limit; given back
    /// when the returned [`Charge`] is dropped.
    pub fn charge(
        self: &Arc<Self>,
        caller: CallerId,
        room: RoomKey,
        amount: Amount,
    ) -> Result<Charge, OverShare> {
        let mut ledger = self.ledger.lock();
        self.admit(&ledger, caller, room)?;
        ledger.total += amount.0;
        add(&mut ledger.callers, caller, amount.0);
        add(&mut ledger.rooms, room, amount.0);
        Ok(Charge {
            budget: Arc::clone(self),
            caller,
            room,
            amount,
        })
    }

    /// Takes `amount` for `caller` in `room` whatever the limits: for bytes made after
    /// [`SharedBudget::check`] admitted them, which another holder's charge may have
    /// passed meanwhile (the holder is over by at most this one item).
    pub fn charge_over(
        self: &Arc<Self>,
        caller: CallerId,
        room: RoomKey,
        amount: Amount,
    ) -> Charge {
        let mut ledger = self.ledger.lock();
        ledger.total += amount.0;
        add(&mut ledger.callers, caller, amount.0);
        add(&mut ledger.rooms, room, amount.0);
        Charge {
            budget: Arc::clone(self),
            caller,
            room,
            amount,
        }
    }

    fn release(&self, caller: CallerId, room: RoomKey, amount: Amount) {
        let mut ledger = self.ledger.lock();
        ledger.total -= amount.0;
        sub(&mut ledger.callers, caller, amount.0);
        sub(&mut ledger.rooms, room, amount.0);
    }

    /// What is held, server-wide.
    pub fn held(&self) -> Amount {
        Amount(self.ledger.lock().total)
    }

    /// What `caller` holds.
    pub fn held_by_caller(&self, caller: CallerId) -> Amount {
        Amount(
            self.ledger
                .lock()
                .callers
                .get(&caller)
                .copied()
                .unwrap_or(0),
        )
    }

    /// What `room` holds.
    pub fn held_by_room(&self, room: RoomKey) -> Amount {
        Amount(self.ledger.lock().rooms.get(&room).copied().unwrap_or(0))
    }

    /// Checks the ledger: the total is the sum over callers and over rooms, and no
    /// entry is empty.
    pub fn assert_well_formed(&self) {
        let ledger = self.ledger.lock();
        let by_caller: u64 = ledger.callers.values().sum();
        let by_room: u64 = ledger.rooms.values().sum();
        assert_eq!(by_caller, ledger.total, "{}: callers' sum", self.name);
        assert_eq!(by_room, ledger.total, "{}: rooms' sum", self.name);
        assert!(
            ledger.callers.values().all(|&v| v > 0),
            "empty caller entry"
        );
        assert!(ledger.rooms.values().all(|&v| v > 0), "empty room entry");
    }
}

/// What one holder took of a [`SharedBudget`]; given back when dropped.
#[derive(Debug)]
pub struct Charge {
    budget: Arc<SharedBudget>,
    caller: CallerId,
    room: RoomKey,
    amount: Amount,
}

impl Charge {
    /// What this charge holds.
    pub fn amount(&self) -> Amount {
        self.amount
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.budget.release(self.caller, self.room, self.amount);
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn budget(ceiling: u64, caller: u64, room: u64) -> Arc<SharedBudget> {
        SharedBudget::new(
            "test units",
            Shares {
                ceiling,
                caller,
                room,
            },
        )
    }

    #[test]
    fn shares_are_a_fraction_of_the_ceiling_and_never_zero() {
        assert_eq!(Shares::divided(256, 8, 8).caller, 32);
        assert_eq!(Shares::divided(256, 8, 4).room, 64);
        assert_eq!(Shares::divided(2, 8, 8).caller, 1);
        assert_eq!(Shares::divided(2, 0, 8).caller, 2);
    }

    #[test]
    fn a_caller_over_its_share_is_refused_and_another_is_not() {
        let b = budget(100, 10, 50);
        let (a, other) = (CallerId::of("addr:a"), CallerId::of("addr:b"));
        let room = RoomKey::of("r");
        let first = b.charge(a, room, Amount(12)).expect("under its share");
        let refused = b.charge(a, room, Amount(1)).unwrap_err();
        assert!(refused.is_callers(), "{refused}");
        let _other = b.charge(other, room, Amount(5)).expect("another caller");
        drop(first);
        assert_eq!(b.held_by_caller(a), Amount(0));
        b.charge(a, room, Amount(1)).expect("released");
        b.assert_well_formed();
    }

    #[test]
    fn a_full_room_or_server_refuses_without_blaming_the_caller() {
        let b = budget(10, 100, 6);
        let (a, c) = (CallerId::of("a"), CallerId::of("c"));
        let (r1, r2) = (RoomKey::of("1"), RoomKey::of("2"));
        let _x = b.charge(a, r1, Amount(6)).unwrap();
        assert!(matches!(
            b.charge(c, r1, Amount(1)),
            Err(OverShare::Room { .. })
        ));
        let _y = b.charge(c, r2, Amount(4)).unwrap();
        let full = b.charge(c, r2, Amount(1)).unwrap_err();
        assert!(matches!(full, OverShare::Server { .. }) && !full.is_callers());
    }

    #[derive(Clone, Debug)]
    enum Step {
        Charge { caller: u8, room: u8, amount: u64 },
        Release(usize),
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (0u8..4, 0u8..3, 0u64..20).prop_map(|(caller, room, amount)| Step::Charge {
                caller,
                room,
                amount
            }),
            any::<usize>().prop_map(Step::Release),
        ]
    }

    /// The naive model: the list of live charges, and the admission rule read off it.
    fn model_admits(live: &[(u8, u8, u64)], caller: u8, room: u8, s: Shares) -> bool {
        let sum = |f: &dyn Fn(&(u8, u8, u64)) -> bool| -> u64 {
            live.iter().filter(|c| f(c)).map(|c| c.2).sum()
        };
        sum(&|c| c.0 == caller) < s.caller
            && sum(&|c| c.1 == room) < s.room
            && sum(&|_| true) < s.ceiling
    }

    proptest! {
        /// Charges and releases in any order admit exactly what the model admits, and
        /// every holder's total is the model's.
        #[test]
        fn charges_and_releases_agree_with_the_model(
            steps in proptest::collection::vec(step(), 0..200),
            ceiling in 1u64..80,
            caller in 1u64..40,
            room in 1u64..50,
        ) {
            let shares = Shares { ceiling, caller, room };
            let b = SharedBudget::new("model", shares);
            let callers: Vec<CallerId> = (0..4).map(|i| CallerId::of(&i.to_string())).collect();
            let rooms: Vec<RoomKey> = (0..3).map(|i| RoomKey::of(&i.to_string())).collect();
            let mut live: Vec<((u8, u8, u64), Charge)> = Vec::new();
            for s in steps {
                match s {
                    Step::Charge { caller, room, amount } => {
                        let model: Vec<_> = live.iter().map(|l| l.0).collect();
                        let admit = model_admits(&model, caller, room, shares);
                        let got = b.charge(callers[caller as usize], rooms[room as usize], Amount(amount));
                        prop_assert_eq!(admit, got.is_ok());
                        if let Ok(charge) = got {
                            live.push(((caller, room, amount), charge));
                        }
                    }
                    Step::Release(i) if !live.is_empty() => {
                        let i = i % live.len();
                        live.swap_remove(i);
                    }
                    Step::Release(_) => {}
                }
                b.assert_well_formed();
                let total: u64 = live.iter().map(|l| l.0.2).sum();
                prop_assert_eq!(b.held(), Amount(total));
                for (i, c) in callers.iter().enumerate() {
                    let held: u64 = live.iter().filter(|l| l.0.0 as usize == i).map(|l| l.0.2).sum();
                    prop_assert_eq!(b.held_by_caller(*c), Amount(held));
                }
                for (i, r) in rooms.iter().enumerate() {
                    let held: u64 = live.iter().filter(|l| l.0.1 as usize == i).map(|l| l.0.2).sum();
                    prop_assert_eq!(b.held_by_room(*r), Amount(held));
                }
            }
            drop(live);
            prop_assert_eq!(b.held(), Amount(0));
            b.assert_well_formed();
        }
    }
}
