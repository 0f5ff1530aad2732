//! The harness's file-descriptor limit: every subscriber is a socket, and 5,000 of them
//! pass the usual soft limit of 1,024 long before the hard one.
//!
//! Invariant: the soft limit is only ever raised (to the hard limit), never lowered; a
//! server the harness starts as a child process inherits the raised limit.

use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
use serde::Serialize;

/// The open-files limit before and after raising it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub(crate) struct FdLimit {
    pub soft_before: Option<u64>,
    pub soft: Option<u64>,
    pub hard: Option<u64>,
}

impl FdLimit {
    /// Whether `needed` descriptors fit under the soft limit (`None`: unlimited).
    pub(crate) fn allows(&self, needed: u64) -> bool {
        self.soft.is_none_or(|soft| needed <= soft)
    }
}

/// Raises this process's soft `RLIMIT_NOFILE` to its hard limit and says what it is.
pub(crate) fn raise_to_hard() -> FdLimit {
    let before = getrlimit(Resource::Nofile);
    if before.current != before.maximum {
        let raised = Rlimit {
            current: before.maximum,
            maximum: before.maximum,
        };
        if let Err(e) = setrlimit(Resource::Nofile, raised) {
            tracing::warn!(error = %e, "could not raise the open-files limit");
        }
    }
    let now = getrlimit(Resource::Nofile);
    FdLimit {
        soft_before: before.current,
        soft: now.current,
        hard: now.maximum,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raising_never_lowers_and_reaches_the_hard_limit() {
        let limit = raise_to_hard();
        assert!(limit.soft >= limit.soft_before || limit.soft.is_none());
        assert_eq!(limit.soft, limit.hard);
        assert!(limit.allows(16));
    }
}
