//! Property test of the parallel full sweep (`scene/par_sweep.rs`) against the serial one
//! and an f64 recomputation.
//!
//! Two hierarchies get the same random forest (many roots, one root, a deep chain, or the
//! benchmark's fan-out tree) and the same random ticks of edits, reparentings (which
//! leave misordered slots for the layout to relocate) and removals (holes, and sometimes
//! a compaction). One sweeps serially, the other with the parallel path forced on: small
//! chunks so that parents and children land in different threads' chunks, and 2 or 3
//! threads even on a one-core machine. After every full update both must hold the same
//! world transforms bit for bit and the same change set (`moved` in the same order), and
//! the parallel one's transforms must match an f64 recomputation from its own locals.
//!
//! `PROPTEST_CASES` sets the number of cases (default 64).

use std::collections::HashMap;

use canopy_protocol::{NodeId, Op, Transform};
use canopy_scene::{Hierarchy, ParallelSweep, Parent};
use glam::{DQuat, DVec3};
use proptest::prelude::*;

#[derive(Clone, Copy, Debug)]
enum Shape {
    /// Mostly roots: many small independent subtrees.
    ManyRoots,
    /// One root; each later node under a random earlier one.
    OneRoot,
    /// Node `i` under node `i - 1`.
    Chain,
    /// Node `i` under node `(i - 1) / 4`, as in the hierarchy benchmark.
    FanOut4,
}

#[derive(Clone, Debug)]
enum Edit {
    SetT(usize, [f32; 3]),
    SetR(usize, [f32; 4]),
    SetParent(usize, Option<usize>),
    Remove(usize),
    Add(Option<usize>, [f32; 3]),
}

fn vec3() -> impl Strategy<Value = [f32; 3]> {
    prop::array::uniform3(-10.0f32..10.0)
}

fn quat() -> impl Strategy<Value = [f32; 4]> {
    prop::array::uniform4(-1.0f32..1.0)
        .prop_filter("not tiny", |r| r.iter().map(|x| x * x).sum::<f32>() > 0.01)
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (any::<usize>(), vec3()).prop_map(|(p, t)| Edit::SetT(p, t)),
        2 => (any::<usize>(), quat()).prop_map(|(p, r)| Edit::SetR(p, r)),
        3 => (any::<usize>(), prop::option::weighted(0.8, any::<usize>()))
            .prop_map(|(p, q)| Edit::SetParent(p, q)),
        1 => any::<usize>().prop_map(Edit::Remove),
        2 => (prop::option::weighted(0.8, any::<usize>()), vec3()).prop_map(|(p, t)| Edit::Add(p, t)),
    ]
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::ManyRoots),
        Just(Shape::OneRoot),
        Just(Shape::Chain),
        Just(Shape::FanOut4),
    ]
}

/// The forest as one batch: node `i` has id `i`.
fn forest(shape: Shape, n: usize, picks: &[usize], locals: &[([f32; 3], [f32; 4])]) -> Vec<Op> {
    (0..n)
        .map(|i| {
            let parent = match shape {
                _ if i == 0 => None,
                // One node in eight under an earlier node, the rest roots.
                Shape::ManyRoots => picks[i].is_multiple_of(8).then(|| picks[i] % i),
                Shape::OneRoot => Some(picks[i] % i),
                Shape::Chain => Some(i - 1),
                Shape::FanOut4 => Some((i - 1) / 4),
            };
            let (t, r) = locals[i % locals.len()];
            let local = Transform { t, r, s: 1.0 };
            Op::add(Some(i as u32), parent.map(|p| p as u32), local)
        })
        .collect()
}

/// The live ids in a fixed order, for the edits' picks.
fn live(h: &Hierarchy) -> Vec<NodeId> {
    let mut ids: Vec<NodeId> = h.ids().collect();
    ids.sort_unstable();
    ids
}

fn resolve(ids: &[NodeId], e: &Edit) -> Op {
    let pick = |p: usize| ids[p % ids.len()];
    match *e {
        Edit::SetT(p, t) => Op::set_t(pick(p), t),
        Edit::SetR(p, r) => Op::set_local(pick(p), None, Some(r), None),
        Edit::SetParent(p, q) => Op::set_parent(pick(p), q.map(pick)),
        Edit::Remove(p) => Op::remove(pick(p)),
        Edit::Add(p, t) => Op::add(None, p.map(pick), Transform::from_t(t)),
    }
}

/// World transforms as bits, by id.
fn world_bits(h: &Hierarchy) -> Vec<(NodeId, [u32; 8])> {
    live(h)
        .into_iter()
        .map(|id| {
            let w = h.world(id).unwrap();
            let mut b = [0; 8];
            for (o, v) in b.iter_mut().zip(w.t.iter().chain(&w.r).chain([&w.s])) {
                *o = v.to_bits();
            }
            (id, b)
        })
        .collect()
}

/// The f64 world transform of `id` (t, r, s, depth), memoized, from `h`'s locals and
/// parents: the same formula as docs/protocol.md §1, none of the sweep's code.
fn f64_world(
    h: &Hierarchy,
    id: NodeId,
    memo: &mut HashMap<NodeId, (DVec3, DQuat, f64, usize)>,
) -> (DVec3, DQuat, f64, usize) {
    if let Some(&w) = memo.get(&id) {
        return w;
    }
    let l = h.local(id).unwrap();
    let (lt, lr, ls) = (
        DVec3::from_array(l.t.map(f64::from)),
        DQuat::from_array(l.r.map(f64::from)),
        f64::from(l.s),
    );
    let w = match h.parent(id).unwrap() {
        Parent::Root => (lt, lr, ls, 1),
        Parent::Node(p) => {
            let (pt, pr, ps, d) = f64_world(h, p, memo);
            (pt + pr * (ps * lt), (pr * lr).normalize(), ps * ls, d + 1)
        }
    };
    memo.insert(id, w);
    w
}

fn check_f64(h: &Hierarchy) {
    let mut memo = HashMap::new();
    for id in live(h) {
        let (t, r, s, depth) = f64_world(h, id, &mut memo);
        let w = h.world(id).unwrap();
        // Errors grow with depth, and translations with the distance from the origin.
        let tol = 2e-6 * depth as f64;
        let wt = DVec3::from_array(w.t.map(f64::from));
        assert!(
            (wt - t).length() <= tol * (1.0 + t.length() + 10.0 * depth as f64) + 1e-6,
            "node {id}: world t {wt:?} vs {t:?} (depth {depth})"
        );
        let wr = DQuat::from_array(w.r.map(f64::from));
        let dq = (wr - r).length().min((wr + r).length());
        assert!(dq <= tol + 1e-6, "node {id}: world r {wr:?} vs {r:?}");
        assert!((f64::from(w.s) - s).abs() <= tol * s, "node {id}: world s");
    }
}

fn run(
    shape: Shape,
    n: usize,
    picks: &[usize],
    locals: &[([f32; 3], [f32; 4])],
    ticks: &[Vec<Edit>],
    threads: usize,
    chunk: usize,
) {
    let mut serial = Hierarchy::new();
    serial.set_parallel_sweep(ParallelSweep::SERIAL);
    let mut par = Hierarchy::new();
    par.set_parallel_sweep(ParallelSweep {
        min_nodes: 0,
        threads,
        chunk_slots: chunk,
        back_off: false,
    });
    let ops = forest(shape, n, picks, locals);
    for (tick, edits) in std::iter::once(&Vec::new()).chain(ticks).enumerate() {
        let batch: Vec<Op> = if tick == 0 {
            ops.clone()
        } else {
            let ids = live(&serial);
            edits.iter().map(|e| resolve(&ids, e)).collect()
        };
        // Atomic batches: a cycle or depth refusal refuses both the same way.
        let a = serial.apply_batch(&batch).is_ok();
        let b = par.apply_batch(&batch).is_ok();
        assert_eq!(a, b, "tick {tick}: batch accepted by one side only");
        if serial.is_empty() {
            return;
        }
        let want = serial.update_all().clone();
        let got = par.update_all().clone();
        assert_eq!(got, want, "tick {tick}: change sets differ");
        assert_eq!(
            world_bits(&par),
            world_bits(&serial),
            "tick {tick}: worlds differ"
        );
        par.assert_well_formed();
        check_f64(&par);
        serial.finish_tick();
        par.finish_tick();
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(64),
        ..ProptestConfig::default()
    })]

    #[test]
    fn parallel_sweep_matches_serial(
        shape in shape(),
        n in 1usize..400,
        picks in prop::collection::vec(any::<usize>(), 400),
        locals in prop::collection::vec((vec3(), quat()), 1..16),
        ticks in prop::collection::vec(prop::collection::vec(edit(), 1..30), 1..6),
        threads in 2usize..4,
        chunk in prop_oneof![1usize..4, 4usize..64],
    ) {
        run(shape, n, &picks, &locals, &ticks, threads, chunk);
    }
}

/// The default configuration stays serial below its threshold and goes parallel above it
/// (when the machine has more than one core); either way the result is the serial one.
#[test]
fn default_threshold_gives_the_serial_result() {
    let n = ParallelSweep::DEFAULT.min_nodes + 1000;
    let locals = [
        ([1.0, 2.0, 3.0], [0.1, 0.2, 0.3, 0.9]),
        ([-1.0, 0.5, 0.0], [0.0, 0.7, 0.0, 0.7]),
    ];
    let ops = forest(Shape::FanOut4, n, &[], &locals);
    let mut serial = Hierarchy::new();
    serial.set_parallel_sweep(ParallelSweep::SERIAL);
    let mut par = Hierarchy::new();
    assert_eq!(par.parallel_sweep(), ParallelSweep::DEFAULT);
    serial.apply_batch(&ops).unwrap();
    par.apply_batch(&ops).unwrap();
    serial.update_all();
    par.update_all();
    serial.finish_tick();
    par.finish_tick();
    // Move the root: every node moves.
    for h in [&mut serial, &mut par] {
        h.apply_batch(&[Op::set_t(0, [4.0, 0.0, 0.0])]).unwrap();
    }
    let want = serial.update_all().clone();
    let got = par.update_all().clone();
    assert_eq!(want.moved.len(), n);
    assert_eq!(got, want);
    assert_eq!(world_bits(&par), world_bits(&serial));
    par.assert_well_formed();
}
