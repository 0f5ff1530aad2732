//! The room crate's integration tests, in one binary: rooms ticked by hand
//! (`checked_tick`, which runs `Room::assert_well_formed` after every tick) against
//! models of the acknowledged batches and of every subscriber's mirror; logged rooms on a
//! real and a failing data dir; a relay's replica against its owner.

mod room_support;

mod interest;
mod persist_failure;
mod persist_live_deltas;
mod persist_restore;
mod room_replica;
mod room_shares;
mod room_tick;
