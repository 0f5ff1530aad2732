//! Octree (issue 3).
