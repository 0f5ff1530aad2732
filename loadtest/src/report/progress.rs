//! The live view of a run: an indicatif progress bar over the load window with the last
//! second's rates, or, when stderr is not a terminal (CI logs), a plain status line
//! every five seconds.
//!
//! Invariant: the progress display only reads counters; it never takes a subscriber's
//! lock, so it cannot slow a reader down.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::load::editor::EditStats;
use crate::load::queries::QueryStats;
use crate::load::subscriber::SubShared;
use crate::observe::errors::ErrorTally;
use crate::stop::Stop;

/// The counters the display reads.
pub(crate) struct Sources {
    pub edits: Arc<EditStats>,
    pub queries: Arc<QueryStats>,
    pub errors: Arc<ErrorTally>,
    pub subs: Vec<Arc<SubShared>>,
}

#[derive(Clone, Copy, Default)]
struct Totals {
    acks: u64,
    queries: u64,
    frames: u64,
    bytes: u64,
}

impl Sources {
    fn totals(&self) -> Totals {
        let mut t = Totals {
            acks: self.edits.acks.load(Ordering::Relaxed),
            queries: self
                .queries
                .kinds
                .iter()
                .map(|k| k.answered.load(Ordering::Relaxed))
                .sum(),
            ..Totals::default()
        };
        for s in &self.subs {
            t.frames += s.delta_frames.load(Ordering::Relaxed);
            t.bytes += s.delta_bytes.load(Ordering::Relaxed);
        }
        t
    }
}

/// Shows progress over `window` until `stop` turns true.
pub(crate) async fn run(sources: Sources, window: Duration, mut stop: Stop) {
    let bar = ProgressBar::with_draw_target(
        Some(window.as_millis() as u64),
        ProgressDrawTarget::stderr(),
    );
    bar.set_style(
        ProgressStyle::with_template("{elapsed:>4} [{bar:30}] {msg}")
            .expect("static template")
            .progress_chars("=> "),
    );
    // indicatif draws nothing when stderr is not a terminal; CI logs get plain lines.
    let plain = bar.is_hidden();
    let started = Instant::now();
    let mut last = sources.totals();
    let mut last_at = Instant::now();
    let mut last_plain = Instant::now();
    let subs = sources.subs.len().max(1) as f64;
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        tokio::select! {
            _ = stop.raised() => break,
            _ = tick.tick() => {}
        }
        let now = sources.totals();
        let dt = last_at.elapsed().as_secs_f64().max(1e-3);
        let msg = format!(
            "{:.0} acks/s, {:.0} queries/s, {:.1} frames/s and {:.1} KiB/s per subscriber, {} errors",
            (now.acks - last.acks) as f64 / dt,
            (now.queries - last.queries) as f64 / dt,
            (now.frames - last.frames) as f64 / dt / subs,
            (now.bytes - last.bytes) as f64 / dt / subs / 1024.0,
            sources.errors.total()
        );
        last = now;
        last_at = Instant::now();
        bar.set_position(started.elapsed().as_millis() as u64);
        bar.set_message(msg.clone());
        if plain && last_plain.elapsed() >= Duration::from_secs(5) {
            eprintln!("[{:>5.1} s] {msg}", started.elapsed().as_secs_f64());
            last_plain = Instant::now();
        }
    }
    bar.finish_and_clear();
}
