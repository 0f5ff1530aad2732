//! `--bench s2`, "players see their neighbourhood": one room of 20,000 nodes on a plane,
//! 500 players each owning an avatar that walks, one editor moving every avatar and 200
//! random other nodes each tick, and the same 500 clients subscribed twice in one
//! invocation: first to the whole room (the baseline), then each following its avatar
//! (`follow` with a radius holding about 100 nodes, `send_hz`, a near and a far tier).
//!
//! It reports, per mode, delta bytes and frames per second per client, the server's CPU
//! and RSS, and edit-to-delta of what reached the clients (in scope, for follow scopes),
//! and checks every follow copy against the server's state once the edits stopped. The
//! bounds: follow scopes send at most [`BYTES_RATIO`] of the baseline's bytes and
//! [`FRAMES_RATIO`] of its frames, cost the server at most [`CPU_RATIO`] of its CPU, and
//! every copy is right.
//!
//! Invariant: the two modes share the room, the layout and the edit stream (see
//! `edits`), and each mode's players are gone before the other's connect, so every
//! ratio compares like with like.

mod edits;
mod figures;
mod layout;
mod mirror_check;
mod window;

use std::sync::Arc;

use anyhow::bail;
use canopy_protocol::NodeId;
use canopy_protocol::interest::{Follow, Tier};

use crate::bench::table::BenchReport;
use crate::load::setup;
use crate::load::stamps::Clock;
use crate::load::subscriber::FollowScope;
use crate::observe::errors::ErrorTally;
use crate::scenario::Scenario;
use crate::target::fd_limit::FdLimit;
use layout::Layout;

/// The bounds, follow against whole room.
const BYTES_RATIO: f64 = 0.05;
const FRAMES_RATIO: f64 = 0.67;
const CPU_RATIO: f64 = 0.5;

/// The follow scope's shape: frames a second (capped at the room's tick rate), the
/// margin and the near tier's reach as shares of the radius, and how often the far
/// tier's changes go out.
const SEND_HZ: u32 = 20;
const MARGIN_SHARE: f32 = 0.1;
const NEAR_SHARE: f32 = 0.5;
const FAR_EVERY: u32 = 3;

/// Descriptors the harness needs besides one per player.
const FD_HEADROOM: u64 = 64;

/// The two modes, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    WholeRoom,
    Follow,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::WholeRoom => "whole room",
            Mode::Follow => "follow",
        }
    }
}

/// Every player's follow scope but the node it follows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Shape {
    pub radius: f32,
    pub margin: f32,
    pub send_hz: u32,
    pub near: f32,
    pub far_every: u32,
}

impl Shape {
    fn new(radius: f32, tick_hz: u32) -> Shape {
        Shape {
            radius,
            margin: radius * MARGIN_SHARE,
            send_hz: SEND_HZ.min(tick_hz).max(1),
            near: radius * NEAR_SHARE,
            far_every: FAR_EVERY,
        }
    }

    /// The scope of the player whose avatar is `node`.
    fn scope(&self, node: NodeId) -> FollowScope {
        FollowScope {
            follow: Follow {
                node,
                radius: self.radius,
                margin: Some(self.margin),
            },
            send_hz: Some(self.send_hz),
            tiers: Some([
                Tier {
                    within: Some(self.near),
                    every: 1,
                },
                Tier {
                    within: None,
                    every: self.far_every,
                },
            ]),
        }
    }
}

/// Runs both modes against the server at `url` and reports them side by side.
pub(crate) async fn run(s: &Scenario, url: &str, fd: FdLimit) -> anyhow::Result<BenchReport> {
    if s.subscribers > s.nodes {
        bail!(
            "{} players need as many avatars, but the room has {} nodes",
            s.subscribers,
            s.nodes
        );
    }
    let needed = s.subscribers as u64 + FD_HEADROOM;
    if !fd.allows(needed) {
        bail!(
            "{} players need {needed} open files; raise the hard limit (ulimit -Hn)",
            s.subscribers
        );
    }
    let layout = Arc::new(Layout::build(s.nodes, s.subscribers, s.edit_rate, s.seed));
    let shape = Shape::new(layout.radius, s.tick_hz);
    let mut report = BenchReport::new("s2", figures::workload(s, &layout, &shape));
    let errors = Arc::new(ErrorTally::default());
    let world = layout.world.clone();
    let measured = setup::with_world(s, url, 1, world, async |client, _, rooms| {
        let env = window::Env {
            s,
            client,
            layout: &layout,
            rooms,
            shape: &shape,
            clock: Clock::start(),
            errors: &errors,
        };
        let whole = env.measure(Mode::WholeRoom).await?;
        let follow = env.measure(Mode::Follow).await?;
        Ok((whole, follow))
    })
    .await?;
    figures::report(&measured.0, &measured.1, &errors.snapshot(), &mut report);
    Ok(report)
}
