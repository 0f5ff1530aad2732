//! Recovery's decisions, made without changing anything: read every segment, walk the
//! records room by room, and choose each live room's snapshot. [`super::open`] then
//! carries the plan out; [`super::verify`] only reports it.
//!
//! Invariants:
//! * the log is one gapless run of seqs from its first segment; within it each room's
//!   records chain (`prev` is the room's previous record), a room is created only when
//!   it does not exist, and nothing follows its deletion;
//! * a snapshot is used only if the log continues exactly from it (the room's first
//!   record after it names it as `prev`) and every newer snapshot file of the room,
//!   even a corrupt one, names a seq the log still holds for the room; so falling back
//!   from a corrupt newest snapshot never skips records. Without a usable snapshot, a
//!   room whose creation is in the log is replayed from its creation; any other room
//!   refuses recovery.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::path::{Path, PathBuf};

use super::error::{PersistError, Result};
use super::record::{Body, Record, RoomMeta, parse_segment_name};
use super::segment::{self, SegmentScan, Torn};
use super::snapshot::{self, RoomSnapshot};
use super::snapwriter::{Installed, SNAP_DIR};
use super::storage::Storage;
use super::writer::{Cover, LOG_DIR, SegmentInfo};

/// One segment file, read.
pub(crate) struct SegFile {
    pub path: PathBuf,
    pub scan: SegmentScan,
}

/// Reads every segment of the log, checking that seqs run on across segments.
pub(crate) fn scan_log(storage: &dyn Storage) -> Result<(Vec<SegFile>, Vec<String>)> {
    let dir = Path::new(LOG_DIR);
    let names = storage
        .list(dir)
        .map_err(|e| PersistError::io(storage.display(dir), "list", e))?;
    let mut firsts = Vec::new();
    let mut ignored = Vec::new();
    for name in names {
        match parse_segment_name(&name) {
            Some(first) => firsts.push((first, name)),
            None => ignored.push(name),
        }
    }
    firsts.sort();
    let mut out: Vec<SegFile> = Vec::with_capacity(firsts.len());
    let mut epoch = 0;
    for (i, (first, name)) in firsts.iter().enumerate() {
        let path = dir.join(name);
        let show = storage.display(&path);
        let bytes = storage
            .read(&path)
            .map_err(|e| PersistError::io(&show, "read", e))?;
        if let Some(prev) = out.last() {
            let expect = prev.scan.first_seq + prev.scan.records.len() as u64;
            if *first != expect {
                let what = format!(
                    "seq gap: the previous segment ends before {expect}, this one starts at {first}"
                );
                return Err(PersistError::corrupt(show, 0, what));
            }
        }
        let last = i + 1 == firsts.len();
        let scan = segment::scan(&show, &bytes, *first, last, epoch)?;
        if let Some(r) = scan.records.last() {
            epoch = r.epoch;
        }
        out.push(SegFile { path, scan });
    }
    Ok((out, ignored))
}

/// A live room as recovery returns it.
pub(crate) struct PlannedRoom {
    pub meta: RoomMeta,
    pub incarnation: u64,
    pub last_seq: u64,
    pub snapshot: Option<RoomSnapshot>,
    /// (segment index, record index) of the records after the snapshot.
    pub replay: Vec<(usize, usize)>,
}

/// What recovery will do.
pub(crate) struct Plan {
    pub segments: Vec<SegFile>,
    pub log_start: u64,
    pub next_seq: u64,
    pub rooms: Vec<PlannedRoom>,
    pub deleted_rooms: usize,
    pub torn: Option<(PathBuf, Torn)>,
    /// Snapshot files to remove (stale, past retention, temporary).
    pub remove: Vec<String>,
    /// Snapshot files to rename aside (`.bad`), with why.
    pub set_aside: Vec<(String, String)>,
    pub installed: HashMap<String, Vec<Installed>>,
    pub cover: HashMap<u64, Cover>,
    pub writer_segments: VecDeque<SegmentInfo>,
    pub snapshots_read: usize,
}

#[derive(Default)]
struct Inc {
    created: Option<(u64, RoomMeta)>,
    created_at: Option<(usize, usize)>,
    /// (segment, record) of every record but `created`, and their seqs.
    records: Vec<(usize, usize)>,
    seqs: Vec<u64>,
    deleted: Option<u64>,
    last_seq: u64,
}

impl Inc {
    fn has(&self, seq: u64) -> bool {
        self.created.as_ref().is_some_and(|c| c.0 == seq) || self.seqs.binary_search(&seq).is_ok()
    }
}

/// Adds one record to its room's incarnations, checking the room's chain.
fn walk(
    rooms: &mut BTreeMap<String, Vec<Inc>>,
    rec: &Record,
    pos: (usize, usize),
    log_start: u64,
    at: impl Fn() -> (PathBuf, u64),
) -> Result<()> {
    let bad = |what: String| {
        let (path, offset) = at();
        Err(PersistError::corrupt(path, offset, what))
    };
    let (room, seq) = (&rec.room, rec.seq);
    let incs = rooms.entry(room.clone()).or_default();
    if let Body::Created(meta) = &rec.body {
        if incs.last().is_some_and(|i| i.deleted.is_none()) {
            return bad(format!("record {seq} creates room {room:?}, which exists"));
        }
        incs.push(Inc {
            created: Some((seq, meta.clone())),
            created_at: Some(pos),
            last_seq: seq,
            ..Inc::default()
        });
        return Ok(());
    }
    match incs.last() {
        Some(i) if i.deleted.is_some() => {
            return bad(format!(
                "record {seq} of room {room:?} follows its deletion"
            ));
        }
        Some(_) => {}
        None => incs.push(Inc::default()),
    }
    let inc = incs.last_mut().expect("pushed above");
    let first_seen = inc.created.is_none() && inc.records.is_empty();
    if first_seen {
        // The room's earlier records were truncated: its previous one must be too.
        if rec.prev >= log_start {
            let what = format!(
                "record {seq} of room {room:?} follows record {}, which the log does not hold for it",
                rec.prev
            );
            return bad(what);
        }
    } else if rec.prev != inc.last_seq {
        let what = format!(
            "record {seq} of room {room:?} follows record {}, but the room's previous record is {}",
            rec.prev, inc.last_seq
        );
        return bad(what);
    }
    inc.records.push(pos);
    inc.seqs.push(seq);
    inc.last_seq = seq;
    if let Body::Deleted = rec.body {
        inc.deleted = Some(seq);
    }
    Ok(())
}

/// Decides recovery from what is on `storage`.
pub(crate) fn plan(storage: &dyn Storage) -> Result<Plan> {
    let (segments, _) = scan_log(storage)?;
    let log_start = segments.first().map_or(1, |s| s.scan.first_seq);
    let next_seq = segments
        .last()
        .map_or(1, |s| s.scan.first_seq + s.scan.records.len() as u64);
    let mut rooms: BTreeMap<String, Vec<Inc>> = BTreeMap::new();
    for (si, seg) in segments.iter().enumerate() {
        for (ri, rec) in seg.scan.records.iter().enumerate() {
            let at = || (storage.display(&seg.path), seg.scan.offsets[ri]);
            walk(&mut rooms, rec, (si, ri), log_start, at)?;
        }
    }
    let mut files: BTreeMap<String, Vec<(u64, String)>> = BTreeMap::new();
    let mut remove = Vec::new();
    let dir = Path::new(SNAP_DIR);
    let names = storage
        .list(dir)
        .map_err(|e| PersistError::io(storage.display(dir), "list", e))?;
    for name in names {
        if let Some((room, seq)) = snapshot::parse_file_name(&name) {
            files.entry(room).or_default().push((seq, name));
        } else if name.ends_with(".tmp") {
            remove.push(name);
        }
    }
    let mut plan = Plan {
        segments,
        log_start,
        next_seq,
        rooms: Vec::new(),
        deleted_rooms: 0,
        torn: None,
        remove,
        set_aside: Vec::new(),
        installed: HashMap::new(),
        cover: HashMap::new(),
        writer_segments: VecDeque::new(),
        snapshots_read: 0,
    };
    let mut seg_rooms: Vec<HashMap<u64, u64>> = vec![HashMap::new(); plan.segments.len()];
    let ids: BTreeSet<String> = rooms.keys().chain(files.keys()).cloned().collect();
    let mut synthetic = u64::MAX;
    for id in ids {
        let incs = rooms.remove(&id).unwrap_or_default();
        let mut room_files = files.remove(&id).unwrap_or_default();
        room_files.sort();
        let mut keys: Vec<u64> = incs
            .iter()
            .map(|inc| match &inc.created {
                Some((c, _)) => *c,
                None => {
                    synthetic -= 1;
                    synthetic
                }
            })
            .collect();
        let live = incs.last().is_none_or(|i| i.deleted.is_none());
        if live {
            let empty = Inc::default();
            let inc = incs.last().unwrap_or(&empty);
            let room = choose(storage, &mut plan, &id, inc, &room_files)?;
            if let Some(k) = keys.last_mut() {
                *k = room.incarnation;
            }
            plan.rooms.push(room);
        } else {
            // Deleted: every snapshot file of the id is stale.
            plan.remove.extend(room_files.into_iter().map(|(_, n)| n));
        }
        for (inc, key) in incs.iter().zip(&keys) {
            if inc.deleted.is_some() {
                plan.deleted_rooms += 1;
                plan.cover.insert(*key, Cover::Gone);
            }
            for &(si, ri) in inc.created_at.iter().chain(&inc.records) {
                let seq = plan.segments[si].scan.records[ri].seq;
                let last = seg_rooms[si].entry(*key).or_default();
                *last = (*last).max(seq);
            }
        }
    }
    let count = plan.segments.len();
    for (i, (seg, rooms)) in plan.segments.iter().zip(seg_rooms).enumerate() {
        let last = i + 1 == count;
        if let Some(torn) = &seg.scan.torn {
            plan.torn = Some((seg.path.clone(), torn.clone()));
        }
        if last && seg.scan.records.is_empty() {
            continue; // replaced by the new active segment of the same name
        }
        let len = seg
            .scan
            .torn
            .as_ref()
            .map_or(seg.scan.file_len, |t| t.offset);
        plan.writer_segments.push_back(SegmentInfo {
            first_seq: seg.scan.first_seq,
            len,
            rooms,
        });
    }
    Ok(plan)
}

/// Chooses the snapshot of one live room and what to keep, remove or set aside.
fn choose(
    storage: &dyn Storage,
    plan: &mut Plan,
    id: &str,
    inc: &Inc,
    files: &[(u64, String)],
) -> Result<PlannedRoom> {
    let created = inc.created.as_ref().map(|c| c.0);
    // Files from before this incarnation's creation belong to an earlier room of the id.
    let split = files.partition_point(|(seq, _)| created.is_some_and(|c| *seq < c));
    plan.remove
        .extend(files[..split].iter().map(|(_, n)| n.clone()));
    let cands = &files[split..];
    let log_start = plan.log_start;
    let covered = |s: u64| s >= log_start && inc.has(s);
    let record = |pos: (usize, usize)| &plan.segments[pos.0].scan.records[pos.1];
    let mut rejected: Vec<(String, String)> = Vec::new();
    let mut chosen: Option<(usize, RoomSnapshot)> = None;
    for i in (0..cands.len()).rev() {
        let (seq, name) = &cands[i];
        let newer = cands[i + 1..].iter().find(|(n, _)| !covered(*n));
        if let Some((n, newer_name)) = newer {
            let why = format!(
                "newer snapshot {newer_name} covers record {n}, which the log no longer holds"
            );
            rejected.push((name.clone(), why));
            continue;
        }
        let path = Path::new(SNAP_DIR).join(name);
        let bytes = storage
            .read(&path)
            .map_err(|e| PersistError::io(storage.display(&path), "read", e))?;
        plan.snapshots_read += 1;
        let why = match snapshot::decode(&bytes) {
            Err((offset, why)) => format!("byte {offset}: {why}"),
            Ok(snap) => {
                let next = inc.seqs.partition_point(|s| s <= seq);
                let next = inc.records.get(next).map(|&p| record(p));
                if snap.meta.id != id || snap.seq != *seq {
                    format!("holds room {:?} at seq {}", snap.meta.id, snap.seq)
                } else if created.is_some_and(|c| snap.created_seq != c) {
                    "belongs to an earlier room of the same id".to_string()
                } else if created.is_none() && snap.created_seq >= log_start {
                    "its room's creation should be in the log and is not".to_string()
                } else if *seq >= log_start && !covered(*seq) {
                    format!("covers record {seq}, which the log does not hold for this room")
                } else if let Some(r) = next.filter(|r| r.prev != *seq) {
                    format!(
                        "the room's next record {} follows {}, not this snapshot",
                        r.seq, r.prev
                    )
                } else {
                    chosen = Some((i, snap));
                    break;
                }
            }
        };
        rejected.push((name.clone(), why));
    }
    for (name, why) in &rejected {
        let path = storage.display(&Path::new(SNAP_DIR).join(name));
        tracing::warn!(room = id, file = %path.display(), why, "snapshot not used");
    }
    plan.set_aside.extend(rejected.iter().cloned());
    let Some((i, snap)) = chosen else {
        let Some((c, meta)) = inc.created.clone() else {
            let what = match inc.seqs.first() {
                Some(s) => format!(
                    "has records from seq {s}, but the log (from seq {log_start}) does not hold its creation and no snapshot is usable"
                ),
                None => format!(
                    "has snapshots but no usable one, and the log (from seq {log_start}) does not mention it"
                ),
            };
            let why: Vec<String> = rejected.iter().map(|(n, w)| format!("{n}: {w}")).collect();
            let what = if why.is_empty() {
                what
            } else {
                format!("{what} ({})", why.join("; "))
            };
            return Err(PersistError::Inconsistent {
                room: id.to_string(),
                what,
            });
        };
        return Ok(PlannedRoom {
            meta,
            incarnation: c,
            last_seq: inc.last_seq,
            snapshot: None,
            replay: inc.records.clone(),
        });
    };
    let key = created.unwrap_or(snap.created_seq);
    let mut kept = vec![Installed {
        seq: snap.seq,
        incarnation: key,
    }];
    if i > 0 {
        // The next older snapshot stays as the fallback, and bounds truncation.
        let (older, name) = &cands[i - 1];
        let path = Path::new(SNAP_DIR).join(name);
        let ok = storage.read(&path).is_ok_and(|b| snapshot::checksum_ok(&b));
        if ok {
            kept.insert(
                0,
                Installed {
                    seq: *older,
                    incarnation: key,
                },
            );
            plan.cover.insert(key, Cover::Upto(*older));
        } else {
            plan.set_aside
                .push((name.clone(), "checksum mismatch".into()));
        }
        plan.remove
            .extend(cands[..i - 1].iter().map(|(_, n)| n.clone()));
    }
    plan.installed.insert(id.to_string(), kept);
    let from = inc.seqs.partition_point(|s| *s <= snap.seq);
    Ok(PlannedRoom {
        meta: inc
            .created
            .clone()
            .map_or_else(|| snap.meta.clone(), |c| c.1),
        incarnation: key,
        last_seq: inc.last_seq.max(snap.seq),
        replay: inc.records[from..].to_vec(),
        snapshot: Some(snap),
    })
}
