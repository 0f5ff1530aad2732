//! Which follow scopes a tick's changes concern: an index from nodes to the follow
//! scopes that hold them, from followed nodes to their followers, and a grid of the
//! scopes' centres, so that a changed node is looked at only by the scopes it can enter
//! or leave, and a scope nothing near it touched costs nothing.
//!
//! Without it each follow scope tested every changed node: 5,000 scopes in a room where
//! 50 avatars move cost 250,000 tests a tick for a few dozen crossings.
//!
//! **Invariant** ([`FollowIndex::assert_well_formed`], against the subscribers'
//! states): `holders` maps each node to exactly the connections whose live follow scope
//! holds it; `followers` maps each followed node to exactly the connections following
//! it; and each live follow scope is in the grid of its radius class, in the cell of its
//! placed centre, with that centre, its radius and its mask. A lost scope (its followed
//! node removed) is in none of them.

use canopy_protocol::NodeId;
use canopy_protocol::interest::Follow;
use glam::Vec3;
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use super::outbox::ConnId;

/// A follow scope as the grid holds it: enough to test a changed node's box against it
/// without looking the subscriber up.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Placed {
    conn: ConnId,
    centre: Vec3,
    radius: f32,
    /// `radius` squared and a little over, for the squared test.
    radius_squared: f32,
    mask: u32,
}

impl Placed {
    fn new(conn: ConnId, centre: Vec3, radius: f32, mask: u32) -> Self {
        let over = radius * (1.0 + 1e-5);
        Self {
            conn,
            centre,
            radius,
            radius_squared: over * over,
            mask,
        }
    }
}

/// A grid cell's coordinates.
type CellKey = [i32; 3];

/// The scopes of one radius class: cells twice as wide as the class's largest radius,
/// so a small box's neighbourhood of radius R spans at most two cells on each axis.
#[derive(Debug, Default)]
struct Grid {
    /// log2 of the cell width.
    class: i32,
    cells: FxHashMap<CellKey, SmallVec<[Placed; 2]>>,
}

/// Above this radius class the cells would overflow `i32` keys long before any world a
/// client can build: such scopes all share one class.
const MAX_CLASS: i32 = 100;
/// Below this, radii share one class (a radius of 0 has a neighbourhood all the same).
const MIN_CLASS: i32 = -10;

impl Grid {
    fn width(&self) -> f32 {
        (self.class as f32).exp2()
    }

    fn key(&self, p: Vec3) -> CellKey {
        // `as` saturates, so a far centre lands in an edge cell rather than wrapping.
        let w = self.width();
        [
            (p.x / w).floor() as i32,
            (p.y / w).floor() as i32,
            (p.z / w).floor() as i32,
        ]
    }

    /// Calls `visit` with every scope whose centre can be within its radius of the box
    /// `lo..hi` (a superset: the caller tests each).
    fn near(&self, lo: Vec3, hi: Vec3, mut visit: impl FnMut(&Placed)) {
        let reach = self.width() / 2.0;
        let (a, b) = (self.key(lo - reach), self.key(hi + reach));
        let span = |k: usize| i64::from(b[k]) - i64::from(a[k]) + 1;
        let cells = span(0).saturating_mul(span(1)).saturating_mul(span(2));
        if cells > self.cells.len() as i64 || self.class >= MAX_CLASS {
            // A box wider than the scopes are spread: fewer cells to read than to probe.
            // (In the top class a radius may exceed half the cell: every scope is read.)
            self.cells.values().flatten().for_each(visit);
            return;
        }
        for x in a[0]..=b[0] {
            for y in a[1]..=b[1] {
                for z in a[2]..=b[2] {
                    if let Some(list) = self.cells.get(&[x, y, z]) {
                        list.iter().for_each(&mut visit);
                    }
                }
            }
        }
    }
}

/// Takes one `conn` out of `id`'s list in `map`; true when it was there.
fn take_out(map: &mut FxHashMap<NodeId, SmallVec<[ConnId; 2]>>, id: NodeId, conn: ConnId) -> bool {
    let Some(list) = map.get_mut(&id) else {
        return false;
    };
    let Some(at) = list.iter().position(|c| *c == conn) else {
        return false;
    };
    list.swap_remove(at);
    if list.is_empty() {
        map.remove(&id);
    }
    true
}

/// The radius class of `radius`: the cell width is `2^class`, at least twice it.
fn class_of(radius: f32) -> i32 {
    (radius.max(f32::MIN_POSITIVE).log2().ceil() as i32 + 1).clamp(MIN_CLASS, MAX_CLASS)
}

/// A live follow scope as [`FollowIndex::assert_well_formed`] checks it against the
/// index: what its subscriber's state says.
pub(super) struct Indexed<'a> {
    pub(super) conn: ConnId,
    pub(super) follow: &'a Follow,
    pub(super) mask: u32,
    pub(super) anchor: Vec3,
    pub(super) reach: f32,
    pub(super) held: &'a FxHashSet<NodeId>,
    pub(super) watched: Box<dyn Iterator<Item = NodeId> + 'a>,
}

/// The index of a room's live follow scopes (see the module doc).
#[derive(Debug, Default)]
pub(super) struct FollowIndex {
    holders: FxHashMap<NodeId, SmallVec<[ConnId; 2]>>,
    /// Node → the connections whose scope's band files it (`follow_band.rs`).
    watchers: FxHashMap<NodeId, SmallVec<[ConnId; 2]>>,
    followers: FxHashMap<NodeId, SmallVec<[ConnId; 1]>>,
    /// By radius class, few in practice (clients of one game ask for similar radii).
    grids: Vec<Grid>,
    /// How many (node, scope) holdings `holders` has.
    held: usize,
}

impl FollowIndex {
    /// True when no live follow scope is indexed.
    pub(super) fn is_empty(&self) -> bool {
        self.followers.is_empty()
    }

    /// How many nodes the live follow scopes hold in all (one per scope and node).
    pub(super) fn held(&self) -> usize {
        self.held
    }

    /// Adds the live scope of `conn` following `f` from `anchor`, concerned with the
    /// changes within `reach` of it, holding `ids`.
    pub(super) fn register(
        &mut self,
        conn: ConnId,
        (f, mask, anchor, reach): (&Follow, u32, Vec3, f32),
        ids: impl Iterator<Item = NodeId>,
    ) {
        for id in ids {
            self.hold(id, conn);
        }
        self.followers.entry(f.node).or_default().push(conn);
        self.place(Placed::new(conn, anchor, reach, mask));
    }

    /// Takes out the live scope of `conn` (as [`FollowIndex::register`] put it in, at
    /// the anchor it was last placed at), releasing the `held` ids and unwatching the
    /// `watched` ones.
    pub(super) fn deregister(
        &mut self,
        conn: ConnId,
        (f, anchor, reach): (&Follow, Vec3, f32),
        (held, watched): (impl Iterator<Item = NodeId>, impl Iterator<Item = NodeId>),
    ) {
        for id in held {
            self.release(id, conn);
        }
        for id in watched {
            self.unwatch(id, conn);
        }
        self.lose(conn, (f, anchor, reach));
    }

    /// Takes out the scope of `conn` whose followed node is gone (it holds and watches
    /// nothing now).
    pub(super) fn lose(&mut self, conn: ConnId, (f, anchor, reach): (&Follow, Vec3, f32)) {
        if let Some(list) = self.followers.get_mut(&f.node) {
            list.retain(|c| *c != conn);
            if list.is_empty() {
                self.followers.remove(&f.node);
            }
        }
        self.unplace(conn, reach, anchor);
    }

    /// Records that the scope of `conn` now holds `id`.
    pub(super) fn hold(&mut self, id: NodeId, conn: ConnId) {
        self.holders.entry(id).or_default().push(conn);
        self.held += 1;
    }

    /// Records that the scope of `conn` no longer holds `id`.
    pub(super) fn release(&mut self, id: NodeId, conn: ConnId) {
        if take_out(&mut self.holders, id, conn) {
            self.held -= 1;
        }
    }

    /// Records that the band of `conn`'s scope files `id`.
    pub(super) fn watch(&mut self, id: NodeId, conn: ConnId) {
        self.watchers.entry(id).or_default().push(conn);
    }

    /// Records that the band of `conn`'s scope no longer files `id`.
    pub(super) fn unwatch(&mut self, id: NodeId, conn: ConnId) {
        take_out(&mut self.watchers, id, conn);
    }

    /// The connections whose scopes hold `id`, then those whose bands file it.
    pub(super) fn concerned(&self, id: NodeId) -> impl Iterator<Item = ConnId> + '_ {
        let held = self.holders.get(&id).into_iter().flatten();
        let watched = self.watchers.get(&id).into_iter().flatten();
        held.chain(watched).copied()
    }

    /// The connections following `node`.
    pub(super) fn followers_of(&self, node: NodeId) -> &[ConnId] {
        self.followers.get(&node).map_or(&[], |l| l.as_slice())
    }

    /// How many nodes are followed.
    pub(super) fn followed_nodes(&self) -> usize {
        self.followers.len()
    }

    /// The followed nodes.
    pub(super) fn followed(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.followers.keys().copied()
    }

    /// Moves the scope of `conn` (radius `f.radius`) from centre `from` to `to`.
    pub(super) fn move_centre(
        &mut self,
        conn: ConnId,
        (radius, mask): (f32, u32),
        from: Vec3,
        to: Vec3,
    ) {
        self.unplace(conn, radius, from);
        self.place(Placed::new(conn, to, radius, mask));
    }

    /// Calls `visit` with each connection whose scope's sphere (radius R around its
    /// placed centre) reaches the box `lo..hi` and whose mask shares a bit with `mask`.
    pub(super) fn within_radius(
        &self,
        (lo, hi, mask): (Vec3, Vec3, u32),
        mut visit: impl FnMut(ConnId),
    ) {
        for grid in &self.grids {
            grid.near(lo, hi, |p| {
                // Squared, in f32: routing may hand a scope a node on the edge it then
                // finds out of reach, so a radius a little over (`reach` is padded)
                // costs nothing, and the square root was most of the routing's time.
                let d = (lo - p.centre).max(p.centre - hi).max(Vec3::ZERO);
                if p.mask & mask != 0 && d.length_squared() <= p.radius_squared {
                    visit(p.conn);
                }
            });
        }
    }

    fn place(&mut self, p: Placed) {
        let class = class_of(p.radius);
        let at = match self.grids.iter().position(|g| g.class == class) {
            Some(at) => at,
            None => {
                self.grids.push(Grid {
                    class,
                    cells: FxHashMap::default(),
                });
                self.grids.len() - 1
            }
        };
        let grid = &mut self.grids[at];
        let key = grid.key(p.centre);
        grid.cells.entry(key).or_default().push(p);
    }

    fn unplace(&mut self, conn: ConnId, radius: f32, centre: Vec3) {
        let class = class_of(radius);
        let Some(at) = self.grids.iter().position(|g| g.class == class) else {
            return;
        };
        let grid = &mut self.grids[at];
        let key = grid.key(centre);
        if let Some(list) = grid.cells.get_mut(&key) {
            list.retain(|p| p.conn != conn);
            if list.is_empty() {
                grid.cells.remove(&key);
            }
        }
        if grid.cells.is_empty() {
            self.grids.swap_remove(at);
        }
    }

    /// Panics unless the index is exactly what `scopes` (each live follow scope's
    /// connection, follow, mask, placed centre and held ids) make.
    pub(super) fn assert_well_formed<'a>(&self, scopes: impl Iterator<Item = Indexed<'a>>) {
        let mut holders: FxHashMap<NodeId, Vec<ConnId>> = FxHashMap::default();
        let mut watchers: FxHashMap<NodeId, Vec<ConnId>> = FxHashMap::default();
        let mut followers: FxHashMap<NodeId, Vec<ConnId>> = FxHashMap::default();
        let mut placed = 0;
        for Indexed {
            conn,
            follow: f,
            mask,
            anchor: centre,
            reach,
            held,
            watched,
        } in scopes
        {
            for &id in held {
                holders.entry(id).or_default().push(conn);
            }
            for id in watched {
                watchers.entry(id).or_default().push(conn);
            }
            followers.entry(f.node).or_default().push(conn);
            let grid = self.grids.iter().find(|g| g.class == class_of(reach));
            let want = Placed::new(conn, centre, reach, mask);
            let found = grid.and_then(|g| g.cells.get(&g.key(centre)));
            assert!(
                found.is_some_and(|l| l.contains(&want)),
                "connection {conn}'s follow scope is not in the grid at {centre}"
            );
            placed += 1;
        }
        let sorted = |m: FxHashMap<NodeId, Vec<ConnId>>| {
            let mut v: Vec<_> = m
                .into_iter()
                .map(|(k, mut l)| (l.sort_unstable(), (k, l)).1)
                .collect();
            v.sort_unstable();
            v
        };
        let have = |m: &FxHashMap<NodeId, SmallVec<[ConnId; 2]>>| {
            m.iter()
                .map(|(k, l)| (*k, l.to_vec()))
                .collect::<FxHashMap<_, _>>()
        };
        assert_eq!(sorted(have(&self.holders)), sorted(holders), "holders");
        assert_eq!(sorted(have(&self.watchers)), sorted(watchers), "watchers");
        let followers_have = self
            .followers
            .iter()
            .map(|(k, l)| (*k, l.to_vec()))
            .collect::<FxHashMap<_, _>>();
        assert_eq!(sorted(followers_have), sorted(followers), "followers");
        let in_grid: usize = self
            .grids
            .iter()
            .flat_map(|g| g.cells.values())
            .map(|l| l.len())
            .sum();
        assert_eq!(in_grid, placed, "scopes in the grid");
        assert_eq!(
            self.held,
            self.holders.values().map(|l| l.len()).sum::<usize>(),
            "held count"
        );
    }
}

#[cfg(test)]
mod tests {
    use canopy_scene::octree::point_aabb_dist;

    use super::*;

    fn follow(node: NodeId, radius: f32) -> Follow {
        Follow {
            node,
            radius,
            margin: None,
        }
    }

    /// The grid finds exactly what a scan of every scope finds, for radii of several
    /// classes and boxes of several sizes.
    #[test]
    fn within_radius_matches_a_scan() {
        let mut index = FollowIndex::default();
        let mut scopes = Vec::new();
        for i in 0..300u32 {
            let c = Vec3::new(
                ((i * 37) % 200) as f32 - 100.0,
                ((i * 11) % 7) as f32,
                ((i * 53) % 190) as f32 - 95.0,
            );
            let r = [0.0, 3.0, 12.5, 40.0][i as usize % 4];
            let f = follow(i, r);
            index.register(u64::from(i), (&f, 1 << (i % 3), c, r), std::iter::empty());
            scopes.push((u64::from(i), c, r, 1u32 << (i % 3)));
        }
        for (j, size) in [0.0f32, 1.0, 30.0, 500.0].into_iter().enumerate() {
            for k in 0..40 {
                let lo = Vec3::new(k as f32 * 5.0 - 100.0, 2.0, 50.0 - k as f32 * 4.0);
                let hi = lo + Vec3::splat(size);
                let mask = 1 | (j as u32 % 2) << 2;
                let mut got = Vec::new();
                index.within_radius((lo, hi, mask), |c| got.push(c));
                got.sort_unstable();
                let within = |r: f32| -> Vec<_> {
                    let near = |(_, c, rad, m): &&(u64, Vec3, f32, u32)| {
                        m & mask != 0 && point_aabb_dist(*c, lo, hi) <= *rad * r
                    };
                    scopes.iter().filter(near).map(|s| s.0).collect()
                };
                // Everything within the radius, and nothing past it but by rounding.
                let (want, at_most) = (within(1.0), within(1.0 + 1e-4));
                assert!(
                    want.iter().all(|c| got.contains(c)),
                    "box {lo}..{hi}: {got:?}"
                );
                assert!(
                    got.iter().all(|c| at_most.contains(c)),
                    "box {lo}..{hi}: {got:?}"
                );
            }
        }
    }
}
