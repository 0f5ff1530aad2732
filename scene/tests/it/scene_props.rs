//! Property test of the scene core against the independent model (`scene_model/`).
//!
//! Random forests (depth up to 12, fan-out up to 8) get random ticks of random batches
//! and library `set_local` calls, valid and invalid ops mixed. After each tick the test
//! checks world transforms, the state against the model, the hierarchy's invariants, the
//! pre-order walk, the set of recomputed nodes and the change lists (old masks
//! included), and that every refused batch left the hierarchy exactly as before.
//!
//! `PROPTEST_CASES` sets the number of cases (default 200).

use std::collections::{BTreeMap, BTreeSet};

use canopy_protocol::{NodeId, Op, Transform};
use canopy_scene::{Hierarchy, HierarchyLimits, WithOldMask};
use glam::{Quat, Vec3};
use proptest::prelude::*;

use canopy_scene_model as scene_model;

use scene_model::num::NON_FINITE;
use scene_model::{Expect, Log, Model, UNKNOWN, dquat, dvec, norm_quat};

/// An op described relative to the state it meets: picks index the live nodes.
#[derive(Clone, Debug)]
enum AOp {
    Add {
        parent: Option<usize>,
        id: Option<u32>,
        t: [f32; 3],
        r: [f32; 4],
        s: f32,
    },
    SetLocal {
        pick: usize,
        t: Option<[f32; 3]>,
        r: Option<[f32; 4]>,
        s: Option<f32>,
    },
    SetParent {
        pick: usize,
        parent: Option<usize>,
        /// Pick the most recently created live node as the parent.
        newest: bool,
    },
    SetShape {
        pick: usize,
        extent: Option<[f32; 3]>,
        mask: Option<u32>,
    },
    Remove {
        pick: usize,
    },
    Bad {
        kind: u8,
        pick: usize,
    },
}

fn vec3() -> impl Strategy<Value = [f32; 3]> {
    prop::array::uniform3(-10.0f32..10.0)
}

fn quat() -> impl Strategy<Value = [f32; 4]> {
    prop::array::uniform4(-1.0f32..1.0).prop_filter("not tiny", |r| norm_quat(*r).is_some())
}

fn scale() -> impl Strategy<Value = f32> {
    0.5f32..2.0
}

fn aop() -> impl Strategy<Value = AOp> {
    prop_oneof![
        3 => (prop::option::weighted(0.8, any::<usize>()), prop::option::of(prop_oneof![0u32..600, 4_000_000_000u32..4_000_000_600]), vec3(), quat(), scale())
            .prop_map(|(parent, id, t, r, s)| AOp::Add { parent, id, t, r, s }),
        4 => (any::<usize>(), prop::option::of(vec3()), prop::option::of(quat()), prop::option::of(scale()))
            .prop_map(|(pick, t, r, s)| AOp::SetLocal { pick, t, r, s }),
        2 => (any::<usize>(), prop::option::weighted(0.8, any::<usize>()), prop::bool::weighted(0.3))
            .prop_map(|(pick, parent, newest)| AOp::SetParent { pick, parent, newest }),
        1 => (any::<usize>(), prop::option::of(prop::array::uniform3(0.0f32..5.0)), prop::option::of(any::<u32>()))
            .prop_map(|(pick, extent, mask)| AOp::SetShape { pick, extent, mask }),
        1 => any::<usize>().prop_map(|pick| AOp::Remove { pick }),
        1 => (0u8..10, any::<usize>()).prop_map(|(kind, pick)| AOp::Bad { kind, pick }),
    ]
}

#[derive(Clone, Debug)]
enum Step {
    /// An edit batch.
    Batch(Vec<AOp>),
    /// Library `set_local` calls (only `SetLocal` and the `Bad` kinds that resolve to a
    /// `set_local` are used), sometimes more than the edit buffer holds.
    Calls(Vec<AOp>),
}

#[derive(Clone, Debug)]
struct Tick {
    steps: Vec<Step>,
    full: bool,
}

fn call() -> impl Strategy<Value = AOp> {
    prop_oneof![
        8 => (any::<usize>(), prop::option::of(vec3()), prop::option::of(quat()), prop::option::of(scale()))
            .prop_map(|(pick, t, r, s)| AOp::SetLocal { pick, t, r, s }),
        1 => (prop_oneof![Just(0u8), Just(1), Just(2), Just(4)], any::<usize>())
            .prop_map(|(kind, pick)| AOp::Bad { kind, pick }),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => prop::collection::vec(aop(), 1..8).prop_map(Step::Batch),
        1 => prop::collection::vec(call(), 1..100).prop_map(Step::Calls),
    ]
}

fn tick() -> impl Strategy<Value = Tick> {
    (
        prop::collection::vec(step(), 1..5),
        prop::bool::weighted(0.2),
    )
        .prop_map(|(steps, full)| Tick { steps, full })
}

/// One node of a generated forest: a pick of its parent among the earlier nodes, and its
/// local transform.
type ForestNode = (Option<usize>, [f32; 3], [f32; 4], f32);

/// A forest: each node's parent is an earlier node (or none), within depth 12 and
/// fan-out 8.
fn forest() -> impl Strategy<Value = Vec<ForestNode>> {
    prop::collection::vec(
        (
            prop::option::weighted(0.9, any::<usize>()),
            vec3(),
            quat(),
            scale(),
        ),
        1..120,
    )
}

fn resolve(m: &Model, a: &AOp) -> Op {
    match a {
        AOp::Add {
            parent,
            id,
            t,
            r,
            s,
        } => {
            let id = id.map(|h| {
                let mut id = h;
                while m.used.contains(&id) {
                    id += 1;
                }
                id
            });
            let local = Transform {
                t: *t,
                r: *r,
                s: *s,
            };
            Op::add(id, parent.map(|p| m.pick(p)), local).with_extent([0.5; 3])
        }
        AOp::SetLocal { pick: p, t, r, s } => Op::set_local(m.pick(*p), *t, *r, *s),
        AOp::SetParent {
            pick: p,
            parent,
            newest,
        } => {
            let parent = if *newest {
                m.live().last().copied()
            } else {
                parent.map(|p| m.pick(p))
            };
            Op::set_parent(m.pick(*p), parent)
        }
        AOp::SetShape {
            pick: p,
            extent,
            mask,
        } => Op::set_shape(m.pick(*p), *extent, *mask),
        AOp::Remove { pick: p } => Op::remove(m.pick(*p)),
        AOp::Bad { kind, pick: p } => {
            let node = m.pick(*p);
            let [nan, inf, _] = NON_FINITE;
            let set = |t, r, s| Op::set_local(node, t, r, s);
            let lone = |local| Op::add(None, None, local).with_mask(1);
            match kind {
                0 => set(Some([nan, 0.0, 0.0]), None, None),
                1 => set(None, None, Some(if p % 2 == 0 { 0.0 } else { -1.0 })),
                2 => set(None, Some([0.0; 4]), None),
                3 => Op::set_shape(node, Some([1.0, -0.5, 0.0]), None),
                4 => Op::set_t(UNKNOWN, [1.0; 3]),
                5 => Op::add(None, Some(UNKNOWN), Transform::IDENTITY).with_mask(1),
                6 => {
                    let used: Vec<u32> = m.used.iter().copied().collect();
                    let id = used.get(p % used.len().max(1)).copied().unwrap_or(0);
                    Op::add_root(id, Transform::IDENTITY).with_mask(1)
                }
                7 => {
                    // Under itself or one of its descendants.
                    let mut sub = Vec::new();
                    if m.nodes.contains_key(&node) {
                        m.subtree(node, &mut sub);
                    }
                    let parent = sub.get(p % sub.len().max(1)).copied().unwrap_or(node);
                    Op::set_parent(node, Some(parent))
                }
                8 => Op::remove(UNKNOWN),
                _ => lone(Transform::IDENTITY.with_s(inf)),
            }
        }
    }
}

fn check_worlds(h: &Hierarchy, m: &Model) {
    for &id in m.nodes.keys() {
        let want = m.world(id);
        let w = h.world(id).unwrap_or_else(|| panic!("node {id} missing"));
        let (t, r, s, mag, depth) = (want.t, want.r, want.s, want.mag, want.depth);
        let tol = 2e-6 * depth as f64;
        let wt = dvec(w.t);
        assert!(
            (wt - t).length() <= tol * (1.0 + mag) + 1e-6,
            "node {id}: world t {wt:?} vs {t:?} (depth {depth})"
        );
        let wr = dquat(w.r);
        let dq = (wr - r).length().min((wr + r).length());
        assert!(dq <= tol + 1e-6, "node {id}: world r {wr:?} vs {r:?}");
        assert!(
            (f64::from(w.s) - s).abs() <= tol * s,
            "node {id}: world s {} vs {s}",
            w.s
        );
    }
}

fn check_structure(h: &Hierarchy, m: &Model) {
    m.assert_matches(h);
    h.assert_well_formed();
    for &id in m.nodes.keys() {
        let mut pre = Vec::new();
        m.subtree(id, &mut pre);
        assert_eq!(
            h.descendants(id).collect::<Vec<_>>(),
            pre,
            "pre-order of {id}"
        );
    }
    let mut seen = BTreeSet::new();
    for node in h.iter_nodes() {
        if let Some(p) = node.parent {
            assert!(
                seen.contains(&p),
                "iter_nodes yields {} before its parent",
                node.id
            );
        }
        seen.insert(node.id);
    }
    assert_eq!(seen.len(), m.nodes.len());
}

fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort_unstable();
    v
}

/// The forest as one batch of adds, with extents of 1 (ids are three times the index).
fn forest_ops(forest: Vec<ForestNode>) -> Vec<Op> {
    let mut depth: Vec<usize> = Vec::new();
    let mut fanout: Vec<usize> = Vec::new();
    let mut ops = Vec::new();
    for (k, (p, t, r, s)) in forest.into_iter().enumerate() {
        let parent = p
            .map(|p| p % k.max(1))
            .filter(|&p| k > 0 && depth[p] < 12 && fanout[p] < 8);
        if let Some(p) = parent {
            fanout[p] += 1;
        }
        depth.push(parent.map_or(1, |p| depth[p] + 1));
        fanout.push(0);
        let (id, parent) = (k as u32 * 3, parent.map(|p| p as u32 * 3));
        ops.push(Op::add(Some(id), parent, Transform { t, r, s }).with_extent([1.0; 3]));
    }
    ops
}

/// Runs one step's library calls on both sides (`m.log.dirty` gains their nodes).
fn library_calls(h: &mut Hierarchy, m: &mut Model, calls: &[AOp]) {
    for a in calls {
        let op @ Op::SetLocal { node, t, r, s } = resolve(m, a) else {
            continue;
        };
        // A library call marks its subtree whether or not it changes the values (only
        // batch ops that change nothing are skipped).
        let before = m.log.dirty.len();
        let expect = m.apply_op(0, &op);
        if expect.is_ok() && m.log.dirty.len() == before {
            m.log.dirty.push(node);
        }
        let got = h.set_local(node, t.map(Vec3::from_array), r.map(Quat::from_array), s);
        assert_eq!(expect.map(|_| ()), got.map_err(|e| e.code()), "set_local");
    }
    m.assert_matches(h);
}

/// Runs one batch on both sides; returns the ids of its adds if it was accepted.
fn batch(h: &mut Hierarchy, m: &mut Model, batch: &[AOp]) -> Vec<NodeId> {
    // Each op is resolved against the state the ops before it leave.
    let mut trial = m.clone();
    let mut ops = Vec::new();
    for a in batch {
        let op = resolve(&trial, a);
        let _ = trial.apply_op(ops.len() as u32, &op);
        ops.push(op);
    }
    let (expect, next) = m.apply_batch(&ops);
    let snap = h.snapshot_for_tests();
    let got = h.apply_batch(&ops);
    match (&expect, &got) {
        (Expect::Ok(ids), Ok(got_ids)) => assert_eq!(ids, got_ids, "ids of {ops:?}"),
        (Expect::Err(errors), Err(e)) => {
            assert!(errors.contains(&(e.op, e.code())), "{e} in {ops:?}");
            assert!(e.to_string().starts_with(&format!("op {}:", e.op)));
            assert_eq!(
                h.snapshot_for_tests(),
                snap,
                "refused batch changed the state"
            );
        }
        (Expect::Either, _) => {}
        _ => panic!("model {expect:?} vs hierarchy {got:?} for {ops:?}"),
    }
    match got {
        Ok(ids) => {
            *m = next.expect("an accepted batch has a model");
            ids
        }
        Err(_) => Vec::new(),
    }
}

fn run(forest: Vec<ForestNode>, ticks: Vec<Tick>) {
    let mut h = Hierarchy::new();
    let mut m = Model::new(HierarchyLimits::DEFAULT);
    h.set_record_recomputed(true);
    let ops = forest_ops(forest);
    for op in &ops {
        m.apply_op(0, op).unwrap();
    }
    h.apply_batch(&ops).unwrap();
    h.update_dirty();
    check_worlds(&h, &m);
    check_structure(&h, &m);
    h.finish_tick();

    for tick in ticks {
        // World transforms and masks as the tick begins.
        let before: BTreeMap<u32, (Transform, u32)> = m
            .nodes
            .iter()
            .map(|(&id, n)| (id, (h.world(id).unwrap(), n.mask)))
            .collect();
        m.log = Log::default();
        let mut added: Vec<u32> = Vec::new();
        for step in &tick.steps {
            match step {
                Step::Calls(calls) => library_calls(&mut h, &mut m, calls),
                Step::Batch(ops) => added.extend(batch(&mut h, &mut m, ops)),
            }
        }
        let changes = if tick.full {
            h.update_all().clone()
        } else {
            h.update_dirty().clone()
        };
        check_worlds(&h, &m);
        check_structure(&h, &m);

        // Recomputed: exactly the union of the edited subtrees (everything for update_all).
        let mut expect_re = BTreeSet::new();
        if tick.full {
            expect_re.extend(m.nodes.keys().copied());
        } else {
            for &e in &m.log.dirty {
                if m.nodes.contains_key(&e) {
                    let mut sub = Vec::new();
                    m.subtree(e, &mut sub);
                    expect_re.extend(sub);
                }
            }
        }
        let recomputed = h.last_recomputed_ids().to_vec();
        assert_eq!(recomputed.len(), changes.recomputed);
        let re_set: BTreeSet<u32> = recomputed.iter().copied().collect();
        assert_eq!(
            re_set.len(),
            recomputed.len(),
            "a node was recomputed twice"
        );
        assert_eq!(re_set, expect_re, "recomputed set");

        // Change lists, with the masks the removed and reshaped nodes began the tick with.
        let alive = |id: &u32| m.nodes.contains_key(id);
        let existed = |id: &u32| before.contains_key(id);
        let was = |id: u32| WithOldMask {
            id,
            old_mask: before[&id].1,
        };
        let exp_added: Vec<u32> = added.iter().copied().filter(alive).collect();
        assert_eq!(changes.added, exp_added, "added");
        let exp_removed: Vec<WithOldMask> = before
            .keys()
            .copied()
            .filter(|id| !alive(id))
            .map(was)
            .collect();
        assert_eq!(sorted(changes.removed.clone()), exp_removed, "removed");
        let reparented: BTreeSet<u32> = m.log.reparented.iter().copied().collect();
        let exp_rep: Vec<u32> = reparented
            .into_iter()
            .filter(|id| alive(id) && existed(id))
            .collect();
        assert_eq!(sorted(changes.reparented.clone()), exp_rep, "reparented");
        let reshaped: BTreeSet<u32> = m.log.reshaped.iter().copied().collect();
        let exp_shape: Vec<WithOldMask> = reshaped
            .into_iter()
            .filter(|id| alive(id) && existed(id))
            .map(was)
            .collect();
        assert_eq!(sorted(changes.reshaped.clone()), exp_shape, "reshaped");
        let exp_moved: Vec<u32> = re_set
            .iter()
            .copied()
            .filter(|id| existed(id) && before[id].0 != h.world(*id).unwrap())
            .collect();
        assert_eq!(sorted(changes.moved.clone()), exp_moved, "moved");
        for (id, (w, _)) in &before {
            if alive(id) && !re_set.contains(id) {
                assert_eq!(
                    h.world(*id).unwrap(),
                    *w,
                    "node {id} changed without a recompute"
                );
            }
        }
        h.finish_tick();
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
    fn random_forests_and_edits(forest in forest(), ticks in prop::collection::vec(tick(), 1..6)) {
        run(forest, ticks);
    }
}
