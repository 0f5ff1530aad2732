//! The durability gate of a room: what may leave the server now, given the durable
//! watermark of the room's log ([`LogLink`], the local data dir) or of its cluster
//! journal ([`JournalMark`]). The tick sets the seq everything pushed from then on needs;
//! writers and HTTP edits wait on the watermark.
//!
//! Invariant: nothing tagged with a seq passes [`DurableGate::check`] before that seq is
//! durable, and once the storage failed nothing waiting passes at all
//! ([`Passage::Failed`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use canopy_store::{Persist, PersistError};
use tokio::sync::watch;

/// The local log with a watch of its durable watermark, for the writers and requests that
/// wait on it: the storage layer knows no async runtime, so its watermark reaches them
/// through a hook that feeds this watch (made once per log; rooms share clones).
#[derive(Clone, Debug)]
pub struct LogLink {
    persist: Arc<Persist>,
    watch: watch::Receiver<canopy_store::Watermark>,
}

impl LogLink {
    /// Links `persist` to a new watch of its watermark.
    pub fn new(persist: Arc<Persist>) -> LogLink {
        let (tx, watch) = watch::channel(persist.watermark());
        persist.on_durable(move |w| {
            tx.send_replace(w);
        });
        LogLink { persist, watch }
    }

    /// The log itself.
    pub fn persist(&self) -> &Arc<Persist> {
        &self.persist
    }

    /// Changes of the durable watermark.
    pub fn watch(&self) -> watch::Receiver<canopy_store::Watermark> {
        self.watch.clone()
    }

    /// Resolves once record `seq` is durable, or with the failure that means it never
    /// will be.
    pub async fn durable(&self, seq: u64) -> Result<(), PersistError> {
        let mut rx = self.watch();
        let reached = match rx.wait_for(|w| w.durable_seq >= seq || w.failed).await {
            Ok(w) => w.durable_seq >= seq,
            Err(_) => false,
        };
        match (reached, self.persist.failed()) {
            (true, _) => Ok(()),
            (false, Some(e)) => Err(PersistError::Failed(e)),
            (false, None) => Err(PersistError::Closed),
        }
    }
}

impl std::ops::Deref for LogLink {
    type Target = Persist;
    fn deref(&self) -> &Persist {
        &self.persist
    }
}

/// Whether a logged room's delta frames and snapshots wait for their tick's record to be
/// durable (`--live-deltas`). Acks wait either way: an acknowledged batch is durable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FramePassage {
    /// Frames and snapshots wait like acks: nothing a client sees can be undone by a
    /// crash (the default).
    #[default]
    Durable,
    /// Frames and snapshots go out as soon as the tick ran: a subscriber's latency does
    /// not include the log's fsync, and after a crash it may have seen ticks that were
    /// never made durable (the restarted room has a new instance, so SDKs resync).
    Live,
}

/// What a room's gate waits on: nothing, the local log's durable seq, or the cluster
/// journal's stored record number.
#[derive(Debug, Default)]
pub(crate) enum GateSource {
    /// Nothing: everything passes at once.
    #[default]
    None,
    /// The local log.
    Log(LogLink),
    /// The room's cluster journal.
    Journal(Arc<JournalMark>),
}

/// Why a record will never be durable.
#[derive(Debug, thiserror::Error)]
pub enum NotDurable {
    /// The local log failed (or closed) before it.
    #[error("{0}")]
    Log(PersistError),
    /// The cluster journal stopped taking the room's records: fenced by another owner,
    /// or the room left this node.
    #[error("{0}")]
    Journal(String),
}

/// Whether something tagged with a seq may be sent now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Passage {
    /// Durable (or nothing to wait for).
    Open,
    /// Not durable yet.
    Wait,
    /// The storage failed: it never will be.
    Failed,
}

/// The durability gate of one room, shared by its tick (which sets the seq everything
/// pushed from now on needs) and its connections' writers (which wait on it). Its
/// watermark is fixed with the room's mode ([`crate::Durability`]): none, the local
/// log's, or, for a room of a cluster, its journal's in JetStream (counted in the room's
/// own record numbers).
#[derive(Debug, Default)]
pub struct DurableGate {
    source: GateSource,
    need: AtomicU64,
    frames: FramePassage,
}

/// How far a cluster room's journal has been acknowledged by JetStream: every record of
/// the room numbered up to `acked` is stored (with `sync_interval: always`, on disk).
/// Set by the room's journal task; read by the gate.
#[derive(Debug)]
pub struct JournalMark {
    acked: AtomicU64,
    /// When `acked` last moved, or the first record waiting was queued, whichever is
    /// later (monotonic clock).
    progress_ms: AtomicU64,
    failed: OnceLock<String>,
    watch: watch::Sender<canopy_store::Watermark>,
}

impl JournalMark {
    /// A mark at record `acked` (what a room taken over was rebuilt to, or 0).
    pub fn new(acked: u64) -> Arc<Self> {
        Arc::new(JournalMark {
            acked: AtomicU64::new(acked),
            progress_ms: AtomicU64::new(super::lease::monotonic_ms()),
            failed: OnceLock::new(),
            watch: watch::Sender::new(canopy_store::Watermark {
                durable_seq: acked,
                failed: false,
            }),
        })
    }

    /// Records up to `seq` are stored.
    pub fn acked_to(&self, seq: u64) {
        let before = self.acked.fetch_max(seq, Ordering::AcqRel);
        if seq > before {
            self.progress_ms
                .store(super::lease::monotonic_ms(), Ordering::Release);
            self.watch.send_replace(canopy_store::Watermark {
                durable_seq: seq,
                failed: false,
            });
        }
    }

    /// The journal will take nothing more (fenced by another owner, or the room left
    /// this node): what waits gets an error.
    pub fn fail(&self, why: String) {
        if self.failed.set(why).is_ok() {
            self.watch.send_replace(canopy_store::Watermark {
                durable_seq: self.acked.load(Ordering::Acquire),
                failed: true,
            });
        }
    }

    /// Record `seq` was queued: if every record before it is stored, the wait starts
    /// now (called by the room's tick).
    pub fn queued(&self, seq: u64) {
        if self.acked() + 1 >= seq {
            self.progress_ms
                .store(super::lease::monotonic_ms(), Ordering::Release);
        }
    }

    /// How long records up to `need` have waited to be stored, if some have, the
    /// journal has not moved for `limit_ms` (`None`: keeping up).
    pub fn stalled_ms(&self, need: u64, limit_ms: u64) -> Option<u64> {
        if self.acked() >= need {
            return None;
        }
        let waited =
            super::lease::monotonic_ms().saturating_sub(self.progress_ms.load(Ordering::Acquire));
        (waited >= limit_ms).then_some(waited)
    }

    /// The last record stored.
    pub fn acked(&self) -> u64 {
        self.acked.load(Ordering::Acquire)
    }

    /// Why the journal stopped, if it did.
    pub fn failure(&self) -> Option<&str> {
        self.failed.get().map(String::as_str)
    }

    fn check(&self, seq: u64) -> Passage {
        if self.acked() >= seq {
            Passage::Open
        } else if self.failed.get().is_some() {
            Passage::Failed
        } else {
            Passage::Wait
        }
    }

    async fn durable(&self, seq: u64) -> Result<(), NotDurable> {
        let mut rx = self.watch.subscribe();
        let stopped = || NotDurable::Journal(self.failure().unwrap_or("journal stopped").into());
        loop {
            match self.check(seq) {
                Passage::Open => return Ok(()),
                Passage::Failed => return Err(stopped()),
                Passage::Wait => {
                    if rx.changed().await.is_err() {
                        return Err(stopped());
                    }
                }
            }
        }
    }
}

impl DurableGate {
    /// A gate on `watermark`; `frames` says whether delta frames and snapshots wait for
    /// it too. Its first need is `need` (a logged room's last record).
    pub(crate) fn new(source: GateSource, frames: FramePassage, need: u64) -> Arc<Self> {
        Arc::new(DurableGate {
            source,
            need: AtomicU64::new(need),
            frames,
        })
    }

    /// A gate that never holds anything back (tests of outboxes alone).
    pub fn open() -> Arc<Self> {
        Self::new(GateSource::None, FramePassage::Durable, 0)
    }

    /// A gate on a cluster journal's watermark (tests of outboxes alone).
    pub fn on_journal(mark: Arc<JournalMark>, frames: FramePassage) -> Arc<Self> {
        Self::new(GateSource::Journal(mark), frames, 0)
    }

    /// The journal's watermark, for a room of a cluster.
    pub fn journal(&self) -> Option<&Arc<JournalMark>> {
        match &self.source {
            GateSource::Journal(mark) => Some(mark),
            _ => None,
        }
    }

    /// The seq what is pushed now must wait for (0: nothing): the room's last record.
    /// Once the storage failed, the room's next tick sets it back to 0 (nothing more is
    /// logged, and what waited for a record that never became durable has been seen as
    /// [`Passage::Failed`]), so that reads and subscriptions go on.
    pub fn need(&self) -> u64 {
        self.need.load(Ordering::Acquire)
    }

    /// The seq a delta frame or snapshot pushed now must wait for: [`need`](Self::need),
    /// or 0 with [`FramePassage::Live`]. (Such a frame still leaves after anything queued
    /// before it on its connection, such as the ack of its own batch.)
    pub fn frame_need(&self) -> u64 {
        match self.frames {
            FramePassage::Durable => self.need(),
            FramePassage::Live => 0,
        }
    }

    pub(super) fn set_need(&self, seq: u64) {
        self.need.store(seq, Ordering::Release);
    }

    /// Whether something that needs `seq` may go.
    pub fn check(&self, seq: u64) -> Passage {
        if seq == 0 {
            return Passage::Open;
        }
        match &self.source {
            GateSource::None => Passage::Open,
            GateSource::Journal(j) => j.check(seq),
            GateSource::Log(p) if p.durable_seq() >= seq => Passage::Open,
            GateSource::Log(p) if p.failed().is_some() => Passage::Failed,
            GateSource::Log(_) => Passage::Wait,
        }
    }

    /// Changes of the durable watermark, for a writer waiting on [`Passage::Wait`].
    pub fn watch(&self) -> Option<watch::Receiver<canopy_store::Watermark>> {
        match &self.source {
            GateSource::None => None,
            GateSource::Journal(j) => Some(j.watch.subscribe()),
            GateSource::Log(p) => Some(p.watch()),
        }
    }

    /// Resolves once record `seq` is durable (at once for 0 or a room not logged), or
    /// with why it never will be.
    pub async fn durable(&self, seq: u64) -> Result<(), NotDurable> {
        if seq == 0 {
            return Ok(());
        }
        match &self.source {
            GateSource::None => Ok(()),
            GateSource::Journal(j) => j.durable(seq).await,
            GateSource::Log(p) => p.durable(seq).await.map_err(NotDurable::Log),
        }
    }

    /// Whether the room's ticks are logged to the local data dir.
    pub fn is_logged(&self) -> bool {
        matches!(self.source, GateSource::Log(_))
    }

    /// Why edits are refused, once the storage failed.
    pub fn failure(&self) -> Option<String> {
        match &self.source {
            GateSource::None => None,
            GateSource::Journal(j) => j.failure().map(str::to_string),
            GateSource::Log(p) => p.failed().map(|e| e.to_string()),
        }
    }
}
