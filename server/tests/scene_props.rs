//! Property test of the scene core against an independent model.
//!
//! The model (`scene_model/`) is a plain map of nodes with child lists in attachment
//! order and world transforms computed recursively in f64. Random forests (depth up to 12, fan-out up to 8) get random ticks of random batches,
//! valid and invalid ops mixed; after each tick the test checks world transforms, the
//! hierarchy's invariants, the pre-order walk, the set of recomputed nodes and the change
//! lists, and that every refused batch left the hierarchy exactly as before.
//!
//! `PROPTEST_CASES` sets the number of cases (default 200).

use std::collections::{BTreeMap, BTreeSet};

use canopy_protocol::{ErrorCode, NodeId, Op, Transform};
use canopy_server::scene::{Hierarchy, Parent, WithOldMask};
use glam::{DQuat, DVec3, Quat, Vec3};
use proptest::prelude::*;

mod scene_model;

use scene_model::{Model, quat_ok};

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
    prop::array::uniform4(-1.0f32..1.0).prop_filter("not tiny", |r| quat_ok(*r))
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
    let unknown = 9_999_999;
    let pick = |i: usize| m.pick(i).unwrap_or(unknown);
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
            Op::Add {
                id,
                parent: parent.map(pick),
                local: Transform {
                    t: *t,
                    r: *r,
                    s: *s,
                },
                extent: [0.5; 3],
                mask: u32::MAX,
            }
        }
        AOp::SetLocal { pick: p, t, r, s } => Op::SetLocal {
            node: pick(*p),
            t: *t,
            r: *r,
            s: *s,
        },
        AOp::SetParent {
            pick: p,
            parent,
            newest,
        } => {
            let parent = if *newest {
                m.live().last().copied()
            } else {
                parent.map(pick)
            };
            Op::SetParent {
                node: pick(*p),
                parent,
            }
        }
        AOp::SetShape {
            pick: p,
            extent,
            mask,
        } => Op::SetShape {
            node: pick(*p),
            extent: *extent,
            mask: *mask,
        },
        AOp::Remove { pick: p } => Op::Remove { node: pick(*p) },
        AOp::Bad { kind, pick: p } => {
            let node = pick(*p);
            let set = |t, r, s| Op::SetLocal { node, t, r, s };
            match kind {
                0 => set(Some([f32::NAN, 0.0, 0.0]), None, None),
                1 => set(None, None, Some(if p % 2 == 0 { 0.0 } else { -1.0 })),
                2 => set(None, Some([0.0; 4]), None),
                3 => Op::SetShape {
                    node,
                    extent: Some([1.0, -0.5, 0.0]),
                    mask: None,
                },
                4 => set(Some([1.0; 3]), None, None).with_node(unknown),
                5 => Op::Add {
                    id: None,
                    parent: Some(unknown),
                    local: Transform::IDENTITY,
                    extent: [0.0; 3],
                    mask: 1,
                },
                6 => {
                    let used: Vec<u32> = m.used.iter().copied().collect();
                    Op::Add {
                        id: Some(used.get(p % used.len().max(1)).copied().unwrap_or(0)),
                        parent: None,
                        local: Transform::IDENTITY,
                        extent: [0.0; 3],
                        mask: 1,
                    }
                }
                7 => {
                    // Under itself or one of its descendants.
                    let mut sub = Vec::new();
                    if m.nodes.contains_key(&node) {
                        m.subtree(node, &mut sub);
                    }
                    Op::SetParent {
                        node,
                        parent: Some(sub.get(p % sub.len().max(1)).copied().unwrap_or(node)),
                    }
                }
                8 => Op::Remove { node: unknown },
                _ => Op::Add {
                    id: None,
                    parent: None,
                    local: Transform {
                        s: f32::INFINITY,
                        ..Transform::IDENTITY
                    },
                    extent: [0.0; 3],
                    mask: 1,
                },
            }
        }
    }
}

trait WithNode {
    fn with_node(self, node: NodeId) -> Op;
}

impl WithNode for Op {
    fn with_node(self, n: NodeId) -> Op {
        match self {
            Op::SetLocal { t, r, s, .. } => Op::SetLocal { node: n, t, r, s },
            other => other,
        }
    }
}

fn check_worlds(h: &Hierarchy, m: &Model) {
    for (id, (t, r, s, mag, depth)) in m.worlds() {
        let w = h.world(id).unwrap_or_else(|| panic!("node {id} missing"));
        let tol = 2e-6 * depth as f64;
        let wt = DVec3::new(w.t[0].into(), w.t[1].into(), w.t[2].into());
        assert!(
            (wt - t).length() <= tol * (1.0 + mag) + 1e-6,
            "node {id}: world t {wt:?} vs {t:?} (depth {depth})"
        );
        let wr = DQuat::from_xyzw(w.r[0].into(), w.r[1].into(), w.r[2].into(), w.r[3].into());
        let dq = (wr - r).length().min((wr + r).length());
        assert!(dq <= tol + 1e-6, "node {id}: world r {wr:?} vs {r:?}");
        assert!(
            (f64::from(w.s) - s).abs() <= tol * s,
            "node {id}: world s {} vs {s}",
            w.s
        );
    }
}

/// Local transforms, buffered edits included.
fn check_locals(h: &Hierarchy, m: &Model) {
    for (&id, n) in &m.nodes {
        let l = h.local(id).unwrap();
        assert_eq!(l.t, n.t, "local t of {id}");
        assert_eq!(l.s, n.s, "local s of {id}");
        let want = DQuat::from_xyzw(n.r[0].into(), n.r[1].into(), n.r[2].into(), n.r[3].into())
            .normalize();
        let got = DQuat::from_xyzw(l.r[0].into(), l.r[1].into(), l.r[2].into(), l.r[3].into());
        assert!((got - want).length() < 1e-6, "local r of {id}");
    }
}

fn check_structure(h: &Hierarchy, m: &Model) {
    check_locals(h, m);
    h.assert_well_formed();
    assert_eq!(h.len(), m.nodes.len());
    for (&id, n) in &m.nodes {
        assert_eq!(h.parent(id), Some(Parent::from(n.parent)), "parent of {id}");
        assert_eq!(
            h.children(id).collect::<Vec<_>>(),
            n.children,
            "children of {id}"
        );
        let mut pre = Vec::new();
        m.subtree(id, &mut pre);
        assert_eq!(
            h.descendants(id).collect::<Vec<_>>(),
            pre,
            "pre-order of {id}"
        );
        assert_eq!(h.mask(id), Some(n.mask));
        assert_eq!(h.extent(id).map(|e| e.to_array()), Some(n.extent));
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

fn sorted(mut v: Vec<u32>) -> Vec<u32> {
    v.sort_unstable();
    v
}

fn run(forest: Vec<ForestNode>, ticks: Vec<Tick>) {
    let mut h = Hierarchy::new();
    let mut m = Model::default();
    h.set_record_recomputed(true);
    // Build the forest in one batch.
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
        ops.push(Op::Add {
            id: Some(k as u32 * 3),
            parent: parent.map(|p| p as u32 * 3),
            local: Transform { t, r, s },
            extent: [1.0; 3],
            mask: u32::MAX,
        });
    }
    let mut edits = Vec::new();
    for op in &ops {
        m.apply(op, &mut edits).unwrap();
    }
    h.apply_batch(&ops).unwrap();
    h.update_dirty();
    check_worlds(&h, &m);
    check_structure(&h, &m);
    h.finish_tick();

    for tick in ticks {
        let before: BTreeMap<u32, Transform> = m
            .nodes
            .keys()
            .map(|&id| (id, h.world(id).unwrap()))
            .collect();
        let mut edits: Vec<u32> = Vec::new();
        let mut added: Vec<u32> = Vec::new();
        let mut reparented = BTreeSet::new();
        let mut reshaped = BTreeSet::new();
        for step in &tick.steps {
            let batch = match step {
                Step::Batch(batch) => batch,
                Step::Calls(calls) => {
                    for a in calls {
                        let Op::SetLocal { node, t, r, s } = resolve(&m, a) else {
                            continue;
                        };
                        // A library call marks its subtree whether or not it changes the
                        // values (only batch ops that change nothing are skipped).
                        let before = edits.len();
                        let expect = m.apply(&Op::SetLocal { node, t, r, s }, &mut edits);
                        if expect.is_ok() && edits.len() == before {
                            edits.push(node);
                        }
                        let got =
                            h.set_local(node, t.map(Vec3::from_array), r.map(Quat::from_array), s);
                        assert_eq!(expect.map(|_| ()), got.map_err(|e| e.code()), "set_local");
                    }
                    check_locals(&h, &m);
                    continue;
                }
            };
            let mut trial = m.clone();
            let mut trial_edits = Vec::new();
            let mut ops = Vec::new();
            let mut expect: Result<Vec<u32>, (u32, ErrorCode)> = Ok(Vec::new());
            for a in batch {
                let op = resolve(&trial, a);
                if expect.is_ok() {
                    match trial.apply(&op, &mut trial_edits) {
                        Ok(Some(id)) => expect.as_mut().unwrap().push(id),
                        Ok(None) => {}
                        Err(code) => expect = Err((ops.len() as u32, code)),
                    }
                }
                ops.push(op);
            }
            let snap = h.snapshot_for_tests();
            let got = h.apply_batch(&ops);
            match (&expect, &got) {
                (Ok(ids), Ok(got_ids)) => {
                    assert_eq!(ids, got_ids, "ids of {ops:?}");
                    reshaped.extend(trial.reshape_log.drain(..));
                    reparented.extend(trial.reparent_log.drain(..));
                    added.extend(ids);
                    edits.extend(trial_edits);
                    m = trial;
                }
                (Err((i, code)), Err(e)) => {
                    assert_eq!((*i, *code), (e.op, e.code()), "{e} in {ops:?}");
                    assert!(e.to_string().starts_with(&format!("op {i}:")));
                    assert_eq!(
                        h.snapshot_for_tests(),
                        snap,
                        "refused batch changed the state"
                    );
                }
                _ => panic!("model {expect:?} vs hierarchy {got:?} for {ops:?}"),
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
            for &e in &edits {
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

        // Change lists.
        let alive = |id: &u32| m.nodes.contains_key(id);
        let existed = |id: &u32| before.contains_key(id);
        let exp_added: Vec<u32> = added.iter().copied().filter(alive).collect();
        assert_eq!(changes.added, exp_added, "added");
        let exp_removed: Vec<u32> = before.keys().copied().filter(|id| !alive(id)).collect();
        let ids = |v: &[WithOldMask]| sorted(v.iter().map(|c| c.id).collect());
        assert_eq!(ids(&changes.removed), exp_removed, "removed");
        let exp_rep: Vec<u32> = reparented
            .iter()
            .copied()
            .filter(|id| alive(id) && existed(id))
            .collect();
        assert_eq!(sorted(changes.reparented.clone()), exp_rep, "reparented");
        let exp_shape: Vec<u32> = reshaped
            .iter()
            .copied()
            .filter(|id| alive(id) && existed(id))
            .collect();
        assert_eq!(ids(&changes.reshaped), exp_shape, "reshaped");
        let exp_moved: Vec<u32> = re_set
            .iter()
            .copied()
            .filter(|id| existed(id) && before[id] != h.world(*id).unwrap())
            .collect();
        assert_eq!(sorted(changes.moved.clone()), exp_moved, "moved");
        for (id, w) in &before {
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
