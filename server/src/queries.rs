//! The one path every spatial query takes, from the HTTP routes and from WebSocket
//! `query` messages alike: validate, charge the caller's rate limit, count, then read
//! the scene once, on a blocking thread so that a tick holding the scene's write lock
//! never stalls an async worker.
//!
//! Invariants: a query that fails validation or its rate limit touches nothing; every
//! answer is computed under one read of the scene, so it names exactly one tick; an
//! answer over `--max-answer-items` is refused with `too_large`, never sent; a query on
//! a deleted room answers `unknown_room`, whatever room now has its id.

use std::sync::Arc;

use canopy_protocol::{ErrorCode, Query};

use crate::access::Caller;
use crate::state::AppState;
use canopy_room::RoomShared;
use canopy_room::query::{self, QueryOutput};
use canopy_room::refusal::Refusal;

/// A query's answer with the tick it was computed at.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Answer {
    pub tick: u64,
    pub output: QueryOutput,
}

/// Validates, rate-limits and answers `q` against `room`'s latest tick.
pub(crate) async fn answer(
    app: &AppState,
    caller: &Caller,
    room: &Arc<RoomShared>,
    q: Query,
) -> Result<Answer, Refusal> {
    if room.is_closed() {
        return Err(room.closed_refusal());
    }
    query::validate(&q)?;
    if !app.query_limiter.check(&caller.rate_key) {
        return Err(Refusal::new(
            ErrorCode::RateLimited,
            format!(
                "more than {} queries per second from this caller",
                app.config.query_rate
            ),
        ));
    }
    app.metrics.queries.with_label_values(&[q.kind()]).inc();
    let limit = app.config.max_answer_items;
    let reader = Arc::clone(room);
    let (tick, output) = tokio::task::spawn_blocking(move || {
        let scene = reader.scene.read();
        (scene.tick(), query::run(&scene, &q))
    })
    .await
    .map_err(|e| Refusal::overloaded(format!("the query did not finish: {e}")))?;
    let output = output?;
    let items = output.len();
    app.query_limiter.charge(&caller.rate_key, items);
    if items > limit {
        return Err(Refusal::too_large(format!(
            "the answer has {items} items, over the limit of {limit}; narrow the query"
        )));
    }
    Ok(Answer { tick, output })
}
