//! The reader side of a WebSocket connection: decodes each client message (text frames
//! as JSON, binary frames as bincode), checks it, and turns it into a room command, a
//! query answer or a pong.
//!
//! Invariant: a message that cannot be read or is refused changes nothing and is
//! answered with an `error` that names what was wrong (with the `seq` of an `edits` or
//! the `id` of a `query` when they could be read).

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{Message, WebSocket};
use canopy_protocol::codec;
use canopy_protocol::message::Region;
use canopy_protocol::{ClientMsg, ErrorCode, Format, Query, ServerMsg};
use futures_util::StreamExt;

use super::writer;
use crate::http::auth::Caller;
use crate::registry::AppState;
use crate::room::outbox::Outbox;
use crate::room::query::QueryOutput;
use crate::room::scope::Scope;
use crate::room::{EditReply, RoomCommand, RoomShared};

/// Control messages a connection may have waiting before the server stops reading from
/// it: a client that floods queries without reading answers is slowed down, not
/// buffered without bound.
const MAX_QUEUED_CONTROL: usize = 4096;

/// Serves one connection until either side closes it.
pub async fn serve(
    app: AppState,
    room: Arc<RoomShared>,
    socket: WebSocket,
    format: Format,
    conn: u64,
    caller: Caller,
) {
    app.metrics.connections.inc();
    tracing::debug!("connected");
    let outbox = Outbox::new(conn, format, app.config.ws_queue_frames);
    let (sink, mut stream) = socket.split();
    let mut writer = tokio::spawn(writer::run(
        sink,
        Arc::clone(&outbox),
        Arc::clone(&app.metrics),
        app.config.ws_write_deadline(),
    ));
    let conn_state = Conn {
        app: app.clone(),
        room: Arc::clone(&room),
        outbox: Arc::clone(&outbox),
        caller,
    };
    let mut writer_done = false;
    let ping_every = Duration::from_secs(app.config.ws_ping_secs.max(1));
    let idle_limit = Duration::from_secs(app.config.ws_idle_secs.max(1));
    let mut pings = tokio::time::interval_at(tokio::time::Instant::now() + ping_every, ping_every);
    let mut last_heard = tokio::time::Instant::now();
    loop {
        tokio::select! {
            _ = pings.tick() => {
                if last_heard.elapsed() > idle_limit {
                    tracing::info!("idle or half-open: closing");
                    outbox.close("idle: nothing heard within the deadline", writer::CLOSE_RESUBSCRIBE);
                    break;
                }
                outbox.push_ping();
                continue;
            }
            _ = app.shutdown.cancelled() => {
                // Give the room its last tick, so accepted edits are answered, then close.
                let _ = tokio::time::timeout(Duration::from_secs(2), async {
                    while !room.is_closed() {
                        tokio::time::sleep(Duration::from_millis(5)).await;
                    }
                }).await;
                outbox.close("server shutting down", 1001);
                break;
            }
            _ = &mut writer => {
                writer_done = true;
                break;
            }
            msg = stream.next() => {
                // Anything that arrives, pongs included, proves the peer is alive.
                last_heard = tokio::time::Instant::now();
                match msg {
                None | Some(Ok(Message::Close(_))) => break,
                Some(Err(e)) => {
                    let text = e.to_string();
                    if text.contains("too long") || text.contains("too big") || text.contains("limit") {
                        let limit = app.config.max_ws_message_bytes;
                        outbox.push_msg(ServerMsg::Error {
                            seq: None,
                            id: None,
                            code: ErrorCode::TooLarge,
                            message: format!("a message over the limit of {limit} bytes"),
                            op: None,
                        });
                        outbox.close("message too large", 1009);
                    }
                    tracing::debug!(error = %text, "read failed");
                    break;
                }
                Some(Ok(Message::Text(t))) => conn_state.handle(t.as_bytes(), Format::Json),
                Some(Ok(Message::Binary(b))) => conn_state.handle(&b, Format::Bincode),
                Some(Ok(_)) => {}
                }
            }
        }
        while outbox.queued() > MAX_QUEUED_CONTROL && !outbox.is_closing() {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
    room.send(RoomCommand::Unsubscribe { conn });
    if !writer_done {
        // Let the writer send what is queued (a `closed`, say), within a bound.
        outbox.close("connection closed", 1000);
        let _ = tokio::time::timeout(Duration::from_secs(2), &mut writer).await;
        writer.abort();
    }
    app.metrics.connections.dec();
    tracing::debug!("disconnected");
}

struct Conn {
    app: AppState,
    room: Arc<RoomShared>,
    outbox: Arc<Outbox>,
    caller: Caller,
}

/// Reads `seq` (for `edits`) or `id` (for `query`) from a JSON message that failed to
/// decode, so its error can still name the request.
fn peek_ids(bytes: &[u8]) -> (Option<u64>, Option<u64>) {
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return (None, None);
    };
    match v.get("type").and_then(|t| t.as_str()) {
        Some("edits") => (v.get("seq").and_then(|s| s.as_u64()), None),
        Some("query") => (None, v.get("id").and_then(|s| s.as_u64())),
        _ => (None, None),
    }
}

fn valid_region(r: &Region) -> Result<(), String> {
    if !r.min.iter().chain(r.max.iter()).all(|v| v.is_finite()) {
        return Err("region bounds must be finite".into());
    }
    for axis in 0..3 {
        if r.min[axis] > r.max[axis] {
            return Err(format!("region min > max on axis {axis}"));
        }
    }
    Ok(())
}

impl Conn {
    fn error(&self, seq: Option<u64>, id: Option<u64>, code: ErrorCode, message: String) {
        self.outbox.push_msg(ServerMsg::Error {
            seq,
            id,
            code,
            message,
            op: None,
        });
    }

    fn handle(&self, bytes: &[u8], format: Format) {
        let msg = match codec::decode_client(bytes, format) {
            Ok(m) => m,
            Err(e) => {
                let (seq, id) = if format == Format::Json {
                    peek_ids(bytes)
                } else {
                    (None, None)
                };
                self.error(seq, id, e.code(), e.to_string());
                return;
            }
        };
        match msg {
            ClientMsg::Subscribe { region, mask, .. } => {
                if let Some(Err(m)) = region.as_ref().map(valid_region) {
                    self.error(None, None, ErrorCode::InvalidValue, m);
                    return;
                }
                let cmd = RoomCommand::Subscribe {
                    outbox: Arc::clone(&self.outbox),
                    scope: Scope { region, mask },
                };
                if !self.room.send(cmd) {
                    self.error(
                        None,
                        None,
                        ErrorCode::UnknownRoom,
                        format!("room {} is closed", self.room.id),
                    );
                }
            }
            ClientMsg::Unsubscribe => {
                self.room.send(RoomCommand::Unsubscribe {
                    conn: self.outbox.conn,
                });
            }
            ClientMsg::Edits { seq, ops } => {
                if !self.caller.role.may_edit() {
                    let message = "a viewer token may not edit".to_string();
                    self.error(Some(seq), None, ErrorCode::Forbidden, message);
                    return;
                }
                let limit = self.app.config.max_ops_per_batch;
                if ops.len() > limit {
                    let message = format!("the batch has {} ops, the limit is {limit}", ops.len());
                    self.error(Some(seq), None, ErrorCode::TooLarge, message);
                    return;
                }
                let reply = EditReply::Ws {
                    outbox: Arc::clone(&self.outbox),
                    seq,
                };
                if let Err(f) = self.room.submit_edits(ops, reply) {
                    self.outbox.push_msg(ServerMsg::Error {
                        seq: Some(seq),
                        id: None,
                        code: f.code,
                        message: f.message,
                        op: f.op,
                    });
                }
            }
            ClientMsg::Query { id, query: q } => self.query(id, &q),
            ClientMsg::Ping { nonce } => self.outbox.push_msg(ServerMsg::Pong {
                nonce,
                tick: self.room.stats.tick(),
            }),
        }
    }

    fn query(&self, id: u64, q: &Query) {
        // The same path as HTTP queries: validation, the caller's rate limit, metrics,
        // then one read of the scene.
        let (tick, out) =
            match crate::http::queries::answer(&self.app, &self.caller, &self.room.id, q) {
                Ok(answer) => answer,
                Err(e) => {
                    self.error(None, Some(id), e.code, e.message);
                    return;
                }
            };
        let (nodes, hits) = match out {
            QueryOutput::Nodes(n) => (Some(n), None),
            QueryOutput::Ray(h) => (None, Some(canopy_protocol::Hits::Ray(h))),
            QueryOutput::Nearest(h) => (None, Some(canopy_protocol::Hits::Nearest(h))),
        };
        self.outbox.push_msg(ServerMsg::QueryResult {
            id,
            tick,
            nodes,
            hits,
        });
    }
}
