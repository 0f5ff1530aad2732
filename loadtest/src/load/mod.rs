//! The load: the rooms the run builds (`world`, `setup`), the clients that put load on
//! them (`editor`, `queries` and their `query_mix`, `subscriber` and its `fleet`,
//! `wsopen`), and what those clients keep to measure with (`stamps`, `mirror`).
//!
//! Invariant: nothing in this group judges the server; it offers the scenario's load
//! and records what came back, and `observe` and `report` turn that into verdicts.

pub mod editor;
pub mod fleet;
pub mod mirror;
pub mod queries;
pub mod query_mix;
pub mod setup;
pub mod stamps;
pub mod subscriber;
pub mod world;
pub mod wsopen;
