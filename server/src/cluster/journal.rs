//! The journal: every cluster room's state and applied batches in the JetStream stream
//! `CANOPY_JOURNAL` (file storage), one subject per room, `canopy.journal.<room>`, so
//! that any node can rebuild a room whose owner died (`takeover.rs`).
//!
//! A room's subject holds a start (its state at a record number, as a relay starts
//! from), then the records after it (one per tick that applied batches, encoded once
//! for the journal and the relays' bus alike), then, after a compaction, a newer start;
//! a takeover writes a marker. Every append carries `Nats-Expected-Last-Subject-Sequence`
//! (the subject's last sequence this owner knows) and a `Nats-Msg-Id` (so a retry after
//! a lost ack is not stored twice). Invariant: an owner appends only right after its own
//! last append, so two owners can never both append to a room; an owner whose append is
//! refused that way has lost the room and steps down. An entry over NATS's
//! `max_payload` is split into parts, published in order; a reader uses an entry only
//! once it has all its parts.

use std::time::Duration;

use async_nats::jetstream::{self, context::PublishErrorKind, stream};
use bincode::{Decode, Encode};
use futures_util::TryStreamExt;

use super::{Cluster, ClusterError, bus};
use canopy_room::replica::{ReplicaRecord, ReplicaStart};

/// The stream's name.
pub(super) const STREAM: &str = "CANOPY_JOURNAL";
/// How long JetStream remembers a message id: a retry within it is not stored twice.
const DUPLICATE_WINDOW: Duration = Duration::from_secs(120);
/// How long one append may take before it is tried again.
pub(super) const APPEND_TIMEOUT: Duration = Duration::from_secs(5);
/// Room of a message's bytes kept for its headers and envelope below `max_payload`.
const PART_HEADROOM: usize = 4 * 1024;
/// A room's journal is compacted (a new start, older entries purged) once the records
/// after its start hold this many ops or the room's node count, whichever is more:
/// a takeover then replays at most about two rooms' worth of work.
pub(super) const COMPACT_MIN_OPS: usize = 10_000;

/// The subject of `room`'s journal.
pub(super) fn subject(room: &str) -> String {
    format!("canopy.journal.{room}")
}

/// The room a journal subject belongs to.
fn room_of(subject: &str) -> Option<&str> {
    subject.strip_prefix("canopy.journal.")
}

/// One message of the stream: part `index` of `count` of an encoded [`Entry`].
#[derive(Debug, Encode, Decode)]
struct Part {
    index: u32,
    count: u32,
    bytes: Vec<u8>,
}

/// What a room's subject holds.
#[derive(Debug, Encode, Decode)]
pub(super) enum Entry {
    /// The room's state after record `seq` (its creation, or a compaction).
    Start(ReplicaStart),
    /// Consecutive records, each an encoded [`ReplicaRecord`].
    Records(Vec<Vec<u8>>),
    /// A node took the room over under `epoch`, having read the subject up to the
    /// message before this one.
    Takeover { node: String, epoch: u64 },
}

/// What a room's subject holds, read back.
#[derive(Debug)]
pub(super) struct ReadBack {
    /// Its latest whole start.
    pub(super) start: ReplicaStart,
    /// The records after it, in order.
    pub(super) records: Vec<ReplicaRecord>,
    /// The stream sequence of the subject's last message.
    pub(super) last: u64,
}

/// Why an append did not go in.
#[derive(Debug)]
pub(super) enum AppendError {
    /// Someone else appended to the room's subject: this node is not its owner.
    Fenced(String),
    /// The room stopped here while the append was being retried.
    Stopped,
}

/// The stream, shared by a node's rooms.
#[derive(Debug, Clone)]
pub(super) struct Journal {
    js: jetstream::Context,
    pub(super) stream: stream::Stream,
}

impl Journal {
    /// Opens (or creates) the stream with `replicas` copies (the NATS cluster's size at
    /// most). Its durability is the NATS server's: run it with `sync_interval: always`
    /// (docker/nats.conf), or an acknowledged append may sit in the page cache.
    pub(super) async fn open(
        client: async_nats::Client,
        replicas: usize,
    ) -> Result<Self, ClusterError> {
        let js = jetstream::new(client);
        let bucket_err = |why: String| ClusterError::Bucket {
            bucket: STREAM.into(),
            why,
        };
        let stream = js
            .get_or_create_stream(stream::Config {
                name: STREAM.into(),
                description: Some("Canopy cluster rooms: starts and applied batches".into()),
                subjects: vec!["canopy.journal.>".into()],
                storage: stream::StorageType::File,
                num_replicas: replicas.max(1),
                duplicate_window: DUPLICATE_WINDOW,
                allow_direct: true,
                ..Default::default()
            })
            .await
            .map_err(|e| bucket_err(e.to_string()))?;
        Ok(Journal { js, stream })
    }

    /// Every room the journal holds (the cluster's catalog of rooms).
    pub(super) async fn rooms(&self) -> Result<Vec<String>, ClusterError> {
        let stream = self.stream.clone();
        let call = async {
            let mut subjects = stream.info_with_subjects("canopy.journal.>").await?;
            let mut rooms = Vec::new();
            while let Some((subject, _)) = subjects.try_next().await? {
                if let Some(room) = room_of(&subject) {
                    rooms.push(room.to_string());
                }
            }
            Ok::<_, async_nats::Error>(rooms)
        };
        tokio::time::timeout(APPEND_TIMEOUT, call)
            .await
            .map_err(|_| ClusterError::Registry("the journal's catalog timed out".into()))?
            .map_err(|e| ClusterError::Registry(format!("the journal's catalog: {e}")))
    }

    /// Whether the journal holds anything of `room` now (it exists, with or without a
    /// live owner): asked of JetStream itself, so a node that just started, or whose
    /// scan has not come round, knows as well as any.
    pub(super) async fn holds(&self, room: &str) -> Result<bool, ClusterError> {
        let subject = subject(room);
        let ask = self.stream.get_last_raw_message_by_subject(&subject);
        match tokio::time::timeout(APPEND_TIMEOUT, ask).await {
            Err(_) => Err(ClusterError::Registry(
                "the journal did not answer in time".into(),
            )),
            Ok(Ok(_)) => Ok(true),
            Ok(Err(e)) if e.kind() == stream::LastRawMessageErrorKind::NoMessageFound => Ok(false),
            Ok(Err(e)) => Err(ClusterError::Registry(format!("the journal: {e}"))),
        }
    }

    /// Reads `room`'s subject back; `None` when it holds nothing (deleted).
    pub(super) async fn read(&self, room: &str) -> Result<Option<ReadBack>, String> {
        let subject = subject(room);
        let last = match self.stream.get_last_raw_message_by_subject(&subject).await {
            Ok(m) => m.sequence,
            Err(e) if e.kind() == stream::LastRawMessageErrorKind::NoMessageFound => {
                return Ok(None);
            }
            Err(e) => return Err(format!("reading room {room}'s journal: {e}")),
        };
        let mut entries = Vec::new();
        let mut assembler = Assembler::default();
        let mut at = 0u64;
        while at < last {
            let m = self
                .stream
                .direct_get_next_for_subject(subject.as_str(), Some(at + 1))
                .await
                .map_err(|e| format!("reading room {room}'s journal after {at}: {e}"))?;
            at = m.sequence;
            let part: Part = bus::decode(&m.payload)
                .map_err(|e| format!("room {room}'s journal message {at}: {e}"))?;
            if let Some(bytes) = assembler.take(part) {
                let entry: Entry = bus::decode(&bytes)
                    .map_err(|e| format!("room {room}'s journal entry at {at}: {e}"))?;
                entries.push(entry);
            }
        }
        fold(room, entries, last).map(Some)
    }

    /// Deletes `room`'s subject (the room was deleted).
    pub(super) async fn forget(&self, room: &str) -> Result<(), ClusterError> {
        let call = self.stream.purge().filter(subject(room));
        tokio::time::timeout(APPEND_TIMEOUT, call.into_future())
            .await
            .map_err(|_| ClusterError::Registry("purging the journal timed out".into()))?
            .map_err(|e| ClusterError::Registry(format!("purging the journal: {e}")))?;
        Ok(())
    }

    /// An appender to `room`'s subject, right after sequence `last` (0: empty).
    pub(super) fn appender(&self, room: &str, last: u64, max_payload: usize) -> Appender {
        Appender {
            journal: self.clone(),
            subject: subject(room),
            expected: last,
            entry_first: last,
            max_part: max_payload.saturating_sub(PART_HEADROOM).max(1024),
        }
    }
}

/// Puts entries back together from their parts, in stream order.
#[derive(Debug, Default)]
struct Assembler {
    bytes: Vec<u8>,
    expect: u32,
}

impl Assembler {
    /// Takes the next part; answers an entry's bytes once its last part came. A part
    /// out of order (the rest of an entry whose first part was purged, or one torn by
    /// a crash and followed by another owner's entries) is dropped, with what was
    /// gathered of its entry.
    fn take(&mut self, part: Part) -> Option<Vec<u8>> {
        if part.index == 0 {
            self.bytes.clear();
            self.expect = 0;
        }
        if part.index != self.expect {
            self.bytes.clear();
            self.expect = 0;
            return None;
        }
        self.bytes.extend_from_slice(&part.bytes);
        self.expect += 1;
        if self.expect == part.count {
            self.expect = 0;
            return Some(std::mem::take(&mut self.bytes));
        }
        None
    }
}

/// The latest whole start and the records after it.
fn fold(room: &str, entries: Vec<Entry>, last: u64) -> Result<ReadBack, String> {
    let mut start = None;
    let mut records = Vec::new();
    for entry in entries {
        match entry {
            Entry::Start(s) => {
                start = Some(s);
                records.clear();
            }
            Entry::Records(list) => {
                for bytes in list {
                    let r: ReplicaRecord = bus::decode(&bytes)
                        .map_err(|e| format!("room {room}'s journal record: {e}"))?;
                    records.push(r);
                }
            }
            Entry::Takeover { .. } => {}
        }
    }
    let start = start.ok_or_else(|| format!("room {room}'s journal holds no start"))?;
    records.retain(|r| r.seq > start.seq);
    Ok(ReadBack {
        start,
        records,
        last,
    })
}

/// Appends to one room's subject, each right after the last.
#[derive(Debug)]
pub(crate) struct Appender {
    pub(super) journal: Journal,
    pub(super) subject: String,
    expected: u64,
    /// The sequence of the first part of the last entry appended.
    pub(super) entry_first: u64,
    pub(super) max_part: usize,
}

impl Appender {
    /// Appends `entry` (in parts if it is large), with message ids made from `id`;
    /// retries while NATS does not answer and `live()` holds.
    pub(super) async fn append(
        &mut self,
        id: &str,
        entry: &Entry,
        live: &(dyn Fn() -> bool + Send + Sync),
    ) -> Result<(), AppendError> {
        let bytes = bus::encode(entry);
        let chunks: Vec<&[u8]> = if bytes.is_empty() {
            vec![&[]]
        } else {
            bytes.chunks(self.max_part).collect()
        };
        let count = chunks.len() as u32;
        for (index, chunk) in chunks.into_iter().enumerate() {
            let part = Part {
                index: index as u32,
                count,
                bytes: chunk.to_vec(),
            };
            let payload: bytes::Bytes = bus::encode(&part).into();
            self.append_one(&format!("{id}.{index}"), payload, live)
                .await?;
            if index == 0 {
                self.entry_first = self.expected;
            }
        }
        Ok(())
    }

    async fn append_one(
        &mut self,
        id: &str,
        payload: bytes::Bytes,
        live: &(dyn Fn() -> bool + Send + Sync),
    ) -> Result<(), AppendError> {
        let mut failures = 0u32;
        loop {
            if !live() {
                return Err(AppendError::Stopped);
            }
            let publish = jetstream::message::PublishMessage::build()
                .payload(payload.clone())
                .message_id(id)
                .expected_last_subject_sequence(self.expected);
            let js = &self.journal.js;
            let subject = self.subject.clone();
            let sent = async move { js.send_publish(subject, publish).await?.await };
            let why = match tokio::time::timeout(APPEND_TIMEOUT, sent).await {
                Ok(Ok(ack)) => {
                    self.expected = ack.sequence;
                    return Ok(());
                }
                Ok(Err(e)) if e.kind() == PublishErrorKind::WrongLastSequence => {
                    // Ours, stored by a try whose ack was lost? Then it is the last.
                    if let Ok(m) = self
                        .journal
                        .stream
                        .get_last_raw_message_by_subject(&self.subject)
                        .await
                        && m.headers.get("Nats-Msg-Id").map(|v| v.as_str()) == Some(id)
                    {
                        self.expected = m.sequence;
                        return Ok(());
                    }
                    return Err(AppendError::Fenced(format!(
                        "another node appended to {} after sequence {}",
                        self.subject, self.expected
                    )));
                }
                Ok(Err(e)) => e.to_string(),
                Err(_) => format!("no answer within {APPEND_TIMEOUT:?}"),
            };
            failures += 1;
            if failures == 1 || failures.is_multiple_of(20) {
                tracing::warn!(subject = %self.subject, %why, failures, "journal append failed; retrying");
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// Appends the marker of a takeover under `epoch`.
    pub(super) async fn takeover(&mut self, node: &str, epoch: u64) -> Result<(), AppendError> {
        let entry = Entry::Takeover {
            node: node.into(),
            epoch,
        };
        self.append(&format!("t{epoch}"), &entry, &|| true).await
    }
}

impl Cluster {
    /// Deletes a deleted room's journal, so that no node takes it over.
    pub async fn forget(&self, room: &str) -> Result<(), ClusterError> {
        self.journal.forget(room).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(index: u32, count: u32, bytes: &[u8]) -> Part {
        Part {
            index,
            count,
            bytes: bytes.to_vec(),
        }
    }

    #[test]
    fn parts_make_whole_entries_and_torn_ones_are_dropped() {
        let mut a = Assembler::default();
        assert_eq!(a.take(part(0, 1, b"x")), Some(b"x".to_vec()));
        // The tail of an entry whose head was purged.
        assert_eq!(a.take(part(2, 3, b"c")), None);
        assert_eq!(a.take(part(0, 2, b"a")), None);
        assert_eq!(a.take(part(1, 2, b"b")), Some(b"ab".to_vec()));
        // Torn after its first part, then another owner's entry.
        assert_eq!(a.take(part(0, 3, b"t")), None);
        assert_eq!(a.take(part(0, 1, b"m")), Some(b"m".to_vec()));
        assert_eq!(a.take(part(1, 3, b"u")), None);
    }

    fn start(seq: u64) -> ReplicaStart {
        ReplicaStart {
            instance: "0000000000000001".into(),
            tick_hz: 30,
            seq,
            tick: seq,
            time_ms: 0,
            nodes: Vec::new(),
            retired: Vec::new(),
            next_id: 1,
            tokens: None,
        }
    }

    fn records(seqs: std::ops::RangeInclusive<u64>) -> Entry {
        Entry::Records(
            seqs.map(|seq| {
                bus::encode(&ReplicaRecord {
                    instance: "0000000000000001".into(),
                    seq,
                    tick: seq,
                    time_ms: 0,
                    batches: Vec::new(),
                })
            })
            .collect(),
        )
    }

    #[test]
    fn the_latest_start_and_the_records_after_it_are_read_back() {
        let entries = vec![
            Entry::Start(start(0)),
            records(1..=5),
            // A compaction's start (the records up to 5 were stored before it), not yet
            // followed by a purge.
            Entry::Start(start(5)),
            Entry::Takeover {
                node: "b".into(),
                epoch: 9,
            },
            records(6..=7),
        ];
        let back = fold("r", entries, 42).unwrap();
        assert_eq!(back.start.seq, 5);
        assert_eq!(
            back.records.iter().map(|r| r.seq).collect::<Vec<_>>(),
            vec![6, 7]
        );
        assert_eq!(back.last, 42);
        assert!(fold("r", vec![records(1..=2)], 3).is_err(), "no start");
    }
}
