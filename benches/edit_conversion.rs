//! What a scene-owned edit type would cost: the scene takes the wire's
//! `&[protocol::Op]` directly; the alternative is a validated edit type of its own,
//! converted once at the edge. This measures that conversion for the largest batch the
//! contract allows (262,144 ops) against applying the same batch, in one run.
//!
//! Workload: a room of 262,144 nodes (a root and its children); the batch is 262,144
//! `set_local` ops (translation and rotation) on random nodes, as wire ops.
//! - `apply`: `Hierarchy::apply_batch` of the wire ops, then the update (what a tick does);
//! - `convert`: the wire ops into a scene-side enum (ids checked against `u32`, floats
//!   into `glam` types, missing parts as `None`), what the edge would add.
//!
//! Prints the medians and the conversion's share of the apply.

use std::hint::black_box;
use std::time::{Duration, Instant};

use canopy_protocol::{NodeId, Op, Transform};
use canopy_scene::Hierarchy;
use glam::{Quat, Vec3};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const OPS: usize = 262_144;

/// What a scene-owned edit type would hold for a `set_local` (and the others).
#[allow(dead_code)]
enum SceneEdit {
    Add {
        id: Option<NodeId>,
        parent: Option<NodeId>,
        t: Vec3,
        r: Quat,
        s: f32,
        extent: Vec3,
        mask: u32,
    },
    SetLocal {
        node: NodeId,
        t: Option<Vec3>,
        r: Option<Quat>,
        s: Option<f32>,
    },
    SetParent {
        node: NodeId,
        parent: Option<NodeId>,
    },
    SetShape {
        node: NodeId,
        extent: Option<Vec3>,
        mask: Option<u32>,
    },
    Remove {
        node: NodeId,
    },
}

fn convert(ops: &[Op]) -> Vec<SceneEdit> {
    ops.iter()
        .map(|op| match op {
            Op::Add {
                id,
                parent,
                local,
                extent,
                mask,
            } => SceneEdit::Add {
                id: *id,
                parent: *parent,
                t: Vec3::from_array(local.t),
                r: Quat::from_array(local.r),
                s: local.s,
                extent: Vec3::from_array(*extent),
                mask: *mask,
            },
            Op::SetLocal { node, t, r, s } => SceneEdit::SetLocal {
                node: *node,
                t: t.map(Vec3::from_array),
                r: r.map(Quat::from_array),
                s: *s,
            },
            Op::SetParent { node, parent } => SceneEdit::SetParent {
                node: *node,
                parent: *parent,
            },
            Op::SetShape { node, extent, mask } => SceneEdit::SetShape {
                node: *node,
                extent: extent.map(Vec3::from_array),
                mask: *mask,
            },
            Op::Remove { node } => SceneEdit::Remove { node: *node },
        })
        .collect()
}

/// The median of `runs` timings of `f`.
fn median(runs: usize, mut f: impl FnMut() -> Duration) -> Duration {
    let mut times: Vec<Duration> = (0..runs).map(|_| f()).collect();
    times.sort();
    times[runs / 2]
}

fn main() {
    // `cargo bench` passes `--bench`; a plain `cargo test --benches` run passes nothing
    // and only checks that the benchmark runs.
    let quick = !std::env::args().any(|a| a == "--bench");
    let runs = if quick { 1 } else { 15 };
    let mut rng = SmallRng::seed_from_u64(11);
    let build: Vec<Op> = (0..OPS as u32)
        .map(|i| Op::add(Some(i), (i > 0).then_some(0), Transform::IDENTITY))
        .collect();
    let mut h = Hierarchy::new();
    h.apply_batch(&build).expect("a valid room");
    h.update_all();
    h.finish_tick();
    let batch: Vec<Op> = (0..OPS)
        .map(|_| Op::SetLocal {
            node: rng.random_range(0..OPS as u32),
            t: Some([rng.random(), rng.random(), rng.random()]),
            r: Some([0.0, 0.0, 0.0, 1.0]),
            s: None,
        })
        .collect();
    let apply = median(runs, || {
        let started = Instant::now();
        h.apply_batch(black_box(&batch)).expect("valid edits");
        h.update_dirty();
        h.finish_tick();
        started.elapsed()
    });
    let conversion = median(runs, || {
        let started = Instant::now();
        black_box(convert(black_box(&batch)));
        started.elapsed()
    });
    println!(
        "edit_conversion: {OPS} set_local ops on a {OPS}-node room, median of {runs}\n\
         apply (apply_batch + update)   {:>9.3} ms\n\
         convert to a scene edit type   {:>9.3} ms ({:.1}% of the apply)",
        apply.as_secs_f64() * 1e3,
        conversion.as_secs_f64() * 1e3,
        conversion.as_secs_f64() / apply.as_secs_f64() * 100.0
    );
}
