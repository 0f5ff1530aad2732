//! Canopy's rooms: an independent world each, with its scene, its subscribers and its
//! tick, and the threads that tick them.
//!
//! A [`Room`] is plain synchronous state owned by one tick thread ([`tick_pool`]), which
//! calls [`Room::tick`] once per period; everything else reaches it through its
//! [`RoomShared`]: commands go through its channel and are taken by the next tick, reads
//! take a read lock on its scene.
//!
//! **Architecture invariant**: room code never awaits or does I/O (but for the waits of
//! the edges it hands out, `gate.rs`, `edit_wait.rs`, `outbox/`, `flush.rs`, which the
//! tick never calls), and each room's tick is the only writer of its scene.
//!
//! **API boundary**: the edges (HTTP, WebSocket, cluster) see a room through
//! [`RoomShared`] (admission of edits, the scene's read lock), [`RoomCommand`]s, the
//! [`outbox::Outbox`] they drain, and [`Refusal`], the one shape of a refused request.
//! The room knows no socket, no close code and no cluster encoding: it says why a
//! connection ends with a [`CloseCause`] and hands its records over as typed values.
//!
//! Files, one phase or concept each: `room.rs` (the [`Room`] type), `tick.rs` (the
//! phases in order), `apply.rs` (batches within the op budget), `fanout.rs` (deltas per
//! scope into outboxes), `subscribe.rs` (snapshots within their budget), `subscribers.rs`
//! (who listens), `record.rs` (statistics and the slow tick), `edit.rs` (admitted batches
//! and their replies), `shared.rs` (the handle other threads hold), `scene_state.rs`
//! (hierarchy plus octree), `diff.rs`, `scope.rs`, `interest.rs` (v1.2 send rates and tiers, and the
//! check of a scope), `follow.rs` (scopes that follow a node), `pacing.rs` (changes held
//! between a paced subscriber's sends), `delta.rs`, `merge.rs`, `outbox/` (the
//! slow-client policy), `flush.rs` (outboxes handed to the flushers), `command.rs` (what
//! other tasks send), `packed_ops.rs` (pending ops in their bincode form), `compact.rs`
//! (compact transforms), `resume.rs` (the history a subscription resumes from),
//! `query.rs`, `durable.rs` (the persist phase, snapshot capture and restore), `gate.rs`
//! (the durability gate), `restore_error.rs` (why a rebuild from stored state failed),
//! `metrics.rs`, `tokens.rs`, `refusal.rs`, `edit_wait.rs`, `tick_pool.rs`, `budget.rs`
//! (the fair shares of the server-wide budgets, also used by the edges), and for
//! cluster mode `lease.rs` and `replica.rs`.

mod applied;
mod apply;
pub mod budget;
pub mod close;
pub mod command;
mod compact;
pub mod delta;
pub mod diff;
pub mod durable;
pub mod edit;
pub mod edit_wait;
mod fanout;
pub mod flush;
mod follow;
mod follow_band;
mod follow_index;
mod follow_route;
pub mod gate;
mod in_scope;
pub mod interest;
pub mod lease;
pub mod merge;
pub mod metrics;
pub mod mode;
pub mod outbox;
mod pacing;
pub mod packed_ops;
pub mod query;
mod record;
pub mod records;
pub mod recovered;
pub mod refusal;
pub mod replica;
mod restore_error;
pub mod resume;
mod room;
pub mod scene_state;
pub mod scope;
mod scope_check;
mod shared;
mod sink;
mod stats;
mod subscribe;
mod subscribers;
mod tick;
pub mod tick_pool;
pub mod tokens;

pub use applied::LOGGED_BYTES_PER_OP;
pub use close::CloseCause;
pub use command::{Intent, RoomCommand, SubscribeRequest, SubscriptionSlot};
pub use durable::RoomLog;
pub use edit::{CallerQuotas, EditAnswer, EditQuota, EditReply, EditTicket, PendingEdit};
pub use gate::{DurableGate, FramePassage, JournalMark, LogLink, NotDurable};
pub use mode::Durability;
pub use record::TickReport;
pub use refusal::Refusal;
pub use restore_error::RestoreError;
pub use room::{JOURNAL_STALL_MS, Room, RoomConfig, RoomSpec, valid_room_id};
pub use scene_state::SceneState;
pub use shared::{EditLimits, MAX_QUEUED_COMMANDS, RoomInstance, RoomShared};
pub use stats::RoomStats;
