//! Crash points: a deterministic workload against the simulated disk, crashed at every
//! I/O operation in turn (and again with torn tails), each recovery compared with the
//! model of acknowledged records. Also: recovery, more work, and a second recovery.

use crate::persist_model;

use std::sync::Arc;
use std::time::Instant;

use canopy_store::{PersistConfig, SimDisk, Storage, open};
use std::collections::BTreeMap;

use persist_model::{Driver, Model, ToyRoom, apply_entry, rebuilt};

fn config() -> PersistConfig {
    PersistConfig {
        // Small segments, so that rolls and truncation happen many times per run.
        segment_bytes: 1200,
        threads: false,
        ..PersistConfig::default()
    }
}

struct Outcome {
    disk: SimDisk,
    model: Model,
    acked: u64,
    snapshots: u64,
}

/// Runs `actions` random actions of workload `seed`, crashing at I/O operation `crash_at`.
fn run(seed: u64, crash_at: Option<u64>, actions: usize) -> Outcome {
    let disk = SimDisk::new(seed);
    if let Some(k) = crash_at {
        disk.crash_at(k);
    }
    let mut driver = Driver::new(seed, Model::default());
    let mut acked = 0;
    if let Ok((p, rec)) = open(Arc::new(disk.clone()), config()) {
        assert!(rec.rooms.is_empty());
        for _ in 0..actions {
            if driver.act(&p).is_err() {
                break;
            }
        }
        let _ = p.step();
        acked = p.durable_seq();
        if crash_at.is_none() {
            assert!(p.failed().is_none(), "seed {seed}: {:?}", p.failed());
        }
    }
    Outcome {
        disk,
        model: driver.model,
        acked,
        snapshots: driver.snapshots,
    }
}

/// Recovers a crash image of `out` and checks it against the model.
fn check(seed: u64, k: u64, torn: bool, out: &Outcome, go_on: bool) {
    let image = out.disk.crash_image(torn, seed.wrapping_mul(31) ^ k);
    let label = || format!("seed {seed}, crash at I/O op {k}, torn {torn}");
    let rooms_at = |x| out.model.rooms_at(x);
    check_image(&label, seed, image, out.acked, &out.model, &rooms_at, go_on);
}

/// Recovers `image` and checks it against `model` (`rooms_at(x)`: the model's rooms
/// after seq `x`), `acked` being the last acknowledged seq at the crash; if `go_on`,
/// works on after recovery and checks a second recovery.
fn check_image(
    label: &dyn Fn() -> String,
    seed: u64,
    image: SimDisk,
    acked: u64,
    model: &Model,
    rooms_at: &dyn Fn(u64) -> BTreeMap<String, ToyRoom>,
    go_on: bool,
) {
    let (p, rec) = open(Arc::new(image.clone()) as Arc<dyn Storage>, config())
        .unwrap_or_else(|e| panic!("{}: recovery refused: {e}", label()));
    let x = rec.next_seq - 1;
    assert!(
        acked <= x,
        "{}: acknowledged {acked} but recovered only up to {x}",
        label()
    );
    assert!(
        x <= model.last_seq(),
        "{}: recovered {x}, appended {}",
        label(),
        model.last_seq()
    );
    assert!(
        rebuilt(&rec.rooms) == rooms_at(x),
        "{}: rooms differ at seq {x}",
        label()
    );
    if !go_on {
        return;
    }
    let mut model = model.clone();
    model.cut(x);
    let mut driver = Driver::new(seed ^ 0xabcdef, model);
    for _ in 0..40 {
        driver
            .act(&p)
            .unwrap_or_else(|e| panic!("{}: after recovery: {e}", label()));
    }
    p.shutdown()
        .unwrap_or_else(|e| panic!("{}: after recovery: {e}", label()));
    drop(p);
    let again = image.crash_image(false, 7);
    let (_p, rec) = open(Arc::new(again), config())
        .unwrap_or_else(|e| panic!("{}: second recovery refused: {e}", label()));
    let last = driver.model.last_seq();
    assert_eq!(rec.next_seq - 1, last, "{}: second recovery", label());
    assert!(
        rebuilt(&rec.rooms) == driver.model.rooms_at(last),
        "{}: second recovery",
        label()
    );
}

#[test]
fn a_crash_at_every_io_operation_recovers_every_acknowledged_record() {
    // The literal crash: the k-th operation fails and so does everything after it, then
    // power is lost. Each crash point reruns the workload (quadratic), so few seeds.
    let start = Instant::now();
    let (seeds, actions) = (0..2u64, 100);
    let mut points = 0u64;
    for seed in seeds {
        let full = run(seed, None, actions);
        assert!(
            full.snapshots > 3,
            "seed {seed}: the workload must snapshot"
        );
        check(seed, 0, false, &full, true);
        for k in 1..=full.disk.ops() + 1 {
            let out = run(seed, Some(k), actions);
            check(seed, k, false, &out, k % 16 == 0);
            check(seed, k, true, &out, k % 16 == 8);
            points += 2;
        }
    }
    println!(
        "crash points (failing I/O op k): {points} in {:.1?}",
        start.elapsed()
    );
}

#[test]
fn a_power_loss_before_every_io_operation_recovers_every_acknowledged_record() {
    // One run per seed records the disk before every operation; each recorded state is
    // then crashed twice (durable only, and with random torn tails and directory
    // changes). The tag is the acknowledged seq at that moment, set by the durability
    // hook as soon as `durable_seq` moves.
    let start = Instant::now();
    let (seeds, actions) = (100..122u64, 150);
    let mut points = 0u64;
    let mut segments_deleted = 0;
    for seed in seeds {
        let disk = SimDisk::new(seed);
        disk.record_history();
        let mut driver = Driver::new(seed, Model::default());
        let (p, _) = open(Arc::new(disk.clone()), config()).expect("opens");
        let tagger = disk.clone();
        p.on_durable(move |d| tagger.set_tag(d.durable_seq));
        for _ in 0..actions {
            driver.act(&p).expect("no faults injected");
        }
        p.step().expect("no faults injected");
        segments_deleted += p.stats().segments_deleted;
        drop(p);
        // The model's rooms after each seq, computed once.
        let mut states = vec![BTreeMap::new()];
        for (&seq, e) in &driver.model.entries {
            let mut next = states.last().expect("one").clone();
            apply_entry(&mut next, seq, e);
            assert_eq!(states.len() as u64, seq, "gapless");
            states.push(next);
        }
        let rooms_at = |x: u64| states[x as usize].clone();
        for k in 0..disk.history_len() {
            for torn in [false, true] {
                let (image, acked) =
                    disk.image_before(k, torn, seed ^ (k as u64) << 1 ^ u64::from(torn));
                let label = || format!("seed {seed}, power lost before I/O op {k}, torn {torn}");
                check_image(
                    &label,
                    seed,
                    image,
                    acked,
                    &driver.model,
                    &rooms_at,
                    k % 32 == 5,
                );
                points += 1;
            }
        }
    }
    println!(
        "crash points (power lost before op k): {points} in {:.1?}, {segments_deleted} segments truncated",
        start.elapsed()
    );
    assert!(segments_deleted > 0, "the workload must truncate the log");
    assert!(points >= 10_000, "only {points} crash points");
}
