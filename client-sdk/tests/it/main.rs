//! The Rust client's integration tests, in one binary: the SDK against an in-process
//! server (HTTP, WebSocket, reconnect and resume, compact transforms, TLS) and against a
//! scripted fake server (a room moving between cluster nodes among them); `common` starts
//! the servers.

mod common;

mod access;
mod around;
mod compact_live;
mod compact_resume;
mod fake_server;
mod http_api;
mod interpolation;
mod mirror_compact;
mod mirror_sync;
mod moving;
mod reconnect;
mod subscribe_v1_2;
mod tls;
mod ws_requests;
