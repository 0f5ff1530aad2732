//! Heavy no-op batches: batches of 262,143 `set_parent` ops that
//! re-parent the deepest node of a 1,000-deep chain under the parent it already has,
//! several in flight at once, in a room of their own.
//!
//! Nothing changes, yet the old server walked all 1,000 ancestors per op: 0.49 s of
//! tick per batch, 1.78 s for four, on the async workers that serve everyone. A
//! bounded server makes ops that change nothing cost O(1) and budgets the work per
//! tick, so the room keeps ticking near its period. Invariant: the verdict is every
//! batch answered within the bound (an ack or any refusal) and the room's slowest tick
//! (`tick_ms_max` of `GET /rooms/{room}`, a room of this attempt alone) at most
//! [`SLOWEST_TICK_PERIODS`] periods. The batches go over HTTP from a caller of their own
//! (127.0.0.5 on an open loopback server): the server holds each caller to its quota of
//! pending ops, and the load's editors, another caller, must not be refused for this
//! one's batches.

use std::time::Instant;

use std::net::{IpAddr, Ipv4Addr};

use canopy_client::Client;
use canopy_protocol::{NodeId, Op};
use tokio::task::JoinSet;

use crate::observe::errors::client_error_code;
use crate::soak::hostile::rooms;
use crate::soak::hostile::runner::{self, HostileCtx};
use crate::soak::hostile::{Attempt, Kind};
use crate::stop::Stop;

pub(crate) const RULE: &str =
    "every batch answered within the bound, and the room's slowest tick <= 2 tick periods";

/// The batches' source address on loopback: a caller of their own on an open server.
const SOURCE: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 5));

/// The slowest tick allowed, in tick periods.
pub(crate) const SLOWEST_TICK_PERIODS: f64 = 2.0;

pub(crate) async fn run(ctx: &HostileCtx, stop: Stop) -> Attempt {
    runner::quietly(ctx, attack(ctx, stop)).await
}

/// How the batches were answered.
struct Answers {
    acked: usize,
    /// The error code of each refused batch.
    refused: Vec<String>,
    /// When the last answer came.
    last: Instant,
    /// The run stopped before every batch was answered.
    cut_short: bool,
}

async fn attack(ctx: &HostileCtx, stop: Stop) -> Attempt {
    let kind = Kind::NoopBatches;
    let room = ctx.fresh_room_id("noop");
    let depth = ctx.sizes.noop_depth;
    let setup = async {
        rooms::create(&ctx.admin, &room, ctx.tick_hz).await?;
        ctx.admin.edit(&room, rooms::chain(depth)).await?;
        crate::soak::overquota::client_from(&ctx.base_url, ctx.admin.token(), SOURCE)
    };
    let conn = match setup.await {
        Ok(c) => c,
        Err(e) => {
            let _ = ctx.admin.delete_room(&room).await;
            return Attempt::harness_error(kind, &e);
        }
    };
    let began = Instant::now();
    let answers = send_and_collect(ctx, &conn, &room, depth as NodeId, began, stop).await;
    let slowest = ctx.admin.get_room(&room).await.map(|r| r.tick_ms_max);
    let _ = ctx.admin.delete_room(&room).await;
    verdict(ctx, &answers, began, slowest)
}

/// Sends the no-op batches all at once and gathers their answers (until `stop`).
async fn send_and_collect(
    ctx: &HostileCtx,
    conn: &Client,
    room: &str,
    deepest: NodeId,
    began: Instant,
    mut stop: Stop,
) -> Answers {
    let noop = Op::SetParent {
        node: deepest,
        parent: Some(deepest - 1),
    };
    let batch = vec![noop; ctx.sizes.noop_ops];
    let mut sends = JoinSet::new();
    for _ in 0..ctx.sizes.noop_batches {
        let (conn, ops, room) = (conn.clone(), batch.clone(), room.to_string());
        sends.spawn(async move {
            let answer = conn.edit(&room, ops).await;
            (
                answer.map(|_| ()).map_err(|e| client_error_code(&e)),
                Instant::now(),
            )
        });
    }
    drop(batch);
    let mut answers = Answers {
        acked: 0,
        refused: Vec::new(),
        last: began,
        cut_short: false,
    };
    answers.cut_short = loop {
        tokio::select! {
            _ = stop.raised() => break true,
            next = sends.join_next() => match next {
                None => break false,
                Some(Ok((answer, at))) => {
                    answers.last = answers.last.max(at);
                    match answer {
                        Ok(()) => answers.acked += 1,
                        Err(code) => answers.refused.push(code),
                    }
                }
                Some(Err(_)) => answers.refused.push("panicked".into()),
            },
        }
    };
    sends.abort_all();
    answers
}

fn verdict(
    ctx: &HostileCtx,
    a: &Answers,
    began: Instant,
    slowest: Result<f64, canopy_client::ClientError>,
) -> Attempt {
    let kind = Kind::NoopBatches;
    let answered_in = a.last.duration_since(began);
    let period_ms = 1000.0 / f64::from(ctx.tick_hz);
    let timed_out = a.refused.iter().filter(|c| *c == "timeout").count();
    let detail = format!(
        "{} batches of {} no-op ops at depth {}: {} acked, {} refused ({}) in {:.2} s; slowest tick {}",
        ctx.sizes.noop_batches,
        ctx.sizes.noop_ops,
        ctx.sizes.noop_depth,
        a.acked,
        a.refused.len(),
        if a.refused.is_empty() {
            "-".to_string()
        } else {
            a.refused.join(", ")
        },
        answered_in.as_secs_f64(),
        match &slowest {
            Ok(ms) => format!(
                "{ms:.1} ms (limit {:.1} ms)",
                SLOWEST_TICK_PERIODS * period_ms
            ),
            Err(e) => format!("unknown ({e})"),
        }
    );
    if a.cut_short {
        return Attempt::new(kind, "cut_short", None, None).with(detail);
    }
    let Ok(slowest) = slowest else {
        return Attempt::new(kind, "tick_unknown", None, None).with(detail);
    };
    let answered = timed_out == 0 && answered_in <= ctx.bound;
    let ticked = slowest <= SLOWEST_TICK_PERIODS * period_ms;
    let did = match (answered, ticked) {
        (true, true) => "answered_ticking_on",
        (true, false) => "answered_tick_stalled",
        (false, _) => "unanswered",
    };
    Attempt::new(
        kind,
        did,
        Some(answered_in.as_secs_f64()),
        Some(answered && ticked),
    )
    .with(detail)
}
