//! Fuzz target: the edit applier never panics and keeps every invariant, whatever the
//! batches.
//!
//! The input (built with `arbitrary`) is a hierarchy's limits and a list of ticks, each a
//! few batches followed by a dirty or a full update. Batches mix valid and invalid ops:
//! numbers range over NaN, infinities, zero, negative zero, subnormals, huge powers of two
//! and raw bit patterns; ids refer to live nodes, to retired ones, to ids given earlier in
//! the same batch, to raw values or to a node's own descendants (so `set_parent` makes
//! cycles); trees of adds build deep hierarchies quickly so that removes take whole
//! subtrees and scale chains overflow.
//!
//! After every batch, the result equals the prediction of the independent model shared
//! with the property tests (the `canopy-scene-model` crate, `scene/model/`, with its
//! hostile numbers), and then:
//! - accepted: one id per `add`, the hierarchy is well formed
//!   (`assert_well_formed`), its state equals the model's, and no stored number is
//!   non-finite;
//! - refused: the error names an op of the batch, its message starts with `op N:`, and
//!   the whole observable state (`snapshot_for_tests`) is exactly as before the batch.
//!
//! After every update, `assert_well_formed` also checks every world transform bit for bit
//! against its parent's, and every world value must be finite.

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use canopy_protocol::{NodeId, Op, Transform};
use canopy_scene::{Hierarchy, HierarchyLimits};
use libfuzzer_sys::fuzz_target;

use canopy_scene_model as scene_model;

use scene_model::num::{Num, v3, v4};
use scene_model::{Expect, Model};

/// The fuzzer's way to the shared hostile numbers, biased towards the values that break
/// geometry code: small integers, fractions of 256, `±2^k` from subnormal to near
/// `f32::MAX`, the special values and any bit pattern.
impl<'a> Arbitrary<'a> for Num {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Num> {
        Ok(match u.int_in_range(0u8..=4)? {
            0 => Num::Plain(f32::from(i8::arbitrary(u)?)),
            1 => Num::Plain(f32::from(i16::arbitrary(u)?) / 256.0),
            2 => Num::Pow(bool::arbitrary(u)?, i32::from(i8::arbitrary(u)?)),
            3 => Num::Special(u8::arbitrary(u)?),
            _ => Num::Plain(f32::from_bits(u32::arbitrary(u)?)),
        })
    }
}

/// How an op names a node; resolved against the state at the start of the batch.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum IdRef {
    /// A live node (index into the live ids, modulo their count).
    Live(u8),
    /// Any id ever used, live or retired.
    Used(u8),
    /// An id given explicitly by an earlier op of the same batch.
    InBatch(u8),
    /// A descendant of a live node (for cycles and subtree removes).
    Descendant(u8, u8),
    Raw(u32),
    Zero,
    Max,
}

/// A `set_parent` target: a node or `null`.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum ParentRef {
    Root,
    Node(IdRef),
    /// The node itself.
    Itself,
    /// One of the node's own descendants: always a cycle when the node is live.
    OwnDescendant(u8),
}

#[derive(Arbitrary, Debug, Clone)]
enum FOp {
    Add {
        id: Option<IdRef>,
        parent: Option<IdRef>,
        t: [Num; 3],
        r: Option<[Num; 4]>,
        s: Num,
        extent: [Num; 3],
        mask: u32,
    },
    SetLocal {
        node: IdRef,
        t: Option<[Num; 3]>,
        r: Option<[Num; 4]>,
        s: Option<Num>,
    },
    SetParent {
        node: IdRef,
        parent: ParentRef,
    },
    SetShape {
        node: IdRef,
        extent: Option<[Num; 3]>,
        mask: Option<u32>,
    },
    Remove {
        node: IdRef,
    },
    /// A chain or fan of adds: each node's parent is one of the nodes before it in the
    /// tree (`back` steps back) or the tree's anchor (a live node or none).
    Tree {
        anchor: Option<IdRef>,
        nodes: Vec<(u8, Num, bool)>,
    },
}

#[derive(Arbitrary, Debug)]
struct Tick {
    batches: Vec<Vec<FOp>>,
    /// `update_all` instead of `update_dirty`.
    full: bool,
}

#[derive(Arbitrary, Debug)]
struct Input {
    max_nodes: Option<u8>,
    max_depth: Option<u8>,
    ticks: Vec<Tick>,
}

/// What op resolution may refer to: the state at the start of the batch.
struct Ctx {
    live: Vec<NodeId>,
    used: Vec<NodeId>,
    in_batch: Vec<NodeId>,
}

fn pick(list: &[NodeId], i: u8) -> Option<NodeId> {
    (!list.is_empty()).then(|| list[usize::from(i) % list.len()])
}

/// An id that no test ever creates, for "unknown" references to an empty list.
const NOWHERE: NodeId = 3_999_999_999;

impl Ctx {
    fn resolve(&self, h: &Hierarchy, r: IdRef) -> NodeId {
        match r {
            IdRef::Live(i) => pick(&self.live, i).unwrap_or(NOWHERE),
            IdRef::Used(i) => pick(&self.used, i).unwrap_or(NOWHERE),
            IdRef::InBatch(i) => pick(&self.in_batch, i).unwrap_or(NOWHERE),
            IdRef::Descendant(i, j) => match pick(&self.live, i) {
                Some(n) if h.contains(n) => descendant(h, n, j),
                _ => NOWHERE,
            },
            IdRef::Raw(v) => v,
            IdRef::Zero => 0,
            IdRef::Max => u32::MAX,
        }
    }
}

fn descendant(h: &Hierarchy, node: NodeId, j: u8) -> NodeId {
    let sub: Vec<NodeId> = h.descendants(node).take(256).collect();
    pick(&sub, j).unwrap_or(node)
}

fn local(t: [Num; 3], r: Option<[Num; 4]>, s: Num) -> Transform {
    let r = r.map_or(Transform::IDENTITY.r, v4);
    Transform::from_t(v3(t)).with_r(r).with_s(s.get())
}

/// Turns the fuzzer's ops into wire ops (a `Tree` becomes several adds).
fn resolve_batch(h: &Hierarchy, ctx: &mut Ctx, fops: &[FOp]) -> Vec<Op> {
    let mut ops = Vec::new();
    for f in fops {
        match f {
            FOp::Add {
                id,
                parent,
                t,
                r,
                s,
                extent,
                mask,
            } => {
                let id = id.map(|i| ctx.resolve(h, i));
                if let Some(id) = id {
                    ctx.in_batch.push(id);
                }
                let parent = parent.map(|p| ctx.resolve(h, p));
                let op = Op::add(id, parent, local(*t, *r, *s));
                ops.push(op.with_extent(v3(*extent)).with_mask(*mask));
            }
            FOp::SetLocal { node, t, r, s } => ops.push(Op::set_local(
                ctx.resolve(h, *node),
                t.map(v3),
                r.map(v4),
                s.map(Num::get),
            )),
            FOp::SetParent { node, parent } => {
                let node = ctx.resolve(h, *node);
                let parent = match *parent {
                    ParentRef::Root => None,
                    ParentRef::Node(p) => Some(ctx.resolve(h, p)),
                    ParentRef::Itself => Some(node),
                    ParentRef::OwnDescendant(j) if h.contains(node) => Some(descendant(h, node, j)),
                    ParentRef::OwnDescendant(_) => Some(node),
                };
                ops.push(Op::set_parent(node, parent));
            }
            FOp::SetShape { node, extent, mask } => {
                let node = ctx.resolve(h, *node);
                ops.push(Op::set_shape(node, extent.map(v3), *mask));
            }
            FOp::Remove { node } => ops.push(Op::remove(ctx.resolve(h, *node))),
            FOp::Tree { anchor, nodes } => {
                // Explicit ids past every id the other ops are likely to use, so that
                // the tree's own parent links resolve.
                let anchor = anchor.map(|a| ctx.resolve(h, a));
                let base = ctx
                    .used
                    .iter()
                    .chain(&ctx.in_batch)
                    .max()
                    .map_or(1_000_000, |m| m.saturating_add(1).max(1_000_000));
                let mut tree: Vec<NodeId> = Vec::new();
                for (k, &(back, s, root)) in nodes.iter().enumerate() {
                    let Some(id) = base.checked_add(k as u32) else {
                        break;
                    };
                    let parent = if root || tree.is_empty() {
                        anchor
                    } else {
                        Some(tree[tree.len() - 1 - usize::from(back) % tree.len()])
                    };
                    let local = Transform::from_xyz(1.0, 0.0, 0.0).with_s(s.get());
                    ops.push(Op::add(Some(id), parent, local).with_extent([0.5; 3]));
                    tree.push(id);
                    ctx.in_batch.push(id);
                }
            }
        }
    }
    ops
}

/// Every stored number of every live node is finite.
fn assert_finite(h: &Hierarchy) {
    for node in h.iter_nodes() {
        let w = node.world;
        let l = h.local(node.id).expect("iter_nodes yields live nodes");
        let scalars = [w.s, l.s];
        let mut all = w.t.iter().chain(&w.r).chain(&l.t).chain(&l.r);
        assert!(
            all.all(|v| v.is_finite()) && scalars.iter().chain(&node.extent).all(|v| v.is_finite()),
            "node {} holds a non-finite number: {node:?} local {l:?}",
            node.id
        );
    }
}

fn run(input: Input) {
    let defaults = HierarchyLimits::DEFAULT;
    let limits = HierarchyLimits {
        max_nodes: input.max_nodes.map_or(defaults.max_nodes, usize::from),
        max_depth: input.max_depth.map_or(defaults.max_depth, usize::from),
        ..defaults
    };
    let mut h = Hierarchy::with_limits(limits);
    let mut m = Model::new(limits);
    for tick in input.ticks.iter().take(32) {
        for fops in tick.batches.iter().take(8) {
            let mut ctx = Ctx {
                live: h.ids().collect(),
                used: m.used.iter().copied().collect(),
                in_batch: Vec::new(),
            };
            let ops = resolve_batch(&h, &mut ctx, fops);
            let adds = ops.iter().filter(|op| matches!(op, Op::Add { .. })).count();
            let (expect, next) = m.apply_batch(&ops);
            let before = h.snapshot_for_tests();
            let got = h.apply_batch(&ops);
            match (&expect, &got) {
                (Expect::Ok(ids), Ok(got_ids)) => assert_eq!(ids, got_ids, "ids of {ops:?}"),
                (Expect::Err(errors), Err(e)) => {
                    let found = (e.op, e.error.code());
                    assert!(errors.contains(&found), "{e}, expected {errors:?} for {ops:?}");
                }
                (Expect::Either, _) => {}
                _ => panic!("model {expect:?}, hierarchy {got:?} for {ops:?}"),
            }
            match got {
                Ok(ids) => {
                    assert_eq!(ids.len(), adds, "one id per add");
                    m = next.expect("an accepted batch has a model");
                    h.assert_well_formed();
                    m.assert_matches(&h);
                    assert_finite(&h);
                }
                Err(e) => {
                    assert!((e.op as usize) < ops.len(), "{e} names no op of {ops:?}");
                    assert!(e.to_string().starts_with(&format!("op {}:", e.op)), "{e}");
                    assert_eq!(
                        h.snapshot_for_tests(),
                        before,
                        "refused batch {e} changed the state"
                    );
                }
            }
        }
        if tick.full {
            h.update_all();
        } else {
            h.update_dirty();
        }
        h.assert_well_formed();
        assert_finite(&h);
        h.finish_tick();
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) {
        run(input);
    }
});
