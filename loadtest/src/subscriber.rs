//! Subscribers: lean WebSocket readers, hundreds per process, each keeping a mirror of
//! its scope and measuring edit-to-delta latency on every frame.
//!
//! They read raw frames (tokio-tungstenite and the protocol codec) instead of using the
//! SDK's `Connection`, for four reasons: the harness must count the bytes of each
//! frame, a slow reader must control when it reads (and its socket buffer, see
//! `wsopen`), every row of every frame must be checked against the edit stamps before
//! it is applied, and 550 copies of the SDK's mirror cost more CPU than this machine
//! has to spare (see `mirror`).
//!
//! Invariants: every frame is decoded and applied, in order, by every subscriber (slow
//! ones only read later); frame ticks must grow strictly and deltas must only name
//! nodes the mirror holds, and any breach is counted as an error; a slow reader pauses
//! only while the load runs, so it can catch up before the final check.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use canopy_protocol::message::Region;
use canopy_protocol::{ClientMsg, Format, ServerMsg, codec};
use futures_util::{SinkExt, StreamExt};
use hdrhistogram::Histogram;
use tokio::sync::{Notify, oneshot};
use tokio_tungstenite::tungstenite::Message;

use crate::errors::ErrorTally;
use crate::latency;
use crate::mirror::DenseMirror;
use crate::stamps::{Clock, Stamps};
use crate::stop::Stop;
use crate::wsopen::RawSocket;

/// What a subscriber is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SubSpec {
    pub index: usize,
    /// Index into the run's rooms.
    pub room: usize,
    /// `None`: the whole room.
    pub region: Option<Region>,
    pub slow: bool,
}

/// The mirror and the latency samples, behind one lock taken once per frame.
#[derive(Debug)]
pub struct SubState {
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
pub struct SubShared {
    pub spec: SubSpec,
    pub delta_frames: AtomicU64,
    pub delta_bytes: AtomicU64,
    /// Time a slow reader spent not reading, microseconds.
    pub paused_us: AtomicU64,
    /// When the last frame arrived (run clock, microseconds), to see traffic settle.
    pub last_frame_us: AtomicU64,
    pub state: Mutex<SubState>,
}

impl SubShared {
    /// A subscriber of a room whose ids are `0..room_nodes`.
    pub fn new(spec: SubSpec, room_nodes: usize) -> Self {
        SubShared {
            spec,
            delta_frames: AtomicU64::new(0),
            delta_bytes: AtomicU64::new(0),
            paused_us: AtomicU64::new(0),
            last_frame_us: AtomicU64::new(0),
            state: Mutex::new(SubState {
                mirror: DenseMirror::new(room_nodes),
                synced: false,
                latency: latency::histogram(),
                ended: None,
            }),
        }
    }

    pub fn lock(&self) -> std::sync::MutexGuard<'_, SubState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What every subscriber shares.
#[derive(Debug)]
pub struct SubContext {
    pub format: Format,
    pub clock: Clock,
    pub errors: Arc<ErrorTally>,
    /// While true (the load window), slow readers take their pauses.
    pub pausing: AtomicBool,
    /// Wakes slow readers out of a pause when the load window ends.
    pub resume: Notify,
    pub pause: Duration,
    pub period: Duration,
}

impl SubContext {
    /// Slow readers start taking pauses.
    pub fn start_pauses(&self) {
        self.pausing.store(true, Ordering::Release);
    }

    /// Slow readers stop pausing, at once, even in the middle of a pause.
    pub fn end_pauses(&self) {
        self.pausing.store(false, Ordering::Release);
        self.resume.notify_waiters();
    }
}

/// Subscribes on `socket` and reads until `stop` turns true or the socket ends.
/// `synced` is told when the first snapshot has been applied.
pub async fn run(
    socket: RawSocket,
    me: Arc<SubShared>,
    ctx: Arc<SubContext>,
    stamps: Arc<Stamps>,
    synced: oneshot::Sender<()>,
    mut stop: Stop,
) {
    let mut reader = Reader {
        me: &me,
        ctx: &ctx,
        stamps: &stamps,
        last_tick: None,
        synced: Some(synced),
    };
    let ended = reader.read(socket, &mut stop).await;
    if let Some(reason) = ended {
        tracing::debug!(index = me.spec.index, %reason, "subscriber ended early");
        me.lock().ended = Some(reason);
    }
}

struct Reader<'a> {
    me: &'a SubShared,
    ctx: &'a SubContext,
    stamps: &'a Stamps,
    last_tick: Option<u64>,
    synced: Option<oneshot::Sender<()>>,
}

impl Reader<'_> {
    /// The read loop; returns why it ended when that was not `stop`.
    async fn read(&mut self, mut socket: RawSocket, stop: &mut Stop) -> Option<String> {
        let subscribe = ClientMsg::Subscribe {
            region: self.me.spec.region,
            mask: u32::MAX,
        };
        let bytes = codec::encode_client(&subscribe, self.ctx.format);
        let frame = match self.ctx.format {
            Format::Json => Message::text(String::from_utf8_lossy(&bytes).into_owned()),
            Format::Bincode => Message::binary(bytes),
        };
        if let Err(e) = socket.send(frame).await {
            self.ctx.errors.record("websocket");
            return Some(format!("sending subscribe: {e}"));
        }
        loop {
            if self.me.spec.slow {
                self.maybe_pause(stop).await;
            }
            let frame = tokio::select! {
                biased;
                _ = stop.raised() => {
                    let _ = socket.close(None).await;
                    return None;
                }
                frame = socket.next() => frame,
            };
            let frame = match frame {
                None => {
                    self.ctx.errors.record("websocket_ended");
                    return Some("the server ended the stream".into());
                }
                Some(Err(e)) => {
                    self.ctx.errors.record("websocket");
                    return Some(e.to_string());
                }
                Some(Ok(frame)) => frame,
            };
            let decoded = match &frame {
                Message::Binary(b) => codec::decode_server(b, Format::Bincode),
                Message::Text(t) => codec::decode_server(t.as_bytes(), Format::Json),
                Message::Close(c) => {
                    self.ctx.errors.record("websocket_closed");
                    return Some(format!("closed by the server: {c:?}"));
                }
                _ => continue,
            };
            let len = match &frame {
                Message::Binary(b) => b.len(),
                Message::Text(t) => t.len(),
                _ => 0,
            } as u64;
            match decoded {
                Ok(msg) => {
                    if let Some(reason) = self.handle(msg, len) {
                        return Some(reason);
                    }
                }
                Err(e) => {
                    self.ctx.errors.record("decode");
                    return Some(format!("undecodable frame: {e}"));
                }
            }
        }
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

    /// Applies one message; returns a reason to stop reading.
    fn handle(&mut self, msg: ServerMsg, len: u64) -> Option<String> {
        let now = self.ctx.clock.now_us();
        match msg {
            ServerMsg::Snapshot { tick, nodes, .. } => {
                self.check_tick(tick);
                let mut st = self.me.lock();
                if !st.mirror.apply_snapshot(&nodes) {
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
                let mut st = self.me.lock();
                if !st.synced {
                    self.ctx.errors.record("delta_before_snapshot");
                }
                let values = update
                    .iter()
                    .map(|r| (r.id, r.world.s))
                    .chain(upsert.iter().map(|n| (n.id, n.world.s)));
                for (id, scale) in values {
                    if let Some(us) = self.stamps.latency_us(id, scale, now) {
                        latency::record(&mut st.latency, us);
                    }
                }
                if !st.mirror.apply_delta(&upsert, &update, &remove) {
                    self.ctx.errors.record("mirror_inconsistency");
                }
            }
            ServerMsg::Error { code, message, .. } => {
                tracing::debug!(%code, %message, "subscriber got an error");
                self.ctx.errors.record(code.as_str());
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
