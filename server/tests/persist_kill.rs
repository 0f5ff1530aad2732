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

mod scene_model;

use std::collections::{BTreeMap, BTreeSet, HashSet, VecDeque};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use canopy_protocol::codec;
use canopy_protocol::{ClientMsg, ErrorCode, Format, NodeId, Op, ServerMsg, Transform};
use canopy_server::scene::HierarchyLimits;
use futures_util::{SinkExt, StreamExt};
use glam::{DQuat, DVec3};
use scene_model::{Expect, Log, Model};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

const BIN: &str = env!("CARGO_BIN_EXE_canopy");
const ADMIN: &str = "persist-kill-admin-token";
const ROOM: &str = "crashy";
/// The room's rate; the server's default for new rooms is another (`--tick-hz`), so a
/// room that came back with the default would show.
const ROOM_HZ: u64 = 30;
const SERVER_HZ: &str = "60";
/// Deepest node the generator makes (keeps world values and tolerances small).
const MAX_DEPTH: usize = 10;
const DEFAULT_SEED: u64 = 0x5EED_C0DE_2024;

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

// ---------------------------------------------------------------------------------
// Randomness: SplitMix64, so the sequence does not depend on any crate's version.

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    fn f32_in(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit() as f32
    }
}

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    let v = v.trim();
    match v.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => v.parse().ok(),
    }
}

// ---------------------------------------------------------------------------------
// The server process.

struct Server {
    child: Child,
    base: String,
    ws_base: String,
    log: Arc<Mutex<VecDeque<String>>>,
    http: reqwest::Client,
}

/// Starts `canopy` with `args` (after the test's own flags) and the environment cleared
/// of `CANOPY_*`; answers the child, the tail of its log, and the address it logs in its
/// `canopy listening` line (None if it exits first or takes longer than `wait`).
async fn spawn(
    args: &[&str],
    wait: Duration,
) -> (Child, Arc<Mutex<VecDeque<String>>>, Option<String>) {
    let mut cmd = Command::new(BIN);
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("CANOPY_") {
            cmd.env_remove(k);
        }
    }
    cmd.args([
        "--addr",
        "127.0.0.1:0",
        "--tick-hz",
        SERVER_HZ,
        "--drain-secs",
        "0",
    ])
    .args(args)
    .env("CANOPY_ADMIN_TOKEN", ADMIN)
    .env("CANOPY_LOG", "info")
    // A refusal's error line, not a backtrace, is what the log tail must show.
    .env("RUST_BACKTRACE", "0")
    .env("RUST_LIB_BACKTRACE", "0")
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("starting the canopy binary");
    let stderr = child.stderr.take().unwrap();
    let log = Arc::new(Mutex::new(VecDeque::new()));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let tail = Arc::clone(&log);
    // Drains the log (a full pipe would stall the server) and keeps its last lines.
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if line.contains("canopy listening")
                && let Some(addr) = line
                    .split_whitespace()
                    .find_map(|w| w.strip_prefix("addr="))
            {
                let _ = tx.send(addr.trim_matches('"').to_string());
            }
            let mut tail = tail.lock().unwrap();
            tail.push_back(line);
            if tail.len() > 60 {
                tail.pop_front();
            }
        }
    });
    let addr = tokio::time::timeout(wait, rx.recv()).await.ok().flatten();
    (child, log, addr)
}

fn log_tail(log: &Mutex<VecDeque<String>>) -> String {
    let tail = log.lock().unwrap();
    tail.iter().cloned().collect::<Vec<_>>().join("\n")
}

impl Server {
    async fn start(dir: &Path, ctx: &str) -> Server {
        let dir = dir.to_str().unwrap();
        let (mut child, log, addr) = spawn(&["--data-dir", dir], Duration::from_secs(60)).await;
        let Some(addr) = addr else {
            let _ = child.kill();
            let status = child.wait();
            // Let the reader thread take the last lines.
            std::thread::sleep(Duration::from_millis(100));
            panic!(
                "{ctx}: canopy did not log `canopy listening addr=...` within 60 s \
                 (exit: {status:?}); its log:\n{}",
                log_tail(&log)
            );
        };
        Server {
            child,
            base: format!("http://{addr}"),
            ws_base: format!("ws://{addr}"),
            log,
            http: reqwest::Client::new(),
        }
    }

    /// SIGKILL (std's `Child::kill` on unix), and the exit reaped.
    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn log(&self) -> String {
        log_tail(&self.log)
    }

    async fn req(
        &self,
        method: &str,
        path: &str,
        token: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut r = self
            .http
            .request(m, format!("{}{}", self.base, path))
            .bearer_auth(token)
            .timeout(Duration::from_secs(30));
        if let Some(b) = body {
            r = r.json(&b);
        }
        let resp = match r.send().await {
            Ok(resp) => resp,
            Err(e) => panic!("{method} {path}: {e}; server log:\n{}", log_tail(&self.log)),
        };
        let status = resp.status().as_u16();
        let bytes = resp.bytes().await.unwrap_or_default();
        let v = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
        (status, v)
    }

    async fn ws(&self, token: &str, ctx: &str) -> Ws {
        let url = format!("{}/rooms/{ROOM}/ws?format=json&token={token}", self.ws_base);
        match tokio_tungstenite::connect_async(url).await {
            Ok((ws, _)) => ws,
            Err(e) => panic!(
                "{ctx}: WebSocket to room {ROOM} with its editor token refused ({e}): \
                 were the room or its tokens lost?; server log:\n{}",
                self.log()
            ),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

// ---------------------------------------------------------------------------------
// Batches: random, valid against the model as the batches before them leave it.

#[derive(Default)]
struct Counts {
    add: u64,
    set_local: u64,
    set_parent: u64,
    set_shape: u64,
    remove: u64,
}

impl Counts {
    fn count(&mut self, op: &Op) {
        match op {
            Op::Add { .. } => self.add += 1,
            Op::SetLocal { .. } => self.set_local += 1,
            Op::SetParent { .. } => self.set_parent += 1,
            Op::SetShape { .. } => self.set_shape += 1,
            Op::Remove { .. } => self.remove += 1,
        }
    }
}

/// Ids for `add`: never sent before in this run (applied or not), so that which batches
/// survived never makes an id ambiguous. 0 and `u32::MAX` among them.
struct Ids {
    next: u64,
    sent: HashSet<NodeId>,
}

impl Ids {
    fn fresh(&mut self, rng: &mut Rng) -> NodeId {
        loop {
            let id = if self.sent.is_empty() {
                0
            } else if rng.chance(0.01) {
                u32::MAX - rng.below(1000) as u32
            } else {
                self.next += 1 + rng.below(4) as u64;
                self.next as NodeId
            };
            if self.sent.insert(id) {
                return id;
            }
        }
    }
}

fn rand_t(rng: &mut Rng) -> [f32; 3] {
    [(); 3].map(|_| rng.f32_in(-20.0, 20.0))
}

fn rand_r(rng: &mut Rng) -> [f32; 4] {
    loop {
        let r = [(); 4].map(|_| rng.f32_in(-1.0, 1.0));
        if r.iter().map(|x| x * x).sum::<f32>() > 0.01 {
            return r;
        }
    }
}

fn rand_s(rng: &mut Rng) -> f32 {
    rng.f32_in(0.7, 1.4)
}

fn rand_extent(rng: &mut Rng) -> [f32; 3] {
    if rng.chance(0.1) {
        [0.0; 3]
    } else {
        [(); 3].map(|_| rng.f32_in(0.0, 4.0))
    }
}

fn rand_mask(rng: &mut Rng) -> u32 {
    match rng.below(4) {
        0 => u32::MAX,
        1 => 1 << rng.below(32),
        2 => 0,
        _ => rng.next() as u32,
    }
}

/// Levels below `id` (a leaf: 0).
fn height(m: &Model, id: NodeId) -> usize {
    let n = &m.nodes[&id];
    n.children
        .iter()
        .map(|&c| 1 + height(m, c))
        .max()
        .unwrap_or(0)
}

/// One op valid against `trial` (or None when the draw did not fit).
fn rand_op(trial: &Model, rng: &mut Rng, ids: &mut Ids) -> Option<Op> {
    let live = trial.live();
    let pick = |rng: &mut Rng| live[rng.below(live.len())];
    let (add, remove) = match live.len() {
        0 => (1.0, 0.0),
        n if n < 40 => (0.6, 0.05),
        n if n > 300 => (0.05, 0.3),
        _ => (0.25, 0.1),
    };
    let x = rng.unit();
    if x < add {
        let parent = if live.is_empty() || rng.chance(0.25) {
            None
        } else {
            Some(pick(rng)).filter(|&p| trial.depth(p) < MAX_DEPTH)
        };
        let local = Transform {
            t: rand_t(rng),
            r: rand_r(rng),
            s: rand_s(rng),
        };
        let op = Op::Add {
            id: Some(ids.fresh(rng)),
            parent,
            local,
            extent: rand_extent(rng),
            mask: rand_mask(rng),
        };
        return Some(op);
    }
    if x < add + remove {
        return Some(Op::Remove { node: pick(rng) });
    }
    let node = pick(rng);
    Some(match rng.below(10) {
        0..=4 => {
            let mut parts = 0;
            while parts == 0 {
                parts = rng.below(8);
            }
            Op::SetLocal {
                node,
                t: (parts & 1 != 0).then(|| rand_t(rng)),
                r: (parts & 2 != 0).then(|| rand_r(rng)),
                s: (parts & 4 != 0).then(|| rand_s(rng)),
            }
        }
        5..=7 => {
            let parent = if rng.chance(0.2) {
                None
            } else {
                let p = pick(rng);
                if trial.chain(p).contains(&node)
                    || trial.depth(p) + 1 + height(trial, node) > MAX_DEPTH
                {
                    return None;
                }
                Some(p)
            };
            Op::SetParent { node, parent }
        }
        _ => {
            let parts = 1 + rng.below(3);
            Op::SetShape {
                node,
                extent: (parts & 1 != 0).then(|| rand_extent(rng)),
                mask: (parts & 2 != 0).then(|| rand_mask(rng)),
            }
        }
    })
}

/// A random batch valid against `m`: its ops, the ids its ack must name, and the model
/// after it.
fn rand_batch(m: &Model, rng: &mut Rng, ids: &mut Ids) -> (Vec<Op>, Vec<NodeId>, Model) {
    loop {
        let mut trial = m.clone();
        let mut ops = Vec::new();
        let len = 1 + rng.below(12);
        for _ in 0..len * 3 {
            if ops.len() == len {
                break;
            }
            if let Some(op) = rand_op(&trial, rng, ids)
                && trial.apply_op(ops.len() as u32, &op).is_ok()
            {
                ops.push(op);
            }
        }
        if ops.is_empty() {
            continue;
        }
        if let (Expect::Ok(want), Some(mut next)) = m.apply_batch(&ops) {
            next.log = Log::default();
            return (ops, want, next);
        }
    }
}

/// Ops one batch needs to make the room due for a snapshot (`SNAPSHOT_MIN_OPS` in
/// `room/durable.rs`), so that kills also land while a snapshot is written and
/// restarts recover from snapshot plus log.
const BULK_OPS: usize = 10_000;

/// A batch of [`BULK_OPS`] mask changes (cheap to model and to apply).
fn bulk_batch(m: &Model, rng: &mut Rng) -> (Vec<Op>, Vec<NodeId>, Model) {
    let live = m.live();
    let ops: Vec<Op> = (0..BULK_OPS)
        .map(|_| Op::SetShape {
            node: live[rng.below(live.len())],
            extent: None,
            mask: Some(rand_mask(rng)),
        })
        .collect();
    match m.apply_batch(&ops) {
        (Expect::Ok(want), Some(mut next)) => {
            next.log = Log::default();
            (ops, want, next)
        }
        (other, _) => panic!("the model refuses a bulk batch: {other:?}"),
    }
}

// ---------------------------------------------------------------------------------
// The recovered state against a model.

/// What differs between the room's nodes (`GET /rooms/{room}/nodes`) and the model: ids,
/// parents, extents and masks exactly; world transforms within f32 rounding of the
/// model's f64 propagation. At most `limit` lines, then a count.
fn differences(m: &Model, got: &Value, limit: usize) -> Vec<String> {
    let mut out = Vec::new();
    let Some(nodes) = got["nodes"].as_array() else {
        return vec![format!("no `nodes` array in {got}")];
    };
    let mut seen = BTreeMap::new();
    for n in nodes {
        let Some(id) = n["id"].as_u64() else {
            out.push(format!("a node without an id: {n}"));
            continue;
        };
        if seen.insert(id as NodeId, n).is_some() {
            out.push(format!("node {id} listed twice"));
        }
    }
    let want: BTreeSet<NodeId> = m.nodes.keys().copied().collect();
    let have: BTreeSet<NodeId> = seen.keys().copied().collect();
    let missing: Vec<_> = want.difference(&have).collect();
    let extra: Vec<_> = have.difference(&want).collect();
    if !missing.is_empty() {
        out.push(format!(
            "{} nodes missing: {:?}",
            missing.len(),
            &missing[..missing.len().min(12)]
        ));
    }
    if !extra.is_empty() {
        out.push(format!(
            "{} nodes that should not exist: {:?}",
            extra.len(),
            &extra[..extra.len().min(12)]
        ));
    }
    let f = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
    for (&id, n) in &m.nodes {
        let Some(g) = seen.get(&id) else { continue };
        let parent = g["parent"].as_u64().map(|p| p as NodeId);
        if parent != n.parent || (!g["parent"].is_null() && parent.is_none()) {
            out.push(format!(
                "node {id}: parent {} (want {:?})",
                g["parent"], n.parent
            ));
        }
        let extent: Vec<f32> = g["extent"]
            .as_array()
            .map(|a| a.iter().map(|x| f(x) as f32).collect())
            .unwrap_or_default();
        if extent.len() != 3
            || extent
                .iter()
                .zip(n.extent)
                .any(|(a, b)| a.to_bits() != b.to_bits())
        {
            out.push(format!(
                "node {id}: extent {} (want {:?})",
                g["extent"], n.extent
            ));
        }
        if g["mask"].as_u64() != Some(u64::from(n.mask)) {
            out.push(format!("node {id}: mask {} (want {})", g["mask"], n.mask));
        }
        let w = &g["world"];
        let arr = |v: &Value, k: usize| -> Option<Vec<f64>> {
            let a = v.as_array()?;
            (a.len() == k).then(|| a.iter().map(f).collect())
        };
        let (Some(t), Some(r), s) = (arr(&w["t"], 3), arr(&w["r"], 4), f(&w["s"])) else {
            out.push(format!("node {id}: malformed world transform {w}"));
            continue;
        };
        let want = m.world(id);
        let tol = 1e-6 * (want.depth as f64 + 1.0);
        let dt = (DVec3::new(t[0], t[1], t[2]) - want.t).length();
        let gr = DQuat::from_xyzw(r[0], r[1], r[2], r[3]);
        let dr = (gr - want.r).length().min((gr + want.r).length());
        let ds = (s - want.s).abs();
        if !(dt <= 8.0 * tol * (want.mag + 1.0) && dr <= 8.0 * tol && ds <= 8.0 * tol * want.s) {
            let local = (n.t, n.r, n.s);
            out.push(format!(
                "node {id}: world t {t:?} r {r:?} s {s} (want t {:?} r {:?} s {}; local \
                 t, r, s {local:?}; off by t {dt:e}, r {dr:e}, s {ds:e})",
                want.t.to_array(),
                want.r.to_array(),
                want.s
            ));
        }
    }
    if out.len() > limit {
        let more = out.len() - limit;
        out.truncate(limit);
        out.push(format!("... and {more} more"));
    }
    out
}

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
