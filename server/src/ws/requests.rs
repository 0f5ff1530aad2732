//! The client messages of a WebSocket session: each one decoded (text frames as JSON,
//! binary frames as bincode), checked, and turned into a room command, a query answer or
//! a pong.
//!
//! Invariant: a message that cannot be read or is refused changes nothing and is
//! answered with an `error` that names what was wrong (with the `seq` of an `edits` or
//! the `id` of a `query` when they could be read).

use std::sync::Arc;

use bytes::Bytes;
use canopy_protocol::interest::{Follow, Frustum, Tier};
use canopy_protocol::message::Region;
use canopy_protocol::{ClientMsg, ErrorCode, Format, Hits, ServerMsg, codec};

use super::session::Session;
use crate::net::offload;
use canopy_room::edit::check_batch_size;
use canopy_room::interest::{Pacing, Tiers};
use canopy_room::query::QueryOutput;
use canopy_room::refusal::Refusal;
use canopy_room::scope::Scope;
use canopy_room::{EditReply, EditTicket, Intent, RoomCommand, SubscribeRequest};

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

impl Session {
    /// Handles one client message.
    pub(super) async fn handle(&self, bytes: Bytes, format: Format) {
        let Some(msg) = self.decode(bytes, format).await else {
            return;
        };
        match msg {
            ClientMsg::Subscribe {
                region,
                mask,
                since,
                encoding,
                follow,
                frustum,
                send_hz,
                tiers,
            } => {
                let scope = match self.scope_of(region, mask, follow, frustum, (send_hz, &tiers)) {
                    Ok(s) => s,
                    Err(e) => return self.refuse(None, None, &e),
                };
                let req = SubscribeRequest {
                    outbox: Arc::clone(&self.outbox),
                    scope,
                    since: since.filter(|_| self.resume_allowed),
                    encoding,
                    caller: self.caller_id,
                };
                if !self.change_subscription(Intent::Subscribe(Box::new(req))) {
                    self.refuse(None, None, &self.room_closed());
                }
            }
            ClientMsg::Unsubscribe => {
                self.change_subscription(Intent::Unsubscribe(self.outbox.conn));
            }
            ClientMsg::Edits { seq, ops } => self.edits(seq, ops),
            ClientMsg::Query { id, query } => self.query(id, query).await,
            ClientMsg::Ping { nonce } => self.outbox.push_reply(&ServerMsg::Pong {
                nonce,
                tick: self.room.stats.tick(),
            }),
        }
    }

    /// Decodes a client message (off the async workers when it is big); a bincode edit
    /// batch over the op limit is refused from its header, before its ops are decoded
    /// (and allocated). `None` when it was refused, naming the `seq` or `id` it could.
    async fn decode(&self, bytes: Bytes, format: Format) -> Option<ClientMsg> {
        let header = match format {
            Format::Bincode => codec::bincode_edits_header(&bytes),
            Format::Json => None,
        };
        if let Some((seq, ops)) = header {
            let limit = self.app.config.max_ops_per_batch;
            if let Err(e) = check_batch_size(usize::try_from(ops).unwrap_or(usize::MAX), limit) {
                self.refuse(Some(seq), None, &e);
                return None;
            }
        }
        match offload::decode(bytes.clone(), move |b| codec::decode_client(b, format)).await {
            Ok(m) => Some(m),
            Err(e) => {
                let (seq, id) = match format {
                    Format::Json => peek_ids(&bytes),
                    Format::Bincode => (header.map(|h| h.0), None),
                };
                self.refuse(seq, id, &Refusal::from(e));
                None
            }
        }
    }

    /// The scope a `subscribe` asks for, checked against the contract's ranges and the
    /// room's tick rate before anything changes.
    fn scope_of(
        &self,
        region: Option<Region>,
        mask: u32,
        follow: Option<Follow>,
        frustum: Option<Frustum>,
        (send_hz, tiers): (Option<u32>, &[Tier]),
    ) -> Result<Scope, Refusal> {
        if let Some(r) = &region {
            canopy_room::query::check_region(r)?;
        }
        let tiers = Tiers::new(tiers)?;
        let scope = Scope {
            region,
            mask,
            follow,
            frustum,
            pacing: Pacing { send_hz, tiers },
        };
        scope.check(self.room.tick_hz)?;
        Ok(scope)
    }

    /// Answers a query at the room's current tick.
    async fn query(&self, id: u64, query: canopy_protocol::Query) {
        match crate::queries::answer(&self.app, &self.caller, &self.room, query).await {
            Ok(answer) => {
                let (nodes, hits) = match answer.output {
                    QueryOutput::Nodes(n) => (Some(n), None),
                    QueryOutput::Ray(h) => (None, Some(Hits::Ray(h))),
                    QueryOutput::Nearest(h) => (None, Some(Hits::Nearest(h))),
                };
                self.outbox.push_reply(&ServerMsg::QueryResult {
                    id,
                    tick: answer.tick,
                    nodes,
                    hits,
                });
            }
            Err(e) => self.refuse(None, Some(id), &e),
        }
    }

    /// Hands the room the connection's latest subscription change. Only the last one
    /// matters, so a change made while an earlier one still waits for the room replaces
    /// it instead of sending another command: a flood of `subscribe`s or
    /// `unsubscribe`s costs the room one command. False when the room has stopped.
    pub(super) fn change_subscription(&self, intent: Intent) -> bool {
        if !self.subscription.put(intent) {
            return !self.room.is_closed();
        }
        if self
            .room
            .send(RoomCommand::Subscription(Arc::clone(&self.subscription)))
        {
            return true;
        }
        // Not sent: take the change back, so a later one is sent again.
        self.subscription.take();
        false
    }

    fn edits(&self, seq: u64, ops: Vec<canopy_protocol::Op>) {
        if !self.caller.role.may_edit() {
            let refusal = Refusal::new(ErrorCode::Forbidden, "a viewer token may not edit");
            self.refuse(Some(seq), None, &refusal);
            return;
        }
        if let Err(e) = check_batch_size(ops.len(), self.app.config.max_ops_per_batch) {
            self.refuse(Some(seq), None, &e);
            return;
        }
        // At a relay the owner's answer and the record of its tick travel apart, so
        // the answer's place is held now: it still comes before the tick's delta.
        let held = self.room.is_replica().then(|| self.outbox.hold_reply());
        let reply = EditReply::Outbox {
            outbox: Arc::clone(&self.outbox),
            seq,
            held,
        };
        // The caller's quota, shared with its other connections and its HTTP requests:
        // one editor on several sockets holds no more of the room's pending budget.
        let quota = Some(self.app.edit_quotas.of(&self.caller.rate_key));
        if let Err(e) = self
            .room
            .submit_edits(ops, reply, Arc::new(EditTicket::default()), quota)
        {
            self.refuse(Some(seq), None, &e);
        }
    }
}
