//! What clients are told while a room moves between cluster nodes (the
//! `cluster-failover` benchmark): every error an editor's batch got and every way a
//! subscriber's connection ended or was refused, by kind. The right kinds are `moving`
//! (`503 overloaded` with `Retry-After`, close 4002) and `resubscribe` (close 4000); a
//! `404 unknown_room` or a "room deleted" close for a room that exists is a wrong one,
//! since both make a client stop for good.
//!
//! A connection that breaks because its node was killed is not counted: that is the
//! network, not an answer.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use canopy_client::ClientError;
use canopy_protocol::{ClientMsg, ErrorCode, Format, codec};
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::{self, Message};

use crate::bench::table::BenchReport;

/// One kind of answer a client got while the room moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Told {
    /// `404 unknown_room` (wrong: the room exists).
    UnknownRoom,
    /// A close "room deleted" (wrong: the room exists).
    RoomDeleted,
    /// `503` with `Retry-After`, or close 4002: the room is moving.
    Moving,
    /// `503` without `Retry-After` (the owner unreachable, a lease lapsed mid-edit).
    Overloaded,
    /// Close 4000: the relay's copy was dropped, subscribe again.
    Resubscribe,
    /// Anything else (another status, code or close).
    Other,
}

/// Counts of each [`Told`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct MoveErrors {
    pub(crate) unknown_room: u64,
    pub(crate) room_deleted: u64,
    pub(crate) moving: u64,
    pub(crate) overloaded: u64,
    pub(crate) resubscribe: u64,
    pub(crate) other: u64,
}

impl MoveErrors {
    pub(crate) fn add(&mut self, told: Told) {
        let n = match told {
            Told::UnknownRoom => &mut self.unknown_room,
            Told::RoomDeleted => &mut self.room_deleted,
            Told::Moving => &mut self.moving,
            Told::Overloaded => &mut self.overloaded,
            Told::Resubscribe => &mut self.resubscribe,
            Told::Other => &mut self.other,
        };
        *n += 1;
    }

    /// The ones that make a client give up on a room that exists.
    pub(crate) fn wrong(&self) -> u64 {
        self.unknown_room + self.room_deleted
    }

    /// Its row, figures and bound in a benchmark's report: no client told the room is
    /// gone.
    pub(crate) fn report(&self, report: &mut BenchReport) {
        report.row(
            "what clients were told while the room moved",
            self.summary(),
        );
        for (name, n) in [
            ("told unknown_room", self.unknown_room),
            ("told room deleted", self.room_deleted),
            ("told moving", self.moving),
            ("told other 503", self.overloaded),
            ("told resubscribe", self.resubscribe),
            ("told other", self.other),
        ] {
            report.figure(name, n as f64);
        }
        report.check(
            "clients told the room moved, never that it is gone",
            self.wrong() == 0,
            format!(
                "{} unknown_room and {} room deleted for a room that exists",
                self.unknown_room, self.room_deleted
            ),
        );
    }

    /// One line for the report.
    pub(crate) fn summary(&self) -> String {
        format!(
            "404 unknown_room {}, room deleted {}, moving (503 + Retry-After, 4002) {}, \
             other 503 {}, resubscribe (4000) {}, other {}",
            self.unknown_room,
            self.room_deleted,
            self.moving,
            self.overloaded,
            self.resubscribe,
            self.other
        )
    }
}

/// The kind of an edit's error.
pub(crate) fn of_edit(error: &ClientError) -> Told {
    match error {
        ClientError::Api {
            code: ErrorCode::UnknownRoom,
            ..
        } => Told::UnknownRoom,
        ClientError::Api {
            code: ErrorCode::Overloaded,
            retry_after,
            ..
        } => of_503(retry_after.is_some()),
        _ => Told::Other,
    }
}

fn of_503(retry_after: bool) -> Told {
    if retry_after {
        Told::Moving
    } else {
        Told::Overloaded
    }
}

/// The kind of a close the server sent.
fn of_close(code: u16, reason: &str) -> Told {
    match code {
        4002 => Told::Moving,
        4000 => Told::Resubscribe,
        _ if reason == "room deleted" => Told::RoomDeleted,
        _ => Told::Other,
    }
}

/// The kind of a refused WebSocket upgrade.
fn of_refused_upgrade(answer: &tungstenite::http::Response<Option<Vec<u8>>>) -> Told {
    let code = answer
        .body()
        .as_deref()
        .and_then(|b| serde_json::from_slice::<canopy_protocol::ErrorBody>(b).ok())
        .map(|b| b.error.code);
    match (answer.status().as_u16(), code) {
        (404, Some(ErrorCode::UnknownRoom)) => Told::UnknownRoom,
        (503, _) => of_503(
            answer
                .headers()
                .contains_key(tungstenite::http::header::RETRY_AFTER),
        ),
        _ => Told::Other,
    }
}

/// Whole-room subscribers to `room`, one at each of `urls`, each reconnecting whenever
/// its connection ends, tallying into `tally` until `stop`.
pub(crate) fn subscribe_everywhere(
    urls: &[String],
    room: &str,
    token: Option<&str>,
    tally: Arc<std::sync::Mutex<MoveErrors>>,
    stop: Arc<AtomicBool>,
) -> Vec<tokio::task::JoinHandle<()>> {
    urls.iter()
        .map(|url| {
            let ws = format!(
                "{}/rooms/{room}/ws?format=json{}",
                url.trim_end_matches('/').replacen("http", "ws", 1),
                token.map(|t| format!("&token={t}")).unwrap_or_default()
            );
            tokio::spawn(subscriber(ws, Arc::clone(&tally), Arc::clone(&stop)))
        })
        .collect()
}

async fn subscriber(url: String, tally: Arc<std::sync::Mutex<MoveErrors>>, stop: Arc<AtomicBool>) {
    let subscribe = codec::encode_client(&ClientMsg::subscribe(None, u32::MAX), Format::Json);
    let subscribe = String::from_utf8(subscribe).expect("JSON is text");
    while !stop.load(Ordering::Acquire) {
        let mut socket = match tokio_tungstenite::connect_async(url.as_str()).await {
            Ok((socket, _)) => socket,
            Err(tungstenite::Error::Http(answer)) => {
                tally
                    .lock()
                    .expect("the tally")
                    .add(of_refused_upgrade(&answer));
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
            // Nothing listens (the node is down): not an answer.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
        };
        if socket.send(Message::text(subscribe.clone())).await.is_err() {
            continue;
        }
        while !stop.load(Ordering::Acquire) {
            match tokio::time::timeout(Duration::from_millis(300), socket.next()).await {
                Err(_) => {}
                Ok(Some(Ok(Message::Close(frame)))) => {
                    if let Some(f) = frame {
                        tally
                            .lock()
                            .expect("the tally")
                            .add(of_close(u16::from(f.code), &f.reason));
                    }
                    break;
                }
                Ok(Some(Ok(_))) => {}
                Ok(None) | Ok(Some(Err(_))) => break,
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closes_are_told_apart_by_code_and_reason() {
        assert_eq!(of_close(4002, "moving"), Told::Moving);
        assert_eq!(
            of_close(
                4000,
                "the relay lost its place in the owner's stream; subscribe again"
            ),
            Told::Resubscribe
        );
        assert_eq!(of_close(1000, "room deleted"), Told::RoomDeleted);
        assert_eq!(of_close(1001, "server shutting down"), Told::Other);
        let mut t = MoveErrors::default();
        for told in [
            Told::Moving,
            Told::RoomDeleted,
            Told::UnknownRoom,
            Told::Moving,
        ] {
            t.add(told);
        }
        assert_eq!((t.moving, t.wrong()), (2, 2));
    }
}
