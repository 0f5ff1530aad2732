//! Benchmark of the compact codec: what a frame of compact rows costs the
//! server to encode and a client to decode, and how many bytes a row takes.
//!
//! Workload: 1,000 nodes at random positions within ±100 units and random orientations,
//! ids 0 to 999. One frame moves every node by a small step (1 to 3 cm per axis, a metre
//! unit) and turns it by up to 0.5° about a random axis, as a 30 Hz scene of walking,
//! turning objects would. Each timed iteration is one frame of 1,000 rows, so criterion's
//! time per iteration divided by 1,000 is the cost per row (its throughput line says
//! the same in rows per second):
//!
//! - `quantize`: the server quantizing the 1,000 new world transforms.
//! - `encode_delta`: writing 1,000 delta rows against the previous frame's values
//!   (what an in-step subscriber gets), values already quantized; the target is at most
//!   30 ns per row.
//! - `quantize_and_encode_delta`: both, for a frame quantized for this one block.
//! - `encode_absolute`: 1,000 absolute rows (a lagging or resumed subscriber).
//! - `encode_exact_bincode`: the same frame as today's exact `update` rows in bincode,
//!   the baseline.
//! - `decode_delta`: a client decoding the delta block into reusable rows.
//! - `decode_apply_delta`: decoding, applying each row to its baseline and dequantizing
//!   it to the `f32` transform the application sees.
//!
//! Before timing, it prints bytes per row for typical motions (including the row count
//! and the id gaps, not bincode's length prefix), measured on the same workload.

#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented `pub fn`"
)]

use std::hint::black_box;

use canopy_protocol::codec::to_bincode;
use canopy_protocol::compact::{
    BlockWriter, CompactValue, DeltaRows, decode_delta, dequantize, quantize,
};
use canopy_protocol::{Transform, UpdateRow};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const NODES: usize = 1000;

fn unit(q: [f64; 4]) -> [f32; 4] {
    let n = q.iter().map(|c| c * c).sum::<f64>().sqrt();
    q.map(|c| (c / n) as f32)
}

fn random_rotation(rng: &mut SmallRng) -> [f32; 4] {
    unit([0; 4].map(|_| rng.random_range(-1.0..1.0)))
}

/// `r` turned by `angle` radians about a random axis.
fn turn(rng: &mut SmallRng, r: [f32; 4], max_angle: f64) -> [f32; 4] {
    let axis = [0; 3].map(|_| rng.random_range(-1.0f64..1.0));
    let n = axis.iter().map(|c| c * c).sum::<f64>().sqrt().max(1e-9);
    let (s, c) = (rng.random_range(-max_angle..max_angle) / 2.0).sin_cos();
    let d = axis.map(|a| a / n * s);
    let q = r.map(f64::from);
    unit([
        q[3] * d[0] + q[0] * c + q[1] * d[2] - q[2] * d[1],
        q[3] * d[1] - q[0] * d[2] + q[1] * c + q[2] * d[0],
        q[3] * d[2] + q[0] * d[1] - q[1] * d[0] + q[2] * c,
        q[3] * c - q[0] * d[0] - q[1] * d[1] - q[2] * d[2],
    ])
}

struct Frames {
    before: Vec<Transform>,
    after: Vec<Transform>,
}

/// Two consecutive frames of the workload; `step` and `angle` shape the motion.
fn frames(seed: u64, step: Option<f32>, angle: Option<f64>) -> Frames {
    let mut rng = SmallRng::seed_from_u64(seed);
    let before: Vec<Transform> = (0..NODES)
        .map(|_| Transform {
            t: [0; 3].map(|_| rng.random_range(-100.0..100.0)),
            r: random_rotation(&mut rng),
            s: 1.0,
        })
        .collect();
    let after = before
        .iter()
        .map(|x| {
            let mut y = *x;
            if let Some(step) = step {
                for t in &mut y.t {
                    let sign = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
                    *t += sign * rng.random_range(step / 3.0..step);
                }
            }
            if let Some(angle) = angle {
                y.r = turn(&mut rng, y.r, angle);
            }
            y
        })
        .collect();
    Frames { before, after }
}

fn quantized(xs: &[Transform]) -> Vec<CompactValue> {
    xs.iter().map(quantize).collect()
}

/// Bytes per row of a delta block for `frames`, every node changed (`stride` 1) or
/// every `stride`-th, against the previous frame (or absolute when `absolute`).
fn bytes_per_row(f: &Frames, stride: usize, absolute: bool) -> f64 {
    let (before, after) = (quantized(&f.before), quantized(&f.after));
    let mut w = BlockWriter::new();
    let mut rows = 0;
    for i in (0..NODES).step_by(stride) {
        let prev = (!absolute).then_some(&before[i]);
        rows += usize::from(w.update(i as u32, prev, &after[i]));
    }
    w.delta().0.len() as f64 / rows as f64
}

fn print_workload() {
    let deg = 0.5f64.to_radians();
    let walk = frames(1, Some(0.03), None);
    let spin = frames(2, None, Some(deg));
    let both = frames(3, Some(0.03), Some(deg));
    let fast = frames(4, Some(0.3), Some(10f64.to_radians()));
    let exact_row = to_bincode(&UpdateRow {
        id: 500,
        world: both.after[0],
    })
    .len();
    println!("compact codec bench: {NODES} nodes, ids 0..{NODES}, positions within ±100 units");
    println!(
        "bytes per row (id gap, flags and parts; the block's row count spread over its rows):"
    );
    let line = |name: &str, v: f64| println!("  {name:<58} {v:>5.2} B");
    line(
        "translation steps of 1-3 cm per axis (delta T)",
        bytes_per_row(&walk, 1, false),
    );
    line(
        "rotation steps of up to 0.5° (delta R)",
        bytes_per_row(&spin, 1, false),
    );
    line("both (delta T + delta R)", bytes_per_row(&both, 1, false));
    line(
        "both, every 10th node changed (gaps of 10)",
        bytes_per_row(&both, 10, false),
    );
    line(
        "fast: 10-30 cm and up to 10° per frame",
        bytes_per_row(&fast, 1, false),
    );
    line(
        "absolute rows (lagging, resumed, upserts)",
        bytes_per_row(&both, 1, true),
    );
    line("exact bincode update row (today), id 500", exact_row as f64);
}

fn bench(c: &mut Criterion) {
    print_workload();
    let f = frames(3, Some(0.03), Some(0.5f64.to_radians()));
    let (before, after) = (quantized(&f.before), quantized(&f.after));
    let mut group = c.benchmark_group("compact_1000_rows");
    group.throughput(Throughput::Elements(NODES as u64));
    group.sample_size(50);
    group.measurement_time(std::time::Duration::from_secs(3));

    group.bench_function("quantize", |b| {
        let mut out = Vec::with_capacity(NODES);
        b.iter(|| {
            out.clear();
            out.extend(black_box(&f.after).iter().map(quantize));
            black_box(&out);
        })
    });

    let mut w = BlockWriter::new();
    let mut block = Vec::new();
    group.bench_function("encode_delta", |b| {
        b.iter(|| {
            w.clear();
            for (i, (p, n)) in before.iter().zip(&after).enumerate() {
                w.update(i as u32, Some(p), n);
            }
            block.clear();
            w.write_delta(&mut block);
            black_box(&block);
        })
    });

    group.bench_function("quantize_and_encode_delta", |b| {
        b.iter(|| {
            w.clear();
            for (i, (p, x)) in before.iter().zip(black_box(&f.after)).enumerate() {
                w.update(i as u32, Some(p), &quantize(x));
            }
            block.clear();
            w.write_delta(&mut block);
            black_box(&block);
        })
    });

    group.bench_function("encode_absolute", |b| {
        b.iter(|| {
            w.clear();
            for (i, n) in after.iter().enumerate() {
                w.update(i as u32, None, n);
            }
            block.clear();
            w.write_delta(&mut block);
            black_box(&block);
        })
    });

    let rows: Vec<UpdateRow> = f
        .after
        .iter()
        .enumerate()
        .map(|(i, x)| UpdateRow {
            id: i as u32,
            world: *x,
        })
        .collect();
    group.bench_function("encode_exact_bincode", |b| {
        b.iter(|| black_box(to_bincode(black_box(&rows))))
    });

    w.clear();
    for (i, (p, n)) in before.iter().zip(&after).enumerate() {
        w.update(i as u32, Some(p), n);
    }
    let bytes = w.delta().0;
    let mut decoded = DeltaRows::default();
    group.bench_function("decode_delta", |b| {
        b.iter(|| {
            decode_delta(black_box(&bytes), 0, &mut decoded).unwrap();
            black_box(&decoded);
        })
    });

    let baselines: Vec<_> = before.iter().map(|v| *v.quantized().unwrap()).collect();
    let mut state = baselines.clone();
    let mut worlds = vec![Transform::IDENTITY; NODES];
    group.bench_function("decode_apply_delta", |b| {
        b.iter(|| {
            state.copy_from_slice(&baselines);
            decode_delta(black_box(&bytes), 0, &mut decoded).unwrap();
            for (id, row) in &decoded.rows {
                let i = *id as usize;
                if let CompactValue::Quantized(q) = row.apply(Some(&state[i])).unwrap() {
                    state[i] = q;
                    worlds[i] = dequantize(&q);
                }
            }
            black_box(&worlds);
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
