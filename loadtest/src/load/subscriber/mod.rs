//! Subscribers: lean WebSocket readers, hundreds per process, each keeping a mirror of
//! its scope and measuring edit-to-delta latency on every frame.
//!
//! They read raw frames (tokio-tungstenite and the protocol codec) instead of using the
//! SDK's `Connection`, for four reasons: the harness must count the bytes of each
//! frame, a slow reader must control when it reads (and its socket buffer, see
//! `crate::rawws`), every row of every frame must be checked against the edit stamps before
//! it is applied, and 550 copies of the SDK's mirror cost more CPU than this machine
//! has to spare (see `mirror`).
//!
//! Invariants: every frame is decoded and applied, in order, by every subscriber (slow
//! ones only read later); frame ticks must grow strictly and deltas must only name
//! nodes the mirror holds, and any breach is counted as an error; a slow reader pauses
//! only while the load runs, so it can catch up before the final check. In a soak a
//! subscriber may reconnect (kicked by a storm, or dropped by the server after a
//! stall): each connection starts its own tick order, and the mirror counts as synced
//! again only once the new connection's snapshot has replaced it.

mod reader;

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use canopy_protocol::Format;
use canopy_protocol::interest::{Follow, Tier};
use canopy_protocol::message::Region;
use hdrhistogram::Histogram;
use tokio::sync::{Notify, oneshot};

use crate::load::mirror::DenseMirror;
use crate::load::stamps::{Clock, Stamps};
use crate::observe::errors::ErrorTally;
use crate::observe::latency;
use crate::rawws::RawSocket;
use crate::stop::Stop;
use reader::Reader;

/// What a subscriber is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SubSpec {
    pub index: usize,
    /// Index into the run's rooms.
    pub room: usize,
    /// Index into the run's server URLs (0 with one server).
    pub node: usize,
    /// `None`: the whole room (unless `follow`).
    pub region: Option<Region>,
    /// (v1.2) A follow scope in place of `region`, with its pacing.
    pub follow: Option<FollowScope>,
    pub slow: bool,
    /// Soak: stops reading until the server drops it, then reconnects.
    pub stalled: bool,
}

/// (v1.2) A scope that follows a node, as a player's view of its neighbourhood: the
/// sphere, the frame cap and a near and a far tier (the contract allows up to 8 tiers;
/// the benchmarks use two). Kept `Copy`, like the rest of [`SubSpec`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct FollowScope {
    pub follow: Follow,
    pub send_hz: Option<u32>,
    /// `[near, far]`: the near tier has a `within`, the far one none.
    pub tiers: Option<[Tier; 2]>,
}

impl SubSpec {
    /// A reader at full speed of the whole of room 0, connected to server `node`.
    pub(crate) fn whole_room(index: usize, node: usize) -> SubSpec {
        SubSpec {
            index,
            room: 0,
            node,
            region: None,
            follow: None,
            slow: false,
            stalled: false,
        }
    }
}

/// The mirror and the latency samples, behind one lock taken once per frame.
#[derive(Debug)]
pub(crate) struct SubState {
    pub mirror: DenseMirror,
    pub synced: bool,
    /// Edit-to-delta latency samples, microseconds.
    pub latency: Histogram<u64>,
    /// Why the reader stopped early, if it did.
    pub ended: Option<String>,
}

/// One subscriber's live counters and state, shared with the progress display, the
/// report and the final check.
#[derive(Debug)]
pub(crate) struct SubShared {
    pub spec: SubSpec,
    pub delta_frames: AtomicU64,
    pub delta_bytes: AtomicU64,
    /// Rows (`update` and `upsert` entries) of those frames.
    pub delta_rows: AtomicU64,
    /// Time a slow reader spent not reading, microseconds.
    pub paused_us: AtomicU64,
    /// When the last frame arrived (run clock, microseconds), to see traffic settle.
    pub last_frame_us: AtomicU64,
    /// Soak: a reconnect storm tells this subscriber to disconnect and reconnect.
    pub kick: Notify,
    /// Soak: how often it reconnected after a storm, and after the server dropped it.
    pub storm_reconnects: AtomicU64,
    pub dropped_reconnects: AtomicU64,
    /// Soak: stalls taken.
    pub stalls: AtomicU64,
    /// Soak: when (run clock, microseconds) a stalled reader next stalls; 0 until the
    /// load starts. Kept here, not per connection, so a reconnect does not restart it.
    pub next_stall_us: AtomicU64,
    pub state: Mutex<SubState>,
}

impl SubShared {
    /// A subscriber of a room whose ids are `0..room_nodes`.
    pub(crate) fn new(spec: SubSpec, room_nodes: usize) -> Self {
        SubShared {
            spec,
            delta_frames: AtomicU64::new(0),
            delta_bytes: AtomicU64::new(0),
            delta_rows: AtomicU64::new(0),
            paused_us: AtomicU64::new(0),
            last_frame_us: AtomicU64::new(0),
            kick: Notify::new(),
            storm_reconnects: AtomicU64::new(0),
            dropped_reconnects: AtomicU64::new(0),
            stalls: AtomicU64::new(0),
            next_stall_us: AtomicU64::new(0),
            state: Mutex::new(SubState {
                // A follow scope holds a few hundred of the room's nodes: a sparse copy,
                // since hundreds of dense ones would not fit this machine.
                mirror: if spec.follow.is_some() {
                    DenseMirror::sparse()
                } else {
                    DenseMirror::new(room_nodes)
                },
                synced: false,
                latency: latency::histogram(),
                ended: None,
            }),
        }
    }

    /// Its counters now.
    pub(crate) fn counters(&self) -> Counters {
        Counters {
            delta_frames: self.delta_frames.load(Ordering::Relaxed),
            delta_bytes: self.delta_bytes.load(Ordering::Relaxed),
            paused_us: self.paused_us.load(Ordering::Relaxed),
        }
    }

    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, SubState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One subscriber's traffic counters at one moment; the report takes the difference
/// of two readings (see [`Counters::since`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counters {
    pub delta_frames: u64,
    pub delta_bytes: u64,
    /// Time spent not reading (pauses and stalls), microseconds.
    pub paused_us: u64,
}

impl Counters {
    /// The counters of every subscriber of `subs`, in order.
    pub(crate) fn of_all(subs: &[Arc<SubShared>]) -> Vec<Counters> {
        subs.iter().map(|s| s.counters()).collect()
    }

    /// What was counted between `earlier` and `self`.
    pub(crate) fn since(&self, earlier: &Counters) -> Counters {
        Counters {
            delta_frames: self.delta_frames - earlier.delta_frames,
            delta_bytes: self.delta_bytes - earlier.delta_bytes,
            paused_us: self.paused_us - earlier.paused_us,
        }
    }
}

/// What every subscriber shares.
#[derive(Debug)]
pub(crate) struct SubContext {
    pub format: Format,
    pub clock: Clock,
    pub errors: Arc<ErrorTally>,
    /// While true (the load window), slow readers take their pauses.
    pub pausing: AtomicBool,
    /// Wakes slow readers out of a pause when the load window ends.
    pub resume: Notify,
    pub pause: Duration,
    pub period: Duration,
    /// Soak mode's subscriber behaviour, when the run is a soak.
    pub soak: Option<SoakSub>,
    /// Whether subscribers keep a mirror. The benchmarks of thousands of subscribers
    /// measure latency only: 5,000 mirrors of 20,000 nodes would be 5.6 GB here.
    pub keep_mirror: bool,
    /// Only subscribers whose index is a multiple of this decode their deltas; the
    /// others count each frame after their snapshot (`--decode-every`).
    pub decode_every: usize,
    /// The counting subscribers subscribe with compact transforms (`--encoding`).
    pub compact_counters: bool,
}

/// Whether subscriber `index` decodes its deltas: one in `decode_every`
/// (`--decode-every`); the others only count their frames.
pub(crate) fn decodes(index: usize, decode_every: usize) -> bool {
    decode_every <= 1 || index.is_multiple_of(decode_every)
}

/// What a soak changes for subscribers.
#[derive(Debug)]
pub(crate) struct SoakSub {
    /// How long a stalled reader stops reading, once per `stall_every`.
    pub stall: Duration,
    pub stall_every: Duration,
    /// Endings the soak provokes on purpose (storms, the server's write deadline).
    pub expected: Arc<ErrorTally>,
}

/// Where a subscriber reconnects to.
#[derive(Clone, Debug)]
pub(crate) struct Reopen {
    pub url: String,
    pub recv_buffer: Option<u32>,
}

/// Why one connection's read loop ended.
enum End {
    /// The run told it to stop.
    Stop,
    /// A reconnect storm told it to reconnect.
    Kicked,
    /// The server closed it with the resubscribe code (write deadline).
    Dropped,
    /// Anything else: the subscriber stops, and the final check fails it.
    Failed(String),
}

/// The close code with which the server drops a reader that made no progress for its
/// write deadline, telling it to reconnect and resubscribe.
const CLOSE_RESUBSCRIBE: u16 = 4000;

/// Attempts to reopen a socket after a storm or a drop.
const REOPEN_ATTEMPTS: u32 = 20;

impl SubContext {
    /// The subscribers of the benchmarks of many subscribers: no slow readers, no soak,
    /// no mirrors (they check every frame's stamps, which is the latency), one in
    /// `decode_every` decoding.
    pub(crate) fn streaming(
        format: Format,
        clock: Clock,
        errors: &Arc<ErrorTally>,
        decode_every: usize,
        compact_counters: bool,
    ) -> Arc<SubContext> {
        Arc::new(SubContext {
            format,
            clock,
            errors: Arc::clone(errors),
            pausing: AtomicBool::new(false),
            resume: Notify::new(),
            pause: Duration::ZERO,
            period: Duration::from_secs(1),
            soak: None,
            keep_mirror: false,
            decode_every,
            compact_counters,
        })
    }

    /// The subscribers of a benchmark that checks their copies (`--bench s2`'s follow
    /// scopes): like [`SubContext::streaming`], but every subscriber decodes and keeps a
    /// mirror.
    pub(crate) fn mirroring(
        format: Format,
        clock: Clock,
        errors: &Arc<ErrorTally>,
    ) -> Arc<SubContext> {
        let mut ctx = Arc::into_inner(SubContext::streaming(format, clock, errors, 1, false))
            .expect("a fresh context has one owner");
        ctx.keep_mirror = true;
        Arc::new(ctx)
    }

    /// Slow readers start taking pauses.
    pub(crate) fn start_pauses(&self) {
        self.pausing.store(true, Ordering::Release);
    }

    /// Slow readers stop pausing, at once, even in the middle of a pause.
    pub(crate) fn end_pauses(&self) {
        self.pausing.store(false, Ordering::Release);
        self.resume.notify_waiters();
    }
}

/// Subscribes on `socket` and reads until `stop` turns true or the socket ends.
/// `synced` is told when the first snapshot has been applied. In a soak, a storm or
/// the server's resubscribe close makes it reconnect to `reopen` and resubscribe; its
/// next snapshot replaces its mirror, as the contract says.
pub(crate) async fn run(
    socket: RawSocket,
    me: Arc<SubShared>,
    ctx: Arc<SubContext>,
    stamps: Arc<Stamps>,
    synced: oneshot::Sender<()>,
    reopen: Reopen,
    mut stop: Stop,
) {
    let mut socket = socket;
    let mut synced = Some(synced);
    loop {
        let mut reader = Reader {
            me: &me,
            ctx: &ctx,
            stamps: &stamps,
            last_tick: None,
            synced: synced.take(),
            samples: Vec::new(),
            snapshot_seen: false,
        };
        let reason = match reader.read(socket, &mut stop).await {
            End::Stop => return,
            End::Failed(reason) => reason,
            End::Kicked | End::Dropped => {
                // Until the new snapshot arrives the old copy is stale: the final check
                // must not pass on it.
                me.lock().synced = false;
                match reopen_socket(&reopen, &mut stop).await {
                    Some(Ok(s)) => {
                        socket = s;
                        continue;
                    }
                    None => return,
                    Some(Err(e)) => {
                        ctx.errors.record("reconnect");
                        format!("could not reconnect: {e:#}")
                    }
                }
            }
        };
        tracing::debug!(index = me.spec.index, %reason, "subscriber ended early");
        me.lock().ended = Some(reason);
        return;
    }
}

/// Reopens a subscriber's socket, retrying briefly; `None` when the run stopped first.
async fn reopen_socket(reopen: &Reopen, stop: &mut Stop) -> Option<anyhow::Result<RawSocket>> {
    let mut last = None;
    for attempt in 0..REOPEN_ATTEMPTS {
        if attempt > 0 {
            tokio::select! {
                _ = stop.raised() => return None,
                _ = tokio::time::sleep(Duration::from_millis(250)) => {}
            }
        }
        match crate::rawws::open(&reopen.url, reopen.recv_buffer).await {
            Ok(s) => return Some(Ok(s)),
            Err(e) => last = Some(e),
        }
    }
    last.map(Err)
}
