//! A window of edits for the memory benchmarks: the scenario's editors load the rooms
//! for a while through one server, and that server's RSS is sampled every second.
//! Invariant: the window's length is measured, not assumed, and a server too slow to
//! answer `/metrics` does not stretch it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use canopy_client::{Client, ConnectOptions};

use crate::bench::server_rss;
use crate::load::editor::{self, EditStats, EditorContext};
use crate::load::stamps::{Clock, Stamps};
use crate::load::world::World;
use crate::observe::errors::ErrorTally;
use crate::run::{Nodes, connect_editors};
use crate::scenario::Scenario;
use crate::stop;

/// Editors loading the rooms for a while (connected through `client`), RSS of that
/// server sampled every second.
pub(crate) struct EditWindow<'a> {
    pub s: &'a Scenario,
    pub client: &'a Client,
    pub world: &'a World,
    pub rooms: &'a [String],
    pub stamps: &'a [Arc<Stamps>],
    pub clock: Clock,
    pub stats: &'a Arc<EditStats>,
    pub errors: &'a Arc<ErrorTally>,
    /// The editors' random values start from this seed (plus the editor's index).
    pub seed: u64,
}

impl EditWindow<'_> {
    /// Runs the editors for `duration`, then closes them: the window's length in
    /// seconds and the RSS samples taken in it.
    pub(crate) async fn run(&self, duration: Duration) -> anyhow::Result<(f64, Vec<f64>)> {
        let s = self.s;
        let options = ConnectOptions::default().format(s.format.format());
        let nodes = Nodes {
            clients: vec![self.client.clone()],
            map: None,
        };
        let editors =
            connect_editors(s, &nodes, self.world, self.rooms, self.stamps, &options).await?;
        let editor_conns: Vec<_> = editors.iter().map(|e| e.conn.clone()).collect();
        let (stop_tx, stop_rx) = stop::channel();
        let edit_ctx = EditorContext {
            rate: s.edit_rate,
            batch_size: s.batch_size,
            clock: self.clock,
            stats: Arc::clone(self.stats),
            errors: Arc::clone(self.errors),
            invalid: None,
        };
        let mut tasks = Vec::new();
        for (i, ed) in editors.into_iter().enumerate() {
            tasks.push(tokio::spawn(editor::run(
                ed,
                edit_ctx.clone(),
                self.seed.wrapping_add(i as u64),
                stop_rx.clone(),
            )));
        }
        let window = Instant::now();
        let end = tokio::time::Instant::now() + duration;
        let samples = server_rss::sample_until(self.client, end).await;
        stop_tx.raise();
        for t in tasks {
            t.await.context("an editor panicked")?;
        }
        let window_s = window.elapsed().as_secs_f64();
        for conn in &editor_conns {
            conn.close().await;
        }
        Ok((window_s, samples))
    }
}
