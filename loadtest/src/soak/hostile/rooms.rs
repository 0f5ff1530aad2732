//! The rooms hostile clients attack, apart from the rooms the load measures: a room
//! for the floods and idle sockets, one for unread queries (its subscriber count shows
//! whether the server released the connection), and the short-lived rooms of the
//! no-op batches and of the deleted-room reader.
//!
//! Invariant: a hostile client reaches a room with that room's viewer token when the
//! server hands one out (a viewer is all the review's attacks needed), and with no
//! token on an open server; the measured rooms are never attacked, so their mirrors
//! and latency stay the load's.

use std::net::SocketAddr;

use anyhow::{Context, ensure};
use canopy_client::Client;
use canopy_protocol::http::CreateRoom;
use canopy_protocol::{Format, NodeId, Op, Transform};

use crate::load::world::World;
use crate::rawws;

/// Ops per `add` batch while building a room.
const ADD_CHUNK: usize = 10_000;

/// A room and the token a hostile client uses for it.
#[derive(Clone, Debug)]
pub(crate) struct RoomAccess {
    pub id: String,
    /// The room's viewer token, or `None` on an open server.
    pub viewer_token: Option<String>,
}

impl RoomAccess {
    /// The WebSocket URL of the room with its viewer token.
    pub(crate) fn ws_url(&self, base_url: &str, format: Format) -> anyhow::Result<String> {
        let mut client = Client::new(base_url)?;
        if let Some(token) = &self.viewer_token {
            client = client.with_token(token.clone());
        }
        rawws::ws_url(&client, &self.id, format)
    }

    /// The path and query of that URL, for a handshake written by hand.
    pub(crate) fn ws_path(&self, base_url: &str, format: Format) -> anyhow::Result<String> {
        let url = self.ws_url(base_url, format)?;
        let uri: tokio_tungstenite::tungstenite::http::Uri = url.parse()?;
        Ok(uri
            .path_and_query()
            .map_or("/".to_string(), |p| p.as_str().to_string()))
    }
}

/// Creates room `id` (it must not exist) with `tick_hz` and returns its access.
pub(crate) async fn create(admin: &Client, id: &str, tick_hz: u32) -> anyhow::Result<RoomAccess> {
    let created = admin
        .create_room(&CreateRoom {
            id: Some(id.to_string()),
            tick_hz: Some(tick_hz),
        })
        .await
        .with_context(|| format!("creating hostile room {id}"))?;
    Ok(RoomAccess {
        id: created.id,
        viewer_token: created.viewer_token,
    })
}

/// Creates room `id` holding `world`.
pub(crate) async fn create_with_world(
    admin: &Client,
    id: &str,
    tick_hz: u32,
    world: &World,
) -> anyhow::Result<RoomAccess> {
    let access = create(admin, id, tick_hz).await?;
    for batch in world.add_batches(ADD_CHUNK) {
        let len = batch.len();
        let done = admin.edit(id, batch).await?;
        ensure!(
            done.ids.len() == len,
            "{id}: {} ids for {len} adds",
            done.ids.len()
        );
    }
    Ok(access)
}

/// A chain of `depth + 1` nodes, `0` the root and `depth` the deepest (at depth
/// `depth`), for the no-op batches.
pub(crate) fn chain(depth: u32) -> Vec<Op> {
    (0..=depth)
        .map(|id| Op::Add {
            id: Some(id as NodeId),
            parent: id.checked_sub(1),
            local: Transform::default(),
            extent: [0.5; 3],
            mask: u32::MAX,
        })
        .collect()
}

/// The address of the server at `base_url`, as a socket would connect to it.
pub(crate) async fn server_addr(base_url: &str) -> anyhow::Result<SocketAddr> {
    let uri: tokio_tungstenite::tungstenite::http::Uri =
        base_url.parse().context("bad server URL")?;
    let host = uri.host().context("the server URL has no host")?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let port = uri.port_u16().unwrap_or(80);
    tokio::net::lookup_host((host, port))
        .await?
        .next()
        .with_context(|| format!("{host} resolves to no address"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_parents_each_node_under_the_one_before() {
        let ops = chain(3);
        assert_eq!(ops.len(), 4);
        let parents: Vec<Option<NodeId>> = ops
            .iter()
            .map(|op| match op {
                Op::Add { parent, .. } => *parent,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(parents, vec![None, Some(0), Some(1), Some(2)]);
    }

    #[test]
    fn ws_path_carries_format_and_token() {
        let access = RoomAccess {
            id: "h".into(),
            viewer_token: Some("v1".into()),
        };
        assert_eq!(
            access.ws_path("http://127.0.0.1:9", Format::Json).unwrap(),
            "/rooms/h/ws?format=json&token=v1"
        );
    }
}
