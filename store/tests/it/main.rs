//! The storage layer's integration tests, in one binary: crashes at every I/O operation
//! on a simulated disk against a model of the acknowledged records, injected write and
//! fsync failures, corrupt files, and random workloads recovered against the model.

mod persist_model;

mod permissions;
mod persist_corrupt;
mod persist_crash;
mod persist_faults;
mod persist_props;
