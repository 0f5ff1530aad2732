//! Scene core (issue 2).
