//! A cluster room's feed: the task that takes the room's records in order, stores them
//! in its journal (`journal.rs`) and only then publishes them for relays, compacts the
//! journal now and then, and steps the room down if another node appended to it.
//! Invariant: a record reaches relays, and its acks and frames leave this node, only
//! after JetStream stored it; a record is never dropped from a journaled room's feed
//! (past the byte bound the journal fails instead, see `room/replica.rs`).

use std::sync::Arc;
use std::sync::Weak;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{mpsc, oneshot};

use super::journal::{APPEND_TIMEOUT, AppendError, Appender, COMPACT_MIN_OPS, Entry};
use super::{Cluster, ClusterError};
use crate::state::AppState;
use canopy_room::replica::{FedRecord, FeedLink, FeedQueue, ReplicaStart};
use canopy_room::{Durability, JournalMark, RoomShared};

/// Why a new room's journal did not take it.
#[derive(Debug, thiserror::Error)]
pub(crate) enum NotStored {
    /// The journal holds a room of that id already (one whose owner died, not yet
    /// taken over).
    #[error("the cluster's journal holds a room of that id")]
    Exists,
    /// The journal could not store it.
    #[error("{0}")]
    Failed(String),
}

/// Where a room's journal begins when its owner starts feeding it.
#[derive(Debug)]
pub(crate) enum JournalFrom {
    /// A new room: the journal starts with its state.
    New,
    /// A room taken over: the journal goes on after the takeover marker; records up
    /// to `acked` were read back from it.
    Continue {
        /// Appends after the marker.
        appender: Box<Appender>,
        /// The room's last record.
        acked: u64,
    },
}

/// A record as the feed keeps it: encoded once, stored and published as these bytes.
#[derive(Debug)]
pub(super) struct Encoded {
    seq: u64,
    ops: usize,
    bytes: Vec<u8>,
}

/// A room's feed: takes its records in order, stores them in its journal (when it has
/// one), and only then publishes them for relays; compacts the journal now and then.
pub(super) struct Feed {
    pub(super) cluster: Weak<Cluster>,
    pub(super) state: AppState,
    pub(super) room: Weak<RoomShared>,
    pub(super) id: String,
    pub(super) rx: mpsc::UnboundedReceiver<FedRecord>,
    pub(super) queued: Arc<AtomicUsize>,
    pub(super) journal: Option<(Appender, Arc<JournalMark>)>,
    /// Told once a new room's start is stored (`POST /rooms` waits for it).
    pub(super) started: Option<oneshot::Sender<Result<(), NotStored>>>,
    pub(super) log_subject: String,
    pub(super) client: async_nats::Client,
}

impl Feed {
    fn live(&self) -> bool {
        self.room.upgrade().is_some_and(|r| !r.is_closed())
    }

    fn instance(&self) -> String {
        self.room
            .upgrade()
            .map_or_else(String::new, |r| r.instance.to_header())
    }

    pub(super) async fn run(mut self) {
        let mut skip_to = 0u64;
        if self.started.is_some() {
            match self.store_start().await {
                Ok(seq) => {
                    skip_to = seq;
                    if let Some(tx) = self.started.take() {
                        let _ = tx.send(Ok(()));
                    }
                }
                Err(not) => {
                    // `POST /rooms` unloads the room and lets its lease go.
                    if let Some((_, mark)) = &self.journal {
                        mark.fail(not.to_string());
                    }
                    if let Some(tx) = self.started.take() {
                        let _ = tx.send(Err(not));
                    }
                    return;
                }
            }
        }
        let mut ops_since_start = 0usize;
        let mut backlog: Vec<Encoded> = Vec::new();
        loop {
            if backlog.is_empty() {
                match self.rx.recv().await {
                    Some(r) => self.took(&mut backlog, r),
                    None => return,
                }
            }
            while let Ok(r) = self.rx.try_recv() {
                self.took(&mut backlog, r);
            }
            let mut records = std::mem::take(&mut backlog);
            let taken: usize = records.iter().map(|r| r.bytes.len()).sum();
            records.retain(|r| r.seq > skip_to);
            ops_since_start += records.iter().map(|r| r.ops).sum::<usize>();
            let began = std::time::Instant::now();
            if let Err(why) = self.store(&records).await {
                self.stop(why.to_string());
                return;
            }
            tracing::debug!(room = %self.id, records = records.len(), bytes = taken, ms = began.elapsed().as_secs_f64() * 1e3, "journal stored");
            self.publish(&records).await;
            let nodes = self
                .room
                .upgrade()
                .map_or(0, |r| r.stats.view().nodes as usize);
            if self.journal.is_some() && ops_since_start >= COMPACT_MIN_OPS.max(nodes) {
                match self.compact(&mut backlog).await {
                    Ok(seq) => {
                        skip_to = seq;
                        ops_since_start = 0;
                    }
                    Err(why) => {
                        self.stop(why.to_string());
                        return;
                    }
                }
            }
        }
    }

    /// Takes a record off the room's queue (its cost no longer counts against the
    /// queue's bound: each record is counted off exactly once, here) and encodes it, once,
    /// for the journal and the bus.
    fn took(&self, backlog: &mut Vec<Encoded>, r: FedRecord) {
        self.queued.fetch_sub(r.cost, Ordering::AcqRel);
        backlog.push(Encoded {
            seq: r.record.seq,
            ops: r.ops,
            bytes: super::encode(&r.record),
        });
    }

    /// Stores records in the journal (if any), in entries of at most one part each
    /// where they fit, and marks them acknowledged.
    async fn store(&mut self, records: &[Encoded]) -> Result<(), ClusterError> {
        let instance = self.instance();
        let room = self.room.clone();
        let live = move || room.upgrade().is_some_and(|r| !r.is_closed());
        let Some((appender, mark)) = self.journal.as_mut() else {
            return Ok(());
        };
        let mut i = 0;
        while i < records.len() {
            let mut size = 0;
            let mut j = i;
            while j < records.len() && (j == i || size + records[j].bytes.len() < appender.max_part)
            {
                size += records[j].bytes.len() + 8;
                j += 1;
            }
            let group = &records[i..j];
            let entry = Entry::Records(group.iter().map(|r| r.bytes.clone()).collect());
            let id = format!("{instance}.r{}", group[0].seq);
            match appender.append(&id, &entry, &live).await {
                Ok(()) => mark.acked_to(group[group.len() - 1].seq),
                Err(e) => return Err(appended(&self.id, e)),
            }
            i = j;
        }
        Ok(())
    }

    /// Publishes stored records for relays (core NATS, after the journal took them, so
    /// a relay never shows what a takeover could lose).
    async fn publish(&self, records: &[Encoded]) {
        for r in records {
            if let Err(e) = self
                .client
                .publish(self.log_subject.clone(), r.bytes.clone().into())
                .await
            {
                tracing::warn!(subject = %self.log_subject, error = %e, "record not published; relays start again");
            }
        }
    }

    /// Captures the room's state and stores it as a start; returns its record number.
    async fn store_start(&mut self) -> Result<u64, NotStored> {
        let start = super::relay::capture(&self.state, &self.id)
            .await
            .map_err(|e| NotStored::Failed(e.to_string()))?;
        let seq = start.seq;
        match self.append_start(start).await {
            Ok(()) => {
                if let Some((_, mark)) = &self.journal {
                    mark.acked_to(seq);
                }
                Ok(seq)
            }
            Err(AppendError::Stopped) => Err(NotStored::Failed("the room stopped".into())),
            // The subject was not empty: the journal holds a room of this id.
            Err(AppendError::Fenced(_)) => Err(NotStored::Exists),
        }
    }

    /// Appends `start` to the room's journal (if it has one).
    async fn append_start(&mut self, start: ReplicaStart) -> Result<(), AppendError> {
        let id = format!("{}.s{}", self.instance(), start.seq);
        let room = self.room.clone();
        let live = move || room.upgrade().is_some_and(|r| !r.is_closed());
        match self.journal.as_mut() {
            Some((appender, _)) => appender.append(&id, &Entry::Start(start), &live).await,
            None => Ok(()),
        }
    }

    /// Stores a new start and purges what came before it. Records the start includes
    /// that are still queued are stored (and published) first, in order; later ones are
    /// left in `backlog`. Returns the start's record number.
    async fn compact(&mut self, backlog: &mut Vec<Encoded>) -> Result<u64, ClusterError> {
        tracing::debug!(room = %self.id, "compaction: capturing");
        let start = super::relay::capture(&self.state, &self.id).await?;
        let seq = start.seq;
        tracing::debug!(room = %self.id, seq, nodes = start.nodes.len(), "compaction: captured");
        // Every record up to `seq` was sent before the capture was answered.
        while let Ok(r) = self.rx.try_recv() {
            self.took(backlog, r);
        }
        let (now, later): (Vec<Encoded>, Vec<Encoded>) = std::mem::take(backlog)
            .into_iter()
            .partition(|r| r.seq <= seq);
        *backlog = later;
        self.store(&now).await?;
        self.publish(&now).await;
        tracing::debug!(room = %self.id, seq, stored = now.len(), "compaction: storing the start");
        self.append_start(start)
            .await
            .map_err(|e| appended(&self.id, e))?;
        let Some((appender, _)) = self.journal.as_mut() else {
            return Ok(seq);
        };
        // Everything before the start's first part goes. A failed purge only leaves
        // more to read back on a takeover.
        let purge = appender
            .journal
            .stream
            .purge()
            .filter(appender.subject.clone())
            .sequence(appender.entry_first);
        tracing::debug!(room = %self.id, seq, before = appender.entry_first, "compaction: purging");
        match tokio::time::timeout(APPEND_TIMEOUT, purge.into_future()).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => tracing::warn!(room = %self.id, error = %e, "journal not compacted"),
            Err(_) => tracing::warn!(room = %self.id, "journal compaction timed out"),
        }
        Ok(seq)
    }

    /// The room's journal has failed or the room left: nothing more is acknowledged,
    /// and if another node appended, this node steps down.
    fn stop(&self, why: String) {
        if let Some((_, mark)) = &self.journal {
            mark.fail(why.clone());
        }
        if !self.live() {
            return;
        }
        tracing::warn!(room = %self.id, %why, "the room's journal stopped: stepping down");
        if let (Some(cluster), Some(room)) = (self.cluster.upgrade(), self.room.upgrade()) {
            cluster.step_down(&self.state, &room, &why);
        }
    }
}

/// What a room's feed task needs besides the room: made with the room's [`FeedLink`]
/// before the room is built (a room's mode is fixed when it is made), and started once
/// the room is placed ([`Cluster::hold_started`]).
#[derive(Debug)]
pub(crate) struct FeedTask {
    queue: FeedQueue,
    journal: Option<(Appender, Arc<JournalMark>)>,
    started: Option<(oneshot::Sender<Started>, oneshot::Receiver<Started>)>,
}

/// Whether a new room's start is stored in its journal.
pub(crate) type Started = Result<(), NotStored>;

/// A feed for relays only (a room a node brought back from its own data dir): needs no
/// journal, so it is made before the node joins its cluster.
pub(crate) fn relays_feed() -> (FeedLink, FeedTask) {
    let (link, queue) = canopy_room::replica::feed_channel();
    let task = FeedTask {
        queue,
        journal: None,
        started: None,
    };
    (link, task)
}

impl Cluster {
    /// A journaled room's feed, beginning as `from` says: the [`Durability`] to build the
    /// room with, and the task to start once it is placed.
    pub(crate) fn journal_feed(&self, room: &str, from: JournalFrom) -> (Durability, FeedTask) {
        let max_payload = self.max_payload();
        let (link, queue) = canopy_room::replica::feed_channel();
        let (appender, mark, started) = match from {
            JournalFrom::New => (
                self.journal.appender(room, 0, max_payload),
                JournalMark::new(0),
                Some(oneshot::channel()),
            ),
            JournalFrom::Continue { appender, acked } => (*appender, JournalMark::new(acked), None),
        };
        let durability = Durability::Journal {
            feed: link,
            mark: Arc::clone(&mark),
        };
        let task = FeedTask {
            queue,
            journal: Some((appender, mark)),
            started,
        };
        (durability, task)
    }

    /// Starts the feed task of a placed room this node owns: its records go to its
    /// journal (if it has one) and then to relays. For a new room, answers once its
    /// journal holds its start.
    pub(super) fn feed(
        &self,
        state: &AppState,
        room: &Arc<RoomShared>,
        task: FeedTask,
    ) -> Option<oneshot::Receiver<Result<(), NotStored>>> {
        let FeedTask {
            queue,
            journal,
            started,
        } = task;
        let (started_tx, started_rx) = match started {
            Some((tx, rx)) => (Some(tx), Some(rx)),
            None => (None, None),
        };
        let feed = Feed {
            cluster: self.me.get().cloned().unwrap_or_default(),
            state: state.clone(),
            room: Arc::downgrade(room),
            id: room.id.clone(),
            rx: queue.rx,
            queued: queue.queued,
            journal,
            started: started_tx,
            log_subject: super::relay::log_subject(&room.id),
            client: self.client().clone(),
        };
        tokio::spawn(feed.run());
        started_rx
    }
}

/// Why an append to `room`'s journal did not happen, as the cluster's error.
fn appended(room: &str, e: AppendError) -> ClusterError {
    match e {
        AppendError::Stopped => ClusterError::journal(room, "the room stopped"),
        AppendError::Fenced(why) => ClusterError::journal(room, why),
    }
}
