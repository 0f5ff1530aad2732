//! The forward sweep over a run of slots, four nodes at a time where it can: the loop of
//! the full update, serial (`propagate.rs`, one run: every slot) and parallel
//! (`par_sweep.rs`, one run per chunk).
//!
//! Four consecutive slots are computed together (`lanes.rs`) when all four are live
//! children whose parents come before the first of them: then the parents' world
//! transforms are final and none of the four reads another's. Anything else (a root, a
//! hole, a parent inside the group, as in a chain, or the last slots of a run) is
//! computed alone, and the next group starts at the following slot, so one odd slot
//! costs one slot of the fast path, not four. In the common layouts (a parent's children
//! added one after another, or relocated subtrees in pre-order after their root) most
//! groups qualify.
//!
//! Invariant: every node gets exactly the world transform and the `moved` entry the
//! one-at-a-time loop would give, in slot order: the lanes compute the same bits
//! (`lanes.rs`), and each group's results are compared and listed in slot order.

use canopy_protocol::NodeId;

use super::lanes::{self, gather4, scatter4, splat4};
use super::store::{SlotFlags, Topo, Trs, Xf};

/// Recomputes the world transforms of the slots `base .. base + xf.len()` in slot order,
/// `topo` being their records: a parent at or above `base` is read from `xf` (it comes
/// earlier in the run), one below from `outer`. Appends the ids of the nodes whose world
/// transform changed, in slot order, to `moved` (nodes added this tick excepted).
#[inline(always)]
pub(crate) fn sweep_run<'o>(
    topo: &[Topo],
    xf: &mut [Xf],
    base: usize,
    mut outer: impl FnMut(usize) -> &'o Trs,
    moved: &mut Vec<NodeId>,
) {
    let n = xf.len().min(topo.len());
    let (topo, xf) = (&topo[..n], &mut xf[..n]);
    let mut i = 0;
    while i < n {
        let (done, rest) = xf.split_at_mut(i);
        if let (Some(t), Some(x)) = (topo[i..].first_chunk::<4>(), rest.first_chunk_mut::<4>()) {
            // Parents strictly before the group (`Slot::NONE`, a root, is above any).
            let first = (base + i) as u32;
            let ok = t
                .iter()
                .fold(true, |ok, t| ok & t.alive() & (t.parent.raw() < first));
            if ok {
                let done: &[Xf] = done;
                let mut parent = |t: &Topo| parent(done, base, t.parent.index(), &mut outer);
                // Siblings (children added one after another) share one parent: its
                // transform is broadcast rather than transposed from four copies.
                let same = t[1..].iter().all(|s| s.parent == t[0].parent);
                let parents = if same {
                    splat4(parent(&t[0]))
                } else {
                    gather4([parent(&t[0]), parent(&t[1]), parent(&t[2]), parent(&t[3])])
                };
                let locals = [&x[0].local, &x[1].local, &x[2].local, &x[3].local];
                let worlds = scatter4(lanes::compose(&parents, &gather4(locals)));
                for ((t, x), world) in t.iter().zip(x.iter_mut()).zip(worlds) {
                    store(t, &mut x.world, world, moved);
                }
                i += 4;
                continue;
            }
        }
        let t = &topo[i];
        if t.alive() {
            let x = &mut rest[0];
            let world = if t.parent.is_none() {
                x.local
            } else {
                let p = t.parent.index();
                debug_assert!(p < base + i, "parent after child in slot order");
                Trs::compose(parent(done, base, p, &mut outer), &x.local)
            };
            store(t, &mut x.world, world, moved);
        }
        i += 1;
    }
}

/// The world transform of the parent in slot `p`: in the run (`done`, from `base` on)
/// or before it.
#[inline(always)]
fn parent<'a, 'o: 'a>(
    done: &'a [Xf],
    base: usize,
    p: usize,
    outer: &mut impl FnMut(usize) -> &'o Trs,
) -> &'a Trs {
    match p.checked_sub(base) {
        Some(local) => &done[local].world,
        None => outer(p),
    }
}

/// Writes a recomputed world transform if it changed, and lists the node as moved unless
/// it was added this tick.
#[inline(always)]
pub(crate) fn store(t: &Topo, old: &mut Trs, world: Trs, moved: &mut Vec<NodeId>) {
    if !world.same_bits(old) {
        *old = world;
        if !t.flags.contains(SlotFlags::NEW) {
            moved.push(t.id);
        }
    }
}
