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

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use canopy_protocol::message::Region;
use canopy_protocol::{ClientMsg, Encoding, Format, ServerMsg, codec};
use hdrhistogram::Histogram;
use tokio::sync::{Notify, oneshot};
use tokio_tungstenite::tungstenite::Message;

use crate::load::mirror::DenseMirror;
use crate::load::stamps::{Clock, Stamps};
use crate::observe::errors::ErrorTally;
use crate::observe::latency;
use crate::rawws::RawSocket;
use crate::soak::invalid::POISON_SCALE;
use crate::stop::Stop;

/// What a subscriber is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SubSpec {
    pub index: usize,
    /// Index into the run's rooms.
    pub room: usize,
    /// Index into the run's server URLs (0 with one server).
    pub node: usize,
    /// `None`: the whole room.
    pub region: Option<Region>,
    pub slow: bool,
    /// Soak: stops reading until the server drops it, then reconnects.
    pub stalled: bool,
}

impl SubSpec {
    /// A reader at full speed of the whole of room 0, connected to server `node`.
    pub(crate) fn whole_room(index: usize, node: usize) -> SubSpec {
        SubSpec {
            index,
            room: 0,
            node,
            region: None,
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
                mirror: DenseMirror::new(room_nodes),
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

struct Reader<'a> {
    me: &'a SubShared,
    ctx: &'a SubContext,
    stamps: &'a Stamps,
    last_tick: Option<u64>,
    synced: Option<oneshot::Sender<()>>,
    /// This frame's latency samples (reused from frame to frame).
    samples: Vec<u64>,
    /// This connection's snapshot arrived.
    snapshot_seen: bool,
}

impl Reader<'_> {
    /// The read loop; returns why it ended when that was not `stop`.
    async fn read(&mut self, mut socket: RawSocket, stop: &mut Stop) -> End {
        if let Err(end) = self.subscribe(&mut socket).await {
            return end;
        }
        loop {
            if self.me.spec.slow {
                self.maybe_pause(stop).await;
            }
            if self.me.spec.stalled {
                self.maybe_stall(stop).await;
            }
            let frame = match self.next_frame(&mut socket, stop).await {
                Ok(frame) => frame,
                Err(end) => return end,
            };
            if let Some(end) = self.on_frame(frame) {
                return end;
            }
        }
    }

    /// Sends this subscriber's `subscribe` (compact for a counting subscriber when the
    /// run asks for it).
    async fn subscribe(&self, socket: &mut RawSocket) -> Result<(), End> {
        let mut subscribe = ClientMsg::subscribe(self.me.spec.region, u32::MAX);
        if self.ctx.compact_counters
            && !self.decodes()
            && let ClientMsg::Subscribe { encoding, .. } = &mut subscribe
        {
            *encoding = Encoding::Compact;
        }
        let bytes = codec::encode_client(&subscribe, self.ctx.format);
        let frame = match self.ctx.format {
            Format::Json => Message::text(String::from_utf8_lossy(&bytes).into_owned()),
            Format::Bincode => Message::binary(bytes),
        };
        socket.send(frame).await.map_err(|e| {
            self.ctx.errors.record("websocket");
            End::Failed(format!("sending subscribe: {e}"))
        })
    }

    /// The next frame, or why reading ends: the run stopped, a storm kicked this
    /// subscriber, or the stream ended (expected for a stalled reader in a soak).
    async fn next_frame(&self, socket: &mut RawSocket, stop: &mut Stop) -> Result<Message, End> {
        let frame = tokio::select! {
            biased;
            _ = stop.raised() => {
                let _ = socket.close(None).await;
                return Err(End::Stop);
            }
            _ = self.me.kick.notified() => {
                let _ = socket.close(None).await;
                self.me.storm_reconnects.fetch_add(1, Ordering::Relaxed);
                if let Some(soak) = &self.ctx.soak {
                    soak.expected.record("storm_reconnect");
                }
                return Err(End::Kicked);
            }
            frame = socket.next() => frame,
        };
        match frame {
            // The server tries only briefly to send its close frame to a reader it drops
            // (its buffers are full), so a stalled reader may instead see the stream
            // end: the same expected drop.
            None | Some(Err(_)) if self.me.spec.stalled && self.ctx.soak.is_some() => {
                if let Some(soak) = &self.ctx.soak {
                    soak.expected.record("dropped_by_server_stream_ended");
                }
                self.me.dropped_reconnects.fetch_add(1, Ordering::Relaxed);
                Err(End::Dropped)
            }
            None => {
                self.ctx.errors.record("websocket_ended");
                Err(End::Failed("the server ended the stream".into()))
            }
            Some(Err(e)) => {
                self.ctx.errors.record("websocket");
                Err(End::Failed(e.to_string()))
            }
            Some(Ok(frame)) => Ok(frame),
        }
    }

    /// Counts, or decodes and applies, one frame; `Some` when it ends the connection.
    fn on_frame(&mut self, frame: Message) -> Option<End> {
        if self.counts_only()
            && let Message::Binary(b) = &frame
        {
            // A delta read but not decoded (`--decode-every`).
            self.me.delta_frames.fetch_add(1, Ordering::Relaxed);
            self.me
                .delta_bytes
                .fetch_add(b.len() as u64, Ordering::Relaxed);
            self.me
                .last_frame_us
                .store(self.ctx.clock.now_us(), Ordering::Relaxed);
            return None;
        }
        let (decoded, len) = match &frame {
            Message::Binary(b) => (codec::decode_server(b, Format::Bincode), b.len()),
            Message::Text(t) => (codec::decode_server(t.as_bytes(), Format::Json), t.len()),
            Message::Close(c) => {
                let code = c.as_ref().map(|c| u16::from(c.code));
                if let (Some(soak), Some(CLOSE_RESUBSCRIBE)) = (&self.ctx.soak, code) {
                    soak.expected.record("dropped_by_server_4000");
                    self.me.dropped_reconnects.fetch_add(1, Ordering::Relaxed);
                    return Some(End::Dropped);
                }
                self.ctx.errors.record("websocket_closed");
                return Some(End::Failed(format!("closed by the server: {c:?}")));
            }
            _ => return None,
        };
        match decoded {
            Ok(msg) => self.handle(msg, len as u64).map(End::Failed),
            Err(e) => {
                self.ctx.errors.record("decode");
                Some(End::Failed(format!("undecodable frame: {e}")))
            }
        }
    }

    /// True once this subscriber, synced, only counts its frames (`--decode-every`).
    fn counts_only(&self) -> bool {
        self.snapshot_seen && !self.decodes()
    }

    /// Whether this subscriber decodes its deltas (see [`decodes`]).
    fn decodes(&self) -> bool {
        decodes(self.me.spec.index, self.ctx.decode_every)
    }

    /// A slow reader stops reading for `pause` once per `period`, at an offset of its
    /// own so that slow readers do not all pause together.
    async fn maybe_pause(&self, stop: &mut Stop) {
        // Registered before the flag is read, so an `end_pauses` in between still wakes
        // this reader.
        let resumed = self.ctx.resume.notified();
        tokio::pin!(resumed);
        resumed.as_mut().enable();
        if !self.ctx.pausing.load(Ordering::Acquire) {
            return;
        }
        let period = self.ctx.period.as_micros().max(1) as u64;
        let pause = self.ctx.pause.as_micros() as u64;
        // Golden-ratio offsets spread any number of readers evenly over the period.
        let offset = ((self.me.spec.index as f64 * 0.618_034).fract() * period as f64) as u64;
        let now = self.ctx.clock.now_us();
        let phase = (now + offset) % period;
        if phase < pause {
            let wait = Duration::from_micros(pause - phase);
            tokio::select! {
                _ = stop.raised() => {}
                _ = &mut resumed => {}
                _ = tokio::time::sleep(wait) => {}
            }
            let paused = self.ctx.clock.now_us().saturating_sub(now);
            self.me.paused_us.fetch_add(paused, Ordering::Relaxed);
        }
    }

    /// A stalled reader stops reading for the whole of `stall` once per `stall_every`
    /// (the first at an offset of its own) while the load runs: long enough for the
    /// kernel's buffers to fill and then the server's write deadline to pass, so the
    /// server drops it, which the read loop then sees as the resubscribe close. A stall
    /// is never cut short by the period, since a short one would not reach the deadline.
    async fn maybe_stall(&self, stop: &mut Stop) {
        let Some(soak) = &self.ctx.soak else { return };
        let resumed = self.ctx.resume.notified();
        tokio::pin!(resumed);
        resumed.as_mut().enable();
        if !self.ctx.pausing.load(Ordering::Acquire) {
            return;
        }
        let period = soak.stall_every.as_micros().max(1) as u64;
        let now = self.ctx.clock.now_us();
        let next = self.me.next_stall_us.load(Ordering::Relaxed);
        if next == 0 {
            // Golden-ratio offsets spread the first stalls over the part of the first
            // period that leaves room for a whole stall.
            let room = period.saturating_sub(soak.stall.as_micros() as u64);
            let offset = (self.me.spec.index as f64 * 0.618_034).fract() * room as f64;
            self.me
                .next_stall_us
                .store(now + offset as u64 + 1, Ordering::Relaxed);
            return;
        }
        if now >= next {
            self.me.next_stall_us.store(now + period, Ordering::Relaxed);
            self.me.stalls.fetch_add(1, Ordering::Relaxed);
            tokio::select! {
                _ = stop.raised() => {}
                _ = &mut resumed => {}
                _ = tokio::time::sleep(soak.stall) => {}
            }
            let paused = self.ctx.clock.now_us().saturating_sub(now);
            self.me.paused_us.fetch_add(paused, Ordering::Relaxed);
        }
    }

    /// Applies one message; returns a reason to stop reading.
    fn handle(&mut self, msg: ServerMsg, len: u64) -> Option<String> {
        let now = self.ctx.clock.now_us();
        match msg {
            ServerMsg::Snapshot { tick, nodes, .. } => {
                self.check_tick(tick);
                self.snapshot_seen = true;
                let mut st = self.me.lock();
                if self.ctx.keep_mirror && !st.mirror.apply_snapshot(&nodes) {
                    self.ctx.errors.record("mirror_inconsistency");
                }
                st.synced = true;
                drop(st);
                if let Some(synced) = self.synced.take() {
                    let _ = synced.send(());
                }
            }
            ServerMsg::Delta {
                tick,
                upsert,
                update,
                remove,
                ..
            } => {
                self.check_tick(tick);
                self.me.delta_frames.fetch_add(1, Ordering::Relaxed);
                self.me.delta_bytes.fetch_add(len, Ordering::Relaxed);
                self.me
                    .delta_rows
                    .fetch_add((update.len() + upsert.len()) as u64, Ordering::Relaxed);
                let mut st = self.me.lock();
                if !st.synced {
                    self.ctx.errors.record("delta_before_snapshot");
                }
                let values = update
                    .iter()
                    .map(|r| (r.id, r.world.s))
                    .chain(upsert.iter().map(|n| (n.id, n.world.s)));
                self.samples.clear();
                for (id, scale) in values {
                    if scale == POISON_SCALE {
                        // A value only invalid batches carry: one of them was applied.
                        self.ctx.errors.record("invalid_batch_applied");
                    }
                    if let Some(us) = self.stamps.latency_us(id, scale, now) {
                        self.samples.push(us);
                    }
                }
                latency::record_all(&mut st.latency, &mut self.samples);
                if self.ctx.keep_mirror && !st.mirror.apply_delta(&upsert, &update, &remove) {
                    self.ctx.errors.record("mirror_inconsistency");
                }
            }
            ServerMsg::Error { code, message, .. } => {
                tracing::debug!(%code, %message, "subscriber got an error");
                self.ctx.errors.record(code.as_str());
            }
            ServerMsg::Closed { reason } if self.ctx.soak.is_some() => {
                // In a soak the close frame that follows says whether this was the
                // write deadline (expected) or not.
                tracing::debug!(%reason, "closed message");
            }
            ServerMsg::Closed { reason } => {
                self.ctx.errors.record("closed_by_server");
                return Some(format!("the server closed the subscription: {reason}"));
            }
            ServerMsg::Ack { .. } | ServerMsg::QueryResult { .. } | ServerMsg::Pong { .. } => {}
        }
        self.me.last_frame_us.store(now, Ordering::Relaxed);
        None
    }

    /// The contract: each frame's tick is greater than the previous frame's.
    fn check_tick(&mut self, tick: u64) {
        if self.last_tick.is_some_and(|last| tick <= last) {
            self.ctx.errors.record("tick_order");
        }
        self.last_tick = Some(tick);
    }
}
