//! Placement of new rooms: the live node with the fewest rooms, ties broken by a hash
//! of a per-request salt and the node's name (rendezvous hashing), so that nodes
//! placing rooms at the same moment, on the same counts, spread them. The counts are the
//! registry view's, raised by the rooms this node has just placed itself
//! ([`RecentPlacements`]): rooms created within milliseconds of each other would
//! otherwise all be placed on counts that do not show them yet.
//!
//! Invariant: a node without a live heartbeat is never chosen, and the choosing node
//! always can be (alone, it places everything on itself).

use std::collections::{BTreeMap, HashMap};

/// The rooms this node placed lately, per node: for a while after a placement a node
/// counts as holding at least what the view showed then plus the rooms placed on it
/// since, until the view (which shows a room once its lease is written and watched)
/// has had time to catch up.
#[derive(Debug, Default)]
pub(super) struct RecentPlacements {
    by_node: HashMap<String, Floor>,
}

/// At least `rooms` rooms, until `until_ms` (monotonic).
#[derive(Debug, Clone, Copy)]
struct Floor {
    rooms: u64,
    until_ms: u64,
}

impl RecentPlacements {
    /// Raises `counts` to the floors of this node's recent placements, and forgets the
    /// expired ones.
    pub(super) fn raise(&mut self, counts: &mut BTreeMap<String, u64>, now_ms: u64) {
        self.by_node.retain(|_, f| f.until_ms > now_ms);
        for (node, floor) in &self.by_node {
            if let Some(n) = counts.get_mut(node) {
                *n = (*n).max(floor.rooms);
            }
        }
    }

    /// Notes a room placed on `node`, which held `counted` rooms by the (raised)
    /// counts, remembered for `keep_ms`.
    pub(super) fn placed(&mut self, node: &str, counted: u64, now_ms: u64, keep_ms: u64) {
        self.by_node.insert(
            node.to_string(),
            Floor {
                rooms: counted + 1,
                until_ms: now_ms + keep_ms,
            },
        );
    }
}

/// Placement: among the nodes with a live heartbeat (a name left in a room record of a
/// dead node takes nothing) and this node (which always can), those with the fewest
/// rooms; of them, the one `salt` hashes highest with.
pub(super) fn choose(
    mut counts: BTreeMap<String, u64>,
    live: &std::collections::BTreeSet<String>,
    me: &str,
    salt: u64,
) -> String {
    counts.retain(|id, _| live.contains(id) || id == me);
    for id in live {
        counts.entry(id.clone()).or_insert(0);
    }
    counts.entry(me.to_string()).or_insert(0);
    let fewest = counts.values().copied().min().unwrap_or(0);
    counts
        .into_iter()
        .filter(|(_, n)| *n == fewest)
        .max_by_key(|(id, _)| mix(salt, id))
        .map(|(id, _)| id)
        .unwrap_or_else(|| me.to_string())
}

/// The salt of a room's successor choice: the same on every node.
pub(super) fn room_salt(room: &str) -> u64 {
    mix(0x0c1a_5e55_u64, room)
}

/// A stable 64-bit mix of a salt and a node name (rendezvous placement): FNV-1a of the
/// name, then SplitMix64's finalizer over it and the salt, so that every name is as
/// likely as any other to score highest.
fn mix(salt: u64, id: &str) -> u64 {
    let mut name = 0xcbf2_9ce4_8422_2325u64;
    for b in id.bytes() {
        name = (name ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    let mut z = salt ^ name;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use super::*;

    fn names(v: &[&str]) -> BTreeSet<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn placement_takes_the_fewest_and_only_live_nodes() {
        let live = names(&["a", "b", "c"]);
        let counts: BTreeMap<String, u64> = [
            ("a".into(), 3),
            ("b".into(), 1),
            ("c".into(), 2),
            ("dead".into(), 0),
        ]
        .into();
        for salt in 0..100 {
            assert_eq!(choose(counts.clone(), &live, "a", salt), "b");
        }
        // A live node with no room yet is not in the counts at all.
        let counts: BTreeMap<String, u64> = [("a".into(), 1), ("b".into(), 1)].into();
        assert_eq!(choose(counts, &live, "a", 7), "c");
        // Alone, a node places everything on itself.
        assert_eq!(choose(BTreeMap::new(), &BTreeSet::new(), "me", 3), "me");
    }

    #[test]
    fn ties_spread_and_sequential_placement_is_even() {
        let live = names(&["a", "b", "c"]);
        // Three nodes placing at once on the same (equal) counts pick differently.
        let mut picked = BTreeMap::<String, u32>::new();
        for salt in 0..3_000u64 {
            let s = salt.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            *picked
                .entry(choose(BTreeMap::new(), &live, "a", s))
                .or_default() += 1;
        }
        for (node, n) in &picked {
            assert!(
                (800..=1_200).contains(n),
                "{node} got {n} of 3,000 ties: {picked:?}"
            );
        }
        // Placed one after another, on counts that follow, 300 rooms end 100 each.
        let mut counts = BTreeMap::<String, u64>::new();
        for salt in 0..300 {
            *counts
                .entry(choose(counts.clone(), &live, "b", salt))
                .or_default() += 1;
        }
        assert_eq!(
            counts.values().copied().collect::<Vec<_>>(),
            [100, 100, 100]
        );
    }

    /// Places `n` rooms from node `me` on `view` counts that never change (the
    /// registry has not caught up), as rooms created within milliseconds are.
    fn place_burst(
        view: &BTreeMap<String, u64>,
        live: &BTreeSet<String>,
        n: u64,
    ) -> BTreeMap<String, u64> {
        let mut recent = RecentPlacements::default();
        let mut placed = BTreeMap::<String, u64>::new();
        for salt in 0..n {
            let mut counts = view.clone();
            for id in live {
                counts.entry(id.clone()).or_insert(0);
            }
            recent.raise(&mut counts, 1_000);
            let node = choose(counts.clone(), live, "a", salt.wrapping_mul(0x9e37_79b9));
            let counted = counts.get(&node).copied().unwrap_or(0);
            recent.placed(&node, counted, 1_000, 3_000);
            *placed.entry(node).or_default() += 1;
        }
        placed
    }

    #[test]
    fn rooms_created_within_milliseconds_spread_over_the_nodes() {
        let live = names(&["a", "b", "c"]);
        // Three rooms at once, on a view that shows none of them: one per node.
        let placed = place_burst(&BTreeMap::new(), &live, 3);
        assert_eq!(
            placed.values().copied().collect::<Vec<_>>(),
            [1, 1, 1],
            "{placed:?}"
        );
        // Thirty: ten each.
        let placed = place_burst(&BTreeMap::new(), &live, 30);
        assert_eq!(
            placed.values().copied().collect::<Vec<_>>(),
            [10, 10, 10],
            "{placed:?}"
        );
        // On a view that shows b with two rooms already, three more fill a and c first.
        let view: BTreeMap<String, u64> = [("b".into(), 2)].into();
        let placed = place_burst(&view, &live, 4);
        assert_eq!(placed.get("a"), Some(&2), "{placed:?}");
        assert_eq!(placed.get("c"), Some(&2), "{placed:?}");
        assert_eq!(placed.get("b"), None, "{placed:?}");
    }

    #[test]
    fn a_placement_is_forgotten_once_the_view_has_had_time_to_show_it() {
        let mut recent = RecentPlacements::default();
        recent.placed("a", 0, 1_000, 3_000);
        let mut counts: BTreeMap<String, u64> = [("a".into(), 0), ("b".into(), 0)].into();
        recent.raise(&mut counts, 2_000);
        assert_eq!(counts["a"], 1);
        // The view shows more than the floor: the view wins.
        let mut counts: BTreeMap<String, u64> = [("a".into(), 5)].into();
        recent.raise(&mut counts, 2_000);
        assert_eq!(counts["a"], 5);
        let mut counts: BTreeMap<String, u64> = [("a".into(), 0)].into();
        recent.raise(&mut counts, 4_001);
        assert_eq!(counts["a"], 0);
    }
}
