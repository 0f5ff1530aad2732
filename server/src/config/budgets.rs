//! The flags of the fair shares: how much of each server-wide budget one caller and one
//! room may hold, how many whole-room reads run at once, and the pace a reader must
//! keep (docs/configuration.md, "Fair shares").
//!
//! Invariant: every budget a client can consume is a [`canopy_room::budget::SharedBudget`]
//! made here from these flags once per server, so each caller and each room holds at
//! most `1/--caller-share-divisor` and `1/--room-share-divisor` of it.

use std::sync::Arc;
use std::time::Duration;

use canopy_room::budget::{SharedBudget, Shares};

use super::values::{at_least_one, positive_seconds};
use crate::net::pace::{BytesPerSec, Pace};

/// The default of `--whole-room-reads`.
pub const DEFAULT_WHOLE_ROOM_READS: usize = 4;
/// The default of `--min-read-rate-bytes`: 64 KiB/s, about a 0.5 Mbit/s link.
pub const DEFAULT_MIN_READ_RATE: u64 = 64 * 1024;
/// The default of `--max-partial-message-bytes`: 256 MiB (a caller's share, 32 MiB,
/// holds two messages of the largest size allowed).
pub const DEFAULT_PARTIAL_MESSAGE_BYTES: usize = 256 << 20;

/// The fair-share flags.
#[derive(Clone, Debug, clap::Args)]
pub struct BudgetFlags {
    /// A caller (its JWT's `sub`, its token, or its address when anonymous) holds at
    /// most 1/N of each server-wide budget (unsent snapshot bytes, whole-room read
    /// slots) and of each room's in-scope entries; past it, its request answers
    /// `overloaded`.
    #[arg(long, env = "CANOPY_CALLER_SHARE_DIVISOR", default_value_t = Shares::DEFAULT_DIVISOR as usize, value_parser = at_least_one)]
    pub caller_share_divisor: usize,

    /// A room holds at most 1/N of each server-wide budget; past it, its new snapshots
    /// wait and its whole-room reads answer `overloaded`.
    #[arg(long, env = "CANOPY_ROOM_SHARE_DIVISOR", default_value_t = Shares::DEFAULT_DIVISOR as usize, value_parser = at_least_one)]
    pub room_share_divisor: usize,

    /// Whole-room reads (`GET /rooms/{room}/nodes` and `/octree`) served at once,
    /// server-wide; one more, or one over its caller's or room's share, answers
    /// `503 overloaded` at once (no queue).
    #[arg(long, env = "CANOPY_WHOLE_ROOM_READS", default_value_t = DEFAULT_WHOLE_ROOM_READS, value_parser = at_least_one)]
    pub whole_room_reads: usize,

    /// The slowest a reader may take a WebSocket message (a snapshot) or a whole-room
    /// answer, in bytes a second on average, after a grace of the write deadline
    /// (`--ws-write-deadline-secs`; `--request-timeout-secs` for HTTP); a slower one is
    /// cut off. 0: no minimum (only the no-progress deadline).
    #[arg(long, env = "CANOPY_MIN_READ_RATE_BYTES", default_value_t = DEFAULT_MIN_READ_RATE)]
    pub min_read_rate_bytes: u64,

    /// Bytes of WebSocket messages begun and not yet complete (fragments, or a frame's
    /// payload still arriving) the server holds, server-wide; a connection whose
    /// caller's unfinished messages pass its share is closed with 1013 `overloaded`.
    #[arg(long, env = "CANOPY_MAX_PARTIAL_MESSAGE_BYTES", default_value_t = DEFAULT_PARTIAL_MESSAGE_BYTES, value_parser = at_least_one)]
    pub max_partial_message_bytes: usize,

    /// Ids a room's region, follow and frustum subscribers may hold in their in-scope
    /// sets (subscribers of one region share one set, counted once, charged to the
    /// caller that added it; a follow or frustum subscriber's set is its own); a
    /// subscription that would add a set past it, or whose caller holds its share
    /// (1/`--caller-share-divisor`), answers `overloaded`.
    #[arg(long, env = "CANOPY_MAX_IN_SCOPE_ENTRIES_PER_ROOM", default_value_t = canopy_room::RoomConfig::DEFAULT_MAX_IN_SCOPE_ENTRIES, value_parser = at_least_one)]
    pub max_in_scope_entries_per_room: usize,

    /// Seconds a client has to complete a WebSocket message once its first byte
    /// arrived (pongs in between do not count as progress); past it the connection is
    /// closed with 1008 `message not completed in time`. Checked at each ping.
    #[arg(long = "ws-message-deadline-secs", env = "CANOPY_WS_MESSAGE_DEADLINE_SECS", default_value = "30", value_parser = positive_seconds)]
    pub ws_message_deadline: Duration,
}

impl BudgetFlags {
    /// The shares of a budget of `ceiling` units.
    pub fn shares(&self, ceiling: usize) -> Shares {
        Shares::divided(
            u64::try_from(ceiling).unwrap_or(u64::MAX),
            self.caller_share_divisor as u64,
            self.room_share_divisor as u64,
        )
    }

    /// The server's unsent snapshot bytes: `ceiling` bytes, shared out by the divisors.
    pub fn snapshot_budget(&self, ceiling: usize) -> Arc<SharedBudget> {
        canopy_room::RoomConfig::snapshot_budget(
            ceiling,
            self.caller_share_divisor as u64,
            self.room_share_divisor as u64,
        )
    }

    /// The server's whole-room read slots.
    pub fn whole_room_slots(&self) -> Arc<SharedBudget> {
        SharedBudget::new("whole-room read slots", self.shares(self.whole_room_reads))
    }

    /// The server's budget of bytes of unfinished WebSocket messages.
    pub fn partial_messages(&self) -> Arc<SharedBudget> {
        SharedBudget::new(
            "bytes of unfinished messages",
            self.shares(self.max_partial_message_bytes),
        )
    }

    /// The pace of a reader with a stall allowance of `stall`.
    pub fn pace(&self, stall: Duration) -> Pace {
        Pace {
            stall,
            min_rate: (self.min_read_rate_bytes > 0)
                .then_some(BytesPerSec(self.min_read_rate_bytes)),
        }
    }
}

impl super::ServerConfig {
    /// The pace a WebSocket reader must keep: the write deadline, then the minimum rate.
    pub fn ws_pace(&self) -> Pace {
        self.budgets.pace(self.ws_write_deadline)
    }
}
