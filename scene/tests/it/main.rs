//! The scene core's integration tests, in one binary: the hierarchy against a naive
//! recursive model (random forests, edits and batches, the parallel sweep), and the
//! octree against a brute-force scan of every query.

mod batch_state_machine;
mod octree_props;
mod scene_batch;
mod scene_parallel;
mod scene_props;
