//! Fault injection: a failed fsync and a full disk fail the layer for good (fsyncgate),
//! refuse every later append, never move `durable_seq` past what was synced, and a
//! restart recovers consistently. Also the threaded layer: hooks, the async watch, and
//! blocking waits.

use crate::persist_model;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use canopy_store::{PersistConfig, PersistError, RoomMeta, SimDisk, open};
use persist_model::{Driver, Model, rebuilt};

fn manual() -> PersistConfig {
    PersistConfig {
        segment_bytes: 1500,
        threads: false,
        ..PersistConfig::default()
    }
}

/// Runs a workload until the injected fault fails the layer; checks the failed state
/// and both restarts (process only, and power loss).
fn fault_run(seed: u64, inject: impl Fn(&SimDisk)) -> bool {
    let disk = SimDisk::new(seed);
    let (p, _) = open(Arc::new(disk.clone()), manual()).expect("opens");
    inject(&disk);
    let mut driver = Driver::new(seed, Model::default());
    let mut failed = false;
    for _ in 0..300 {
        if driver.act(&p).is_err() {
            failed = true;
            break;
        }
    }
    let acked = p.durable_seq();
    if failed {
        let err = p.failed().expect("a failed step fails the layer");
        assert!(matches!(
            p.checkpoint("nope", 1, 1),
            Err(PersistError::Failed(_))
        ));
        let room = RoomMeta {
            id: "late".into(),
            tick_hz: 30,
            editor_token: None,
            viewer_token: None,
            created_ms: 0,
        };
        assert!(
            matches!(p.create_room(&room), Err(PersistError::Failed(_))),
            "{err}"
        );
        assert!(p.step().is_err());
        assert_eq!(
            p.durable_seq(),
            acked,
            "durable_seq moved after the failure"
        );
        assert!(p.stats().failed);
    }
    drop(p);
    for image in [
        disk.restart(),
        disk.crash_image(false, seed),
        disk.crash_image(true, seed),
    ] {
        let (_p, rec) = open(Arc::new(image), manual())
            .unwrap_or_else(|e| panic!("seed {seed}: restart refused: {e}"));
        let x = rec.next_seq - 1;
        assert!(
            acked <= x,
            "seed {seed}: acknowledged {acked}, recovered {x}"
        );
        assert!(x <= driver.model.last_seq());
        assert_eq!(rebuilt(&rec.rooms), driver.model.rooms_at(x), "seed {seed}");
    }
    failed
}

#[test]
fn a_failed_fsync_fails_the_layer_for_good() {
    let mut failures = 0;
    for n in 1..120 {
        if fault_run(n, |d| d.fail_sync(n)) {
            failures += 1;
        }
    }
    assert!(failures > 100, "only {failures} runs hit the fault");
}

#[test]
fn a_full_disk_fails_the_layer_and_says_enospc() {
    let mut failures = 0;
    for budget in (0..6000).step_by(97) {
        let seed = budget;
        if fault_run(seed, |d| d.capacity(budget)) {
            failures += 1;
        }
    }
    assert!(failures > 50, "only {failures} runs hit the fault");
    // The error names ENOSPC.
    let disk = SimDisk::new(1);
    let (p, _) = open(Arc::new(disk.clone()), manual()).unwrap();
    disk.capacity(10);
    let meta = RoomMeta {
        id: "r".into(),
        tick_hz: 30,
        editor_token: None,
        viewer_token: None,
        created_ms: 0,
    };
    p.create_room(&meta).unwrap();
    let err = p.step().unwrap_err();
    assert_eq!(err.raw_os_error(), Some(28), "{err}");
    assert!(
        err.to_string()
            .contains("sim:/log/00000000000000000001.clog"),
        "{err}"
    );
}

#[test]
fn threads_group_commit_wake_hooks_and_async_waiters() {
    let disk = SimDisk::new(9);
    let config = PersistConfig {
        segment_bytes: 4096,
        ..PersistConfig::default()
    };
    let (p, _) = open(Arc::new(disk.clone()), config.clone()).unwrap();
    let p = Arc::new(p);
    let woken = Arc::new(AtomicU64::new(0));
    let w = Arc::clone(&woken);
    p.on_durable(move |d| w.store(d.durable_seq, Ordering::SeqCst));
    let rooms = 4;
    let handles: Vec<_> = (0..rooms)
        .map(|r| {
            let p = Arc::clone(&p);
            std::thread::spawn(move || {
                let id = format!("t{r}");
                let meta = RoomMeta {
                    id: id.clone(),
                    tick_hz: 60,
                    editor_token: Some("e".into()),
                    viewer_token: None,
                    created_ms: 5,
                };
                p.create_room(&meta).unwrap();
                let mut last = 0;
                for tick in 1..=200u64 {
                    let ops = vec![vec![canopy_protocol::Op::Remove { node: tick as u32 }]];
                    last = p.tick(&id, tick, tick * 16, &ops).unwrap();
                    if tick % 50 == 0 {
                        p.wait_durable(last).unwrap();
                    }
                }
                last
            })
        })
        .collect();
    let lasts: Vec<u64> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let top = *lasts.iter().max().unwrap();
    p.wait_durable(top).unwrap();
    assert!(p.durable_seq() >= top);
    assert!(
        woken.load(Ordering::SeqCst) >= top,
        "the hook saw the last advance"
    );
    let stats = p.stats();
    assert_eq!(stats.records_written, top);
    assert!(
        stats.fsyncs <= top,
        "group commit: at most one fsync per record"
    );
    assert!(stats.segments_created > 1, "rolled");
    Arc::try_unwrap(p).unwrap().shutdown().unwrap();
    let (_p, rec) = open(Arc::new(disk.crash_image(true, 3)), config).unwrap();
    assert_eq!(rec.rooms.len(), rooms);
    for room in &rec.rooms {
        assert_eq!(room.replay.len(), 200, "{}", room.meta.id);
    }
}

#[test]
fn a_failed_fsync_wakes_every_waiter_with_the_error() {
    let disk = SimDisk::new(4);
    let (p, _) = open(Arc::new(disk.clone()), PersistConfig::default()).unwrap();
    let meta = RoomMeta {
        id: "f".into(),
        tick_hz: 30,
        editor_token: None,
        viewer_token: None,
        created_ms: 0,
    };
    let seq = p.create_room(&meta).unwrap();
    p.wait_durable(seq).unwrap();
    let told_failed = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&told_failed);
    p.on_durable(move |w| {
        if w.failed {
            flag.store(true, Ordering::SeqCst);
        }
    });
    disk.fail_sync(3); // the open synced the log dir; the create, its segment
    let seq = p.checkpoint("f", 1, 33).unwrap();
    let err = p.wait_durable(seq).unwrap_err();
    assert!(matches!(err, PersistError::Failed(_)), "{err}");
    assert!(
        p.wait_durable(seq).is_err(),
        "a later waiter gets the error too"
    );
    assert!(told_failed.load(Ordering::SeqCst), "the hooks were told");
    assert!(p.watermark().failed);
    assert_eq!(p.durable_seq(), seq - 1);
    assert!(p.failed().unwrap().to_string().contains("fdatasync"));
}
