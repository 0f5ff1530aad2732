//! Storage-layer benchmark on the real disk (a temporary data dir under `target/`):
//! append throughput and group-commit latency for the records of a 1%-edited 100k-node
//! tick (1,000 `set_local` ops), the log's bytes per edited node per tick, and snapshot
//! write and read (recovery) time for 20k and 1M nodes.
//!
//! Run: `cargo bench -p canopy-benches --bench persist`.

#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented `pub fn`"
)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use canopy_protocol::Op;
use canopy_store::{
    FRAME_LEN, PersistConfig, RoomMeta, RoomState, SnapNode, encode_batches, open_dir,
};
use criterion::{Criterion, criterion_group, criterion_main};

const EDITED: usize = 1_000;
const BATCHES: usize = 10;

/// One tick's batches: 1,000 `set_local` ops (t and r) in 10 batches of 100.
fn tick_batches(tick: u64) -> Vec<Vec<Op>> {
    (0..BATCHES)
        .map(|b| {
            (0..EDITED / BATCHES)
                .map(|i| {
                    let node = ((b * 100 + i) * 97 + tick as usize) as u32 % 100_000;
                    let x = tick as f32 * 0.01 + i as f32;
                    Op::SetLocal {
                        node,
                        t: Some([x, x * 0.5, -x]),
                        r: Some([0.0, 0.38268343, 0.0, 0.9238795]),
                        s: None,
                    }
                })
                .collect()
        })
        .collect()
}

fn meta(id: &str) -> RoomMeta {
    RoomMeta {
        id: id.into(),
        tick_hz: 30,
        editor_token: Some("editor-token".into()),
        viewer_token: None,
        created_ms: 0,
    }
}

fn dir() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir under target/")
}

fn log(c: &mut Criterion) {
    let batches = tick_batches(1);
    let payload = encode_batches(&batches).len();
    let record = FRAME_LEN + 1 + 1 + 8 * 3 + payload;
    println!(
        "workload: one room tick of a 100k-node room with 1% edited: {EDITED} set_local ops (t, r) \
         in {BATCHES} batches; record {record} B = {:.1} B per edited node per tick",
        record as f64 / EDITED as f64
    );
    let tmp = dir();
    let (p, _) = open_dir(tmp.path(), PersistConfig::default()).unwrap();
    p.create_room(&meta("bench")).unwrap();
    let mut tick = 0u64;
    let mut group = c.benchmark_group("persist_log");
    group.measurement_time(Duration::from_secs(8));
    // Latency: one record appended and waited for (one write + one fdatasync).
    group.bench_function("append_and_wait_durable_1_record", |b| {
        b.iter(|| {
            tick += 1;
            let seq = p.tick("bench", tick, tick * 33, &batches).unwrap();
            p.wait_durable(seq).unwrap();
        })
    });
    // Throughput: 64 records appended back to back (64 rooms' ticks), then waited for:
    // group commit folds them into few fsyncs. Reported per record.
    let rooms: Vec<String> = (0..64).map(|i| format!("r{i}")).collect();
    for r in &rooms {
        p.create_room(&meta(r)).unwrap();
    }
    let before = p.stats();
    group.bench_function("append_64_records_then_wait_per_record", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                tick += 1;
                let mut last = 0;
                for r in &rooms {
                    last = p.tick(r, tick, tick * 33, &batches).unwrap();
                }
                p.wait_durable(last).unwrap();
            }
            start.elapsed() / 64
        })
    });
    group.finish();
    let after = p.stats();
    let records = after.records_written - before.records_written;
    let fsyncs = after.fsyncs - before.fsyncs;
    println!(
        "group commit: {records} records in {fsyncs} fsyncs ({:.1} records per fsync); fsync mean {:.2} ms, max {:.2} ms",
        records as f64 / fsyncs.max(1) as f64,
        after.fsync_nanos_total as f64 / after.fsyncs.max(1) as f64 / 1e6,
        after.fsync_nanos_max as f64 / 1e6
    );
    p.shutdown().unwrap();
}

fn nodes(n: usize) -> Vec<SnapNode> {
    (0..n as u32)
        .map(|id| SnapNode {
            id,
            parent: (id > 0).then(|| (id - 1) / 8),
            t: [id as f32, 1.0, 2.0],
            r: [0.0, 0.0, 0.0, 1.0],
            s: 1.0,
            extent: [0.5; 3],
            mask: u32::MAX,
        })
        .collect()
}

fn snapshots(c: &mut Criterion) {
    for n in [20_000usize, 1_000_000] {
        let state = RoomState {
            tick: 100,
            time_ms: 3300,
            next_id: n as u64,
            nodes: nodes(n),
            retired: vec![(n as u32, n as u32 + 10)],
        };
        let tmp = dir();
        let (p, _) = open_dir(tmp.path(), PersistConfig::default()).unwrap();
        let seq = p.create_room(&meta("snap")).unwrap();
        let mut group = c.benchmark_group(format!("persist_snapshot_{n}_nodes"));
        group.sample_size(10);
        // Write: encode, write the temporary file, fdatasync, rename, fsync the dir.
        group.bench_function("write", |b| {
            b.iter(|| {
                p.request_snapshot("snap", seq, state.clone()).unwrap();
                p.wait_snapshots().unwrap();
            })
        });
        p.shutdown().unwrap();
        drop(p);
        let bytes = std::fs::read_dir(tmp.path().join("snap"))
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap().len())
            .max()
            .unwrap_or(0);
        println!("snapshot of {n} nodes: {bytes} bytes");
        // Read: a whole recovery of the data dir (lock, read and check the log, read and
        // decode the snapshot).
        group.bench_function("read_by_recovery", |b| {
            b.iter(|| {
                let (p, rec) = open_dir(tmp.path(), PersistConfig::default()).unwrap();
                black_box(rec.rooms[0].snapshot.as_ref().unwrap().1.nodes.len());
                drop(p);
            })
        });
        group.finish();
    }
}

criterion_group!(benches, log, snapshots);
criterion_main!(benches);
