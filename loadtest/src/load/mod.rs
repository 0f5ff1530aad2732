//! The load: the rooms the run builds (`world`, `setup`), the clients that put load on
//! them (`editor`, `queries` and their `query_mix`, `subscriber` and its `fleet`, on
//! the raw sockets of `crate::rawws`), and what those clients keep to measure with
//! (`stamps`, `mirror`).
//!
//! Invariant: nothing in this group judges the server; it offers the scenario's load
//! and records what came back, and `observe` and `report` turn that into verdicts.

pub(crate) mod editor;
pub(crate) mod fleet;
pub(crate) mod mirror;
pub(crate) mod queries;
pub(crate) mod query_mix;
pub(crate) mod setup;
pub(crate) mod stamps;
pub(crate) mod subscriber;
pub(crate) mod world;
