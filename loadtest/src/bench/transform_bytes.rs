//! Bytes per changed node, exact against compact transforms, and what a resume saves
//! (benchmark `transform-bytes`): one room of 20,000 nodes; an editor moves
//! `--batch-size` (200) random leaves plus a probe leaf every tick at `--edit-rate` (30)
//! batches a second, each along a smooth path (a circle of radius 2 at 1 rad/s with the
//! matching yaw, scale 1), so that what a node is sent is where it is now, as in a game;
//! two bincode whole-room subscribers, one `exact` and one `compact`, count every byte
//! they receive.
//!
//! Invariant: both encodings are compared over the same ticks (those both received in a
//! frame of their own), bytes are the WebSocket payload plus the frame headers the
//! server writes (16 KiB fragments), and changed nodes are the rows of the exact stream.
//! The bound: compact at most 10 B per changed node, frame headers included.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use canopy_client::{Client, ConnectOptions};
use canopy_protocol::{ClientMsg, Encoding, Format, NodeId, Op, ServerMsg, codec};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;

use crate::bench::table::BenchReport;
use crate::load::setup;
use crate::load::world::World;
use crate::rawws::{self, RawSocket};
use crate::scenario::Scenario;
use crate::stop::{self, Stop};

/// The bound on compact bytes per changed node.
const COMPACT_LIMIT: f64 = 10.0;

/// The server writes messages longer than this as continuation frames.
const FRAGMENT: usize = 16 * 1024;

/// How long a reconnecting subscriber stays away before it resumes.
const AWAY: [Duration; 2] = [Duration::from_secs(1), Duration::from_secs(10)];

/// Bytes on the wire for a server message of `len` payload bytes: the payload and a
/// 2-byte (under 126), 4-byte (under 64 KiB) or 10-byte header per fragment.
fn wire_bytes(len: usize) -> u64 {
    let header = |n: usize| match n {
        0..126 => 2,
        126..65_536 => 4,
        _ => 10,
    };
    let full = len / FRAGMENT;
    let rest = len % FRAGMENT;
    let headers = full * header(FRAGMENT)
        + if rest > 0 || full == 0 {
            header(rest)
        } else {
            0
        };
    (len + headers) as u64
}

pub(crate) async fn run(s: &Scenario, url: &str) -> anyhow::Result<BenchReport> {
    let mut report = BenchReport::new(
        "transform-bytes",
        format!(
            "1 room x {} nodes (fanout {}, depth {}), {} random leaves + 1 probe moved per \
             batch at {}/s along smooth paths, {} Hz, one exact and one compact bincode \
             whole-room subscriber, {} s; then resumes after {} s and {} s away",
            s.nodes,
            s.fanout,
            s.depth,
            s.batch_size,
            s.edit_rate,
            s.tick_hz,
            s.duration,
            AWAY[0].as_secs(),
            AWAY[1].as_secs()
        ),
    );
    setup::with_rooms(s, url, 1, async |client, world, rooms| {
        measure(s, client, world, &rooms[0], &mut report).await
    })
    .await?;
    Ok(report)
}

/// What one subscriber received: per tick, the wire bytes of its own frame and, for
/// deltas, the rows it changed.
#[derive(Default)]
struct Tally {
    frames: BTreeMap<u64, (u64, u64)>,
    merged: u64,
}

/// A raw bincode subscriber.
struct Listener {
    socket: RawSocket,
}

impl Listener {
    /// Subscribes to the whole room; answers the listener and its first frame (the
    /// snapshot, or with `since` possibly a resumed delta) with its wire bytes.
    async fn open(
        client: &Client,
        room: &str,
        encoding: Encoding,
        since: Option<u64>,
    ) -> anyhow::Result<(Listener, ServerMsg, u64)> {
        let url = rawws::ws_url(client, room, Format::Bincode)?;
        let mut socket = rawws::open(&url, None).await?;
        let sub = ClientMsg::Subscribe {
            region: None,
            mask: u32::MAX,
            since,
            encoding,
            follow: None,
            frustum: None,
            send_hz: None,
            tiers: Vec::new(),
        };
        socket
            .send(Message::binary(codec::encode_client(&sub, Format::Bincode)))
            .await?;
        let mut l = Listener { socket };
        let (msg, bytes) = l.next().await?;
        if !matches!(msg, ServerMsg::Snapshot { .. } | ServerMsg::Delta { .. }) {
            bail!("the subscribe was answered with {msg:?}");
        }
        Ok((l, msg, bytes))
    }

    async fn next(&mut self) -> anyhow::Result<(ServerMsg, u64)> {
        loop {
            match self.socket.next().await.context("the socket ended")?? {
                Message::Binary(b) => {
                    let msg = codec::decode_server(&b, Format::Bincode)?;
                    return Ok((msg, wire_bytes(b.len())));
                }
                Message::Close(c) => bail!("closed by the server: {c:?}"),
                _ => {}
            }
        }
    }

    /// Counts every delta until `stop`, then closes.
    async fn count(mut self, mut stop: Stop) -> anyhow::Result<Tally> {
        let mut tally = Tally::default();
        let mut last = None;
        loop {
            let (msg, bytes) = tokio::select! {
                _ = stop.raised() => break,
                m = self.next() => m?,
            };
            if let ServerMsg::Delta {
                tick,
                upsert,
                update,
                compact,
                ..
            } = &msg
            {
                // A frame that covers several ticks (a slow reader's merge) cannot be
                // split between them: leave it out of the comparison.
                if last.is_some_and(|l: u64| *tick > l + 1) {
                    tally.merged += 1;
                } else {
                    let rows = (update.len() + upsert.len()) as u64;
                    let rows = if compact.is_some() { 0 } else { rows };
                    tally.frames.insert(*tick, (bytes, rows));
                }
                last = Some(*tick);
            }
        }
        let _ = self.socket.close(None).await;
        Ok(tally)
    }
}

/// The editor: every period, `batch` random leaves and the probe set where their path
/// puts them now.
fn edit_loop(
    client: Client,
    room: String,
    leaves: Vec<(NodeId, [f32; 3])>,
    s: &Scenario,
    mut stop: Stop,
) -> JoinHandle<anyhow::Result<u64>> {
    let (rate, batch, seed) = (s.edit_rate, s.batch_size, s.seed);
    tokio::spawn(async move {
        let conn = client.connect(&room, ConnectOptions::default()).await?;
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut every = tokio::time::interval(Duration::from_secs_f64(1.0 / rate));
        let start = Instant::now();
        let mut sent = 0u64;
        let mut acks = Vec::new();
        loop {
            tokio::select! {
                _ = stop.raised() => break,
                _ = every.tick() => {}
            }
            let t = start.elapsed().as_secs_f32();
            let mut ops = Vec::with_capacity(batch + 1);
            ops.push(path_op(leaves[0], t));
            for _ in 0..batch {
                ops.push(path_op(leaves[rng.random_range(1..leaves.len())], t));
            }
            let conn = conn.clone();
            acks.push(tokio::spawn(async move { conn.edit(ops).await }));
            sent += 1;
        }
        for a in acks {
            a.await?.context("an edit batch failed")?;
        }
        conn.close().await;
        Ok(sent)
    })
}

/// Node `id` at time `t` on its circle of radius 2 around `home`, facing along it.
fn path_op((id, home): (NodeId, [f32; 3]), t: f32) -> Op {
    let phase = (id % 628) as f32 / 100.0;
    let a = t + phase;
    Op::SetLocal {
        node: id,
        t: Some([home[0] + 2.0 * a.cos(), home[1], home[2] + 2.0 * a.sin()]),
        r: Some([0.0, (a / 2.0).sin(), 0.0, (a / 2.0).cos()]),
        s: Some(1.0),
    }
}

async fn measure(
    s: &Scenario,
    client: &Client,
    world: &World,
    room: &str,
    report: &mut BenchReport,
) -> anyhow::Result<()> {
    let leaves: Vec<(NodeId, [f32; 3])> = world.leaves().map(|n| (n.id, n.local_t)).collect();
    if leaves.len() < 2 {
        bail!("the world has {} leaves; it needs 2", leaves.len());
    }
    let (exact, _, exact_snapshot) = Listener::open(client, room, Encoding::Exact, None).await?;
    let (compact, _, compact_snapshot) =
        Listener::open(client, room, Encoding::Compact, None).await?;
    let (stop_counting, counting) = stop::channel();
    let counters = [
        tokio::spawn(exact.count(counting.clone())),
        tokio::spawn(compact.count(counting)),
    ];
    let (stop_editing, editing) = stop::channel();
    let editor = edit_loop(client.clone(), room.to_owned(), leaves, s, editing);
    let window = Instant::now();
    tokio::time::sleep(s.load_duration()).await;
    stop_counting.raise();
    let window_s = window.elapsed().as_secs_f64();
    let [e, c] = counters;
    let (e, c) = (e.await??, c.await??);

    let cb = compare_encodings(
        s,
        &e,
        &c,
        (exact_snapshot, compact_snapshot),
        window_s,
        report,
    )?;
    // Resumes, with the editor still running.
    resumes(client, room, report).await?;
    stop_editing.raise();
    let batches = editor.await??;
    report.row("edits", format!("{batches} batches sent and acknowledged"));
    report.check(
        "compact bytes per changed node",
        cb <= COMPACT_LIMIT,
        format!("{cb:.2} B, limit {COMPACT_LIMIT} B"),
    );
    Ok(())
}

/// Both encodings over the ticks both received on their own: rows and figures, and the
/// compact bytes per changed node for the check.
fn compare_encodings(
    s: &Scenario,
    e: &Tally,
    c: &Tally,
    (exact_snapshot, compact_snapshot): (u64, u64),
    window_s: f64,
    report: &mut BenchReport,
) -> anyhow::Result<f64> {
    let (mut eb, mut cb, mut rows, mut ticks) = (0u64, 0u64, 0u64, 0u64);
    for (tick, &(bytes, n)) in &e.frames {
        if let Some(&(compact_bytes, _)) = c.frames.get(tick) {
            eb += bytes;
            cb += compact_bytes;
            rows += n;
            ticks += 1;
        }
    }
    if rows == 0 {
        bail!("no changed node was received in {window_s:.0} s");
    }
    let per = |b: u64| b as f64 / rows as f64;
    let per_s = |b: u64| b as f64 / ticks as f64 * f64::from(s.tick_hz) / 1000.0;
    report.row(
        "changed nodes",
        format!(
            "{rows} over {ticks} ticks compared ({:.1} a tick); {} and {} merged frames left out",
            rows as f64 / ticks as f64,
            e.merged,
            c.merged
        ),
    );
    report.row(
        "exact",
        format!(
            "{:.2} B per changed node, {:.1} KB/s per subscriber; snapshot {} B",
            per(eb),
            per_s(eb),
            exact_snapshot
        ),
    );
    report.row(
        "compact",
        format!(
            "{:.2} B per changed node, {:.1} KB/s per subscriber ({:.2}x fewer); snapshot {} B",
            per(cb),
            per_s(cb),
            eb as f64 / cb as f64,
            compact_snapshot
        ),
    );
    report.figure("exact_bytes_per_changed_node", per(eb));
    report.figure("compact_bytes_per_changed_node", per(cb));
    Ok(per(cb))
}

/// How many bytes a subscriber that went away for each of [`AWAY`] gets on resuming,
/// against its snapshot, in both encodings.
async fn resumes(client: &Client, room: &str, report: &mut BenchReport) -> anyhow::Result<()> {
    for away in AWAY {
        for encoding in [Encoding::Exact, Encoding::Compact] {
            let (mut l, first, snapshot) = Listener::open(client, room, encoding, None).await?;
            let mut held = tick_of(&first);
            for _ in 0..3 {
                held = tick_of(&l.next().await?.0);
            }
            drop(l);
            tokio::time::sleep(away).await;
            let (l, answer, bytes) = Listener::open(client, room, encoding, Some(held)).await?;
            drop(l);
            let how = match answer {
                ServerMsg::Delta { resumed: true, .. } => "resumed delta",
                _ => "snapshot (not resumable)",
            };
            let name = format!("{encoding:?} after {} s away", away.as_secs()).to_lowercase();
            report.row(
                &format!("resume, {name}"),
                format!(
                    "{bytes} B {how} against a {snapshot} B snapshot ({:.1}% of it)",
                    bytes as f64 / snapshot as f64 * 100.0
                ),
            );
            report.figure(
                &format!("resume_bytes_{}", name.replace(' ', "_")),
                bytes as f64,
            );
        }
    }
    Ok(())
}

fn tick_of(msg: &ServerMsg) -> u64 {
    match msg {
        ServerMsg::Snapshot { tick, .. } | ServerMsg::Delta { tick, .. } => *tick,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_bytes_count_the_headers_the_server_writes() {
        assert_eq!(wire_bytes(0), 2);
        assert_eq!(wire_bytes(125), 127);
        assert_eq!(wire_bytes(126), 130);
        assert_eq!(wire_bytes(FRAGMENT), FRAGMENT as u64 + 4);
        assert_eq!(wire_bytes(FRAGMENT + 1), FRAGMENT as u64 + 1 + 4 + 2);
        assert_eq!(
            wire_bytes(2 * FRAGMENT + 200),
            2 * FRAGMENT as u64 + 200 + 8 + 4
        );
    }
}
