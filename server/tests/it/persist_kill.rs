//! Crash test of the real binary: `canopy` on a temporary data dir, random valid edit
//! batches pipelined over a WebSocket, `kill -9` at a random moment while batches are in
//! flight, a restart on the same dir, and the recovered room compared with the scene
//! model (`scene_model/`) after batches `0..k` of that connection, for some `k` between
//! the batches acknowledged and the batches sent (docs/protocol.md §7: every acknowledged batch is
//! applied, in order, none in part; unacknowledged ones form at most a prefix). The room
//! goes on from the recovered state, so each run crashes the same room many times.
//!
//! Every fourth lifetime sends, second, a batch of 10,000 ops, which makes the room due
//! for a snapshot, so that kills also land while one is written and restarts read a
//! snapshot and the log after it.
//!
//! Also, across the same restarts: the room's `tick_hz` (not the server's default) and
//! tokens (the WebSocket uses the room's editor token, the reads its viewer token) come
//! back; a room created (`201`) or deleted (`204`) just before a kill stays so; an id
//! used before a crash is refused as `duplicate_id` after it, and an id the server
//! assigns after a restart is one never used. And: a second server on the same data
//! dir refuses to start, naming the lock; a torn last write is cut and the server starts,
//! a flipped byte in the middle of the log stops the start naming the file and offset.
//!
//! The batches come from a seeded generator; the seed is printed and is in every failure
//! message: `CANOPY_PERSIST_KILL_SEED=<seed>` replays the same batches (the kill moments
//! follow the seed too, but what the server made durable by then depends on timing).
//! `CANOPY_PERSIST_KILLS` sets the number of kills (default 40).
//!
//! The server process, the batch generator and the comparison with the model are in
//! `persist_kill_support/`.

use crate::persist_kill_support;
use canopy_scene_model as scene_model;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

use canopy_protocol::codec;
use canopy_protocol::{ClientMsg, ErrorCode, Format, NodeId, Op, ServerMsg, Transform};
use canopy_scene::HierarchyLimits;
use futures_util::{SinkExt, StreamExt};
use persist_kill_support::batches::{Counts, Ids, Rng, bulk_batch, env_u64, rand_batch};
use persist_kill_support::compare::differences;
use persist_kill_support::server::{Server, log_tail, spawn};
use scene_model::{Log, Model};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_canopy");
pub(crate) const ADMIN: &str = "persist-kill-admin-token";
pub(crate) const ROOM: &str = "crashy";
/// The room's rate; the server's default for new rooms is another (`--tick-hz`), so a
/// room that came back with the default would show.
const ROOM_HZ: u64 = 30;
pub(crate) const SERVER_HZ: &str = "60";
/// Deepest node the generator makes (keeps world values and tolerances small).
pub(crate) const MAX_DEPTH: usize = 10;
const DEFAULT_SEED: u64 = 0x5EED_C0DE_2024;

pub(crate) type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

// ---------------------------------------------------------------------------------
// One server lifetime: pipelined batches until the kill.

struct Run {
    /// `prefixes[k]`: the model after the first `k` batches of this connection.
    prefixes: Vec<Model>,
    acked: usize,
    last_ack_tick: u64,
    ws: Ws,
    /// The ids of each sent batch's `add`s, which its ack must name.
    want_ids: Vec<Vec<NodeId>>,
}

fn decode(m: Message) -> Option<ServerMsg> {
    match m {
        Message::Text(t) => Some(codec::decode_server(t.as_bytes(), Format::Json).unwrap()),
        _ => None,
    }
}

async fn send(ws: &mut Ws, seq: u64, ops: Vec<Op>) -> bool {
    let bytes = codec::encode_client(&ClientMsg::Edits { seq, ops }, Format::Json);
    let text = String::from_utf8(bytes).unwrap();
    ws.send(Message::text(text)).await.is_ok()
}

/// Sends one batch and waits for its answer (the probes at the start of a lifetime).
async fn round_trip(ws: &mut Ws, seq: u64, ops: Vec<Op>, ctx: &str) -> ServerMsg {
    assert!(send(ws, seq, ops).await, "{ctx}: sending probe {seq}");
    loop {
        match tokio::time::timeout(Duration::from_secs(20), ws.next()).await {
            Ok(Some(Ok(m))) => {
                if let Some(msg) = decode(m) {
                    return msg;
                }
            }
            other => panic!("{ctx}: no answer to probe {seq}: {other:?}"),
        }
    }
}

impl Run {
    /// Takes one `ack` (or fails on anything else): it must be the next batch's.
    fn on_msg(&mut self, msg: ServerMsg, ctx: &str) {
        match msg {
            ServerMsg::Ack { seq, tick, ids } => {
                assert_eq!(
                    seq, self.acked as u64,
                    "{ctx}: ack of batch {seq} while batch {} was the oldest unanswered",
                    self.acked
                );
                assert_eq!(
                    ids, self.want_ids[self.acked],
                    "{ctx}: ack of batch {seq} names other ids"
                );
                assert!(
                    tick >= self.last_ack_tick,
                    "{ctx}: ack of batch {seq} at tick {tick}, before {}",
                    self.last_ack_tick
                );
                self.acked += 1;
                self.last_ack_tick = tick;
            }
            other => panic!("{ctx}: a valid batch was answered {other:?}"),
        }
    }
}

#[allow(clippy::too_many_arguments)]
async fn drive(
    srv: &Server,
    editor: &str,
    model: &mut Model,
    rng: &mut Rng,
    ids: &mut Ids,
    counts: &mut Counts,
    kill_after: Duration,
    window: usize,
    bulk: bool,
    ctx: &str,
) -> Run {
    let mut ws = srv.ws(editor, ctx).await;
    // Ids used before the crash stay used: one of them (a removed one if any) again.
    let used: Vec<NodeId> = model.used.iter().copied().collect();
    if !used.is_empty() {
        let retired: Vec<NodeId> = used
            .iter()
            .copied()
            .filter(|id| !model.nodes.contains_key(id))
            .collect();
        let pool = if retired.is_empty() { &used } else { &retired };
        let id = pool[rng.below(pool.len())];
        let op = Op::Add {
            id: Some(id),
            parent: None,
            local: Transform::default(),
            extent: [0.0; 3],
            mask: u32::MAX,
        };
        match round_trip(&mut ws, 1 << 40, vec![op], ctx).await {
            ServerMsg::Error {
                code: ErrorCode::DuplicateId,
                ..
            } => {}
            other => panic!(
                "{ctx}: `add` of id {id}, used before the crash (live: {}), answered \
                 {other:?}; want duplicate_id",
                model.nodes.contains_key(&id)
            ),
        }
    }
    // An id the server assigns is one never used, before the crash or after.
    if rng.chance(0.5) {
        let op = Op::Add {
            id: None,
            parent: None,
            local: Transform::default(),
            extent: [0.5; 3],
            mask: 1,
        };
        let id = match round_trip(&mut ws, (1 << 40) + 1, vec![op.clone()], ctx).await {
            ServerMsg::Ack { ids: got, .. } if got.len() == 1 => got[0],
            other => panic!("{ctx}: `add` without an id answered {other:?}"),
        };
        assert!(
            !model.used.contains(&id) && !ids.sent.contains(&id),
            "{ctx}: the server assigned id {id}, which was used before (live: {})",
            model.nodes.contains_key(&id)
        );
        ids.sent.insert(id);
        let Op::Add {
            parent,
            local,
            extent,
            mask,
            ..
        } = op
        else {
            unreachable!()
        };
        let explicit = Op::Add {
            id: Some(id),
            parent,
            local,
            extent,
            mask,
        };
        model.apply_op(0, &explicit).unwrap();
        model.log = Log::default();
    }

    let mut run = Run {
        prefixes: vec![model.clone()],
        acked: 0,
        last_ack_tick: 0,
        ws,
        want_ids: Vec::new(),
    };
    let deadline = tokio::time::Instant::now() + kill_after;
    loop {
        while run.prefixes.len() - 1 - run.acked < window {
            let last = run.prefixes.last().unwrap();
            let (ops, want, next) = if bulk && run.want_ids.len() == 1 && !last.nodes.is_empty() {
                bulk_batch(last, rng)
            } else {
                rand_batch(last, rng, ids)
            };
            for op in &ops {
                counts.count(op);
            }
            let seq = run.want_ids.len() as u64;
            run.want_ids.push(want);
            run.prefixes.push(next);
            assert!(
                send(&mut run.ws, seq, ops).await,
                "{ctx}: the server closed the WebSocket; log:\n{}",
                srv.log()
            );
        }
        tokio::select! {
            _ = tokio::time::sleep_until(deadline) => return run,
            m = run.ws.next() => match m {
                Some(Ok(m)) => {
                    if let Some(msg) = decode(m) {
                        run.on_msg(msg, ctx);
                    }
                }
                other => panic!(
                    "{ctx}: the WebSocket ended before the kill: {other:?}; log:\n{}",
                    srv.log()
                ),
            },
        }
    }
}

/// After the kill: the acks the server sent before it died are still in the socket.
async fn drain(run: &mut Run, ctx: &str) {
    while let Ok(Some(Ok(m))) = tokio::time::timeout(Duration::from_secs(2), run.ws.next()).await {
        if let Some(msg) = decode(m) {
            run.on_msg(msg, ctx);
        }
    }
}

/// `GET /rooms`: the ids.
async fn room_ids(srv: &Server, ctx: &str) -> BTreeSet<String> {
    let (st, body) = srv.req("GET", "/rooms", ADMIN, None).await;
    assert_eq!(st, 200, "{ctx}: GET /rooms: {body}");
    body["rooms"]
        .as_array()
        .unwrap_or_else(|| panic!("{ctx}: GET /rooms: {body}"))
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

fn token(body: &Value, which: &str) -> String {
    body[which]
        .as_str()
        .unwrap_or_else(|| panic!("POST /rooms with the admin token: no {which} in {body}"))
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_keeps_every_acknowledged_batch() {
    let seed = env_u64("CANOPY_PERSIST_KILL_SEED").unwrap_or(DEFAULT_SEED);
    let kills = env_u64("CANOPY_PERSIST_KILLS").unwrap_or(40) as usize;
    eprintln!("persist_kill: seed {seed} (replay: CANOPY_PERSIST_KILL_SEED={seed}), {kills} kills");
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(seed);
    let mut srv = Server::start(dir.path(), &format!("seed {seed}, first start")).await;

    let body = json!({"id": ROOM, "tick_hz": ROOM_HZ});
    let (st, created) = srv.req("POST", "/rooms", ADMIN, Some(body)).await;
    assert_eq!(st, 201, "seed {seed}: POST /rooms: {created}");
    let (editor, viewer) = (
        token(&created, "editor_token"),
        token(&created, "viewer_token"),
    );

    let mut model = Model::new(HierarchyLimits::DEFAULT);
    let mut ids = Ids {
        next: 0,
        sent: HashSet::new(),
    };
    let mut counts = Counts::default();
    // The rooms that must exist (id -> tick_hz) and those deleted.
    let mut rooms = BTreeMap::from([(ROOM.to_string(), ROOM_HZ)]);
    let mut deleted = BTreeSet::new();
    let (mut total_acked, mut total_sent, mut total_unacked_kept) = (0, 0, 0);
    let (mut from_snapshot, mut max_replayed) = (0, 0);

    for generation in 0..kills {
        let ctx = format!("seed {seed}, lifetime {generation}");
        let window = 2 + rng.below(15);
        let kill_after = Duration::from_millis(rng.below(400) as u64);
        // A side room: created, edited and deleted (each answered) before the batches
        // (`early`) or in the moment before the kill.
        let side = format!("side-{generation}");
        let side_hz = 1 + rng.below(240) as u64;
        let keep = generation % 3 == 2;
        let early = rng.chance(0.5);
        let side_room = async |srv: &Server| {
            let body = json!({"id": side, "tick_hz": side_hz});
            let (st, b) = srv.req("POST", "/rooms", ADMIN, Some(body)).await;
            assert_eq!(st, 201, "{ctx}: POST /rooms {side}: {b}");
            let ops = json!({"ops": [{"op": "add", "id": 5, "extent": [1, 1, 1]}]});
            let path = format!("/rooms/{side}/edits");
            let (st, b) = srv.req("POST", &path, ADMIN, Some(ops)).await;
            assert_eq!(st, 200, "{ctx}: POST {path}: {b}");
            if !keep {
                let path = format!("/rooms/{side}");
                let (st, b) = srv.req("DELETE", &path, ADMIN, None).await;
                assert_eq!(st, 204, "{ctx}: DELETE {path}: {b}");
            }
        };
        if early {
            side_room(&srv).await;
        }
        let mut run = drive(
            &srv,
            &editor,
            &mut model,
            &mut rng,
            &mut ids,
            &mut counts,
            kill_after,
            window,
            generation % 4 == 1,
            &ctx,
        )
        .await;
        if !early {
            side_room(&srv).await;
        }
        if keep {
            rooms.insert(side.clone(), side_hz);
        } else {
            deleted.insert(side.clone());
        }
        srv.kill();
        drain(&mut run, &ctx).await;
        let sent = run.prefixes.len() - 1;
        let acked = run.acked;
        let ctx = format!("{ctx} (window {window}, killed after {kill_after:?})");

        srv = Server::start(dir.path(), &ctx).await;
        // For the summary: how the server says it recovered (its snapshots and replay).
        let snapshots = srv
            .log()
            .lines()
            .find(|l| l.contains("read back"))
            .and_then(|l| {
                let field = |k: &str| {
                    let w = l.split_whitespace().find_map(|w| w.strip_prefix(k))?;
                    w.parse::<u64>().ok()
                };
                Some((field("snapshots=")?, field("records_replayed=")?))
            });
        if let Some((snaps, replayed)) = snapshots {
            from_snapshot += u64::from(snaps > 0);
            max_replayed = max_replayed.max(replayed);
        }
        let have = room_ids(&srv, &ctx).await;
        let want: BTreeSet<String> = rooms.keys().cloned().collect();
        assert_eq!(
            have, want,
            "{ctx}: the rooms after the restart (deleted before a kill: {deleted:?})"
        );
        for (id, hz) in &rooms {
            let (st, b) = srv.req("GET", &format!("/rooms/{id}"), ADMIN, None).await;
            assert_eq!(st, 200, "{ctx}: GET /rooms/{id}: {b}");
            assert_eq!(
                b["tick_hz"].as_u64(),
                Some(*hz),
                "{ctx}: tick_hz of {id}: {b}"
            );
        }
        for id in &deleted {
            let (st, b) = srv.req("GET", &format!("/rooms/{id}"), ADMIN, None).await;
            assert_eq!(st, 404, "{ctx}: room {id} was deleted (204) yet: {b}");
        }

        let (st, got) = srv
            .req("GET", &format!("/rooms/{ROOM}/nodes"), &viewer, None)
            .await;
        assert_eq!(
            st, 200,
            "{ctx}: GET /rooms/{ROOM}/nodes with the room's viewer token: {got}"
        );
        let tick = got["tick"].as_u64().unwrap_or(0);
        assert!(
            tick >= run.last_ack_tick,
            "{ctx}: the room is at tick {tick} after the restart, but batch {} was \
             acknowledged at tick {}",
            acked.saturating_sub(1),
            run.last_ack_tick
        );
        let Some(k) = (acked..=sent)
            .rev()
            .find(|&k| differences(&run.prefixes[k], &got, 0).is_empty())
        else {
            let (best, diff) = (acked..=sent)
                .map(|k| (k, differences(&run.prefixes[k], &got, 20)))
                .min_by_key(|(_, d)| d.len())
                .unwrap();
            let at_acked = differences(&run.prefixes[acked], &got, 20);
            let closest = if best == acked {
                String::new()
            } else {
                format!("\nClosest, k = {best}:\n  {}", diff.join("\n  "))
            };
            panic!(
                "{ctx}: the recovered room ({} nodes, tick {tick}) equals the model after \
                 no prefix of batches 0..k, {acked} (acknowledged) <= k <= {sent} (sent).\n\
                 Against k = {acked}:\n  {}{closest}\nserver log:\n{}",
                got["nodes"].as_array().map_or(0, Vec::len),
                at_acked.join("\n  "),
                srv.log()
            );
        };
        total_acked += acked;
        total_sent += sent;
        total_unacked_kept += k - acked;
        model = run.prefixes.swap_remove(k);
    }

    eprintln!(
        "persist_kill: {kills} kills in {:.1} s: {total_sent} batches sent, {total_acked} \
         acknowledged before the kill, {total_unacked_kept} unacknowledged ones survived; \
         {} nodes at the end; ops: add {}, set_local {}, set_parent {}, set_shape {}, \
         remove {}; {from_snapshot} restarts read a snapshot, at most {max_replayed} \
         records replayed",
        started.elapsed().as_secs_f64(),
        model.nodes.len(),
        counts.add,
        counts.set_local,
        counts.set_parent,
        counts.set_shape,
        counts.remove
    );
    assert!(
        total_acked > 0,
        "seed {seed}: no batch was acknowledged in {kills} lifetimes"
    );
    let c = &counts;
    assert!(
        [c.add, c.set_local, c.set_parent, c.set_shape, c.remove]
            .iter()
            .all(|&n| n > 0),
        "seed {seed}: not every op was sent"
    );
    // The tokens, used in every lifetime above, are stored only as digests.
    for file in crate::persist_kill_support::files_under(dir.path()) {
        let bytes = std::fs::read(&file).unwrap();
        for secret in [&editor, &viewer, &ADMIN.to_string()] {
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "{} holds a token in plain text",
                file.display()
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_server_on_the_same_data_dir_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut first = Server::start(dir.path(), "the first server").await;
    let path = dir.path().to_str().unwrap();
    let Some((status, log)) = start_or_refuse(dir.path()).await else {
        panic!(
            "a second server on the data dir of a running one did not refuse to start: it served"
        )
    };
    assert!(
        !status.success(),
        "a second server on the data dir of a running one exited with {status}; its log:\n{log}"
    );
    // The refusal names the data dir and says why: its lock is held (the server words
    // it as the dir being in use by another process, and names that process).
    let lower = log.to_lowercase();
    assert!(
        log.contains(path) && (lower.contains("lock") || lower.contains("in use")),
        "the second server's refusal ({status}) does not name the data dir {path} and its \
         lock; its log:\n{log}"
    );
    let (st, _) = first.req("GET", "/healthz", ADMIN, None).await;
    assert_eq!(st, 200, "the first server after the refusal");
    first.kill();
}

/// Starts the binary on `dir` and waits for it to exit or listen: the exit status and
/// the log when it refused, `None` (after stopping it) when it served.
async fn start_or_refuse(dir: &Path) -> Option<(std::process::ExitStatus, String)> {
    let path = dir.to_str().unwrap();
    let (mut child, log, addr) = spawn(&["--data-dir", path], Duration::from_secs(30)).await;
    let waited = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if addr.is_some() || waited.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    std::thread::sleep(Duration::from_millis(100));
    status.map(|s| (s, log_tail(&log)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_torn_tail_is_cut_and_a_corrupt_middle_refuses_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let mut srv = Server::start(dir.path(), "the first start").await;
    let body = serde_json::json!({ "id": ROOM, "tick_hz": ROOM_HZ });
    let (st, _) = srv.req("POST", "/rooms", ADMIN, Some(body)).await;
    assert_eq!(st, 201);
    for i in 0..20u32 {
        let ops = serde_json::json!({ "ops": [{ "op": "add", "id": i, "local": { "t": [i as f32, 0.0, 0.0] } }] });
        let (st, _) = srv
            .req("POST", &format!("/rooms/{ROOM}/edits"), ADMIN, Some(ops))
            .await;
        assert_eq!(st, 200);
    }
    srv.kill();
    let segment = std::fs::read_dir(dir.path().join("log"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "clog"))
        .expect("a log segment");
    let bytes = std::fs::read(&segment).unwrap();

    // A torn last write (the tail of the last record missing): cut, logged, served.
    std::fs::write(&segment, &bytes[..bytes.len() - 3]).unwrap();
    assert!(
        start_or_refuse(dir.path()).await.is_none(),
        "a torn tail must not stop the start"
    );
    let mut srv = Server::start(dir.path(), "after the torn tail").await;
    let (st, nodes) = srv
        .req("GET", &format!("/rooms/{ROOM}/nodes"), ADMIN, None)
        .await;
    assert_eq!(st, 200, "{nodes}");
    let n = nodes["nodes"].as_array().map_or(0, Vec::len);
    assert!(
        (19..=20).contains(&n),
        "the torn record at most is lost: {n} nodes"
    );
    srv.kill();

    // A flipped byte in the middle of the log: the start refuses, naming file and offset.
    let mut bytes = std::fs::read(&segment).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x5a;
    std::fs::write(&segment, &bytes).unwrap();
    let (status, log) = start_or_refuse(dir.path())
        .await
        .expect("a corrupt record in the middle of the log must stop the start");
    assert!(!status.success());
    let name = segment.file_name().unwrap().to_str().unwrap();
    assert!(
        log.contains(name) && log.contains("at byte"),
        "the refusal names neither the file {name} nor an offset:\n{log}"
    );
}
