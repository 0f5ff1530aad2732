//! Benchmark of the scene core's world-transform update.
//!
//! Workload: a tree where every internal node has 4 children (10,000 nodes: 2,500
//! internal, 7,500 leaves), random local transforms. One iteration is one frame: 20
//! `set_local` on random leaves (or one on the root), then an update.
//!
//! - `seed_leaf_10k`: `canopy_dirty` (update_dirty), `canopy_full` (update_all), and
//!   `baseline_dirty`, `baseline_full`: a straightforward port of the reference design
//!   (children as `Vec<Vec<usize>>`, recursive dirty marking, a dirty sweep over the whole
//!   order, f64 arrays) with the same 3D math.
//! - `seed_root_10k`: the root edited every frame: `canopy_dirty`, `baseline_dirty`.
//! - `leaf20_100k`, `leaf20_1m`: the leaf workload at 100,000 and 1,000,000 nodes. Their
//!   `canopy_full` is the default configuration, which sweeps rooms this big on every
//!   core; `leaf20_1m/canopy_full_serial` is the same sweep held to one thread
//!   (`ParallelSweep::SERIAL`), the baseline of "parallel vs serial at 1M".
//!
//! After the runs it prints a table (median ns per frame, ns per room node, ns per
//! recomputed node, ratios) from criterion's estimates under `target/criterion/`, and
//! the performance targets. Parallel vs serial at 1M is given twice: from criterion's two
//! measurements, and from pairs of frames timed back to back (both under the same load on
//! a shared machine; skipped when the name filter leaves out `leaf20_1m/canopy_full`).
//! A group's trees are built only when the name filter selects one of its benchmarks, so
//! `-- seed_leaf_10k/canopy_full` starts in a second, not after building the 1M trees.

use std::hint::black_box;
use std::path::PathBuf;

use canopy_protocol::{Op, Transform};
use canopy_scene::{Hierarchy, ParallelSweep};
use criterion::{Criterion, Throughput};
use glam::{DQuat, DVec3, Quat, Vec3};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const FANOUT: usize = 4;
const EDITS_PER_FRAME: usize = 20;

/// Local transforms of the tree: node `i`'s parent is `(i - 1) / FANOUT`.
struct Tree {
    n: usize,
    locals: Vec<Transform>,
    leaves: Vec<u32>,
}

fn random_quat(rng: &mut SmallRng) -> Quat {
    let axis = Vec3::new(
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
    )
    .try_normalize()
    .unwrap_or(Vec3::Y);
    Quat::from_axis_angle(axis, rng.random_range(-3.0..3.0))
}

fn tree(n: usize) -> Tree {
    let mut rng = SmallRng::seed_from_u64(7);
    let locals = (0..n)
        .map(|_| Transform {
            t: [
                rng.random_range(-5.0..5.0),
                rng.random_range(-5.0..5.0),
                rng.random_range(-5.0..5.0),
            ],
            r: random_quat(&mut rng).to_array(),
            s: rng.random_range(0.9..1.1),
        })
        .collect();
    let first_leaf = (n - 1).div_ceil(FANOUT);
    Tree {
        n,
        locals,
        leaves: (first_leaf as u32..n as u32).collect(),
    }
}

fn canopy(tree: &Tree) -> Hierarchy {
    let ops: Vec<Op> = (0..tree.n)
        .map(|i| {
            let parent = (i > 0).then(|| ((i - 1) / FANOUT) as u32);
            Op::add(Some(i as u32), parent, tree.locals[i]).with_extent([0.5; 3])
        })
        .collect();
    let mut h = Hierarchy::new();
    h.apply_batch(&ops).expect("valid tree");
    h.update_all();
    h.finish_tick();
    h
}

/// A long cycle of random edits, so that frames don't repeat in cache-friendly ways.
struct Edits {
    list: Vec<(u32, Vec3, Quat)>,
    at: usize,
}

impl Edits {
    fn leaves(tree: &Tree) -> Edits {
        let mut rng = SmallRng::seed_from_u64(11);
        let list = (0..EDITS_PER_FRAME * 4096)
            .map(|_| {
                let leaf = tree.leaves[rng.random_range(0..tree.leaves.len())];
                let t = Vec3::new(
                    rng.random_range(-5.0..5.0),
                    0.0,
                    rng.random_range(-5.0..5.0),
                );
                (leaf, t, random_quat(&mut rng))
            })
            .collect();
        Edits { list, at: 0 }
    }

    fn root() -> Edits {
        let mut rng = SmallRng::seed_from_u64(13);
        let list = (0..4096)
            .map(|_| {
                (
                    0,
                    Vec3::new(rng.random_range(-5.0..5.0), 1.0, 0.0),
                    random_quat(&mut rng),
                )
            })
            .collect();
        Edits { list, at: 0 }
    }

    fn next(&mut self) -> (u32, Vec3, Quat) {
        let e = self.list[self.at];
        self.at = (self.at + 1) % self.list.len();
        e
    }
}

/// The reference design, ported as it is: f64 arrays, children as `Vec<Vec<usize>>`,
/// recursive dirty marking, and a dirty sweep over the whole topological order.
struct Baseline {
    children: Vec<Vec<usize>>,
    parent: Vec<Option<usize>>,
    order: Vec<usize>,
    local_t: Vec<[f64; 3]>,
    local_r: Vec<[f64; 4]>,
    local_s: Vec<f64>,
    world_t: Vec<[f64; 3]>,
    world_r: Vec<[f64; 4]>,
    world_s: Vec<f64>,
    dirty: Vec<bool>,
}

impl Baseline {
    fn new(tree: &Tree) -> Baseline {
        let n = tree.n;
        let mut children = vec![Vec::new(); n];
        let parent: Vec<Option<usize>> =
            (0..n).map(|i| (i > 0).then(|| (i - 1) / FANOUT)).collect();
        for (i, p) in parent.iter().enumerate() {
            if let Some(p) = *p {
                children[p].push(i);
            }
        }
        // Topological order by a depth-first walk from the root.
        let mut order = Vec::with_capacity(n);
        let mut stack = vec![0];
        while let Some(i) = stack.pop() {
            order.push(i);
            stack.extend(children[i].iter().rev());
        }
        let l = &tree.locals;
        let mut b = Baseline {
            children,
            parent,
            order,
            local_t: l.iter().map(|t| t.t.map(f64::from)).collect(),
            local_r: l.iter().map(|t| t.r.map(f64::from)).collect(),
            local_s: l.iter().map(|t| f64::from(t.s)).collect(),
            world_t: vec![[0.0; 3]; n],
            world_r: vec![[0.0, 0.0, 0.0, 1.0]; n],
            world_s: vec![1.0; n],
            dirty: vec![true; n],
        };
        b.update_full();
        b
    }

    fn set_local(&mut self, i: usize, t: Vec3, r: Quat) {
        self.local_t[i] = t.as_dvec3().to_array();
        self.local_r[i] = r.as_dquat().to_array();
        self.mark_dirty(i);
    }

    fn mark_dirty(&mut self, i: usize) {
        self.dirty[i] = true;
        for k in 0..self.children[i].len() {
            let c = self.children[i][k];
            self.mark_dirty(c);
        }
    }

    fn compute(&mut self, i: usize) {
        let lt = DVec3::from_array(self.local_t[i]);
        let lr = DQuat::from_array(self.local_r[i]);
        let ls = self.local_s[i];
        match self.parent[i] {
            None => {
                self.world_t[i] = lt.to_array();
                self.world_r[i] = lr.to_array();
                self.world_s[i] = ls;
            }
            Some(p) => {
                let pt = DVec3::from_array(self.world_t[p]);
                let pr = DQuat::from_array(self.world_r[p]);
                let ps = self.world_s[p];
                self.world_s[i] = ps * ls;
                self.world_r[i] = (pr * lr).normalize().to_array();
                self.world_t[i] = (pt + pr * (ps * lt)).to_array();
            }
        }
    }

    fn update_dirty(&mut self) -> usize {
        let mut n = 0;
        for k in 0..self.order.len() {
            let i = self.order[k];
            if self.dirty[i] {
                self.compute(i);
                self.dirty[i] = false;
                n += 1;
            }
        }
        n
    }

    fn update_full(&mut self) -> usize {
        for k in 0..self.order.len() {
            let i = self.order[k];
            self.compute(i);
            self.dirty[i] = false;
        }
        self.order.len()
    }
}

fn frame_canopy(h: &mut Hierarchy, edits: &mut Edits, count: usize, full: bool) -> usize {
    for _ in 0..count {
        let (id, t, r) = edits.next();
        h.set_local(id, Some(t), Some(r), None).expect("valid edit");
    }
    let recomputed = if full {
        h.update_all()
    } else {
        h.update_dirty()
    }
    .recomputed;
    // Ends the tick, as a room does once it has read the changes.
    h.finish_tick();
    recomputed
}

fn frame_baseline(b: &mut Baseline, edits: &mut Edits, count: usize, full: bool) -> usize {
    for _ in 0..count {
        let (id, t, r) = edits.next();
        b.set_local(id as usize, t, r);
    }
    if full {
        b.update_full()
    } else {
        b.update_dirty()
    }
}

/// Group name, node count, and for each function: (name, edits per frame are on leaves?)
struct Group {
    name: &'static str,
    nodes: usize,
    root: bool,
    functions: &'static [&'static str],
}

const GROUPS: [Group; 4] = [
    Group {
        name: "seed_leaf_10k",
        nodes: 10_000,
        root: false,
        functions: &[
            "canopy_dirty",
            "canopy_full",
            "baseline_dirty",
            "baseline_full",
        ],
    },
    Group {
        name: "seed_root_10k",
        nodes: 10_000,
        root: true,
        functions: &["canopy_dirty", "baseline_dirty"],
    },
    Group {
        name: "leaf20_100k",
        nodes: 100_000,
        root: false,
        functions: &["canopy_dirty", "canopy_full"],
    },
    Group {
        name: "leaf20_1m",
        nodes: 1_000_000,
        root: false,
        functions: &["canopy_dirty", "canopy_full", "canopy_full_serial"],
    },
];

fn run_group(c: &mut Criterion, g: &Group, recomputed: &mut Vec<(String, usize)>) {
    // Building a 1M-node tree takes seconds: only for a group the filters select.
    let wanted: Vec<&str> = g
        .functions
        .iter()
        .copied()
        .filter(|f| selected(&format!("{}/{f}", g.name)))
        .collect();
    if wanted.is_empty() {
        return;
    }
    let tree = tree(g.nodes);
    let edits = || {
        if g.root {
            Edits::root()
        } else {
            Edits::leaves(&tree)
        }
    };
    let count = if g.root { 1 } else { EDITS_PER_FRAME };
    println!(
        "workload {}: {} nodes ({} leaves, fan-out {FANOUT}), {} set_local on {} per frame, then an update",
        g.name,
        g.nodes,
        tree.leaves.len(),
        count,
        if g.root { "the root" } else { "random leaves" }
    );
    let mut group = c.benchmark_group(g.name);
    group.throughput(Throughput::Elements(g.nodes as u64));
    for f in wanted {
        let full = f.contains("_full");
        let mut e = edits();
        if f.starts_with("canopy") {
            let mut h = canopy(&tree);
            if f.ends_with("_serial") {
                h.set_parallel_sweep(ParallelSweep::SERIAL);
            }
            let n = frame_canopy(&mut h, &mut e, count, full);
            recomputed.push((format!("{}/{f}", g.name), n));
            group.bench_function(f, |b| {
                b.iter(|| black_box(frame_canopy(&mut h, &mut e, count, full)))
            });
        } else {
            let mut base = Baseline::new(&tree);
            let n = frame_baseline(&mut base, &mut e, count, full);
            recomputed.push((format!("{}/{f}", g.name), n));
            group.bench_function(f, |b| {
                b.iter(|| black_box(frame_baseline(&mut base, &mut e, count, full)))
            });
        }
    }
    group.finish();
}

/// Criterion's median estimate of one function, in ns per iteration: the median rather
/// than the mean, so that a few preempted samples on a shared machine do not skew it.
fn estimate(id: &str) -> Option<f64> {
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let text =
        std::fs::read_to_string(dir.join("criterion").join(id).join("new/estimates.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["median"]["point_estimate"].as_f64()
}

fn print_table(recomputed: &[(String, usize)], interleaved: Option<(f64, f64, f64)>) {
    println!();
    println!(
        "{:<30} {:>14} {:>12} {:>12} {:>14}",
        "benchmark", "ns/frame", "recomputed", "ns/node", "ns/recomputed"
    );
    for (id, n) in recomputed {
        let Some(ns) = estimate(id) else { continue };
        let nodes = GROUPS
            .iter()
            .find(|g| id.starts_with(g.name))
            .map_or(1, |g| g.nodes);
        println!(
            "{id:<30} {ns:>14.0} {n:>12} {:>12.3} {:>14.2}",
            ns / nodes as f64,
            ns / (*n).max(1) as f64
        );
    }
    let ratio = |a: &str, b: &str| Some(estimate(a)? / estimate(b)?);
    let targets = [
        (
            "canopy_full / canopy_dirty at 10k (>= 50; target >= 100)",
            ratio("seed_leaf_10k/canopy_full", "seed_leaf_10k/canopy_dirty"),
        ),
        (
            "baseline_full / canopy_full at 10k (>= 2)",
            ratio("seed_leaf_10k/baseline_full", "seed_leaf_10k/canopy_full"),
        ),
        (
            "baseline_dirty / canopy_dirty at 10k",
            ratio("seed_leaf_10k/baseline_dirty", "seed_leaf_10k/canopy_dirty"),
        ),
        (
            "baseline_dirty / canopy_dirty, root",
            ratio("seed_root_10k/baseline_dirty", "seed_root_10k/canopy_dirty"),
        ),
        (
            "canopy_dirty 1m / 10k (<= 3)",
            ratio("leaf20_1m/canopy_dirty", "seed_leaf_10k/canopy_dirty"),
        ),
        (
            "canopy_dirty 100k / 10k",
            ratio("leaf20_100k/canopy_dirty", "seed_leaf_10k/canopy_dirty"),
        ),
    ];
    println!();
    for (name, r) in targets {
        if let Some(r) = r {
            println!("{name:<60} {r:>8.2}x");
        }
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if let Some(r) = ratio("leaf20_1m/canopy_full_serial", "leaf20_1m/canopy_full") {
        let label = format!("parallel vs serial at 1M, {threads} cores (target >= 1.6 on 2)");
        println!("{label:<60} {r:>8.2}x");
    }
    if let Some((r, p, s)) = interleaved {
        let label = format!("same, interleaved (median of {PAIRS} pairs of frames)");
        let per_node = |ns: f64| ns / 1e6;
        println!(
            "{label:<60} {r:>8.2}x  ({:.2} vs {:.2} ns per node)",
            per_node(p),
            per_node(s)
        );
    }
    // The per-node targets for the full update.
    for (id, nodes, limit) in [
        ("seed_leaf_10k/canopy_full", 10_000.0, "<= 5"),
        ("leaf20_1m/canopy_full", 1_000_000.0, "< 10"),
        ("leaf20_1m/canopy_full_serial", 1_000_000.0, "< 10"),
    ] {
        if let Some(ns) = estimate(id) {
            let label = format!("{id} ns per node (target {limit})");
            println!("{label:<60} {:>8.2}", ns / nodes);
        }
    }
}

/// Pairs of frames timed by [`interleaved_parallel_vs_serial`].
const PAIRS: usize = 150;

/// Parallel vs serial full update at 1M, the two frames of each pair timed back to back on
/// the same hierarchy: on a machine shared with other work, the load moves between
/// criterion's two 3-second measurements, and alternating puts both under the same load.
/// Returns the ratio of the medians and the two medians (ns per frame).
fn interleaved_parallel_vs_serial() -> (f64, f64, f64) {
    let tree = tree(1_000_000);
    let mut h = canopy(&tree);
    let mut e = Edits::leaves(&tree);
    let (mut par, mut ser) = (Vec::with_capacity(PAIRS), Vec::with_capacity(PAIRS));
    for i in 0..PAIRS + 5 {
        let mut time = |config: ParallelSweep| {
            h.set_parallel_sweep(config);
            let start = std::time::Instant::now();
            black_box(frame_canopy(&mut h, &mut e, EDITS_PER_FRAME, true));
            start.elapsed().as_secs_f64() * 1e9
        };
        // Alternate which goes first, so that neither always follows the other; the
        // first pairs are warm-up.
        let (p, s) = if i % 2 == 0 {
            let p = time(ParallelSweep::DEFAULT);
            (p, time(ParallelSweep::SERIAL))
        } else {
            let s = time(ParallelSweep::SERIAL);
            (time(ParallelSweep::DEFAULT), s)
        };
        if i >= 5 {
            par.push(p);
            ser.push(s);
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (p, s) = (median(&mut par), median(&mut ser));
    (s / p, p, s)
}

/// The run's name filters (criterion's positional arguments), and whether this is a
/// `cargo bench` run (which passes `--bench`).
fn filters() -> (Vec<String>, bool) {
    // Criterion's options that take a value which is not a number.
    const WITH_VALUE: [&str; 7] = [
        "--save-baseline",
        "--baseline",
        "--baseline-lenient",
        "--load-baseline",
        "--output-format",
        "--plotting-backend",
        "--color",
    ];
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bench = args.iter().any(|a| a == "--bench");
    let mut out = Vec::new();
    let mut skip = false;
    for a in &args {
        if std::mem::take(&mut skip) {
            continue;
        }
        if a.starts_with('-') {
            skip = WITH_VALUE.contains(&a.as_str());
        } else if a.parse::<f64>().is_err() {
            out.push(a.clone());
        }
    }
    (out, bench)
}

/// True when the filters leave benchmark `id` in (criterion matches them as regular
/// expressions; one with special characters is taken to match anything, so that nothing
/// it selects is skipped).
fn selected(id: &str) -> bool {
    let (filters, _) = filters();
    let special = |f: &String| f.contains(|c: char| "\\.^$|?*+()[]{}".contains(c));
    filters.is_empty()
        || filters
            .iter()
            .any(|f| special(f) || id.contains(f.as_str()))
}

/// True when the run's name filter selects the 1M full update, or there is none; only
/// under `cargo bench`.
fn wants_interleaved() -> bool {
    let (_, bench) = filters();
    bench && selected("leaf20_1m/canopy_full")
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let mut recomputed = Vec::new();
    for g in &GROUPS {
        run_group(&mut c, g, &mut recomputed);
    }
    c.final_summary();
    let interleaved = wants_interleaved().then(interleaved_parallel_vs_serial);
    print_table(&recomputed, interleaved);
}
