//! [`Scenario::validate`]: a scenario's flags checked before anything starts, by group
//! (the load, a soak's clients, the target), each refusal naming the flag.

use anyhow::{bail, ensure};

use crate::scenario::{EncodingArg, FormatArg, Scenario};
use crate::soak::hostile::runner::HOLD_BEYOND_BOUND;

impl Scenario {
    /// Refuses scenarios the harness cannot run meaningfully.
    pub(crate) fn validate(&self) -> anyhow::Result<()> {
        ensure!(self.rooms >= 1, "--rooms must be at least 1");
        ensure!(self.decode_every >= 1, "--decode-every must be at least 1");
        if self.encoding == EncodingArg::Compact {
            ensure!(
                self.format == FormatArg::Bincode,
                "--encoding compact needs --format bincode (compact transforms are bincode only)"
            );
            ensure!(
                self.decode_every > 1,
                "--encoding compact applies to the subscribers that only count frames: \
                 give --decode-every 2 or more"
            );
        }
        self.validate_load()?;
        if self.soak {
            self.validate_soak()?;
        }
        self.validate_target()?;
        Ok(())
    }

    /// The world and the load: sizes, rates and fractions.
    fn validate_load(&self) -> anyhow::Result<()> {
        ensure!(self.nodes >= 1, "--nodes must be at least 1");
        ensure!(self.fanout >= 1, "--fanout must be at least 1");
        ensure!(self.depth >= 1, "--depth must be at least 1");
        ensure!(
            (1..=240).contains(&self.tick_hz),
            "--tick-hz must be 1 to 240"
        );
        ensure!(
            self.duration > 0.0 && self.duration.is_finite(),
            "--duration must be positive"
        );
        ensure!(
            (0.0..=1.0).contains(&self.slow_readers),
            "--slow-readers is a fraction from 0 to 1"
        );
        ensure!(
            self.slow_pause_ms < self.slow_period_ms,
            "--slow-pause-ms must be shorter than --slow-period-ms"
        );
        ensure!(
            self.edit_rate >= 0.0 && self.edit_rate.is_finite(),
            "--edit-rate must be >= 0"
        );
        ensure!(
            self.queries >= 0.0 && self.queries.is_finite(),
            "--queries must be >= 0"
        );
        ensure!(self.region_size > 0.0, "--region-size must be positive");
        ensure!(
            self.connect_concurrency >= 1,
            "--connect-concurrency must be >= 1"
        );
        if self.queries > 0.0 && self.query_mix.total() == 0 {
            bail!(
                "--query-mix gives every kind weight 0 but --queries is {}",
                self.queries
            );
        }
        if self.editors > 0 && self.batch_size == 0 {
            bail!("--batch-size must be at least 1 when there are editors");
        }
        Ok(())
    }

    /// A soak's storms, stalls, invalid batches and hostile clients.
    fn validate_soak(&self) -> anyhow::Result<()> {
        ensure!(self.storm_every > 0.0, "--storm-every must be positive");
        ensure!(
            (0.0..=1.0).contains(&self.storm_fraction)
                && (0.0..=1.0).contains(&self.stalled_readers)
                && (0.0..=1.0).contains(&self.invalid_batches),
            "--storm-fraction, --stalled-readers and --invalid-batches are fractions"
        );
        ensure!(
            self.stall_every > self.stall_secs(),
            "--stall-every must exceed the stall"
        );
        ensure!(self.overquota_rate >= 0.0, "--overquota-rate must be >= 0");
        if !self.hostile_kinds().is_empty() {
            ensure!(
                self.hostile_close_within > 0.0 && self.hostile_close_within.is_finite(),
                "--hostile-close-within must be positive"
            );
            // Each kind needs one whole attempt inside the load window.
            let need = self.hostile_close_within + HOLD_BEYOND_BOUND.as_secs_f64() + 20.0;
            ensure!(
                self.duration >= need,
                "with hostile clients --duration must be at least {need:.0} s \
                 (--hostile-close-within plus 25 s), or give --no-hostile"
            );
            ensure!(
                (2..=1023).contains(&self.noop_depth),
                "--noop-depth must be 2 to 1023"
            );
            ensure!(
                self.noop_ops >= 1 && self.noop_batches >= 1 && self.idle_sockets >= 1,
                "--noop-ops, --noop-batches and --idle-sockets must be at least 1"
            );
        }
        // Slow readers must stay below the write deadline, or the server drops
        // them as it should drop only the stalled ones.
        ensure!(
            self.slow_pause_ms < self.write_deadline * 1000,
            "in a soak --slow-pause-ms ({}) must be under --write-deadline ({} s)",
            self.slow_pause_ms,
            self.write_deadline
        );
        Ok(())
    }

    /// Where the run points and what a benchmark needs of it.
    fn validate_target(&self) -> anyhow::Result<()> {
        if self.bench.is_some() {
            ensure!(
                !self.spawn && !self.soak,
                "--bench needs --url or --server-bin (the server's RSS must be its own), not --spawn or --soak"
            );
            ensure!(self.rss_abort_mib > 0.0, "--rss-abort-mib must be positive");
            ensure!(
                self.heavy_in_flight >= 1,
                "--heavy-in-flight must be at least 1"
            );
        }
        if let Some(url) = &self.url {
            crate::target::urls::parse(url)?;
        }
        if let Some(n) = self.cluster_spawn {
            ensure!((1..=16).contains(&n), "--cluster-spawn takes 1 to 16 nodes");
        }
        if let Some(bench) = self.bench {
            ensure!(
                bench.is_cluster() || self.node_count() == 1,
                "--bench {} targets one server: give one --url (the cluster benchmarks \
                 take several)",
                bench.name()
            );
        }
        Ok(())
    }
}
