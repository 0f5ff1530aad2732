//! The soak's hostile clients (the attacks hostile-client reviews tried): each kind is a
//! module of its own that attacks the server once per call and says what the server
//! did; `runner` repeats every kind for as long as the load runs, `rooms` builds the
//! rooms they attack, `raw_ws` and `watch` are their shared plumbing, `tally` turns
//! their attempts into the report's rows and checks.
//!
//! Invariant: every attempt ends with what the server did (closed after N s, answered
//! an error, kept it open, ...) and whether that is what a bounded server must do, by
//! the kind's stated `RULE`; an attempt the run cut short, or that the harness could
//! not observe, is undecided and never counted as bounded, so a kind passes only on
//! evidence.

use clap::ValueEnum;
use serde::Serialize;

pub(crate) mod deleted_room;
pub(crate) mod half_headers;
pub(crate) mod idle_tcp;
pub(crate) mod idle_ws;
pub(crate) mod noop_batches;
pub(crate) mod ping_flood;
pub(crate) mod raw_ws;
pub(crate) mod resume_flood;
pub(crate) mod rooms;
pub(crate) mod runner;
pub(crate) mod snapshot_hogs;
pub(crate) mod subscribe_flood;
pub(crate) mod tally;
pub(crate) mod trickled_headers;
pub(crate) mod unfinished_message;
pub(crate) mod unread_nodes;
pub(crate) mod unread_queries;
pub(crate) mod unread_subscriber;
pub(crate) mod watch;

/// The kinds of hostile client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Kind {
    /// One socket sends hundreds of `subscribe` messages and never reads.
    SubscribeFlood,
    /// One socket sends thousands of `ping` messages and never reads.
    PingFlood,
    /// Whole-room queries and pings never read, then the socket is closed.
    UnreadQueries,
    /// An HTTP request whose headers stop halfway.
    HalfHeaders,
    /// An HTTP request whose header lines come one every few seconds (slowloris).
    TrickledHeaders,
    /// TCP connections that send nothing.
    IdleTcp,
    /// WebSocket connections that answer pings but never subscribe.
    IdleWs,
    /// Batches of 262,143 `set_parent` ops that change nothing, deep in a tree.
    NoopBatches,
    /// An unsubscribed socket of a room that is deleted and re-created.
    DeletedRoom,
    /// `GET /rooms/{room}/nodes` sent whole and never read.
    UnreadNodes,
    /// A whole-room subscriber that reads nothing, pings included.
    UnreadSubscriber,
    /// A WebSocket message begun and never finished, kept alive with pongs.
    UnfinishedMessage,
    /// Many whole-room subscribers of one caller, each with a mask of its own, reading
    /// nothing or trickling.
    SnapshotHogs,
    /// Connections that resend `subscribe` with a recent `since` every 30 ms.
    ResumeFlood,
}

impl Kind {
    pub(crate) const ALL: [Kind; 14] = [
        Kind::SubscribeFlood,
        Kind::PingFlood,
        Kind::UnreadQueries,
        Kind::HalfHeaders,
        Kind::TrickledHeaders,
        Kind::IdleTcp,
        Kind::IdleWs,
        Kind::NoopBatches,
        Kind::DeletedRoom,
        Kind::UnreadNodes,
        Kind::UnreadSubscriber,
        Kind::UnfinishedMessage,
        Kind::SnapshotHogs,
        Kind::ResumeFlood,
    ];

    /// The kind's name in the report and on the command line.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::SubscribeFlood => "subscribe-flood",
            Kind::PingFlood => "ping-flood",
            Kind::UnreadQueries => "unread-queries",
            Kind::HalfHeaders => "half-headers",
            Kind::TrickledHeaders => "trickled-headers",
            Kind::IdleTcp => "idle-tcp",
            Kind::IdleWs => "idle-ws",
            Kind::NoopBatches => "noop-batches",
            Kind::DeletedRoom => "deleted-room",
            Kind::UnreadNodes => "unread-nodes",
            Kind::UnreadSubscriber => "unread-subscriber",
            Kind::UnfinishedMessage => "unfinished-message",
            Kind::SnapshotHogs => "snapshot-hogs",
            Kind::ResumeFlood => "resume-flood",
        }
    }

    /// What a bounded server must do with this kind, as the verdict applies it.
    pub(crate) fn rule(self) -> &'static str {
        match self {
            Kind::SubscribeFlood => subscribe_flood::RULE,
            Kind::PingFlood => ping_flood::RULE,
            Kind::UnreadQueries => unread_queries::RULE,
            Kind::HalfHeaders => half_headers::RULE,
            Kind::TrickledHeaders => trickled_headers::RULE,
            Kind::IdleTcp => idle_tcp::RULE,
            Kind::IdleWs => idle_ws::RULE,
            Kind::NoopBatches => noop_batches::RULE,
            Kind::DeletedRoom => deleted_room::RULE,
            Kind::UnreadNodes => unread_nodes::RULE,
            Kind::UnreadSubscriber => unread_subscriber::RULE,
            Kind::UnfinishedMessage => unfinished_message::RULE,
            Kind::SnapshotHogs => snapshot_hogs::RULE,
            Kind::ResumeFlood => resume_flood::RULE,
        }
    }
}

/// One hostile attempt and what the server did with it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Attempt {
    pub kind: Kind,
    /// What the server did, in a few words (`closed`, `kept_open`, `answered_forbidden`).
    pub did: String,
    /// When, in seconds since the attempt began, where that has a moment.
    pub after_s: Option<f64>,
    /// Whether that is what a bounded server must do; `None`: undecided.
    pub bounded: Option<bool>,
    /// What else the attempt measured.
    pub detail: String,
}

impl Attempt {
    pub(crate) fn new(
        kind: Kind,
        did: &str,
        after_s: Option<f64>,
        bounded: Option<bool>,
    ) -> Attempt {
        Attempt {
            kind,
            did: did.to_string(),
            after_s,
            bounded,
            detail: String::new(),
        }
    }

    /// An attempt the harness could not carry out (undecided, with the reason).
    pub(crate) fn harness_error(kind: Kind, error: &anyhow::Error) -> Attempt {
        Attempt::new(kind, "harness_error", None, None).with(format!("{error:#}"))
    }

    /// The same attempt with `detail`.
    pub(crate) fn with(mut self, detail: String) -> Attempt {
        self.detail = detail;
        self
    }
}
