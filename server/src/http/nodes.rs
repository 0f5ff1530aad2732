//! `GET /rooms/{room}/nodes`, `GET /rooms/{room}/nodes/{id}` and
//! `GET /rooms/{room}/octree`: reads of one tick's state.
//!
//! Invariants: every read takes the scene's read lock on a blocking thread, never on an
//! async worker, and copies what it needs before answering; the whole-room reads
//! (`/nodes`, `/octree`) each hold one of the server's `--whole-room-reads` slots while
//! they run, at most a caller's and a room's share of them (`canopy_room::budget`), so
//! their memory is bounded by that many copies of a room and a full pool or share
//! answers `overloaded` at once instead of queueing behind a hostile reader; `/nodes` is
//! streamed (its JSON is never built whole) and charged to the caller's rate limit by
//! its size, and `/octree` has at most `--max-answer-items` cells; a reader that accepts
//! nothing for `--request-timeout-secs` is closed by the connection's write deadline,
//! and one that takes in all longer than that plus its answer's size at
//! `--min-read-rate-bytes` is cut off here, so no client holds a slot longer, however
//! it trickles.

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
use canopy_room::budget::{Amount, CallerId, Charge, RoomKey};

use crate::net::pace::Pace;

use super::error::ApiError;
use crate::access::Caller;
use crate::state::AppState;
use canopy_room::RoomShared;
use canopy_room::refusal::Refusal;

/// Bytes of JSON a node takes in the answer, at most about (ids and floats printed in
/// full): what the whole-read deadline assumes.
const NODE_JSON_BYTES: usize = 180;
/// Bytes of JSON an octree cell takes in the answer, at most about.
const CELL_JSON_BYTES: usize = 140;
/// Nodes per streamed chunk of `GET /nodes` (about 18 KB of JSON). Small, because
/// hyper queues up to 16 chunks of a body for a connection that is not reading: with
/// chunks of 1,024 nodes that was 2.3 MB per stalled reader, and then the answer of a
/// 20,000-node room fit whole in that queue and no stall was ever seen.
const CHUNK_NODES: usize = 128;

/// Runs `read` under the room's scene read lock on a blocking thread.
async fn read_scene<T: Send + 'static>(
    room: &Arc<RoomShared>,
    read: impl FnOnce(&canopy_room::SceneState) -> T + Send + 'static,
) -> Result<T, ApiError> {
    let room = Arc::clone(room);
    tokio::task::spawn_blocking(move || read(&room.scene.read()))
        .await
        .map_err(|e| Refusal::overloaded(format!("the read did not finish: {e}")).into())
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
) -> Result<Response, ApiError> {
    let read = |s: &canopy_room::SceneState| s.hierarchy().iter_nodes().collect::<Vec<Node>>();
    whole_room_read(&app, &caller, &room, ("nodes", NODE_JSON_BYTES), read).await
}

/// A whole-room read (`GET /nodes`, `GET /octree`): a read slot held while the answer
/// streams, the items read at one tick off the async workers and charged to the
/// caller's query quota, and the JSON `{"tick":…,"<key>":[…]}` written as the reader
/// takes it, at the minimum rate.
async fn whole_room_read<T: serde::Serialize + Send + 'static>(
    app: &AppState,
    caller: &Caller,
    room: &str,
    (key, item_bytes): (&str, usize),
    read: impl FnOnce(&canopy_room::SceneState) -> Vec<T> + Send + 'static,
) -> Result<Response, ApiError> {
    let room = app.room(room)?;
    if !app.query_limiter.check(&caller.rate_key) {
        return Err(rate_limited(app).into());
    }
    let slot = whole_room_slot(app, caller, &room)?;
    let (tick, items) = read_scene(&room, move |s| (s.tick(), read(s))).await?;
    app.query_limiter.charge(&caller.rate_key, items.len());
    let answer = Whole {
        head: format!("{{\"tick\":{tick},\"{key}\":["),
        items,
        item_bytes,
    };
    let pace = app.config.budgets.pace(app.config.request_timeout);
    let cut = app.metrics.http_reads_cut.clone();
    let body = stream_whole(answer, slot, pace, caller.who.clone(), cut);
    Ok((
        [(header::CONTENT_TYPE, "application/json")],
        Body::from_stream(body),
    )
        .into_response())
}

/// One of the server's whole-room read slots for `caller` in `room`, or `overloaded`
/// at once: the pool, the caller's share or the room's share is taken.
fn whole_room_slot(app: &AppState, caller: &Caller, room: &RoomShared) -> Result<Charge, Refusal> {
    app.whole_room_reads
        .charge(
            CallerId::of(&caller.rate_key),
            RoomKey::of(&room.id),
            Amount(1),
        )
        .map_err(|over| {
            Refusal::overloaded(format!("{over}: try again once a whole-room read ends"))
        })
}

/// A reader of `GET /nodes` that took its answer slower than the minimum rate.
#[derive(Debug, thiserror::Error)]
#[error("the reader took longer than {0:?} for the whole answer: cut off")]
struct ReaderTooSlow(Duration);

/// A whole-room answer: the JSON before its list, the list's items, and the most bytes
/// of JSON an item takes (what the whole-read deadline assumes).
struct Whole<T> {
    head: String,
    items: Vec<T>,
    item_bytes: usize,
}

/// The JSON of `{"tick":…,"nodes":[…]}` (or `"cells"`), chunk by chunk, each made when
/// hyper asks.
///
/// A reader that stops reading is the connection's write deadline's to end
/// (`write_deadline.rs`: hyper stops polling a body whose socket is full, so the body
/// cannot see it); closing the connection drops this stream, the room's copy and the
/// whole-room permit. What the body checks itself is the whole read's deadline: a
/// reader that keeps taking a little never stalls, so each chunk asked for past
/// [`whole_read_allowance`] ends the body with an error instead, and the connection
/// closes without its final chunk (a cut answer, never a short one that parses).
fn stream_whole<T: serde::Serialize + Send + 'static>(
    answer: Whole<T>,
    slot: Charge,
    pace: Pace,
    who: String,
    cut: prometheus::IntCounter,
) -> impl futures_util::Stream<Item = Result<Bytes, ReaderTooSlow>> {
    let Whole {
        head,
        items: nodes,
        item_bytes,
    } = answer;
    let allowance = pace.allowance(nodes.len().saturating_mul(item_bytes));
    let finish_by = tokio::time::Instant::now().checked_add(allowance);
    let chunks = nodes.len().div_ceil(CHUNK_NODES);
    // The head, the chunks of nodes and the tail; `None` once the body ended.
    futures_util::stream::unfold(Some(0), move |next| {
        // Held by the stream: the copy and the turn last as long as the body.
        let _held = &slot;
        let item = next.and_then(|i| {
            if i > chunks + 1 {
                return None;
            }
            if finish_by.is_some_and(|at| tokio::time::Instant::now() > at) {
                cut.inc();
                tracing::info!(caller = %who, chunk = i, of = chunks + 2, "whole-room read cut off: the reader takes it slower than the minimum rate");
                return Some((Err(ReaderTooSlow(allowance)), None));
            }
            let bytes = if i == 0 {
                Bytes::from(head.clone())
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
            Some((Ok(bytes), Some(i + 1)))
        });
        std::future::ready(item)
    })
}

/// How long a whole-room read of `nodes` nodes may take in all: the request timeout,
/// plus its size at the minimum rate.
#[cfg(test)]
fn whole_read_allowance(nodes: usize, pace: Pace) -> Duration {
    pace.allowance(nodes.saturating_mul(NODE_JSON_BYTES))
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
) -> Result<Json<NodeDetail>, ApiError> {
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
) -> Result<Response, ApiError> {
    let read = |s: &canopy_room::SceneState| {
        s.octree()
            .cells_with_outside()
            .into_iter()
            .map(|c| OctreeCell {
                min: c.min.to_array(),
                max: c.max.to_array(),
                depth: c.depth,
                objects: c.objects as u32,
            })
            .collect::<Vec<OctreeCell>>()
    };
    whole_room_read(&app, &caller, &room, ("cells", CELL_JSON_BYTES), read).await
}

#[cfg(test)]
mod tests {
    use futures_util::StreamExt;

    use super::*;

    fn slot() -> Charge {
        let slots = canopy_room::budget::SharedBudget::new(
            "slots",
            canopy_room::budget::Shares::divided(1, 1, 1),
        );
        slots
            .charge(CallerId::of("t"), RoomKey::of("r"), Amount(1))
            .unwrap()
    }

    /// A reader that takes one chunk a second never stalls, but takes the answer far
    /// slower than the minimum rate: it is cut off at the whole-read deadline, and a
    /// reader that keeps up gets the whole answer.
    #[tokio::test(start_paused = true)]
    async fn a_trickling_reader_is_cut_off_at_the_whole_read_deadline() {
        let nodes: Vec<Node> = (0..20_000).map(|id| Node::at(id, [0.0; 3])).collect();
        let stall = Duration::from_secs(30);
        let pace = Pace {
            stall,
            min_rate: Some(crate::net::pace::BytesPerSec(64 * 1024)),
        };
        let allowance = whole_read_allowance(nodes.len(), pace);
        assert!(
            allowance > stall && allowance < Duration::from_secs(120),
            "{allowance:?}"
        );
        let cut = prometheus::IntCounter::new("cut", "cut").unwrap();
        let began = tokio::time::Instant::now();
        let whole = |nodes: Vec<Node>| Whole {
            head: "{\"tick\":1,\"nodes\":[".to_string(),
            items: nodes,
            item_bytes: NODE_JSON_BYTES,
        };
        let body = stream_whole(whole(nodes.clone()), slot(), pace, "t".into(), cut.clone());
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
        let body = stream_whole(whole(nodes), slot(), pace, "t".into(), cut.clone());
        let chunks: Vec<Bytes> = body.map(|c| c.expect("no cut")).collect().await;
        assert_eq!(chunks.last().map(|c| &c[..]), Some(&b"]}"[..]));
        assert_eq!(cut.get(), 1);
    }
}
