//! One subscriber connection's read loop: subscribe, then read, check against the edit
//! stamps and apply every frame (or only count it, for `--decode-every`), pausing or
//! stalling as the subscriber's kind asks.

use std::sync::atomic::Ordering;
use std::time::Duration;

use canopy_protocol::{ClientMsg, Encoding, Format, ServerMsg, codec};
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::Message;

use super::{CLOSE_RESUBSCRIBE, End, SubContext, SubShared, SubSpec, decodes};
use crate::load::stamps::Stamps;
use crate::observe::latency;
use crate::rawws::RawSocket;
use crate::soak::invalid::POISON_SCALE;
use crate::stop::Stop;

/// One connection of a subscriber, from its subscribe to its end.
pub(super) struct Reader<'a> {
    pub(super) me: &'a SubShared,
    pub(super) ctx: &'a SubContext,
    pub(super) stamps: &'a Stamps,
    pub(super) last_tick: Option<u64>,
    pub(super) synced: Option<oneshot::Sender<()>>,
    /// This frame's latency samples (reused from frame to frame).
    pub(super) samples: Vec<u64>,
    /// This connection's snapshot arrived.
    pub(super) snapshot_seen: bool,
}

/// The `subscribe` of a subscriber of `spec`: its region or follow scope (with its
/// pacing and tiers), compact transforms when `compact`.
fn subscribe_msg(spec: &SubSpec, compact: bool) -> ClientMsg {
    let mut subscribe = ClientMsg::subscribe(spec.region, u32::MAX);
    if let ClientMsg::Subscribe {
        follow,
        send_hz,
        tiers,
        encoding,
        ..
    } = &mut subscribe
    {
        if let Some(scope) = spec.follow {
            *follow = Some(scope.follow);
            *send_hz = scope.send_hz;
            *tiers = scope.tiers.map(Vec::from).unwrap_or_default();
        }
        if compact {
            *encoding = Encoding::Compact;
        }
    }
    subscribe
}

impl Reader<'_> {
    /// The read loop; returns why it ended when that was not `stop`.
    pub(super) async fn read(&mut self, mut socket: RawSocket, stop: &mut Stop) -> End {
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

    /// Sends this subscriber's `subscribe` (a follow scope when its spec has one, which
    /// the codec writes as the v1.2 variant; compact for a counting subscriber when the
    /// run asks for it).
    async fn subscribe(&self, socket: &mut RawSocket) -> Result<(), End> {
        let compact = self.ctx.compact_counters && !self.decodes();
        let subscribe = subscribe_msg(&self.me.spec, compact);
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
                    .map(|r| (r.id, r.world.s, true))
                    .chain(upsert.iter().map(|n| (n.id, n.world.s, false)));
                // A follow scope's upserts are mostly nodes its moving centre reached,
                // carrying an edit that may be seconds old: the scope's travel, not the
                // change's delay. Its latency comes from its updates only.
                let upserts_sampled = self.me.spec.follow.is_none();
                self.samples.clear();
                for (id, scale, updated) in values {
                    if scale == POISON_SCALE {
                        // A value only invalid batches carry: one of them was applied.
                        self.ctx.errors.record("invalid_batch_applied");
                    }
                    if !(updated || upserts_sampled) {
                        continue;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::subscriber::FollowScope;
    use canopy_protocol::interest::{Follow, Tier};

    #[test]
    fn a_follow_spec_subscribes_with_the_v1_2_fields() {
        let whole = subscribe_msg(&SubSpec::whole_room(0, 0), false);
        assert!(!whole.uses_v1_2());
        let tiers = [
            Tier {
                within: Some(5.0),
                every: 1,
            },
            Tier {
                within: None,
                every: 3,
            },
        ];
        let spec = SubSpec {
            follow: Some(FollowScope {
                follow: Follow {
                    node: 7,
                    radius: 10.0,
                    margin: Some(1.0),
                },
                send_hz: Some(20),
                tiers: Some(tiers),
            }),
            ..SubSpec::whole_room(0, 0)
        };
        let msg = subscribe_msg(&spec, true);
        assert!(msg.uses_v1_2());
        let bytes = codec::encode_client(&msg, Format::Bincode);
        match codec::decode_client(&bytes, Format::Bincode).unwrap() {
            ClientMsg::Subscribe {
                follow: Some(f),
                send_hz: Some(20),
                tiers: t,
                encoding: Encoding::Compact,
                region: None,
                ..
            } => assert_eq!((f.node, t), (7, tiers.to_vec())),
            other => panic!("{other:?}"),
        }
    }
}
