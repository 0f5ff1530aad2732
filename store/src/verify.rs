//! [`verify`]: reads a whole data dir and reports what is in it and what is wrong,
//! changing nothing (for `canopy verify --data-dir`).
//!
//! Invariant: it makes no call that writes, and it judges with the very code `open`
//! uses, so "verify says ok" means "open would start, cutting at most the torn end it
//! reports".

use std::path::Path;

use super::plan::{plan, scan_log};
use super::record::Kind;
use super::snapshot;
use super::snapwriter::SNAP_DIR;
use super::storage::Storage;

/// One segment as `verify` saw it.
#[derive(Clone, Debug)]
pub struct SegmentReport {
    /// The segment's path within the data dir (`log/<first_seq>.clog`).
    pub name: String,
    /// The file's size in bytes.
    pub bytes: u64,
    /// Whole records read from it.
    pub records: u64,
    /// The seq of its first record, from its header.
    pub first_seq: u64,
    /// The version of the binary that wrote it, from its header.
    pub binary_version: String,
}

/// What `verify` found.
#[derive(Clone, Debug, Default)]
pub struct VerifyReport {
    /// Every log segment, in seq order.
    pub segments: Vec<SegmentReport>,
    /// Bytes of all log segments.
    pub log_bytes: u64,
    /// Records in all log segments.
    pub records: u64,
    /// `created` records in the log.
    pub rooms_created: u64,
    /// `deleted` records in the log.
    pub rooms_deleted: u64,
    /// `tick` records in the log.
    pub ticks: u64,
    /// `checkpoint` records in the log.
    pub checkpoints: u64,
    /// Snapshot files that decode, and their total size.
    pub snapshots: u64,
    /// Total bytes of the snapshot files that decode.
    pub snapshot_bytes: u64,
    /// Live rooms and records that a start would replay.
    pub live_rooms: usize,
    /// Records a start would replay after the rooms' snapshots.
    pub records_to_replay: u64,
    /// A torn end a start would cut (not a problem).
    pub torn: Option<String>,
    /// Snapshot files a start would set aside or remove (not fatal).
    pub warnings: Vec<String>,
    /// What would stop a start.
    pub problems: Vec<String>,
}

impl VerifyReport {
    /// Whether a start would succeed.
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Reads everything under `storage` and reports.
pub fn verify(storage: &dyn Storage) -> VerifyReport {
    let mut report = VerifyReport::default();
    match scan_log(storage) {
        Err(e) => report.problems.push(e.to_string()),
        Ok((segments, ignored)) => {
            for name in ignored {
                report
                    .warnings
                    .push(format!("log/{name}: not a segment name, ignored"));
            }
            for seg in &segments {
                let s = &seg.scan;
                report.log_bytes += s.file_len;
                report.records += s.records.len() as u64;
                for r in &s.records {
                    match r.kind() {
                        Kind::Created => report.rooms_created += 1,
                        Kind::Deleted => report.rooms_deleted += 1,
                        Kind::Tick => report.ticks += 1,
                        Kind::Checkpoint => report.checkpoints += 1,
                    }
                }
                if let Some(t) = &s.torn {
                    report.torn = Some(format!(
                        "{} at byte {}: {} ({} bytes would be cut)",
                        storage.display(&seg.path).display(),
                        t.offset,
                        t.why,
                        t.bytes
                    ));
                }
                report.segments.push(SegmentReport {
                    name: seg.path.to_string_lossy().into_owned(),
                    bytes: s.file_len,
                    records: s.records.len() as u64,
                    first_seq: s.first_seq,
                    binary_version: s.binary_version.clone(),
                });
            }
        }
    }
    let dir = Path::new(SNAP_DIR);
    match storage.list(dir) {
        Err(e) => report
            .problems
            .push(format!("{}: list: {e}", storage.display(dir).display())),
        Ok(names) => {
            for name in names {
                let path = dir.join(&name);
                if snapshot::parse_file_name(&name).is_none() {
                    continue;
                }
                match storage.read(&path) {
                    Err(e) => report
                        .problems
                        .push(format!("{}: read: {e}", storage.display(&path).display())),
                    Ok(bytes) => match snapshot::decode(&bytes) {
                        Ok(_) => {
                            report.snapshots += 1;
                            report.snapshot_bytes += bytes.len() as u64;
                        }
                        Err((at, why)) => report.warnings.push(format!(
                            "{} at byte {at}: {why}",
                            storage.display(&path).display()
                        )),
                    },
                }
            }
        }
    }
    if report.problems.is_empty() {
        match plan(storage) {
            Err(e) => report.problems.push(e.to_string()),
            Ok(p) => {
                report.live_rooms = p.rooms.len();
                report.records_to_replay = p.rooms.iter().map(|r| r.replay.len() as u64).sum();
                for (name, why) in p.set_aside {
                    report
                        .warnings
                        .push(format!("snap/{name}: would be set aside: {why}"));
                }
            }
        }
    }
    report
}
