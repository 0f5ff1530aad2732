//! What packing pending batches costs and saves (`room/packed_ops.rs`): a batch waits
//! for its tick packed in its bincode form, and the tick applies it by decoding one op
//! at a time, instead of applying a decoded `Vec<Op>`.
//!
//! Workloads, each the largest batch the contract allows:
//! - `no-op set_parent`: 262,143 ops re-parenting the deepest node of a 1,000-deep chain
//!   under the parent it has (the soak's `noop-batches` client);
//! - `set_local`: 262,144 ops (translation and rotation) on random nodes of a room of
//!   262,144 nodes.
//!
//! For each: the memory of the batch decoded and packed, the time to pack it (paid on
//! the edge's worker), and the median time to apply it from the decoded list and from
//! the packed bytes (paid on the tick), with the ratio of the two.

use std::hint::black_box;
use std::time::{Duration, Instant};

use canopy_protocol::{Op, Transform};
use canopy_room::packed_ops::PackedOps;
use canopy_scene::Hierarchy;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// The median of `runs` timings of `f`.
fn median(runs: usize, mut f: impl FnMut() -> Duration) -> Duration {
    let mut times: Vec<Duration> = (0..runs).map(|_| f()).collect();
    times.sort();
    times[runs / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn measure(name: &str, runs: usize, mut h: Hierarchy, batch: &[Op]) {
    let decoded = std::mem::size_of_val(batch);
    let pack = median(runs, || {
        let started = Instant::now();
        black_box(PackedOps::pack(black_box(batch)));
        started.elapsed()
    });
    let packed = PackedOps::pack(batch);
    let mut apply = |from_packed: bool| {
        median(runs, || {
            let started = Instant::now();
            if from_packed {
                h.apply_ops(black_box(&packed).iter()).expect("valid edits");
            } else {
                h.apply_batch(black_box(batch)).expect("valid edits");
            }
            h.update_dirty();
            h.finish_tick();
            started.elapsed()
        })
    };
    let from_list = apply(false);
    let from_packed = apply(true);
    println!(
        "{name}: {} ops, median of {runs}\n\
         memory decoded / packed          {:>9.1} / {:.1} MiB ({:.1} / {:.1} bytes per op)\n\
         pack (edge)                      {:>9.3} ms\n\
         apply + update from the list     {:>9.3} ms\n\
         apply + update from packed bytes {:>9.3} ms ({:.2}x the list)",
        batch.len(),
        decoded as f64 / (1 << 20) as f64,
        packed.byte_len() as f64 / (1 << 20) as f64,
        decoded as f64 / batch.len() as f64,
        packed.byte_len() as f64 / batch.len() as f64,
        ms(pack),
        ms(from_list),
        ms(from_packed),
        from_packed.as_secs_f64() / from_list.as_secs_f64(),
    );
}

fn main() {
    // `cargo bench` passes `--bench`; a plain `cargo test --benches` run passes nothing
    // and only checks that the benchmark runs.
    let quick = !std::env::args().any(|a| a == "--bench");
    let runs = if quick { 1 } else { 15 };

    const DEPTH: u32 = 1_000;
    let mut chain = Hierarchy::new();
    let build: Vec<Op> = (0..=DEPTH)
        .map(|i| Op::add(Some(i), i.checked_sub(1), Transform::IDENTITY))
        .collect();
    chain.apply_batch(&build).expect("a valid chain");
    chain.update_all();
    chain.finish_tick();
    let noop = vec![
        Op::SetParent {
            node: DEPTH,
            parent: Some(DEPTH - 1),
        };
        262_143
    ];
    measure("no-op set_parent at depth 1,000", runs, chain, &noop);

    const NODES: u32 = 262_144;
    let mut rng = SmallRng::seed_from_u64(11);
    let mut room = Hierarchy::new();
    let build: Vec<Op> = (0..NODES)
        .map(|i| Op::add(Some(i), (i > 0).then_some(0), Transform::IDENTITY))
        .collect();
    room.apply_batch(&build).expect("a valid room");
    room.update_all();
    room.finish_tick();
    let moves: Vec<Op> = (0..NODES)
        .map(|_| Op::SetLocal {
            node: rng.random_range(0..NODES),
            t: Some([rng.random(), rng.random(), rng.random()]),
            r: Some([0.0, 0.0, 0.0, 1.0]),
            s: None,
        })
        .collect();
    measure("set_local on random nodes", runs, room, &moves);
}
