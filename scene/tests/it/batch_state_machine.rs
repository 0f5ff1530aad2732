//! State-machine test of atomic edit batches against the independent model
//! (`scene_model/`).
//!
//! Each case picks small limits (nodes, depth), then runs a sequence of steps; a step is
//! one batch, resolved against the model as it goes so that later ops can name nodes the
//! earlier ones made, and most steps end with an update. The batches mix every op with
//! every error kind of docs/protocol.md §2: non-finite numbers, zero and negative scales, negative
//! extents, tiny quaternions, unknown nodes and parents (including retired ids), live and
//! retired duplicate ids, cycles, too many nodes, too deep a hierarchy, and world values
//! pushed past the documented range (`WORLD_LIMIT`, huge scales down a chain), which the
//! model predicts from the guard's documented rule.
//!
//! After every batch:
//! - the result (the ids of the adds, or the error's code and op index) equals the
//!   model's prediction;
//! - the state equals the model: parents, child order, local transforms, extents, masks,
//!   used ids and the next server-assigned id; after an update, world transforms too,
//!   within f32 tolerance of the model's f64 recursion;
//! - `assert_well_formed()` holds, and a refused batch left the dump unchanged.
//!
//! `tests/scene_props.rs` covers what this test leaves out (per-tick change lists, the
//! set of recomputed nodes, traversal orders, default limits); this one covers result
//! prediction for hostile values and limits.
//!
//! `PROPTEST_CASES` sets the number of cases (default 200, about 5 s in a debug build).

use std::collections::HashSet;

use canopy_protocol::{ErrorCode, NodeId, Op, Transform};
use canopy_scene::{Hierarchy, HierarchyLimits};
use proptest::prelude::*;

use canopy_scene_model as scene_model;

use scene_model::num::{NON_FINITE, Num, v3};
use scene_model::{Expect, Model, UNKNOWN, dquat, dvec, finite};

/// A valid coordinate: mostly small, sometimes huge (a few of those along a chain push
/// the world translation past the limit).
fn coord() -> impl Strategy<Value = Num> {
    prop_oneof![
        30 => (-10.0f32..10.0).prop_map(Num::Plain),
        1 => Just(Num::Plain(-0.0)),
        1 => (any::<bool>(), 90i32..=99).prop_map(|(n, k)| Num::Pow(n, k)),
    ]
}

fn vec3() -> impl Strategy<Value = [Num; 3]> {
    prop::array::uniform3(coord())
}

/// A valid scale: mostly moderate, sometimes a huge power of two (two or three of them
/// down a chain leave the world range) or a small one.
fn scale() -> impl Strategy<Value = Num> {
    prop_oneof![
        12 => (0.5f32..2.0).prop_map(Num::Plain),
        2 => prop_oneof![Just(-8), Just(20), Just(40), Just(60)].prop_map(|k| Num::Pow(false, k)),
    ]
}

/// A valid extent (`-0.0` counts as `>= 0`), sometimes too large for the world range.
fn extent() -> impl Strategy<Value = [Num; 3]> {
    prop::array::uniform3(prop_oneof![
        20 => (0.0f32..5.0).prop_map(Num::Plain),
        1 => Just(Num::Plain(-0.0)),
        1 => prop_oneof![Just(90), Just(99), Just(100)].prop_map(|k| Num::Pow(false, k)),
    ])
}

/// A valid rotation: any quaternion clear of the length limit, sometimes a huge one.
fn quat() -> impl Strategy<Value = [f32; 4]> {
    prop_oneof![
        10 => prop::array::uniform4(-1.0f32..1.0).prop_filter("clear of the length limit", |r| {
            r.iter().map(|&x| f64::from(x).powi(2)).sum::<f64>().sqrt() > 1e-3
        }),
        1 => Just([1e30, 0.0, 0.0, 1e30]),
    ]
}

/// How an op names a live node, resolved against the model when the op is reached.
#[derive(Clone, Copy, Debug)]
enum Who {
    /// Index into the live nodes in creation order.
    Live(usize),
    /// The most recently created live node (long chains, batch-local references).
    Newest,
}

fn who() -> impl Strategy<Value = Who> {
    prop_oneof![3 => any::<usize>().prop_map(Who::Live), 1 => Just(Who::Newest)]
}

/// The id of an `add`: mostly server-assigned, sometimes given (small ids collide with
/// assigned ones; ids near `u32::MAX` test the top of the range).
fn new_id() -> impl Strategy<Value = Option<u32>> {
    prop_oneof![
        7 => Just(None),
        2 => prop_oneof![0u32..40, (u32::MAX - 3)..=u32::MAX].prop_map(Some),
    ]
}

/// A deliberately bad op, one per error kind of docs/protocol.md §2 (resolved against the model).
#[derive(Clone, Copy, Debug)]
enum Bad {
    /// A non-finite value in one of the fields of `add`, `set_local` or `set_shape`.
    NonFinite(u8),
    /// A scale of 0 or -1 (`add` or `set_local`).
    NonPositiveScale(bool, bool),
    /// A negative extent (`add` or `set_shape`).
    NegativeExtent(bool),
    /// A quaternion shorter than 1e-6 or zero (`add` or `set_local`).
    ShortQuat(bool, bool),
    /// An id that was never used, as the node of each op kind.
    UnknownNode(u8),
    /// A removed node's id, as the node of each op kind.
    RetiredNode(u8),
    /// An unknown or retired parent (`add` or `set_parent`).
    UnknownParent(bool, bool),
    /// An `add` with a live id or a retired one.
    Duplicate(bool),
    /// A node moved under itself or one of its descendants.
    Cycle(usize),
    /// An `add` or a move under the deepest node (`too_large` at the depth limit).
    Deepest(bool),
    /// Finite values whose world transform leaves the range: a huge scale, translation or
    /// extent.
    Huge(u8),
}

fn bad() -> impl Strategy<Value = Bad> {
    prop_oneof![
        any::<u8>().prop_map(Bad::NonFinite),
        (any::<bool>(), any::<bool>()).prop_map(|(z, a)| Bad::NonPositiveScale(z, a)),
        any::<bool>().prop_map(Bad::NegativeExtent),
        (any::<bool>(), any::<bool>()).prop_map(|(z, a)| Bad::ShortQuat(z, a)),
        any::<u8>().prop_map(Bad::UnknownNode),
        any::<u8>().prop_map(Bad::RetiredNode),
        (any::<bool>(), any::<bool>()).prop_map(|(r, a)| Bad::UnknownParent(r, a)),
        any::<bool>().prop_map(Bad::Duplicate),
        any::<usize>().prop_map(Bad::Cycle),
        any::<bool>().prop_map(Bad::Deepest),
        any::<u8>().prop_map(Bad::Huge),
    ]
}

#[derive(Clone, Debug)]
enum AOp {
    Add {
        id: Option<u32>,
        parent: Option<Who>,
        t: [Num; 3],
        r: [f32; 4],
        s: Num,
        extent: [Num; 3],
        mask: u32,
    },
    SetLocal {
        node: Who,
        t: Option<[Num; 3]>,
        r: Option<[f32; 4]>,
        s: Option<Num>,
    },
    SetParent {
        node: Who,
        parent: Option<Who>,
    },
    SetShape {
        node: Who,
        extent: Option<[Num; 3]>,
        mask: Option<u32>,
    },
    Remove {
        node: Who,
    },
    Bad(Bad, Who),
}

/// An op with valid values (it may still fail against the state: a parent chain too
/// deep, a cycle, too many nodes, a world out of range).
fn aop() -> impl Strategy<Value = AOp> {
    prop_oneof![
        5 => (new_id(), prop::option::weighted(0.8, who()), vec3(), quat(), scale(), extent(), any::<u32>())
            .prop_map(|(id, parent, t, r, s, extent, mask)| AOp::Add { id, parent, t, r, s, extent, mask }),
        3 => (who(), prop::option::of(vec3()), prop::option::of(quat()), prop::option::of(scale()))
            .prop_map(|(node, t, r, s)| AOp::SetLocal { node, t, r, s }),
        3 => (who(), prop::option::weighted(0.8, who()))
            .prop_map(|(node, parent)| AOp::SetParent { node, parent }),
        1 => (who(), prop::option::of(extent()), prop::option::of(any::<u32>()))
            .prop_map(|(node, extent, mask)| AOp::SetShape { node, extent, mask }),
        1 => who().prop_map(|node| AOp::Remove { node }),
    ]
}

/// A batch: ops with valid values, and in about 40% of the batches one bad op at a
/// random position.
fn batch() -> impl Strategy<Value = Vec<AOp>> {
    (
        prop::collection::vec(aop(), 0..6),
        prop::option::weighted(0.4, (any::<usize>(), bad(), who())),
    )
        .prop_map(|(mut ops, bad)| {
            if let Some((pos, b, w)) = bad {
                ops.insert(pos % (ops.len() + 1), AOp::Bad(b, w));
            }
            ops
        })
}

fn resolve_who(m: &Model, w: Who) -> NodeId {
    match w {
        Who::Live(i) => m.pick(i),
        Who::Newest => m.live().last().copied().unwrap_or(UNKNOWN),
    }
}

/// A server-assigned `add` (every layer) under `parent`.
fn add(parent: Option<NodeId>, local: Transform, extent: [f32; 3]) -> Op {
    Op::add(None, parent, local).with_extent(extent)
}

/// An op of kind `k` (set_local, set_shape, remove, set_parent) on `node`.
fn op_on(k: u8, node: NodeId) -> Op {
    match k % 4 {
        0 => Op::set_t(node, [1.0; 3]),
        1 => Op::set_shape(node, None, Some(1)),
        2 => Op::remove(node),
        _ => Op::set_parent(node, None),
    }
}

/// Turns a deliberately bad op into a wire op against the model's current state.
fn resolve_bad(m: &Model, b: Bad, w: Who) -> Op {
    const ID: Transform = Transform::IDENTITY;
    let node = resolve_who(m, w);
    let set_local = |t, r, s| Op::set_local(node, t, r, s);
    let deepest = || {
        let live = m.live().into_iter();
        live.max_by_key(|&id| m.depth(id)).unwrap_or(UNKNOWN)
    };
    match b {
        Bad::NonFinite(k) => {
            let v = NON_FINITE[usize::from(k / 8) % 3];
            match k % 8 {
                0 => add(None, Transform::from_xyz(0.0, v, 0.0), [0.0; 3]),
                1 => add(None, ID.with_s(v), [0.0; 3]),
                2 => add(None, ID.with_r([0.0, 0.0, v, 1.0]), [0.0; 3]),
                3 => add(None, ID, [v, 0.0, 0.0]),
                4 => set_local(Some([v, 0.0, 0.0]), None, None),
                5 => set_local(None, Some([v, 0.0, 0.0, 1.0]), None),
                6 => set_local(None, None, Some(v)),
                _ => Op::set_shape(node, Some([0.0, 0.0, v]), None),
            }
        }
        Bad::NonPositiveScale(zero, on_add) => {
            let s = if zero { 0.0 } else { -1.0 };
            if on_add {
                add(None, ID.with_s(s), [0.0; 3])
            } else {
                set_local(None, None, Some(s))
            }
        }
        Bad::NegativeExtent(on_add) => {
            if on_add {
                add(None, ID, [1.0, -0.5, 0.0])
            } else {
                Op::set_shape(node, Some([1.0, -0.5, 0.0]), None)
            }
        }
        Bad::ShortQuat(zero, on_add) => {
            let r = if zero {
                [0.0; 4]
            } else {
                [1e-7, 0.0, 0.0, 0.0]
            };
            if on_add {
                add(None, ID.with_r(r), [0.0; 3])
            } else {
                set_local(None, Some(r), None)
            }
        }
        Bad::UnknownNode(k) => op_on(k, UNKNOWN),
        Bad::RetiredNode(k) => op_on(k, m.retired(usize::from(k))),
        Bad::UnknownParent(retired, on_add) => {
            let p = if retired {
                m.retired(node as usize)
            } else {
                UNKNOWN
            };
            if on_add {
                add(Some(p), ID, [0.0; 3])
            } else {
                Op::set_parent(node, Some(p))
            }
        }
        Bad::Duplicate(retired) => {
            let id = if retired {
                m.retired(node as usize)
            } else {
                node
            };
            // With nothing to collide with, let the server assign: `UNKNOWN` stays unused.
            let id = Some(id).filter(|&id| id != UNKNOWN);
            Op::add(id, None, ID)
        }
        Bad::Cycle(k) => {
            let parent = if m.nodes.contains_key(&node) {
                let mut sub = Vec::new();
                m.subtree(node, &mut sub);
                sub[k % sub.len()]
            } else {
                node
            };
            Op::set_parent(node, Some(parent))
        }
        Bad::Deepest(on_add) => {
            let d = deepest();
            if on_add {
                add(Some(d), ID, [0.0; 3])
            } else {
                Op::set_parent(node, Some(d))
            }
        }
        Bad::Huge(k) => {
            let huge = 2f32.powi(110);
            match k % 4 {
                0 => set_local(None, None, Some(huge)),
                1 => set_local(Some([0.0, 2f32.powi(101), 0.0]), None, None),
                2 => Op::set_shape(node, Some([huge, 0.0, 0.0]), None),
                _ => add(
                    Some(node).filter(|&n| n != UNKNOWN),
                    ID.with_s(huge),
                    [0.0; 3],
                ),
            }
        }
    }
}

/// Turns a generated op into a wire op against the model's current state.
fn resolve(m: &Model, a: &AOp) -> Op {
    if m.nodes.is_empty() && !matches!(a, AOp::Add { .. } | AOp::Bad(..)) {
        // An op on a node of an empty room can only be `unknown_node`; deliberate bad ops
        // test that, so grow the room instead.
        return add(None, Transform::IDENTITY, [1.0; 3]);
    }
    match a {
        AOp::Add {
            id,
            parent,
            t,
            r,
            s,
            extent,
            mask,
        } => {
            let parent = parent.map(|p| resolve_who(m, p));
            let local = Transform {
                t: v3(*t),
                r: *r,
                s: s.get(),
            };
            Op::add(*id, parent, local)
                .with_extent(v3(*extent))
                .with_mask(*mask)
        }
        AOp::SetLocal { node, t, r, s } => {
            let (t, s) = (t.map(v3), s.map(Num::get));
            Op::set_local(resolve_who(m, *node), t, *r, s)
        }
        AOp::SetParent { node, parent } => {
            let parent = parent.map(|p| resolve_who(m, p));
            Op::set_parent(resolve_who(m, *node), parent)
        }
        AOp::SetShape { node, extent, mask } => {
            Op::set_shape(resolve_who(m, *node), extent.map(v3), *mask)
        }
        AOp::Remove { node } => Op::remove(resolve_who(m, *node)),
        AOp::Bad(b, w) => resolve_bad(m, *b, *w),
    }
}

#[derive(Clone, Debug)]
struct Step {
    batch: Vec<AOp>,
    /// 0: no update after the batch, 1: `update_dirty`, 2: `update_all`.
    update: u8,
}

fn step() -> impl Strategy<Value = Step> {
    (
        batch(),
        prop_oneof![1 => Just(0u8), 6 => Just(1u8), 1 => Just(2u8)],
    )
        .prop_map(|(batch, update)| Step { batch, update })
}

fn limits() -> impl Strategy<Value = HierarchyLimits> {
    (
        prop_oneof![1 => Just(6usize), 2 => Just(24), 3 => Just(1000)],
        prop_oneof![Just(3usize), Just(5), Just(8)],
    )
        .prop_map(|(max_nodes, max_depth)| HierarchyLimits {
            max_nodes,
            max_depth,
            ..HierarchyLimits::DEFAULT
        })
}

/// The state, without world transforms, equals the model's.
fn check_state(h: &Hierarchy, m: &Model) {
    h.assert_well_formed();
    m.assert_matches(h);
}

/// World transforms, after an update, within f32 tolerance of the model's f64 values.
fn check_worlds(h: &Hierarchy, m: &Model) {
    for &id in m.nodes.keys() {
        let want = m.world(id);
        let got = h.world(id).unwrap();
        assert!(
            finite(&got.t) && finite(&got.r) && got.s.is_finite(),
            "node {id} has a non-finite world transform {got:?}"
        );
        let tol = 4e-7 * (want.depth as f64 + 1.0);
        let dt = (dvec(got.t) - want.t).length();
        assert!(
            dt <= tol * (want.mag + 1.0) * 4.0,
            "world t of {id}: {got:?} vs {want:?}"
        );
        let wr = dquat(got.r);
        let dr = (wr - want.r).length().min((wr + want.r).length());
        assert!(dr <= tol * 4.0, "world r of {id}: {got:?} vs {want:?}");
        assert!(
            (f64::from(got.s) - want.s).abs() <= tol * want.s,
            "world s of {id}: {got:?} vs {want:?}"
        );
    }
}

fn run(limits: HierarchyLimits, steps: Vec<Step>) -> Result<(), TestCaseError> {
    let mut h = Hierarchy::with_limits(limits);
    let mut m = Model::new(limits);
    for step in steps {
        // Resolve each op against the model as the ops before it leave it, so that an op
        // can name a node an earlier op of the batch made (or removed).
        let mut trial = m.clone();
        let mut ops = Vec::new();
        for a in &step.batch {
            let op = resolve(&trial, a);
            let _ = trial.apply_op(ops.len() as u32, &op);
            ops.push(op);
        }
        let (expect, next) = m.apply_batch(&ops);
        let before = h.snapshot_for_tests();
        let got = h.apply_batch(&ops);
        match (&expect, &got) {
            (Expect::Ok(ids), Ok(got_ids)) => prop_assert_eq!(ids, got_ids, "ids of {:?}", ops),
            (Expect::Err(errors), Err(e)) => {
                prop_assert!(
                    errors.contains(&(e.op, e.code())),
                    "got {:?}, expected one of {:?} for {:?}",
                    e,
                    errors,
                    ops
                );
                prop_assert!(
                    e.to_string().starts_with(&format!("op {}:", e.op)),
                    "{}",
                    e.to_string()
                );
            }
            (Expect::Either, _) => {}
            _ => prop_assert!(false, "expected {:?}, got {:?} for {:?}", expect, got, ops),
        }
        match got {
            Ok(_) => m = next.expect("an accepted batch has a model"),
            Err(_) => prop_assert_eq!(
                h.snapshot_for_tests(),
                before,
                "a refused batch changed the state"
            ),
        }
        check_state(&h, &m);
        if step.update > 0 {
            if step.update == 1 {
                h.update_dirty();
            } else {
                h.update_all();
            }
            check_state(&h, &m);
            check_worlds(&h, &m);
            h.finish_tick();
        }
    }
    Ok(())
}

/// Regression (found by this test): a move under one's own descendant is `cycle` even
/// when an earlier op of the batch left the chain above the new parent deeper than the
/// depth limit. The cycle walk used to stop at the limit and answer `too_large`.
#[test]
fn cycle_past_a_chain_that_an_earlier_op_made_too_deep() {
    let limits = HierarchyLimits {
        max_nodes: 100,
        max_depth: 3,
        ..HierarchyLimits::DEFAULT
    };
    let mut h = Hierarchy::with_limits(limits);
    let at = |id, parent| Op::add(Some(id), parent, Transform::IDENTITY);
    // Two chains of depth 3: 0 > 1 > 2 and 3 > 4 > 5.
    let setup = [
        at(0, None),
        at(1, Some(0)),
        at(2, Some(1)),
        at(3, None),
        at(4, Some(3)),
        at(5, Some(4)),
    ];
    h.apply_batch(&setup).unwrap();
    h.update_dirty();
    let before = h.snapshot_for_tests();
    // Op 0 is valid on its own (3 goes to depth 3, its subtree deeper, checked at the end
    // of the batch); op 1 moves 0 under 5, whose ancestors are now 4, 3, 1, 0.
    let ops = [Op::set_parent(3, Some(1)), Op::set_parent(0, Some(5))];
    let e = h.apply_batch(&ops).unwrap_err();
    assert_eq!((e.op, e.code()), (1, ErrorCode::Cycle), "{e}");
    assert_eq!(h.snapshot_for_tests(), before);
    h.assert_well_formed();
    // The model agrees.
    let m = Model::new(limits)
        .apply_batch(&setup)
        .1
        .expect("the setup is valid");
    match m.apply_batch(&ops).0 {
        Expect::Err(errors) => assert_eq!(errors, HashSet::from([(1, ErrorCode::Cycle)])),
        other => panic!("model predicts {other:?}"),
    }
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn batches_match_the_model(limits in limits(), steps in prop::collection::vec(step(), 1..40)) {
        run(limits, steps)?;
    }
}
