//! The life of a [`Connection`](super::Connection): its [`ConnState`], why it may stop
//! ([`StopReason`]), and the policy that decides, after a connection ends or a reconnect
//! attempt fails, whether to try again or stop.
//!
//! The policy, in one place so it can be read and tested:
//!
//! * The server said `closed` with reason `room deleted`: **stop** with
//!   [`StopReason::RoomDeleted`]; a new connection could only be refused.
//! * Any other end of a connection: **reconnect**. That covers `closed` with
//!   `server shutting down` (close code 1001, "going away"), `moving` (close code 4002:
//!   the room is changing owner node in a cluster; reconnect, possibly to another node,
//!   and resume), the application code 4000 (the server asks the client to come back), a
//!   message the server found too large (1009: only the request that was too large
//!   failed), an abnormal close (1006) and a connection that broke or went silent without
//!   a close frame.
//! * A reconnect attempt refused with a client error status (400 to 499, but not 408 or
//!   429): **stop** with [`StopReason::Refused`]; for example `404 unknown_room` after a
//!   server restart lost the room, or `401`/`403` after the token was revoked. Retrying
//!   cannot change those answers.
//! * A reconnect attempt refused with a `Retry-After` (a room between owners answers
//!   `503 overloaded` with one, usually 1 s): **retry after at least that long**, and
//!   the attempt does not count towards `max_attempts`: the server is there and said
//!   when to come back.
//! * Any other failed attempt (connection refused, timeout, 5xx, `429 rate_limited`,
//!   `503 overloaded` without `Retry-After`): **retry** after the backoff delay, until
//!   `max_attempts` (if set) is used up, then stop with [`StopReason::GaveUp`].
//!
//! Invariant: a stopped connection never starts again; its state stays
//! [`ConnState::Stopped`] and every later request fails with
//! [`ClientError::Stopped`].

use std::fmt;
use std::time::Duration;

use canopy_protocol::ErrorCode;

use crate::error::ClientError;

/// The `closed` reason the server gives when the room is deleted.
pub const REASON_ROOM_DELETED: &str = "room deleted";

/// The `closed` reason the server gives when it shuts down.
pub const REASON_SHUTTING_DOWN: &str = "server shutting down";

/// The `closed` reason the server gives when the room changes owner node in a cluster:
/// reconnect (possibly to another node) and resume with `since`.
pub const REASON_MOVING: &str = "moving";

/// The close code of a server going away (shutting down or restarting).
pub const CLOSE_GOING_AWAY: u16 = 1001;

/// The application close code by which a server asks the client to reconnect.
pub const CLOSE_RECONNECT: u16 = 4000;

/// The application close code of a room moving to another cluster node (`closed`
/// reason [`REASON_MOVING`]): reconnect and resume.
pub const CLOSE_MOVING: u16 = 4002;

/// Where a connection is in its life.
#[derive(Clone, Debug, PartialEq)]
pub enum ConnState {
    /// A WebSocket is open.
    Connected,
    /// The connection dropped; `attempt` (from 1) is the reconnect attempt under way or
    /// waiting for its backoff delay.
    Reconnecting {
        /// The attempt's number, from 1, counting since the connection dropped.
        attempt: u32,
    },
    /// The connection stopped for good.
    Stopped(StopReason),
}

/// Why a connection stopped for good.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum StopReason {
    /// The server deleted the room.
    RoomDeleted,
    /// A reconnect attempt was refused with an answer retrying cannot change.
    Refused {
        /// The contract's error code, when the refusal carried a Canopy error body.
        code: Option<ErrorCode>,
        /// The HTTP status of the refusal (426 for a server of another major version).
        status: u16,
        /// The server's message, or the start of the body when it was not an error body.
        message: String,
    },
    /// The caller closed the connection or dropped every handle to it.
    ClosedByClient,
    /// `max_attempts` reconnect attempts failed in a row.
    GaveUp {
        /// How many attempts were made.
        attempts: u32,
        /// The failure of the last attempt, as text.
        last_error: String,
    },
    /// The connection dropped and reconnecting is turned off in its options.
    Dropped {
        /// Why the connection ended, as text.
        error: String,
    },
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::RoomDeleted => f.write_str("the room was deleted"),
            StopReason::Refused {
                code,
                status,
                message,
            } => match code {
                Some(code) => write!(f, "reconnect refused: {status} {code}: {message}"),
                None => write!(f, "reconnect refused: {status}: {message}"),
            },
            StopReason::ClosedByClient => f.write_str("closed by the client"),
            StopReason::GaveUp {
                attempts,
                last_error,
            } => write!(
                f,
                "gave up after {attempts} reconnect attempts (last: {last_error})"
            ),
            StopReason::Dropped { error } => {
                write!(f, "dropped with reconnecting turned off: {error}")
            }
        }
    }
}

/// What to do next.
#[derive(Debug, PartialEq)]
pub(crate) enum Decision {
    /// Try again after the backoff delay.
    Reconnect,
    /// Try again after at least this long, as the server asked (`Retry-After`).
    RetryAfter(Duration),
    Stop(StopReason),
}

/// The decision after a connection ended: `closed` is the reason of the server's
/// `closed` message and `code` the close frame's code, when there were any.
pub(crate) fn after_connection(closed: Option<&str>, code: Option<u16>) -> Decision {
    match (closed, code) {
        (Some(REASON_ROOM_DELETED), _) => Decision::Stop(StopReason::RoomDeleted),
        // Shutting down (1001), moving (4002), asked to come back (4000), and every
        // other end is a reason to reconnect; they are listed to document that they were
        // considered.
        (Some(REASON_SHUTTING_DOWN | REASON_MOVING), _)
        | (_, Some(CLOSE_GOING_AWAY | CLOSE_RECONNECT | CLOSE_MOVING)) => Decision::Reconnect,
        _ => Decision::Reconnect,
    }
}

/// The decision after a reconnect attempt failed with `error`.
pub(crate) fn after_failed_attempt(error: &ClientError) -> Decision {
    let (status, code, message) = match error {
        ClientError::Api {
            code,
            message,
            status: Some(status),
            ..
        } => (*status, Some(*code), message.clone()),
        ClientError::UnexpectedStatus { status, body, .. } => (*status, None, body.clone()),
        // Retrying will not change the server's major version until it is redeployed;
        // stopping says so at once instead of retrying forever.
        ClientError::IncompatibleServer { .. } => (426, None, error.to_string()),
        _ => return Decision::Reconnect,
    };
    let retryable = !(400..500).contains(&status) || status == 408 || status == 429;
    if retryable {
        match error.retry_after() {
            Some(wait) => Decision::RetryAfter(wait),
            None => Decision::Reconnect,
        }
    } else {
        Decision::Stop(StopReason::Refused {
            code,
            status,
            message,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_deleted_room_stops_after_a_connection() {
        assert_eq!(
            after_connection(Some(REASON_ROOM_DELETED), Some(1000)),
            Decision::Stop(StopReason::RoomDeleted)
        );
        for (reason, code) in [
            (Some(REASON_SHUTTING_DOWN), Some(1001)),
            (Some(REASON_MOVING), Some(CLOSE_MOVING)),
            (None, Some(CLOSE_MOVING)),
            (None, Some(4000)),
            (None, Some(1006)),
            (Some("message too large"), Some(1009)),
            (None, None),
        ] {
            assert_eq!(after_connection(reason, code), Decision::Reconnect);
        }
    }

    fn api(code: ErrorCode, status: u16) -> ClientError {
        ClientError::Api {
            code,
            message: String::new(),
            op: None,
            status: Some(status),
            retry_after: None,
        }
    }

    fn with_retry_after(error: ClientError, secs: u64) -> ClientError {
        match error {
            ClientError::Api {
                code,
                message,
                op,
                status,
                ..
            } => ClientError::Api {
                code,
                message,
                op,
                status,
                retry_after: Some(Duration::from_secs(secs)),
            },
            other => other,
        }
    }

    #[test]
    fn a_room_between_owners_is_retried_when_the_server_says() {
        let moving = with_retry_after(api(ErrorCode::Overloaded, 503), 1);
        assert_eq!(
            after_failed_attempt(&moving),
            Decision::RetryAfter(Duration::from_secs(1))
        );
        let limited = with_retry_after(api(ErrorCode::RateLimited, 429), 3);
        assert_eq!(
            after_failed_attempt(&limited),
            Decision::RetryAfter(Duration::from_secs(3))
        );
        // A Retry-After never turns a final refusal into a retry.
        for (code, status) in [
            (ErrorCode::UnknownRoom, 404),
            (ErrorCode::Unauthorized, 401),
            (ErrorCode::Forbidden, 403),
        ] {
            assert!(matches!(
                after_failed_attempt(&with_retry_after(api(code, status), 1)),
                Decision::Stop(StopReason::Refused { .. })
            ));
        }
    }

    #[test]
    fn refused_attempts_stop_but_transient_ones_retry() {
        assert!(matches!(
            after_failed_attempt(&api(ErrorCode::UnknownRoom, 404)),
            Decision::Stop(StopReason::Refused { status: 404, .. })
        ));
        assert!(matches!(
            after_failed_attempt(&api(ErrorCode::Forbidden, 403)),
            Decision::Stop(_)
        ));
        assert_eq!(
            after_failed_attempt(&api(ErrorCode::Overloaded, 503)),
            Decision::Reconnect
        );
        assert_eq!(
            after_failed_attempt(&api(ErrorCode::RateLimited, 429)),
            Decision::Reconnect
        );
        assert_eq!(
            after_failed_attempt(&ClientError::Disconnected),
            Decision::Reconnect
        );
    }
}
