//! Watching a connection a hostile client holds, until the server closes it or the
//! harness gives up, and the attempt that follows.
//!
//! Invariant: the watch never reads from the socket (see `observe::tcp_state` for how
//! it still sees a close), so watching does not change what it watches; `KeptOpen` is
//! said only after the whole hold, and a run that ends first gives `Stopped`.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;

use crate::observe::tcp_state::{Held, TcpTable};
use crate::soak::hostile::raw_ws;
use crate::soak::hostile::runner::HostileCtx;
use crate::soak::hostile::{Attempt, Kind};
use crate::stop::Stop;

/// How often the kernel's tables are read.
pub(crate) const POLL: Duration = Duration::from_millis(500);

/// How a watch ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Watched {
    /// The server closed the connection `after` the attempt began.
    Closed { after: Duration, how: &'static str },
    /// Still open when the hold ran out.
    KeptOpen { held: Duration },
    /// The run ended first.
    Stopped { after: Duration },
    /// The kernel's tables could not tell (no procfs, or not loopback).
    Unobservable,
}

/// Watches the connection from `client` to `server` until the server closes it, `hold`
/// has passed since `began`, or `stop`.
pub(crate) async fn until_closed(
    client: SocketAddr,
    server: SocketAddr,
    began: Instant,
    hold: Duration,
    stop: &mut Stop,
) -> Watched {
    loop {
        match TcpTable::read().verdict(client, server) {
            Held::Closed { how } => {
                return Watched::Closed {
                    after: began.elapsed(),
                    how,
                };
            }
            Held::Unknown => return Watched::Unobservable,
            Held::Open => {}
        }
        if began.elapsed() >= hold {
            return Watched::KeptOpen {
                held: began.elapsed(),
            };
        }
        tokio::select! {
            _ = stop.raised() => return Watched::Stopped { after: began.elapsed() },
            _ = tokio::time::sleep(POLL) => {}
        }
    }
}

/// The attempt of a kind whose rule is "the server closes it within `bound`".
pub(crate) fn closed_within(kind: Kind, watched: Watched, bound: Duration) -> Attempt {
    match watched {
        Watched::Closed { after, how } => Attempt::new(
            kind,
            "closed",
            Some(after.as_secs_f64()),
            Some(after <= bound),
        )
        .with(how.to_string()),
        Watched::KeptOpen { held } => Attempt::new(kind, "kept_open", None, Some(false))
            .with(format!("still open after {:.0} s", held.as_secs_f64())),
        Watched::Stopped { after } => Attempt::new(kind, "cut_short", None, None)
            .with(format!("the run ended after {:.0} s", after.as_secs_f64())),
        Watched::Unobservable => Attempt::new(kind, "unobservable", None, None)
            .with("no /proc/net/tcp entry for the connection".into()),
    }
}

/// An attempt that opens a TCP connection (with `recv_buffer` bytes of receive buffer
/// when given), writes `request` and then watches, reading nothing, until the server
/// closes it; the verdict is [`closed_within`] the bound.
pub(crate) async fn sent_then_watched(
    ctx: &HostileCtx,
    kind: Kind,
    recv_buffer: Option<u32>,
    request: &str,
    stop: &mut Stop,
) -> Attempt {
    let began = Instant::now();
    let mut stream = match raw_ws::connect(ctx.server, recv_buffer).await {
        Ok(s) => s,
        Err(e) => return Attempt::harness_error(kind, &e),
    };
    if let Err(e) = stream.write_all(request.as_bytes()).await {
        return Attempt::harness_error(kind, &e.into());
    }
    let (Ok(client), Ok(server)) = (stream.local_addr(), stream.peer_addr()) else {
        return Attempt::new(kind, "closed", Some(0.0), Some(true));
    };
    let watched = until_closed(client, server, began, ctx.hold, stop).await;
    closed_within(kind, watched, ctx.bound)
}

/// How a watch of many connections ended ([`until_all_closed`]).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct AllWatched {
    /// When the server closed each connection, in the order given; `None`: not seen.
    pub closed: Vec<Option<Duration>>,
    /// The run ended before every connection was closed or the hold ran out.
    pub stopped: bool,
    /// The kernel's tables could not tell.
    pub unobservable: bool,
}

/// Watches every connection of `conns` (client, server) at once, reading the kernel's
/// tables once a [`POLL`] for all of them, until the server closed each, `hold` has
/// passed since `began`, or `stop`.
pub(crate) async fn until_all_closed(
    conns: &[(SocketAddr, SocketAddr)],
    began: Instant,
    hold: Duration,
    stop: &mut Stop,
) -> AllWatched {
    let mut all = AllWatched {
        closed: vec![None; conns.len()],
        stopped: false,
        unobservable: false,
    };
    loop {
        let table = TcpTable::read();
        for (i, &(client, server)) in conns.iter().enumerate() {
            if all.closed[i].is_some() {
                continue;
            }
            match table.verdict(client, server) {
                Held::Closed { .. } => all.closed[i] = Some(began.elapsed()),
                Held::Unknown => {
                    all.unobservable = true;
                    return all;
                }
                Held::Open => {}
            }
        }
        if all.closed.iter().all(Option::is_some) || began.elapsed() >= hold {
            return all;
        }
        tokio::select! {
            _ = stop.raised() => {
                all.stopped = true;
                return all;
            }
            _ = tokio::time::sleep(POLL) => {}
        }
    }
}

impl AllWatched {
    /// The attempt of a kind whose rule is "the server closes every connection within
    /// `bound`": undecided when the run ended first or nothing could be seen.
    pub(crate) fn attempt(&self, kind: Kind, bound: Duration) -> Attempt {
        let open = self.closed.iter().filter(|c| c.is_none()).count();
        let last = self.closed.iter().flatten().max().copied();
        let first = self.closed.iter().flatten().min().copied();
        let span = match (first, last) {
            (Some(a), Some(b)) => format!(
                "{} of {} closed after {:.1}-{:.1} s",
                self.closed.len() - open,
                self.closed.len(),
                a.as_secs_f64(),
                b.as_secs_f64()
            ),
            _ => format!("none of {} closed", self.closed.len()),
        };
        if self.unobservable {
            return Attempt::new(kind, "unobservable", None, None)
                .with("no /proc/net/tcp entry for the connections".into());
        }
        if open > 0 && self.stopped {
            return Attempt::new(kind, "cut_short", None, None).with(span);
        }
        if open > 0 {
            return Attempt::new(kind, "kept_open", None, Some(false)).with(span);
        }
        let last = last.unwrap_or_default();
        Attempt::new(
            kind,
            "closed",
            Some(last.as_secs_f64()),
            Some(last <= bound),
        )
        .with(span)
    }
}
