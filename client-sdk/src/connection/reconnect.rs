//! The reconnect loop of a [`Connection`](super::Connection)'s driver: after a
//! connection ended and the lifecycle policy said reconnect, it waits, tries to open a
//! new socket, and repeats until one opens or the policy says stop. Meanwhile it answers
//! the handles' requests as having no connection.
//!
//! Invariants:
//! * The wait before an attempt is the [`Backoff`](crate::Backoff) delay, except after
//!   an attempt the server refused with a `Retry-After` (a room moving between cluster
//!   nodes answers `503 overloaded` with one): then it is at least that long (capped by
//!   [`Backoff::retry_after_cap`](crate::Backoff::retry_after_cap), with jitter added,
//!   never taken off), and that attempt does not count towards `max_attempts`.
//! * While there is no connection, no request waits: each fails at once with
//!   [`ClientError::Disconnected`], but a `subscribe` still sets the scope the next
//!   connection subscribes with.

use std::time::Duration;

use tokio::sync::oneshot;

use super::command::Command;
use super::driver::Driver;
use super::lifecycle::{self, ConnState, Decision, StopReason};
use super::socket::{self, Opened};
use crate::backoff::BackoffState;
use crate::error::ClientError;

/// The result of a run of reconnect attempts.
pub(super) enum Reconnect {
    /// Boxed: a socket is large, and this value is moved once per reconnect.
    Open(Box<Opened>),
    Stop(StopReason, Option<oneshot::Sender<()>>),
}

impl Driver {
    /// Waits out backoff delays and tries to open a new socket until one opens or the
    /// policy says stop. Requests made meanwhile fail at once with `Disconnected`
    /// (never queue), but scope changes are remembered for the new connection.
    pub(super) async fn reconnect(&mut self, backoff: &mut BackoffState) -> Reconnect {
        let mut last_error = String::from("none yet");
        // The wait the server asked for with `Retry-After` on the last refusal.
        let mut asked: Option<Duration> = None;
        let mut tries = 0u32;
        loop {
            let delay = match asked.take() {
                // Not a failed attempt for `max_attempts`: the server is there and said
                // when to come back (a room moving between cluster nodes).
                Some(asked) => backoff.delay_asked(asked),
                None => match backoff.next_delay() {
                    Some(delay) => delay,
                    None => {
                        let reason = StopReason::GaveUp {
                            attempts: backoff.attempts(),
                            last_error,
                        };
                        return Reconnect::Stop(reason, None);
                    }
                },
            };
            tries = tries.saturating_add(1);
            self.state
                .send_replace(ConnState::Reconnecting { attempt: tries });
            if let Err(stop) = self.offline(tokio::time::sleep(delay)).await {
                return stop;
            }
            let url = self.endpoint.ws(
                &self.room,
                self.options.format,
                self.options.token.as_deref(),
            );
            let roots = self.options.roots.clone();
            let attempt = tokio::time::timeout(
                self.options.connect_timeout,
                socket::open(&url, self.options.max_message_bytes, &roots),
            );
            let attempt = match self.offline(attempt).await {
                Ok(attempt) => attempt,
                Err(stop) => return stop,
            };
            match attempt {
                Ok(Ok(socket)) => return Reconnect::Open(Box::new(socket)),
                Ok(Err(e)) => {
                    match lifecycle::after_failed_attempt(&e) {
                        Decision::Stop(reason) => return Reconnect::Stop(reason, None),
                        Decision::RetryAfter(wait) => asked = Some(wait),
                        Decision::Reconnect => {}
                    }
                    last_error = e.to_string();
                }
                Err(_) => {
                    last_error = format!("no connection within {:?}", self.options.connect_timeout)
                }
            }
            tracing::debug!(room = %self.room, attempt = tries, ?asked, error = %last_error, "reconnect failed");
        }
    }

    /// Runs `work` (a backoff delay or a connect attempt) while answering requests as
    /// there is no connection, so none waits on it; `Err` when the caller closes.
    async fn offline<F: std::future::Future>(&mut self, work: F) -> Result<F::Output, Reconnect> {
        tokio::pin!(work);
        loop {
            tokio::select! {
                output = &mut work => return Ok(output),
                command = self.commands.recv() => match command {
                    None => return Err(Reconnect::Stop(StopReason::ClosedByClient, None)),
                    Some(Command::Close { done }) => {
                        return Err(Reconnect::Stop(StopReason::ClosedByClient, Some(done)));
                    }
                    Some(command) => self.refuse_offline(command),
                },
            }
        }
    }

    /// Answers a request made while there is no connection.
    fn refuse_offline(&mut self, command: Command) {
        match command {
            Command::Subscribe { scope, reply } => {
                // Remembered, so the next connection subscribes with it.
                self.set_scope(Some(scope));
                let _ = reply.send(Err(ClientError::Disconnected));
            }
            Command::Unsubscribe { reply } => {
                self.unsubscribe_locally();
                let _ = reply.send(Ok(()));
            }
            Command::Edits { reply, .. } => {
                let _ = reply.send(Err(ClientError::Disconnected));
            }
            Command::Query { reply, .. } => {
                let _ = reply.send(Err(ClientError::Disconnected));
            }
            Command::Ping { reply } => {
                let _ = reply.send(Err(ClientError::Disconnected));
            }
            Command::Close { done } => {
                // The reconnect loop takes Close before calling here; see `command`.
                let _ = done.send(());
            }
        }
    }
}
