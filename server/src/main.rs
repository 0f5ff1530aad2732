//! The `canopy` binary: reads its configuration (flags, `CANOPY_*` variables, an optional
//! file), sets up logging, optionally seeds the demo room, and serves until SIGINT or
//! SIGTERM; or runs one of its tools (`canopy config defaults`).

use std::cell::Cell;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

use anyhow::Context;
use canopy_server::config::{Cli, ConfigAction, LogFormat, ServerConfig, Tool};
use canopy_server::state::AppState;

/// mimalloc returns freed memory to the system far more readily than glibc's allocator,
/// whose per-thread arenas kept snapshot and frame buffers resident across reconnect
/// storms in the soak runs, so RSS tracks what the server really holds.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn init_logging(format: LogFormat) {
    use tracing_subscriber::Layer;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let filter = tracing_subscriber::EnvFilter::try_from_env("CANOPY_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // tungstenite logs every message it receives, whole, at trace level: clients' edits
    // have no place in the log, not even at `CANOPY_LOG=trace`.
    let no_messages = tracing_subscriber::filter::filter_fn(|meta| {
        !(*meta.level() == tracing::Level::TRACE && meta.target().starts_with("tungstenite"))
    });
    let layer = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    let layer = match format {
        LogFormat::Json => layer.json().flatten_event(true).boxed(),
        // Colour codes only where a person reads them, never into files or `docker logs`.
        LogFormat::Text => layer.with_ansi(std::io::stderr().is_terminal()).boxed(),
    };
    tracing_subscriber::registry()
        .with(layer.with_filter(filter).with_filter(no_messages))
        .init();
}

/// How often a thread collects its heap at most, and how often it also returns its free
/// pages to the OS at once (rather than after mimalloc's purge delay).
const COLLECT_EVERY: Duration = Duration::from_millis(100);
const PURGE_EVERY: Duration = Duration::from_secs(1);

/// Run by each tokio worker as it goes idle and by each tick thread between ticks:
/// mimalloc gives a page back only once its owning thread has collected the blocks other
/// threads freed into it (a connection's buffers are freed wherever it closes), and a
/// parked thread never does. Throttled, since a collection walks the thread's heap and
/// a busy worker parks thousands of times a second. Measured with loadtest
/// `rss-per-subscriber` (loadtest/README.md): without it the live heap went back from 26.6
/// to 12.7 MiB when 500 subscribers left, but RSS stayed at 76 of its 79.8 MiB peak.
#[allow(unsafe_code)]
fn collect_idle_heap() {
    thread_local! {
        static LAST: Cell<[Option<Instant>; 2]> = const { Cell::new([None, None]) };
    }
    let now = Instant::now();
    let [collected, purged] = LAST.get();
    let due = |last: Option<Instant>, every| last.is_none_or(|t| now.duration_since(t) >= every);
    if !due(collected, COLLECT_EVERY) {
        return;
    }
    let purge = due(purged, PURGE_EVERY);
    LAST.set([Some(now), if purge { Some(now) } else { purged }]);
    // SAFETY: `mi_collect` takes no pointers; it frees and purges only the calling
    // thread's own heap, which mimalloc allows on any thread at any time, and mimalloc
    // is this process's global allocator.
    unsafe { libmimalloc_sys::mi_collect(purge) };
}

/// How often idle workers are woken so that they collect (see [`wake_idle_workers`]).
const WAKE_IDLE_EVERY: Duration = Duration::from_secs(1);

/// Wakes the tokio workers that stayed parked for a whole second, so that each parks
/// again and runs [`collect_idle_heap`]. A worker parked with nothing to do never runs its park hook,
/// yet other threads go on freeing the blocks it allocated (the tick thread drops a
/// closed connection's outbox and frames, the other worker its buffers), and mimalloc
/// gives those pages back only when their owner collects. Measured after 500
/// subscribers left (loadtest `rss-per-subscriber`, a counting allocator in an
/// experiment): the live heap was back to the room's own 13.0 MiB, but one parked
/// worker still owned 82 pages (7.5 MiB) of which 65 held blocks freed by other
/// threads, 4.5 MiB in all, never collected. Two no-op tasks: the second pushes the
/// first out of the spawning worker's LIFO slot into its queue, which makes tokio
/// notify a parked worker to steal it. Only when a worker stayed parked for the whole
/// last second: a busy server's workers park and collect often anyway, and are left alone.
async fn wake_idle_workers() {
    let mut every = tokio::time::interval(WAKE_IDLE_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let metrics = tokio::runtime::Handle::current().metrics();
    let workers = metrics.num_workers();
    let mut seen = vec![0; workers];
    loop {
        every.tick().await;
        let mut asleep = false;
        for (worker, seen) in seen.iter_mut().enumerate() {
            // Odd: parked. Unchanged since the last look: parked all that time, so it
            // has not collected since it went to sleep. A busy server never gets here.
            let count = metrics.worker_park_unpark_count(worker);
            asleep |= count % 2 == 1 && count == *seen;
            *seen = count;
        }
        if asleep {
            for _ in 0..=workers {
                tokio::spawn(async {});
            }
        }
    }
}

/// Turns transparent huge pages off for this process, unless `MIMALLOC_ALLOW_THP` is
/// set (then mimalloc's own option decides). mimalloc marks its arenas `MADV_HUGEPAGE`,
/// and the kernel's khugepaged then fills every 2 MiB range that still holds one live
/// page back up to a whole huge page (`max_ptes_none` is 511 by default), undoing the
/// purges: with 5,000 subscribers gone (loadtest `many-subscribers`) RSS climbed from 43
/// to 58 MiB in 6 MiB steps every 10 s (khugepaged's scan period), 30 MiB of it in huge
/// pages, and the room alone sat at 48 MiB where it needs 24. Off, the room alone is
/// 24 MiB and the 5,000 subscribers peak at 145 MiB instead of 174, at the same p99 and
/// CPU. Redis and MongoDB give their users the same advice.
///
/// It must run before the first allocation, which faults in the arena's first pages
/// (as two huge pages, 4 MiB, when it came first in `main`): hence an ELF constructor
/// ordered before mimalloc's own (priority 101, `prim.c`), and `getenv` rather than
/// `std::env`, which allocates. A single function pointer, so no constructor crate.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
#[used]
#[unsafe(link_section = ".init_array.00100")]
static DISABLE_TRANSPARENT_HUGE_PAGES: extern "C" fn() = {
    extern "C" fn disable() {
        // SAFETY: `getenv` reads the environment, which nothing writes yet (no other
        // thread exists before `main`); PR_SET_THP_DISABLE takes integers only and
        // changes no memory of this process, only which pages the kernel backs it with.
        // A kernel without THP refuses it, and then there is nothing to turn off.
        unsafe {
            if libc::getenv(c"MIMALLOC_ALLOW_THP".as_ptr()).is_null() {
                libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
            }
        }
    }
    disable
};

fn main() -> anyhow::Result<()> {
    canopy_server::set_housekeeping(collect_idle_heap);
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .on_thread_park(collect_idle_heap)
        .build()
        .context("starting the async runtime")?
        // On a worker, not the main thread: the hook above runs on workers only.
        .block_on(async {
            tokio::spawn(wake_idle_workers());
            tokio::spawn(run()).await.context("the server panicked")?
        })
}

async fn run() -> anyhow::Result<()> {
    let cli = Cli::load()?;
    match cli.command {
        Some(Tool::Config {
            action: ConfigAction::Defaults,
        }) => {
            print!("{}", canopy_server::config::defaults_file());
            Ok(())
        }
        Some(Tool::Verify { data_dir }) => {
            let report = canopy_server::durability::verify(&data_dir)?;
            println!("{report}");
            println!("ok: a server can start on {}", data_dir.display());
            Ok(())
        }
        Some(Tool::Snapshot { data_dir }) => {
            init_logging(cli.serve.log_format);
            let done = canopy_server::durability::snapshot_all(&data_dir)?;
            println!("{done}");
            Ok(())
        }
        None => serve(cli.serve).await,
    }
}

async fn serve(config: ServerConfig) -> anyhow::Result<()> {
    init_logging(config.log_format);
    // Every connection is a descriptor, and the usual soft limit (1,024) is far below
    // what a server of thousands of subscribers needs, while the hard limit is usually
    // generous: take all of it, as Go's runtime does for its programs. The connection
    // cap is then fitted to whatever this gives (`admission::fit_to_descriptors`).
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(open_files) => tracing::debug!(open_files, "open-files limit"),
        Err(e) => tracing::warn!(error = %e, "could not raise the open-files limit"),
    }
    if !config.has_access_control() {
        if !config.addr.ip().is_loopback() && !config.insecure_open {
            anyhow::bail!(
                "refusing to listen on {} without an admin token: set --admin-token \
                 (CANOPY_ADMIN_TOKEN) or JWT keys, listen on a loopback address, or pass \
                 --insecure-open",
                config.addr
            );
        }
        tracing::warn!(
            "NO ADMIN TOKEN: the server runs OPEN; anyone who can reach {} may create, \
             edit and delete rooms",
            config.addr
        );
        if !config.addr.ip().is_loopback() && config.allowed_hosts.is_empty() {
            // Without a Host check a web page anywhere can reach this server through
            // DNS rebinding (a name of its own that resolves to this address).
            tracing::warn!(
                "open server on {} without --allowed-hosts: requests for any Host name are \
                 served; list the names clients use (--allowed-hosts) to refuse the others",
                config.addr
            );
        }
    }
    let listener = tokio::net::TcpListener::bind(config.addr)
        .await
        .with_context(|| format!("binding {}", config.addr))?;
    let addr = listener.local_addr()?;
    let state = AppState::try_new(config.clone())?;
    if config.demo {
        let nodes = canopy_server::demo::create(&state).context("creating the demo room")?;
        tracing::info!(nodes, "demo room `demo` is running");
    }
    tracing::info!(
        %addr,
        open = !config.has_access_control(),
        version = env!("CARGO_PKG_VERSION"),
        protocol = canopy_protocol::PROTOCOL_VERSION,
        tick_threads = state.pool.threads(),
        "canopy listening"
    );
    canopy_server::net::run(listener, state, canopy_server::net::shutdown_signal()).await?;
    Ok(())
}
