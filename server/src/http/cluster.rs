//! The HTTP edge of cluster mode: which node answers a request, the serving of requests
//! other nodes pass here, and `GET /cluster`.
//!
//! Every request for a room is routed by the room's [`Location`] as this node works it
//! out then: answered here when this node owns the room (or relays it, for reads and
//! WebSockets), passed to the owner over NATS when another node owns it (a WebSocket is
//! served from a replica, or passed on to the owner's HTTP, see `ws/passthrough.rs`),
//! `503 overloaded` with `Retry-After` while the room is between owners, and
//! `unknown_room` only when it is nowhere. `POST /rooms` goes to the node placement
//! picks; `GET /rooms` gathers every node's rooms. Invariants: a request that was
//! passed here already ([`FORWARDED_HEADER`]) is always answered here, so nothing
//! crosses two hops; and no answer about a room that exists in the cluster is
//! `unknown_room`, whatever moment of a move it comes at.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use canopy_protocol::ErrorCode;
use canopy_protocol::http::{ClusterView, RoomList};
use futures_util::StreamExt;
use tower::ServiceExt;

use crate::cluster::{
    Between, Cluster, FORWARDED_HEADER, ForwardedRequest, ForwardedResponse, Location,
    MOVING_RETRY_SECS,
};
use crate::http::access::BeforeHop;
use crate::http::error::RefusalResponse;
use crate::state::AppState;
use canopy_room::refusal::Refusal;

/// Room in an envelope for the headers and framing around a body.
const ENVELOPE_SLACK: usize = 64 * 1024;

/// Headers that belong to one connection, never passed on.
fn hop_by_hop(name: &str) -> bool {
    matches!(
        name,
        "connection"
            | "keep-alive"
            | "transfer-encoding"
            | "te"
            | "trailer"
            | "upgrade"
            | "content-length"
            | "proxy-authorization"
            | "proxy-connection"
    )
}

/// `GET /cluster`: nodes, rooms per node, leases and epochs as this node sees them.
#[utoipa::path(get, path = "/cluster", responses((status = 200, description = "The cluster", body = ClusterView)))]
pub(super) async fn overview(State(app): State<AppState>) -> Json<ClusterView> {
    Json(match app.cluster() {
        Some(c) => c.view(),
        None => ClusterView {
            enabled: false,
            node: None,
            lease_secs: 0,
            nodes: Vec::new(),
            rooms: Vec::new(),
        },
    })
}

/// Decides which node answers (see the module docs).
pub(super) async fn route(State(app): State<AppState>, req: Request, next: Next) -> Response {
    let Some(cluster) = app.cluster().cloned() else {
        return next.run(req).await;
    };
    let passed = req.headers().contains_key(FORWARDED_HEADER);
    let path = req.uri().path().to_string();
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match (req.method().clone(), segments.as_slice()) {
        (Method::POST, ["rooms"]) if !passed => {
            let node = cluster.place(rand::random());
            if node == cluster.node() {
                next.run(req).await
            } else {
                forward(&app, &cluster, &node, None, req).await
            }
        }
        (Method::GET, ["rooms"]) if !passed => list_everywhere(&app, &cluster, req, next).await,
        (method, ["rooms", room, rest @ ..]) => {
            let read =
                method == Method::GET || (method == Method::POST && rest.first() == Some(&"query"));
            let kind = RoomRequest {
                ws: rest == ["ws"],
                read,
                delete: method == Method::DELETE && rest.is_empty(),
            };
            let answer = if passed {
                answer_passed_here(&app, &cluster, room, req, next).await
            } else {
                route_room(&app, &cluster, room, kind, req, next).await
            };
            never_unknown_while_moving(&app, &cluster, room, answer).await
        }
        _ => next.run(req).await,
    }
}

/// What a request for a room asks, as routing needs it.
#[derive(Clone, Copy, Debug)]
struct RoomRequest {
    /// A WebSocket upgrade.
    ws: bool,
    /// A read (`GET`, or a query), which a replica answers itself.
    read: bool,
    /// `DELETE /rooms/{room}`.
    delete: bool,
}

/// A request for `room` that no node passed here yet: answered here when this node
/// serves the room (a replica answers reads and subscriptions), passed to the owner
/// when another node owns it, `moving` while the room is between owners, and
/// `unknown_room` only when the room is nowhere. Whatever goes on from here (a hop, a
/// replica made, an answer about where the room is) goes only to a caller whose token
/// this node could check, or the owner admits.
async fn route_room(
    app: &AppState,
    cluster: &Arc<Cluster>,
    room: &str,
    kind: RoomRequest,
    req: Request,
    next: Next,
) -> Response {
    let location = cluster.locate(app, room).await;
    if location.served_here(kind.read) {
        return next.run(req).await;
    }
    // Refused here before any hop: no token, a bad JWT, a wrong admin token.
    let hop = match super::access::before_hop(app, &req, room, !kind.read, kind.delete) {
        Ok(hop) => hop,
        Err(refused) => return refused.into_response(),
    };
    match location {
        Location::Owned(_) | Location::Unknown => next.run(req).await,
        Location::Relayed { owner, .. } => forward(app, cluster, &owner, Some(room), req).await,
        Location::OwnedBy(owner) if kind.ws => {
            // A replica copies the whole room: only for a caller the owner would let in
            // (asked with a bodiless read when this node cannot check the token itself).
            if hop == BeforeHop::OwnerDecides
                && let Err(refused) =
                    owner_admits(app, cluster, &owner.node, room, Credentials::of(&req)).await
            {
                return refused;
            }
            // Served here from a replica when one can be had; passed on to the owner
            // when not (a state over NATS's max_payload, say).
            match cluster.relay(app, room, &owner).await {
                Ok(_) => next.run(req).await,
                Err(why) => {
                    tracing::warn!(%room, %why, "no replica: passing the WebSocket on");
                    crate::ws::passthrough::pass_on(app.clone(), Arc::clone(cluster), owner, req)
                        .await
                }
            }
        }
        Location::OwnedBy(owner) => forward(app, cluster, &owner.node, Some(room), req).await,
        Location::Moving(between) => moving(room, &between),
    }
}

/// A request another node passed here, taking this node for the room's owner: always
/// answered here (nothing crosses two hops), and when the room is not here, `moving`
/// unless it is nowhere at all.
async fn answer_passed_here(
    app: &AppState,
    cluster: &Arc<Cluster>,
    room: &str,
    req: Request,
    next: Next,
) -> Response {
    if app.room(room).is_ok_and(|r| !r.is_closed()) {
        return next.run(req).await;
    }
    match cluster.between_owners(app, room).await {
        Some(between) => moving(room, &between),
        None => next.run(req).await,
    }
}

/// `503 overloaded` for a room between owners, with `Retry-After` (docs/protocol.md,
/// closing code 4002 and section 11).
fn moving(room: &str, between: &Between) -> Response {
    with_retry_after(Refusal::overloaded(between.message(room)).into_response())
}

fn with_retry_after(mut response: Response) -> Response {
    response.headers_mut().insert(
        axum::http::header::RETRY_AFTER,
        HeaderValue::from(MOVING_RETRY_SECS),
    );
    response
}

/// The last word on a room's answer: an `unknown_room` that a handler gave because the
/// room left this node at that very moment becomes `moving` when the room exists in
/// the cluster, and every `503` about a room says when to try again.
async fn never_unknown_while_moving(
    app: &AppState,
    cluster: &Arc<Cluster>,
    room: &str,
    response: Response,
) -> Response {
    match response.status() {
        StatusCode::SERVICE_UNAVAILABLE
            if !response
                .headers()
                .contains_key(axum::http::header::RETRY_AFTER) =>
        {
            with_retry_after(response)
        }
        StatusCode::NOT_FOUND => {
            let (parts, body) = response.into_parts();
            // Error bodies are small; anything larger is not one.
            let Ok(bytes) = axum::body::to_bytes(body, 64 * 1024).await else {
                return Refusal::overloaded("could not read an answer").into_response();
            };
            let unknown_room = serde_json::from_slice::<canopy_protocol::ErrorBody>(&bytes)
                .is_ok_and(|b| b.error.code == ErrorCode::UnknownRoom);
            if unknown_room && let Some(between) = cluster.between_owners(app, room).await {
                return moving(room, &between);
            }
            Response::from_parts(parts, Body::from(bytes))
        }
        _ => response,
    }
}

/// How long a forwarded request's answer is still awaited once the registry stopped
/// naming the node it went to.
const ANSWER_GRACE: Duration = Duration::from_secs(1);

/// A request as it travels to another node: its headers but the hop-by-hop ones, the
/// client's address, and [`FORWARDED_HEADER`] naming this node.
fn envelope(
    cluster: &Cluster,
    parts: &axum::http::request::Parts,
    body: Vec<u8>,
) -> ForwardedRequest {
    let peer = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.to_string())
        .unwrap_or_default();
    let mut headers: Vec<(String, Vec<u8>)> = parts
        .headers
        .iter()
        .filter(|(n, _)| !hop_by_hop(n.as_str()))
        .map(|(n, v)| (n.as_str().to_string(), v.as_bytes().to_vec()))
        .collect();
    headers.push((FORWARDED_HEADER.into(), cluster.node().as_bytes().to_vec()));
    ForwardedRequest {
        method: parts.method.to_string(),
        uri: parts.uri.to_string(),
        headers,
        peer,
        body,
    }
}

/// Passes `req` to `node` and returns its answer. For a request about `room`, gives up
/// as soon as the registry no longer names `node` its owner (it died: its answer will
/// never come).
async fn forward(
    app: &AppState,
    cluster: &Cluster,
    node: &str,
    room: Option<&str>,
    req: Request,
) -> Response {
    let (parts, body) = req.into_parts();
    let limit = app.config.max_body_bytes;
    // Read within the request timeout, as a body served here would be: a client
    // trickling a large body must not hold this node's memory for longer.
    let wait = app.config.request_timeout;
    let body = match tokio::time::timeout(wait, axum::body::to_bytes(body, limit)).await {
        Ok(Ok(b)) => b,
        Ok(Err(_)) => {
            return Refusal::new(
                ErrorCode::TooLarge,
                format!("the request body is over --max-body-bytes ({limit} bytes)"),
            )
            .into_response();
        }
        Err(_) => {
            return Refusal::overloaded(format!(
                "the body did not arrive within {} s",
                wait.as_secs_f64()
            ))
            .into_response();
        }
    };
    let request = envelope(cluster, &parts, body.to_vec());
    let is_edit = parts.uri.path().ends_with("/edits");
    // The owner answers within its own request timeout (an edit is refused, not
    // applied, past it); a little more here, for the hop.
    let timeout = app.config.request_timeout + Duration::from_secs(5);
    let owner_gone = async {
        let Some(room) = room else {
            return std::future::pending().await;
        };
        let mut every = tokio::time::interval(Duration::from_millis(200));
        loop {
            every.tick().await;
            if cluster.owner_of(room).is_none_or(|r| r.node != node) {
                return crate::cluster::ClusterError::Forward {
                    node: node.to_string(),
                    why: "its lease on the room ran out while the request waited".into(),
                    unsent: false,
                };
            }
        }
    };
    let ask = cluster.forward(node, &request, timeout);
    tokio::pin!(ask);
    let answer = tokio::select! {
        answer = &mut ask => answer,
        // The lease can vanish because of this very request (a `DELETE` releases it
        // before its answer is back), so the answer still gets a moment to arrive.
        gone = owner_gone => match tokio::time::timeout(ANSWER_GRACE, &mut ask).await {
            Ok(answer) => answer,
            Err(_) => Err(gone),
        },
    };
    match answer {
        Ok(answer) => into_response(answer),
        Err(crate::cluster::ClusterError::Forward { why, unsent, .. }) => {
            let outcome = if unsent || !is_edit {
                "nothing was applied".to_string()
            } else {
                "the batch's outcome is unknown: read the room before sending it again".to_string()
            };
            Refusal::overloaded(format!(
                "the room's owner, node {node}, could not be reached through the cluster \
                 ({why}); {outcome}"
            ))
            .into_response()
        }
        Err(e) => Refusal::overloaded(e.to_string()).into_response(),
    }
}

/// The credentials of a request, taken out of it so that a check can await without
/// holding the request (its body is not `Sync`).
struct Credentials {
    authorization: Option<HeaderValue>,
    peer: Option<ConnectInfo<SocketAddr>>,
}

impl Credentials {
    fn of(req: &Request) -> Credentials {
        let authorization = req
            .headers()
            .get(axum::http::header::AUTHORIZATION)
            .cloned()
            .or_else(|| {
                let token = super::access::query_token(req)?;
                HeaderValue::from_str(&format!("Bearer {token}")).ok()
            });
        Credentials {
            authorization,
            peer: req.extensions().get::<ConnectInfo<SocketAddr>>().copied(),
        }
    }
}

/// Asks `owner` whether `credentials` may read `room`: a `GET /rooms/{room}` with the
/// same token, no body. `Err` is the owner's refusal (or the cluster's failure) to answer
/// the client with.
async fn owner_admits(
    app: &AppState,
    cluster: &Cluster,
    owner: &str,
    room: &str,
    credentials: Credentials,
) -> Result<(), Response> {
    let mut probe = Request::new(Body::empty());
    *probe.method_mut() = Method::GET;
    *probe.uri_mut() = format!("/rooms/{room}")
        .parse()
        .map_err(|_| Refusal::bad_request("a room id that is not a path").into_response())?;
    if let Some(auth) = credentials.authorization {
        probe
            .headers_mut()
            .insert(axum::http::header::AUTHORIZATION, auth);
    }
    if let Some(peer) = credentials.peer {
        probe.extensions_mut().insert(peer);
    }
    let answer = forward(app, cluster, owner, Some(room), probe).await;
    if answer.status().is_success() {
        Ok(())
    } else {
        Err(answer)
    }
}

fn into_response(answer: ForwardedResponse) -> Response {
    let mut response = Response::new(Body::from(answer.body));
    *response.status_mut() = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::BAD_GATEWAY);
    for (name, value) in answer.headers {
        if hop_by_hop(&name) {
            continue;
        }
        if let (Ok(n), Ok(v)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_bytes(&value),
        ) {
            response.headers_mut().append(n, v);
        }
    }
    response
}

/// `GET /rooms` in a cluster: this node's rooms and every live peer's, merged. A peer
/// that does not answer is left out (and logged): the list is of rooms that can be
/// reached now.
async fn list_everywhere(app: &AppState, cluster: &Cluster, req: Request, next: Next) -> Response {
    let (parts, _) = req.into_parts();
    let local = next
        .run(Request::from_parts(parts.clone(), Body::empty()))
        .await;
    if local.status() != StatusCode::OK {
        return local;
    }
    let Ok(bytes) = axum::body::to_bytes(local.into_body(), usize::MAX).await else {
        return Refusal::overloaded("could not read this node's room list").into_response();
    };
    let Ok(mut list) = serde_json::from_slice::<RoomList>(&bytes) else {
        return Refusal::overloaded("could not read this node's room list").into_response();
    };
    let request = envelope(cluster, &parts, Vec::new());
    let timeout = app.config.request_timeout;
    let asks = cluster.peers().into_iter().map(|(node, _)| {
        let request = &request;
        async move { (cluster.forward(&node, request, timeout).await, node) }
    });
    for (answer, node) in futures_util::future::join_all(asks).await {
        match answer {
            Ok(a) if a.status == 200 => match serde_json::from_slice::<RoomList>(&a.body) {
                Ok(theirs) => list.rooms.extend(theirs.rooms),
                Err(e) => tracing::warn!(%node, error = %e, "unreadable room list"),
            },
            Ok(a) => tracing::warn!(%node, status = a.status, "room list refused"),
            Err(e) => tracing::warn!(%node, error = %e, "no room list"),
        }
    }
    list.rooms.sort_by(|a, b| a.id.cmp(&b.id));
    list.rooms.dedup_by(|a, b| a.id == b.id);
    Json(list).into_response()
}

/// Serves the requests other nodes pass to this one, until shutdown: each through this
/// node's own router, so access checks, limits and errors are exactly a direct
/// request's.
pub async fn serve_passed(
    app: AppState,
    router: Router,
) -> Result<(), crate::cluster::ClusterError> {
    let cluster = Arc::clone(app.cluster().expect("cluster mode"));
    let subject = crate::cluster::bus_subject(cluster.node());
    let mut requests = cluster
        .client()
        .subscribe(subject)
        .await
        .map_err(|e| crate::cluster::ClusterError::Registry(e.to_string()))?;
    let stop = app.lifecycle.token();
    app.tasks.clone().spawn(async move {
        loop {
            let msg = tokio::select! {
                _ = stop.cancelled() => break,
                msg = requests.next() => match msg {
                    Some(m) => m,
                    None => break,
                },
            };
            let Some(reply) = msg.reply.clone() else {
                continue;
            };
            let router = router.clone();
            let cluster = Arc::clone(&cluster);
            tokio::spawn(async move {
                cluster.metrics.served.inc();
                let answer = match crate::cluster::decode::<ForwardedRequest>(&msg.payload) {
                    Ok(request) => answer_passed(&cluster, router, request).await,
                    Err(e) => {
                        let refusal =
                            Refusal::bad_request(format!("unreadable passed request: {e}"));
                        to_envelope(refusal.into_response(), usize::MAX).await
                    }
                };
                let bytes = crate::cluster::encode(&answer);
                if let Err(e) = cluster.client().publish(reply, bytes.into()).await {
                    tracing::warn!(error = %e, "could not answer a passed request");
                }
            });
        }
        let _ = requests.unsubscribe().await;
    });
    Ok(())
}

async fn answer_passed(
    cluster: &Cluster,
    router: Router,
    request: ForwardedRequest,
) -> ForwardedResponse {
    let peer = request.peer_addr();
    let mut builder = axum::http::Request::builder()
        .method(request.method.as_str())
        .uri(request.uri.as_str());
    for (name, value) in &request.headers {
        builder = builder.header(name.as_str(), value.as_slice());
    }
    let Ok(mut req) = builder.body(Body::from(request.body)) else {
        let refusal = Refusal::bad_request("a malformed passed request");
        return to_envelope(refusal.into_response(), usize::MAX).await;
    };
    req.extensions_mut().insert(ConnectInfo(peer));
    let response = match router.oneshot(req).await {
        Ok(r) => r,
        Err(never) => match never {},
    };
    to_envelope(
        response,
        cluster.max_payload().saturating_sub(ENVELOPE_SLACK),
    )
    .await
}

/// A response as an envelope, its body at most `room` bytes (else `too_large`).
async fn to_envelope(response: Response, room: usize) -> ForwardedResponse {
    let (parts, body) = response.into_parts();
    let body = match axum::body::to_bytes(body, room).await {
        Ok(b) => b,
        Err(_) => {
            let refusal = Refusal::new(
                ErrorCode::TooLarge,
                format!(
                    "the answer is over what the cluster's NATS carries ({room} bytes, from its \
                     max_payload); ask the room's owner node directly, or narrow the request"
                ),
            );
            return Box::pin(to_envelope(refusal.into_response(), usize::MAX)).await;
        }
    };
    ForwardedResponse {
        status: parts.status.as_u16(),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| (n.as_str().to_string(), v.as_bytes().to_vec()))
            .collect(),
        body: body.to_vec(),
    }
}
