//! `GET /rooms/{room}/nodes`, `GET /rooms/{room}/nodes/{id}` and
//! `GET /rooms/{room}/octree`: reads of one tick's state.
//!
//! Invariants: every read takes the scene's read lock on a blocking thread, never on an
//! async worker, and copies what it needs before answering; the whole-room read is
//! streamed (its JSON is never built whole), charged to the caller's rate limit by its
//! size, and at most [`DUMPS_AT_ONCE`] run at a time, so its memory is bounded by that
//! many copies of a room; a reader that accepts nothing for `--request-timeout-secs`,
//! or takes in all longer than that plus its answer's size at [`MIN_READ_RATE`], is cut
//! off, so no client holds one of those turns longer, however it trickles.

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::body::Body;
use axum::extract::{Extension, State};

use super::path::Path;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use canopy_protocol::http::{NodeDetail, NodesSnapshot, OctreeCell, OctreeCells};
use canopy_protocol::{ErrorCode, Node};
use tokio::sync::OwnedSemaphorePermit;

use crate::access::Caller;
use crate::refusal::Refusal;
use crate::room::RoomShared;
use crate::state::AppState;

/// Whole-room reads served at once; more wait their turn.
pub const DUMPS_AT_ONCE: usize = 2;
/// The slowest a whole-room reader may take its answer on average, in bytes a second
/// (about a 0.5 Mbit/s link), beyond the stall allowance: a reader that takes a few bytes
/// now and then never stalls, yet would hold its turn for hours.
const MIN_READ_RATE: f64 = 64.0 * 1024.0;
/// Bytes of JSON a node takes in the answer, at most about (ids and floats printed in
/// full): what the whole-read deadline assumes.
const NODE_JSON_BYTES: f64 = 180.0;
/// Nodes per streamed chunk of `GET /nodes` (about 18 KB of JSON). Small, because
/// hyper queues up to 16 chunks of a body for a connection that is not reading: with
/// chunks of 1,024 nodes that was 2.3 MB per stalled reader, and then the answer of a
/// 20,000-node room fit whole in that queue and no stall was ever seen.
const CHUNK_NODES: usize = 128;

/// Runs `read` under the room's scene read lock on a blocking thread.
async fn read_scene<T: Send + 'static>(
    room: &Arc<RoomShared>,
    read: impl FnOnce(&crate::room::SceneState) -> T + Send + 'static,
) -> Result<T, Refusal> {
    let room = Arc::clone(room);
    tokio::task::spawn_blocking(move || read(&room.scene.read()))
        .await
        .map_err(|e| Refusal::overloaded(format!("the read did not finish: {e}")))
}

fn rate_limited(app: &AppState) -> Refusal {
    Refusal::new(
        ErrorCode::RateLimited,
        format!(
            "more than {} reads per second from this caller",
            app.config.query_rate
        ),
    )
}

/// Every node of the room, parents before children.
#[utoipa::path(get, path = "/rooms/{room}/nodes", params(("room" = String, Path, description = "Room id")),
    responses(
        (status = 200, description = "Every node at one tick", body = NodesSnapshot),
        (status = 404, description = "unknown_room", body = canopy_protocol::ErrorBody),
        (status = 429, description = "rate_limited", body = canopy_protocol::ErrorBody),
    ))]
pub(super) async fn list_nodes(
    State(app): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(room): Path<String>,
) -> Result<Response, Refusal> {
    let room = app.room(&room)?;
    if !app.query_limiter.check(&caller.rate_key) {
        return Err(rate_limited(&app));
    }
    let permit = Arc::clone(&app.dumps)
        .acquire_owned()
        .await
        .map_err(|_| Refusal::overloaded("the server is shutting down"))?;
    let (tick, nodes) = read_scene(&room, |s| {
        (s.tick(), s.hierarchy().iter_nodes().collect::<Vec<Node>>())
    })
    .await?;
    app.query_limiter.charge(&caller.rate_key, nodes.len());
    let stall = Duration::from_secs(app.config.request_timeout_secs);
    let cut = app.metrics.http_reads_cut.clone();
    let body = stream_nodes(tick, nodes, permit, stall, caller.who.clone(), cut);
    Ok((
        [(header::CONTENT_TYPE, "application/json")],
        Body::from_stream(body),
    )
        .into_response())
}

/// A reader of `GET /nodes` that accepted nothing for the stall deadline.
#[derive(Debug, thiserror::Error)]
#[error("the reader accepted nothing for {0:?}: answer cut off")]
struct ReaderStalled(Duration);

/// The JSON of `{"tick":…,"nodes":[…]}`, chunk by chunk.
///
/// Why a task and a channel rather than a plain stream: hyper stops polling a body whose
/// socket is full, so a stream cannot notice that its reader stopped reading. The task
/// waits at most `stall` for each chunk to be taken; past that it gives up, which drops
/// the room's copy and the whole-room permit, and the body ends with an error, so the
/// connection is closed without its final chunk (the client sees a cut answer, never a
/// short one that parses).
fn stream_nodes(
    tick: u64,
    nodes: Vec<Node>,
    permit: OwnedSemaphorePermit,
    stall: Duration,
    who: String,
    cut: prometheus::IntCounter,
) -> impl futures_util::Stream<Item = Result<Bytes, ReaderStalled>> {
    // One chunk in the channel, one in hyper's hands: a stalled reader holds no more.
    let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(1);
    let finish_by = tokio::time::Instant::now() + whole_read_allowance(nodes.len(), stall);
    let chunks = nodes.len().div_ceil(CHUNK_NODES);
    // The head, the chunks of nodes and the tail: a channel that closes before all of
    // them came through was given up by the task.
    let total = chunks + 2;
    tokio::spawn(async move {
        let _permit = permit;
        for i in 0..total {
            let bytes = if i == 0 {
                Bytes::from(format!("{{\"tick\":{tick},\"nodes\":["))
            } else if i == chunks + 1 {
                Bytes::from_static(b"]}")
            } else {
                let part = &nodes[(i - 1) * CHUNK_NODES..(i * CHUNK_NODES).min(nodes.len())];
                let mut out = Vec::with_capacity(part.len() * 140);
                for (k, n) in part.iter().enumerate() {
                    if i > 1 || k > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(&canopy_protocol::codec::to_json(n));
                }
                Bytes::from(out)
            };
            let wait_until = (tokio::time::Instant::now() + stall).min(finish_by);
            match tokio::time::timeout_at(wait_until, tx.send(bytes)).await {
                Ok(Ok(())) => {}
                // The client went away: nothing to tell it.
                Ok(Err(_)) => return,
                Err(_) if wait_until == finish_by => {
                    cut.inc();
                    tracing::info!(caller = %who, chunk = i, of = total, "whole-room read cut off: the reader takes it slower than the minimum rate");
                    return;
                }
                Err(_) => {
                    cut.inc();
                    tracing::info!(caller = %who, ?stall, "whole-room read cut off: the reader accepted nothing");
                    return;
                }
            }
        }
    });
    futures_util::stream::unfold(Some((rx, 0)), move |state| async move {
        let (mut rx, taken) = state?;
        match rx.recv().await {
            Some(bytes) => Some((Ok(bytes), Some((rx, taken + 1)))),
            None if taken == total => None,
            None => Some((Err(ReaderStalled(stall)), None)),
        }
    })
}

/// How long a whole-room read of `nodes` nodes may take in all: the stall allowance,
/// plus its size at [`MIN_READ_RATE`].
fn whole_read_allowance(nodes: usize, stall: Duration) -> Duration {
    stall + Duration::from_secs_f64(nodes as f64 * NODE_JSON_BYTES / MIN_READ_RATE)
}

/// One node with its children, local and world transforms.
#[utoipa::path(get, path = "/rooms/{room}/nodes/{id}", params(("room" = String, Path, description = "Room id"), ("id" = u32, Path, description = "Node id")),
    responses(
        (status = 200, description = "The node", body = NodeDetail),
        (status = 400, description = "The id is not a u32", body = canopy_protocol::ErrorBody),
        (status = 404, description = "unknown_room or unknown_node", body = canopy_protocol::ErrorBody),
    ))]
pub(super) async fn get_node(
    State(app): State<AppState>,
    Path((room, id)): Path<(String, String)>,
) -> Result<Json<NodeDetail>, Refusal> {
    let room = app.room(&room)?;
    // Decimal digits only: `u32::from_str` would also take a leading `+`.
    let id: u32 = id
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| id.parse().ok())
        .flatten()
        .ok_or_else(|| Refusal::bad_request(format!("node id {id:?} is not a u32")))?;
    let name = room.id.clone();
    read_scene(&room, move |scene| {
        let h = scene.hierarchy();
        let unknown = || {
            Refusal::new(
                ErrorCode::UnknownNode,
                format!("no node {id} in room {name}"),
            )
        };
        let node = h.node(id).ok_or_else(unknown)?;
        Ok(Json(NodeDetail {
            id,
            parent: node.parent,
            children: h.children(id).collect(),
            local: h.local(id).ok_or_else(unknown)?,
            world: node.world,
            extent: node.extent,
            mask: node.mask,
            tick: scene.tick(),
        }))
    })
    .await?
}

/// Every cell of the room's octree: loose bounds, depth and the objects stored in it.
#[utoipa::path(get, path = "/rooms/{room}/octree", params(("room" = String, Path, description = "Room id")),
    responses(
        (status = 200, description = "The cells at one tick", body = OctreeCells),
        (status = 404, description = "unknown_room", body = canopy_protocol::ErrorBody),
        (status = 429, description = "rate_limited", body = canopy_protocol::ErrorBody),
    ))]
pub(super) async fn octree(
    State(app): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(room): Path<String>,
) -> Result<Json<OctreeCells>, Refusal> {
    let room = app.room(&room)?;
    if !app.query_limiter.check(&caller.rate_key) {
        return Err(rate_limited(&app));
    }
    let dump = read_scene(&room, |s| OctreeCells {
        tick: s.tick(),
        cells: s
            .octree()
            .cells_with_outside()
            .into_iter()
            .map(|c| OctreeCell {
                min: c.min.to_array(),
                max: c.max.to_array(),
                depth: c.depth,
                objects: c.objects as u32,
            })
            .collect(),
    })
    .await?;
    app.query_limiter.charge(&caller.rate_key, dump.cells.len());
    Ok(Json(dump))
}

#[cfg(test)]
mod tests {
    use futures_util::StreamExt;

    use super::*;

    async fn permit() -> OwnedSemaphorePermit {
        Arc::new(tokio::sync::Semaphore::new(1))
            .acquire_owned()
            .await
            .unwrap()
    }

    /// A reader that takes one chunk a second never stalls, but takes the answer far
    /// slower than the minimum rate: it is cut off at the whole-read deadline, and a
    /// reader that keeps up gets the whole answer.
    #[tokio::test(start_paused = true)]
    async fn a_trickling_reader_is_cut_off_at_the_whole_read_deadline() {
        let nodes: Vec<Node> = (0..20_000).map(|id| Node::at(id, [0.0; 3])).collect();
        let stall = Duration::from_secs(30);
        let allowance = whole_read_allowance(nodes.len(), stall);
        assert!(
            allowance > stall && allowance < Duration::from_secs(120),
            "{allowance:?}"
        );
        let cut = prometheus::IntCounter::new("cut", "cut").unwrap();
        let began = tokio::time::Instant::now();
        let body = stream_nodes(
            1,
            nodes.clone(),
            permit().await,
            stall,
            "t".into(),
            cut.clone(),
        );
        futures_util::pin_mut!(body);
        let mut taken = 0;
        let ended = loop {
            match body.next().await {
                Some(Ok(_)) => taken += 1,
                Some(Err(e)) => break Some(e),
                None => break None,
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        };
        assert!(
            ended.is_some(),
            "the trickler got the whole answer ({taken} chunks)"
        );
        assert_eq!(cut.get(), 1);
        let took = began.elapsed();
        assert!(
            took >= allowance && took <= allowance + Duration::from_secs(2),
            "cut after {took:?}, allowance {allowance:?}"
        );

        // The same answer read promptly comes whole, ending with the tail.
        let body = stream_nodes(1, nodes, permit().await, stall, "t".into(), cut.clone());
        let chunks: Vec<Bytes> = body.map(|c| c.expect("no cut")).collect().await;
        assert_eq!(chunks.last().map(|c| &c[..]), Some(&b"]}"[..]));
        assert_eq!(cut.get(), 1);
    }
}
