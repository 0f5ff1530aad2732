//! Self-checks: [`Hierarchy::assert_well_formed`] verifies every invariant the other files
//! promise, and [`Hierarchy::snapshot_for_tests`] dumps the whole observable state so that
//! tests can compare "before" and "after" exactly.
//!
//! Both cost O(room) and are meant for tests and debugging, never for the tick path.

use std::fmt::Write;

use canopy_protocol::NodeId;

use super::Hierarchy;
use super::changes::WithOldMask;
use super::idmap::RETIRED;
use super::slot::Slot;
use super::store::{SlotFlags, Trs};

impl Hierarchy {
    /// Panics with a message naming the broken invariant, if any: links, the id map,
    /// counters, the change set and its flags, the slot order (when it is meant to be
    /// valid) and, right after an update, final lists and every world transform.
    pub fn assert_well_formed(&self) {
        let st = &self.store;
        let n = st.len();
        assert!(
            st.xf.len() == n && st.extent.len() == n && st.mask.len() == n,
            "store arrays differ in length"
        );
        let mut live = 0;
        for (s, t) in st.topo.enumerate() {
            if !t.alive() {
                continue;
            }
            live += 1;
            let id = t.id;
            assert_eq!(self.slots.get(id), Some(s), "id map of node {id}");
            if t.parent.is_some() {
                let p = &st.topo[t.parent];
                assert!(p.alive(), "node {id} has a dead parent");
                if self.misordered.is_empty() {
                    assert!(
                        t.parent < s,
                        "node {id} (slot {s:?}) comes before its parent {} (slot {:?})",
                        p.id,
                        t.parent
                    );
                }
                if t.prev.is_none() {
                    assert_eq!(p.first_child, s, "first child of {}", p.id);
                }
                if t.next.is_none() {
                    assert_eq!(p.last_child, s, "last child of {}", p.id);
                }
            } else {
                assert!(
                    t.prev.is_none() && t.next.is_none(),
                    "root {id} has siblings"
                );
            }
            if t.prev.is_some() {
                let q = &st.topo[t.prev];
                assert!(q.alive() && q.next == s, "prev link of node {id}");
                assert_eq!(
                    q.parent, t.parent,
                    "sibling of node {id} has another parent"
                );
            }
            if t.next.is_some() {
                let q = &st.topo[t.next];
                assert!(q.alive() && q.prev == s, "next link of node {id}");
            }
            let mut count = 0;
            let mut c = t.first_child;
            let mut last = Slot::NONE;
            while c.is_some() {
                assert_eq!(st.topo[c].parent, s, "child list of node {id}");
                count += 1;
                assert!(count <= n, "child list of node {id} loops");
                last = c;
                c = st.topo[c].next;
            }
            assert_eq!(last, t.last_child, "last child of node {id}");
            let depth = self.depth_within(s, self.limits.max_depth);
            assert!(
                depth.is_some(),
                "node {id} is deeper than the limit or in a cycle"
            );
        }
        assert_eq!(live, self.live, "live count");
        assert_eq!(n - live, self.dead, "dead count");
        let mapped = self.slots.iter().filter(|&(_, s)| s != RETIRED).count();
        assert_eq!(mapped, live, "id map has entries for dead slots");
        for (id, v) in self.slots.iter() {
            assert_eq!(self.slots.is_live(id), v != RETIRED, "live bit of id {id}");
        }
        for p in &self.pending {
            assert!(
                self.contains(p.id()),
                "a buffered edit names a removed node"
            );
        }
        self.assert_tick_lists();
        if self.updated {
            self.assert_updated();
        }
    }

    /// The change set: flags match the lists, no id twice in a list, removed ids retired.
    fn assert_tick_lists(&self) {
        let st = &self.store;
        let c = &self.changes;
        let reshaped: Vec<NodeId> = c.reshaped.iter().map(|r| r.id).collect();
        for (flag, list, name) in [
            (SlotFlags::NEW, &c.added, "added"),
            (SlotFlags::REPARENTED, &c.reparented, "reparented"),
            (SlotFlags::RESHAPED, &reshaped, "reshaped"),
        ] {
            let mut seen = rustc_hash::FxHashSet::default();
            for &id in list {
                assert!(seen.insert(id), "{name} lists {id} twice");
                if let Some(s) = self.live_slot(id) {
                    assert!(
                        st.topo[s].flags.contains(flag),
                        "{name} lists {id} without its flag"
                    );
                }
            }
            let flagged = st
                .topo
                .iter()
                .filter(|t| t.alive() && t.flags.contains(flag))
                .count();
            let listed_live = list.iter().filter(|&&id| self.contains(id)).count();
            assert_eq!(flagged, listed_live, "{name} flags and list disagree");
        }
        let mut seen = rustc_hash::FxHashSet::default();
        for &WithOldMask { id, .. } in &c.removed {
            assert!(seen.insert(id), "removed lists {id} twice");
            assert!(
                self.was_used(id) && !self.contains(id),
                "removed lists {id}, which is not retired"
            );
        }
        assert!(
            c.removed.is_empty() || self.removed_this_tick,
            "removals listed in a tick that removed nothing"
        );
    }

    /// What holds right after an update: nothing left to settle, final change lists and
    /// every world transform exact.
    fn assert_updated(&self) {
        let st = &self.store;
        assert!(
            self.pending.is_empty(),
            "edits left unwritten after an update"
        );
        assert!(
            self.dirty_roots.is_empty(),
            "dirty roots left after an update"
        );
        assert!(
            self.misordered.is_empty(),
            "misordered nodes left after an update"
        );
        let c = &self.changes;
        let reshaped: Vec<NodeId> = c.reshaped.iter().map(|r| r.id).collect();
        for (list, name) in [
            (&c.added, "added"),
            (&c.reparented, "reparented"),
            (&reshaped, "reshaped"),
            (&c.moved, "moved"),
        ] {
            for &id in list {
                assert!(
                    self.contains(id),
                    "{name} lists {id}, removed, after an update"
                );
            }
        }
        for (s, t) in st.topo.enumerate() {
            if !t.alive() {
                continue;
            }
            let want = if t.parent.is_none() {
                st.xf[s].local
            } else {
                Trs::compose(&st.xf[t.parent].world, &st.xf[s].local)
            };
            assert!(
                want.same_bits(&st.xf[s].world),
                "world transform of node {} is stale after an update",
                t.id
            );
        }
    }

    /// A text dump of the whole observable state: every slot (dead ones included) with
    /// links, flags and bit patterns of the transforms, the id map, the counters and the
    /// per-tick lists. Two hierarchies with the same dump behave identically.
    pub fn snapshot_for_tests(&self) -> String {
        let mut out = String::new();
        let st = &self.store;
        let _ = writeln!(
            out,
            "live {} dead {} next_id {} updated {} removed_this_tick {}",
            self.live, self.dead, self.next_id, self.updated, self.removed_this_tick
        );
        for (s, t) in st.topo.enumerate() {
            let bits = |x: &Trs| {
                let mut v: Vec<u32> = x.r.to_array().iter().map(|f| f.to_bits()).collect();
                v.extend(x.t().to_array().iter().map(|f| f.to_bits()));
                v.push(x.s().to_bits());
                v
            };
            let _ = writeln!(
                out,
                "slot {}: id {} parent {} fc {} lc {} next {} prev {} flags {} local {:?} world {:?} extent {:?} mask {}",
                s.raw(),
                t.id,
                t.parent.raw(),
                t.first_child.raw(),
                t.last_child.raw(),
                t.next.raw(),
                t.prev.raw(),
                t.flags.bits(),
                // Buffered edits belong to the live slot of their node, not to a hole
                // that still holds the same id.
                bits(&if t.alive() {
                    self.effective_local(s)
                } else {
                    st.xf[s].local
                }),
                bits(&st.xf[s].world),
                st.extent[s].to_array().map(f32::to_bits),
                st.mask[s]
            );
        }
        let mut map: Vec<(u32, u32)> = self.slots.iter().map(|(id, s)| (id, s.raw())).collect();
        map.sort_unstable();
        let _ = writeln!(out, "map {map:?}");
        let _ = writeln!(
            out,
            "dirty {:?} misordered {:?}",
            self.dirty_roots, self.misordered
        );
        let _ = writeln!(out, "changes {:?}", self.changes);
        let mut cbs: Vec<(u32, usize)> =
            self.callbacks.iter().map(|(&k, v)| (k, v.len())).collect();
        cbs.sort_unstable();
        let _ = writeln!(out, "callbacks {cbs:?}");
        out
    }
}
