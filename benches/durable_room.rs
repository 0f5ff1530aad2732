//! What persistence costs a room, measured side by side in one run:
//! * the tick of a 100k-node room with 1% of its nodes edited per tick (1,000
//!   `set_local` ops in 10 batches), logged to a data dir on the real disk against the
//!   same room kept in memory (the fsync runs on the log thread, not in the tick);
//! * the log's bytes per edited node;
//! * restart time (open the data dir, read the snapshot, replay the log after it,
//!   rebuild hierarchy and octree) for rooms of 20k and 1M nodes.
//!
//! Run: `cargo bench -p canopy-benches --bench durable_room` (`-- --quick` for fewer
//! ticks). The data dirs live under `target/bench-data` and are removed afterwards.

use std::sync::Arc;
use std::time::{Duration, Instant};

use canopy_protocol::{Op, Transform};
use canopy_room::metrics::RoomMetrics;
use canopy_room::{LogLink, Room, RoomConfig, RoomLog, SceneState, durable};
use canopy_server::durability;
use canopy_store::{self, Persist, PersistConfig};

const NODES: u32 = 100_000;
const EDITED: u32 = 1_000;

fn config() -> RoomConfig {
    let mut c = RoomConfig::default();
    c.hierarchy.max_nodes = 2_000_000;
    c.edits.max_pending_ops = 4_000_000;
    c.edits.max_pending_batches = 100_000;
    c.tick_op_budget = 2_000_000;
    c
}

fn data_dir(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("bench-data")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn submit(room: &Room, ops: Vec<Op>) {
    room.shared().submit_unanswered(ops).expect("admitted");
}

/// `n` nodes in batches of 10,000: roots with 9 children each (a typical scene of
/// objects with parts).
fn populate(room: &mut Room, n: u32, now: &mut u64) {
    let mut ops = Vec::new();
    for id in 0..n {
        let parent = (!id.is_multiple_of(10)).then(|| id - id % 10);
        let t = Transform::from_xyz((id % 1000) as f32 * 0.1, 0.1, (id / 1000) as f32 * 0.1);
        ops.push(Op::Add {
            id: Some(id),
            parent,
            local: t,
            extent: [0.5; 3],
            mask: 1,
        });
        if ops.len() == 10_000 {
            submit(room, std::mem::take(&mut ops));
            *now += 33;
            room.tick(*now);
        }
    }
    if !ops.is_empty() {
        submit(room, ops);
        *now += 33;
        room.tick(*now);
    }
}

fn edit_tick(room: &mut Room, tick: u32, now: &mut u64) {
    for b in 0..10 {
        let ops = (0..EDITED / 10)
            .map(|i| {
                let node = ((b * 100 + i) * 97 + tick * 13) % NODES;
                let x = tick as f32 * 0.01 + i as f32;
                Op::set_t(node, [x, 0.1, -x])
            })
            .collect();
        submit(room, ops);
    }
    *now += 33;
    room.tick(*now);
}

fn logged_room(dir: &std::path::Path, id: &str) -> (Room, Arc<Persist>) {
    let (persist, _) = canopy_store::open_dir(dir, PersistConfig::default()).expect("data dir");
    let persist = Arc::new(persist);
    let created = persist
        .create_room(&canopy_room::recovered::room_meta(id, 30, None, 1))
        .expect("created");
    let c = config();
    let scene = SceneState::new(c.hierarchy, c.octree);
    let log = RoomLog::new(LogLink::new(Arc::clone(&persist)), created, created, 0);
    let spec = canopy_room::RoomSpec {
        id: id.into(),
        tick_hz: 30,
        config: c,
        metrics: Arc::new(RoomMetrics::default()),
        tokens: None,
    };
    let room = Room::owner(spec, scene, canopy_room::Durability::logged(log));
    (room, persist)
}

fn stats(mut v: Vec<Duration>) -> (f64, f64, f64) {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mean = v.iter().map(|d| ms(*d)).sum::<f64>() / v.len() as f64;
    (ms(v[v.len() / 2]), mean, ms(v[v.len() * 99 / 100]))
}

fn tick_cost(ticks: u32) {
    println!(
        "workload: a {NODES}-node room (roots with 9 children), {EDITED} set_local per tick in 10 batches, {ticks} ticks"
    );
    let mut now = 1_000;
    let mut memory = Room::new(
        "m".into(),
        30,
        config(),
        Arc::new(RoomMetrics::default()),
        None,
    );
    populate(&mut memory, NODES, &mut now);
    let dir = data_dir("tick");
    let (mut logged, persist) = logged_room(&dir, "l");
    populate(&mut logged, NODES, &mut now);
    persist
        .wait_durable(persist.last_seq("l").unwrap())
        .unwrap();
    let bytes_before = persist.stats().log_bytes_written;
    let (mut mem_t, mut log_t) = (Vec::new(), Vec::new());
    // Interleaved, so both see the same machine state.
    for tick in 0..ticks {
        let t = Instant::now();
        edit_tick(&mut memory, tick, &mut now);
        mem_t.push(t.elapsed());
        let t = Instant::now();
        edit_tick(&mut logged, tick, &mut now);
        log_t.push(t.elapsed());
        // At 30 Hz the log thread has a period to catch up; give it that here too so
        // the queue bound does not hold batches back.
        persist
            .wait_durable(persist.last_seq("l").unwrap())
            .unwrap();
    }
    let bytes = persist.stats().log_bytes_written - bytes_before;
    let (m50, mmean, m99) = stats(mem_t);
    let (l50, lmean, l99) = stats(log_t);
    println!("tick, in memory: median {m50:.3} ms, mean {mmean:.3} ms, p99 {m99:.3} ms");
    println!("tick, logged:    median {l50:.3} ms, mean {lmean:.3} ms, p99 {l99:.3} ms");
    println!(
        "logged / in memory: {:.3}x median, {:.3}x mean (target: at most 1.10x)",
        l50 / m50,
        lmean / mmean
    );
    let per_node = bytes as f64 / f64::from(ticks * EDITED);
    println!(
        "log bytes per edited node per tick: {per_node:.1} (bytes {bytes} over {ticks} ticks)"
    );
    drop(logged);
    persist.shutdown().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

fn restart(n: u32, tail_ticks: u32) {
    let dir = data_dir(&format!("restart-{n}"));
    let mut now = 1_000;
    {
        let (mut room, persist) = logged_room(&dir, "r");
        populate(&mut room, n, &mut now);
        let scene = room.shared().scene.read();
        let seq = persist.last_seq("r").unwrap();
        persist
            .request_snapshot("r", seq, durable::capture(&scene))
            .unwrap();
        drop(scene);
        persist.wait_snapshots().unwrap();
        for tick in 0..tail_ticks {
            for b in 0..10u32 {
                let ops = (0..100u32)
                    .map(|i| Op::set_t((b * 100 + i) * 37 % n + tick % 7, [tick as f32, 0.0, 1.0]))
                    .collect();
                submit(&room, ops);
            }
            now += 33;
            room.tick(now);
        }
        persist
            .wait_durable(persist.last_seq("r").unwrap())
            .unwrap();
        drop(room);
        persist.shutdown().unwrap();
    }
    let started = Instant::now();
    let (persist, recovered) = canopy_store::open_dir(&dir, PersistConfig::default()).unwrap();
    let read = started.elapsed();
    let room = durability::restore_room(
        &recovered.rooms[0],
        config(),
        Arc::new(RoomMetrics::default()),
        LogLink::new(Arc::new(persist)),
        None,
    )
    .unwrap();
    let took = started.elapsed();
    assert_eq!(room.shared().scene.read().hierarchy().len(), n as usize);
    println!(
        "restart of a {n}-node room (snapshot + {tail_ticks} logged ticks of 1,000 edits): \
         {:.0} ms ({:.0} ms reading the data dir, {:.0} ms rebuilding){}",
        took.as_secs_f64() * 1e3,
        read.as_secs_f64() * 1e3,
        (took - read).as_secs_f64() * 1e3,
        if n >= 1_000_000 {
            " (target: at most 2 s)"
        } else {
            ""
        }
    );
    drop(room);
    let _ = std::fs::remove_dir_all(&dir);
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    tick_cost(if quick { 60 } else { 300 });
    restart(20_000, 100);
    restart(1_000_000, if quick { 30 } else { 100 });
}
