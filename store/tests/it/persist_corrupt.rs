//! Damage on disk: a flipped byte in the middle of the log, a bad header, a seq gap or
//! an unknown record kind refuse the start, naming the file and offset; a torn last
//! record is cut; a corrupt newest snapshot falls back to the older one only when the log
//! covers the gap. Also the data-dir lock and `verify`.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use canopy_protocol::Op;
use canopy_store::{
    FsStorage, PersistConfig, PersistError, RoomMeta, RoomState, SimDisk, open, open_dir, verify,
};

fn config(segment_bytes: u64) -> PersistConfig {
    PersistConfig {
        segment_bytes,
        ..PersistConfig::default()
    }
}

fn meta(id: &str) -> RoomMeta {
    RoomMeta {
        id: id.into(),
        tick_hz: 30,
        editor_token: Some("tok".into()),
        viewer_token: None,
        created_ms: 1,
    }
}

/// A data dir with one room and `ticks` tick records, in segments of `segment_bytes`.
fn fill(dir: &Path, ticks: u64, segment_bytes: u64) -> u64 {
    let (p, _) = open_dir(dir, config(segment_bytes)).unwrap();
    p.create_room(&meta("a")).unwrap();
    let mut last = 0;
    for t in 1..=ticks {
        last = p
            .tick("a", t, t * 33, &[vec![Op::Remove { node: t as u32 }]])
            .unwrap();
    }
    p.shutdown().unwrap();
    last
}

fn segments(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir.join("log"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

fn flip(path: &Path, at: usize) {
    let mut b = fs::read(path).unwrap();
    b[at] ^= 0x40;
    fs::write(path, b).unwrap();
}

fn refusal(dir: &Path) -> PersistError {
    open_dir(dir, config(600)).map(|_| ()).unwrap_err()
}

#[test]
fn a_flipped_byte_in_the_middle_of_the_log_refuses_naming_file_and_offset() {
    let tmp = tempfile::tempdir().unwrap();
    fill(tmp.path(), 60, 600);
    let segs = segments(tmp.path());
    assert!(segs.len() > 3);
    flip(&segs[1], 40 + 30);
    let err = refusal(tmp.path());
    let msg = err.to_string();
    assert!(
        matches!(err, PersistError::Corrupt { offset: 40, .. }),
        "{msg}"
    );
    assert!(
        msg.contains(&segs[1].display().to_string()) && msg.contains("at byte 40"),
        "{msg}"
    );
}

#[test]
fn damage_in_the_last_segment_followed_by_a_valid_record_refuses() {
    let tmp = tempfile::tempdir().unwrap();
    fill(tmp.path(), 10, 1 << 20);
    let segs = segments(tmp.path());
    let last = segs.last().unwrap();
    flip(last, 40 + 8 + 3);
    let msg = refusal(tmp.path()).to_string();
    assert!(
        msg.contains("valid record follows") && msg.contains("at byte 40"),
        "{msg}"
    );
}

#[test]
fn a_torn_last_record_is_cut_and_logged() {
    let tmp = tempfile::tempdir().unwrap();
    let last_seq = fill(tmp.path(), 10, 1 << 20);
    let seg = segments(tmp.path()).pop().unwrap();
    let len = fs::metadata(&seg).unwrap().len();
    fs::OpenOptions::new()
        .write(true)
        .open(&seg)
        .unwrap()
        .set_len(len - 5)
        .unwrap();
    let (p, rec) = open_dir(tmp.path(), config(1 << 20)).unwrap();
    let (path, torn) = rec.report.torn.clone().expect("reported");
    assert!(path.ends_with(seg.file_name().unwrap()));
    assert!(torn.bytes > 0 && torn.offset < len - 5);
    assert_eq!(rec.next_seq, last_seq, "only the torn record is gone");
    assert_eq!(rec.rooms[0].replay.len(), 9);
    drop(p);
    let (_p, rec) = open_dir(tmp.path(), config(1 << 20)).unwrap();
    assert!(rec.report.torn.is_none(), "cut once, durably");
    assert_eq!(rec.next_seq, last_seq);
}

#[test]
fn a_bad_header_a_seq_gap_and_an_unknown_kind_refuse() {
    let tmp = tempfile::tempdir().unwrap();
    fill(tmp.path(), 60, 600);
    let segs = segments(tmp.path());
    flip(&segs[0], 2);
    let msg = refusal(tmp.path()).to_string();
    assert!(
        msg.contains("bad magic") && msg.contains("at byte 0"),
        "{msg}"
    );
    flip(&segs[0], 2);
    fs::remove_file(&segs[2]).unwrap();
    let msg = refusal(tmp.path()).to_string();
    assert!(msg.contains("seq gap"), "{msg}");

    // A well-framed record of a kind this binary does not know, at the very end: not a
    // torn write (its CRC matches), so it refuses even in the last segment.
    let tmp = tempfile::tempdir().unwrap();
    let last = fill(tmp.path(), 3, 1 << 20);
    let seg = segments(tmp.path()).pop().unwrap();
    let mut body = vec![9u8];
    body.extend_from_slice(&0u64.to_le_bytes());
    body.extend_from_slice(&(last + 1).to_le_bytes());
    body.extend_from_slice(b"future");
    let mut frame = (body.len() as u32).to_le_bytes().to_vec();
    frame.extend_from_slice(&crc32c::crc32c(&body).to_le_bytes());
    frame.extend_from_slice(&body);
    let mut bytes = fs::read(&seg).unwrap();
    let at = bytes.len();
    bytes.extend_from_slice(&frame);
    fs::write(&seg, bytes).unwrap();
    let msg = refusal(tmp.path()).to_string();
    assert!(
        msg.contains("unknown record kind 9") && msg.contains(&format!("at byte {at}")),
        "{msg}"
    );
}

/// A room snapshotted `snaps` times, `ticks` ticks apart, on the simulated disk.
fn snapshotted(disk: &SimDisk, snaps: u64, ticks: u64) -> Vec<u64> {
    let config = PersistConfig {
        segment_bytes: 300,
        threads: false,
        ..PersistConfig::default()
    };
    let (p, _) = open(Arc::new(disk.clone()), config).unwrap();
    let mut seq = p.create_room(&meta("a")).unwrap();
    let mut at = Vec::new();
    let mut tick = 0;
    for _ in 0..snaps {
        for _ in 0..ticks {
            tick += 1;
            seq = p
                .tick("a", tick, tick, &[vec![Op::Remove { node: tick as u32 }]])
                .unwrap();
        }
        let state = RoomState {
            tick,
            time_ms: tick,
            next_id: tick,
            ..RoomState::default()
        };
        p.request_snapshot("a", seq, state).unwrap();
        p.step().unwrap();
        at.push(seq);
    }
    for _ in 0..ticks {
        tick += 1;
        p.checkpoint("a", tick, tick).unwrap();
    }
    p.shutdown().unwrap();
    at
}

fn snap_path(seq: u64) -> PathBuf {
    Path::new("snap").join(format!("a.{seq:020}.snap"))
}

#[test]
fn a_corrupt_newest_snapshot_falls_back_when_the_log_covers_the_gap() {
    let disk = SimDisk::new(1);
    let at = snapshotted(&disk, 3, 20);
    disk.corrupt(&snap_path(at[2]), 30, |b| b ^ 1).unwrap();
    let manual = PersistConfig {
        threads: false,
        ..PersistConfig::default()
    };
    let (_p, rec) = open(Arc::new(disk.clone()), manual).unwrap();
    let room = &rec.rooms[0];
    assert_eq!(
        room.snapshot.as_ref().unwrap().0,
        at[1],
        "the older snapshot"
    );
    assert_eq!(
        room.replay.len(),
        40,
        "20 ticks and 20 checkpoints after it"
    );
    assert_eq!(rec.report.set_aside.len(), 1);
    assert!(
        rec.report.set_aside[0].1.contains("checksum"),
        "{:?}",
        rec.report.set_aside
    );
}

#[test]
fn a_corrupt_newest_snapshot_refuses_when_the_log_no_longer_covers_the_gap() {
    let disk = SimDisk::new(2);
    let at = snapshotted(&disk, 3, 20);
    // Truncation kept the log from the older snapshot on; with that one gone too, the
    // records between it and the newest are nowhere.
    disk.corrupt(&snap_path(at[2]), 30, |b| b ^ 1).unwrap();
    disk.corrupt(&snap_path(at[1]), 30, |b| b ^ 1).unwrap();
    let manual = PersistConfig {
        threads: false,
        ..PersistConfig::default()
    };
    let err = open(Arc::new(disk.clone()), manual).unwrap_err();
    assert!(
        matches!(&err, PersistError::Inconsistent { room, .. } if room == "a"),
        "{err}"
    );
    assert!(
        err.to_string().contains(&format!("a.{:020}.snap", at[2])),
        "{err}"
    );
}

#[test]
fn a_second_open_on_a_locked_dir_refuses_with_a_clear_message() {
    let tmp = tempfile::tempdir().unwrap();
    let (_p, _) = open_dir(tmp.path(), PersistConfig::default()).unwrap();
    let err = open_dir(tmp.path(), PersistConfig::default()).unwrap_err();
    let msg = err.to_string();
    assert!(
        matches!(err, PersistError::Locked { pid: Some(_), .. }),
        "{msg}"
    );
    assert!(msg.contains(&tmp.path().display().to_string()), "{msg}");
    assert!(
        msg.contains(&format!("pid {}", std::process::id())),
        "{msg}"
    );
}

#[test]
fn verify_reports_without_changing_anything() {
    let tmp = tempfile::tempdir().unwrap();
    fill(tmp.path(), 30, 600);
    let storage = FsStorage::new(tmp.path()).unwrap();
    let report = verify(&storage);
    assert!(report.ok(), "{:?}", report.problems);
    assert_eq!(
        (report.rooms_created, report.ticks, report.live_rooms),
        (1, 30, 1)
    );
    let segs = segments(tmp.path());
    flip(&segs[1], 40 + 30);
    let before: Vec<Vec<u8>> = segs.iter().map(|s| fs::read(s).unwrap()).collect();
    let report = verify(&storage);
    assert!(!report.ok());
    assert!(
        report.problems[0].contains("at byte 40"),
        "{:?}",
        report.problems
    );
    let after: Vec<Vec<u8>> = segments(tmp.path())
        .iter()
        .map(|s| fs::read(s).unwrap())
        .collect();
    assert_eq!(before, after);
}

#[test]
fn a_lower_epoch_than_the_log_is_refused() {
    let disk = SimDisk::new(5);
    let at = |epoch| PersistConfig {
        epoch,
        threads: false,
        ..PersistConfig::default()
    };
    let (p, _) = open(Arc::new(disk.clone()), at(3)).unwrap();
    p.create_room(&meta("a")).unwrap();
    p.shutdown().unwrap();
    drop(p);
    let err = open(Arc::new(disk.clone()), at(2)).unwrap_err();
    assert!(
        err.to_string()
            .contains("epoch 2 is lower than the log's epoch 3"),
        "{err}"
    );
    let (_p, rec) = open(Arc::new(disk), at(4)).unwrap();
    assert_eq!(rec.rooms.len(), 1);
}
