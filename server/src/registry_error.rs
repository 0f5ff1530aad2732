//! [`RegistryError`]: why the server's registry of rooms (`state.rs`) or the cluster's
//! could not create, find or delete a room, and the contract's code for each reason.

use canopy_protocol::ErrorCode;

/// Why a room could not be created, found or deleted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RegistryError {
    /// The id is not 1 to 64 characters of `[A-Za-z0-9_-]` (`bad_request`).
    #[error("room id {0:?} is not 1 to 64 characters of [A-Za-z0-9_-]")]
    BadRoomId(String),
    /// A tick rate outside 1 to 240 (`invalid_value`).
    #[error("tick_hz must be 1 to 240, got {0}")]
    BadTickHz(u32),
    /// A room with this id exists (`room_exists`).
    #[error("room {0} already exists")]
    RoomExists(String),
    /// No room has this id (`unknown_room`).
    #[error("no room {0}")]
    UnknownRoom(String),
    /// Cluster mode: this node stopped serving the room moments ago (it stepped down,
    /// or its replica stopped), and another holds it or is taking it over
    /// (`overloaded`: try again).
    #[error(
        "room {0} is moving between nodes (this node's lease or copy of it ended moments \
         ago): try again"
    )]
    Moving(String),
    /// The server holds `--max-rooms` rooms already (`overloaded`).
    #[error("the server has {0} rooms, the limit")]
    TooManyRooms(usize),
    /// The server is shutting down and creates no rooms (`overloaded`).
    #[error("the server is shutting down")]
    ShuttingDown,
    /// The storage refused to log the room's creation or deletion (`overloaded`).
    #[error("the storage failed: {0}")]
    Storage(String),
}

impl From<RegistryError> for canopy_room::Refusal {
    fn from(e: RegistryError) -> Self {
        canopy_room::Refusal::new(e.code(), e.to_string())
    }
}

impl RegistryError {
    /// The contract's code for this refusal.
    pub fn code(&self) -> ErrorCode {
        match self {
            RegistryError::BadRoomId(_) => ErrorCode::BadRequest,
            RegistryError::BadTickHz(_) => ErrorCode::InvalidValue,
            RegistryError::RoomExists(_) => ErrorCode::RoomExists,
            RegistryError::UnknownRoom(_) => ErrorCode::UnknownRoom,
            RegistryError::TooManyRooms(_)
            | RegistryError::Moving(_)
            | RegistryError::ShuttingDown
            | RegistryError::Storage(_) => ErrorCode::Overloaded,
        }
    }
}
