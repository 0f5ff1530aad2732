//! The server's integration tests, in one binary: a module per concern, and the
//! support they share (a server on a free port, models of the scene and of stored
//! state, a NATS cluster of real processes). One binary links once, which is most of
//! what building the tests costs.

mod cluster_support;
mod common;
mod persist_kill_support;

mod access;
mod access_jwt;
mod api_http;
mod api_ws;
mod binary_memory;
mod binary_process;
mod bounds_http;
mod bounds_ws;
mod cluster;
mod cluster_access;
mod cluster_failover;
mod cluster_failures;
mod cluster_moving;
mod cluster_placement;
mod edit_quotas;
mod fair_shares;
mod in_scope_shares;
mod interest_ws;
mod layers;
mod mirror;
mod operations;
mod persist_kill;
mod queries_brute;
mod readme_tour;
mod resume;
mod slow_clients;
mod tidy;
mod tls;
mod ws_session;
