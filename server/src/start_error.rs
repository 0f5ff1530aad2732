//! Why a server cannot start: a configuration that cannot serve, or a data dir that
//! cannot be read back. The binary prints it and exits; every variant names the file
//! or room at fault.

/// Why a server's configuration cannot serve (`AppState::try_new`); the binary prints
/// it and exits.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// `--jwt-hs256-secret` or `--jwt-jwks-file` cannot be used.
    #[error(transparent)]
    Jwt(#[from] crate::access::jwt::JwtKeysError),
    /// `--tls-cert` and `--tls-key` cannot serve TLS.
    #[error(transparent)]
    Tls(#[from] crate::net::tls::TlsError),
    /// The data dir cannot be opened or read back (the error names the file).
    #[error(transparent)]
    Storage(#[from] canopy_store::PersistError),
    /// A recovered room cannot be rebuilt from its snapshot and log.
    #[error("room {room}: {error}")]
    Room {
        /// The room's id.
        room: String,
        /// Where its rebuild stopped.
        error: canopy_room::RestoreError,
    },
}
