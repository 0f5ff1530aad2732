//! Putting the test world on the server and taking it off again: the rooms the run
//! creates (named after the seed and the process, so runs against a shared server do
//! not collide), their nodes (over HTTP, in large batches), and their deletion.
//!
//! Invariant: a room is only used once its every node is acknowledged, so subscribers
//! subscribe to the complete world and editors never name a node that does not exist.

use std::time::Duration;

use anyhow::{Context, ensure};
use canopy_client::Client;

use crate::load::world::World;

/// Ops per `add` batch: well under the contract's 65,536 and 8 MiB, and big enough that
/// 20,000 nodes take two ticks.
const ADD_CHUNK: usize = 10_000;

/// The ids of the rooms of this run.
pub(crate) fn room_ids(rooms: usize, seed: u64) -> Vec<String> {
    let pid = std::process::id();
    (0..rooms)
        .map(|i| format!("loadtest-{seed}-{pid}-{i}"))
        .collect()
}

/// Waits until the server answers `/healthz`.
pub(crate) async fn wait_healthy(client: &Client, within: Duration) -> anyhow::Result<()> {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match client.health().await {
            Ok(()) => return Ok(()),
            Err(e) if tokio::time::Instant::now() >= deadline => {
                return Err(e).context("the server is not healthy");
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

/// Creates every room with `tick_hz` and fills it with `world`.
pub(crate) async fn create_rooms(
    client: &Client,
    rooms: &[String],
    tick_hz: u32,
    world: &World,
) -> anyhow::Result<()> {
    for room in rooms {
        let created = client
            .ensure_room(room, Some(tick_hz))
            .await
            .with_context(|| format!("creating room {room}"))?;
        ensure!(created, "room {room} already exists on the server");
        for batch in world.add_batches(ADD_CHUNK) {
            let len = batch.len();
            let result = client
                .edit(room, batch)
                .await
                .with_context(|| format!("adding {len} nodes to {room}"))?;
            ensure!(
                result.ids.len() == len,
                "the server answered {} ids for {len} adds",
                result.ids.len()
            );
        }
        // The room publishes its statistics at the end of the tick, after it has
        // answered the tick's edits, so the last batch's nodes may not be counted yet.
        let counted = tokio::time::Instant::now() + Duration::from_secs(2);
        let mut detail = client.get_room(room).await?;
        while detail.nodes as usize != world.nodes.len() && tokio::time::Instant::now() < counted {
            tokio::time::sleep(Duration::from_millis(20)).await;
            detail = client.get_room(room).await?;
        }
        ensure!(
            detail.nodes as usize == world.nodes.len(),
            "room {room} has {} nodes, expected {}",
            detail.nodes,
            world.nodes.len()
        );
    }
    Ok(())
}

/// Deletes the rooms of the run, logging (not failing on) any that cannot be deleted.
pub(crate) async fn delete_rooms(client: &Client, rooms: &[String]) {
    for room in rooms {
        if let Err(e) = client.delete_room(room).await {
            tracing::warn!(%room, error = %e, "could not delete the room");
        }
    }
}

/// A client of the server at `url` (with the scenario's token), once it is healthy, and
/// `rooms` rooms of the scenario's world on it: runs `f` with them, then deletes the
/// rooms whatever `f` answered.
pub(crate) async fn with_rooms<T>(
    s: &crate::scenario::Scenario,
    url: &str,
    rooms: usize,
    f: impl AsyncFnOnce(&Client, &World, &[String]) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let world = World::build(s.nodes, s.fanout, s.depth);
    with_world(s, url, rooms, world, f).await
}

/// [`with_rooms`] with a world of the caller's (a benchmark's own layout).
pub(crate) async fn with_world<T>(
    s: &crate::scenario::Scenario,
    url: &str,
    rooms: usize,
    world: World,
    f: impl AsyncFnOnce(&Client, &World, &[String]) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let mut client = Client::new(url)?;
    if let Some(token) = &s.token {
        client = client.with_token(token.clone());
    }
    wait_healthy(&client, Duration::from_secs(10)).await?;
    let rooms = room_ids(rooms, s.seed);
    create_rooms(&client, &rooms, s.tick_hz, &world).await?;
    let result = f(&client, &world, &rooms).await;
    delete_rooms(&client, &rooms).await;
    result
}
