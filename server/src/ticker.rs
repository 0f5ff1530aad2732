//! The async loop that drives one room: it hands commands to the room as they arrive
//! and calls [`Room::tick`] at the room's rate.
//!
//! Ticks are scheduled on a fixed grid (start + n × period): a tick that runs long is
//! counted as slow and the missed slots are skipped, so lateness is reported, never
//! accumulated as drift. On shutdown the room runs one last tick, so that every edit
//! already accepted is applied and answered, then closes its subscribers with 1001.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::sync::mpsc::UnboundedReceiver;
use tokio::time::MissedTickBehavior;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::room::{Room, RoomCommand};

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Runs a room until it is deleted or the server shuts down, inside a tracing span
/// that names the room.
pub async fn run_room(
    room: Room,
    commands: UnboundedReceiver<RoomCommand>,
    shutdown: CancellationToken,
) {
    let span = tracing::info_span!("room", id = %room.shared().id, tick_hz = room.shared().tick_hz);
    drive(room, commands, shutdown).instrument(span).await
}

async fn drive(
    mut room: Room,
    mut commands: UnboundedReceiver<RoomCommand>,
    shutdown: CancellationToken,
) {
    let hz = room.shared().tick_hz.max(1);
    let period = Duration::from_secs_f64(1.0 / hz as f64);
    let period_ns = period.as_nanos() as u64;
    let mut interval = tokio::time::interval(period);
    interval.set_missed_tick_behavior(MissedTickBehavior::Skip);
    tracing::info!("room started");
    loop {
        tokio::select! {
            biased;
            _ = shutdown.cancelled() => {
                while let Ok(cmd) = commands.try_recv() {
                    room.handle(cmd);
                }
                if !room.is_stopped() {
                    room.tick(now_ms(), period_ns);
                    room.stop("server shutting down", 1001);
                }
                break;
            }
            _ = interval.tick() => {
                while let Ok(cmd) = commands.try_recv() {
                    room.handle(cmd);
                }
                if room.is_stopped() {
                    break;
                }
                let report = room.tick(now_ms(), period_ns);
                if report.duration_ns > period_ns {
                    tracing::warn!(tick = report.tick, ms = report.duration_ns as f64 / 1e6, "slow tick");
                } else {
                    tracing::trace!(tick = report.tick, recomputed = report.recomputed, "tick");
                }
            }
            cmd = commands.recv() => match cmd {
                Some(cmd) => {
                    room.handle(cmd);
                    if room.is_stopped() {
                        break;
                    }
                }
                None => break,
            },
        }
    }
    tracing::info!("room stopped");
}
