//! The one error type of the storage layer.
//!
//! Invariant: every error that comes from a file names that file (its full path, or its
//! simulated path), and every error about a byte in a file names the byte offset, so that
//! an operator can find what the server refused without reading code.

use std::io;
use std::path::PathBuf;
use std::sync::Arc;

/// Why the storage layer refused, failed or stopped.
#[derive(Debug, thiserror::Error)]
pub enum PersistError {
    /// A call to the storage (read, write, fsync, rename, ...) failed.
    #[error("{path}: {op} failed: {source}")]
    Io {
        /// The file or directory the call was on.
        path: PathBuf,
        /// The call that failed, e.g. `fsync` or `rename`.
        op: &'static str,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// A file cannot be read back exactly: bad header, checksum, length, sequence, kind.
    #[error("{path} at byte {offset}: {what}")]
    Corrupt {
        /// The file that cannot be read back.
        path: PathBuf,
        /// The byte offset in that file where the problem starts.
        offset: u64,
        /// What is wrong there.
        what: String,
    },
    /// The data dir is locked by another process.
    #[error(
        "data dir {dir} is locked (its LOCK file) by another canopy process{}; stop it or choose another data dir",
        match pid { Some(p) => format!(" (pid {p})"), None => String::new() }
    )]
    Locked {
        /// The data dir.
        dir: PathBuf,
        /// The holder's process id as its LOCK file records it, when readable.
        pid: Option<u32>,
    },
    /// The log and snapshots disagree in a way recovery cannot repair.
    #[error("room {room:?}: {what}")]
    Inconsistent {
        /// The room whose files disagree.
        room: String,
        /// How they disagree.
        what: String,
    },
    /// An earlier write or fsync failed; nothing more is accepted (fsyncgate: the state of
    /// what was written is unknown, so it is never retried).
    #[error("storage failed earlier and accepts nothing more: {0}")]
    Failed(Arc<PersistError>),
    /// The queue of records not yet durable is full; the caller should refuse the edit
    /// as `overloaded` and try again later.
    #[error("log queue full: {queued} of {capacity} bytes are waiting for the disk")]
    Overloaded {
        /// Bytes of records waiting for the disk.
        queued: u64,
        /// The queue's capacity in bytes.
        capacity: u64,
    },
    /// One record is larger than the log accepts.
    #[error("a record of {size} bytes is larger than the limit of {limit} bytes")]
    TooLarge {
        /// The record's size in bytes, framing included.
        size: u64,
        /// The largest record the log accepts, in bytes.
        limit: u64,
    },
    /// The caller broke the layer's contract (an unknown room, a room created twice, an
    /// invalid room id).
    #[error("{0}")]
    Misuse(String),
    /// The layer was shut down.
    #[error("storage is shut down")]
    Closed,
}

impl PersistError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, op: &'static str, source: io::Error) -> Self {
        PersistError::Io {
            path: path.into(),
            op,
            source,
        }
    }

    /// What turns an I/O error of `op` on `path` (relative to `storage`'s data dir) into
    /// a [`PersistError`] naming the whole path, for `map_err`.
    pub(crate) fn io_at(
        storage: &dyn crate::storage::Storage,
        path: &std::path::Path,
        op: &'static str,
    ) -> impl FnOnce(io::Error) -> PersistError + use<> {
        let path = storage.display(path);
        move |e| PersistError::io(path, op, e)
    }

    /// A corruption at `offset` of `path`.
    pub fn corrupt(path: impl Into<PathBuf>, offset: u64, what: impl Into<String>) -> Self {
        PersistError::Corrupt {
            path: path.into(),
            offset,
            what: what.into(),
        }
    }

    /// The raw OS error code under this error, if any (ENOSPC is 28 on Linux).
    pub fn raw_os_error(&self) -> Option<i32> {
        match self {
            PersistError::Io { source, .. } => source.raw_os_error(),
            PersistError::Failed(inner) => inner.raw_os_error(),
            _ => None,
        }
    }
}

/// Results of the storage layer.
pub type Result<T, E = PersistError> = std::result::Result<T, E>;
