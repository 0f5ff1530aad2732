//! The reader of a deleted room: an unsubscribed WebSocket opened with a
//! room's viewer token (no token on an open server) outlives the room: the room is
//! deleted, re-created under the same id (new tokens on a server with an admin
//! token), given a node, and the old socket queries it.
//!
//! The old server looked the room up by id for every query, and deleting a room
//! closed only its subscribers, so the old socket read the new room. A bounded server
//! answers `unknown_room` or `forbidden`, or has closed the socket. Invariant: a
//! `query_result` after the re-creation is always a failure, whatever it holds; no
//! answer at all within [`ANSWER_TIMEOUT`] is one too (the contract answers every query).

use std::time::{Duration, Instant};

use canopy_protocol::query::RegionQuery;
use canopy_protocol::{
    ClientMsg, ErrorCode, Format, NodeId, Op, Query, ServerMsg, Transform, codec,
};
use tokio_tungstenite::tungstenite::Message;

use crate::rawws::{self, RawSocket};
use crate::soak::hostile::rooms;
use crate::soak::hostile::runner::HostileCtx;
use crate::soak::hostile::{Attempt, Kind};
use crate::stop::Stop;

pub(crate) const RULE: &str = "the old socket's query after delete and re-create answered unknown_room or forbidden, or the socket closed";

/// How long a query may go unanswered.
pub(crate) const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

/// The node the re-created room gets, to tell its answers apart.
const MARKER: NodeId = 4242;

/// What the old socket got for its query.
enum Answer {
    Result(Vec<NodeId>),
    Error(ErrorCode),
    Closed(String),
    Nothing,
}

pub(crate) async fn run(ctx: &HostileCtx, _stop: Stop) -> Attempt {
    let kind = Kind::DeletedRoom;
    let id = ctx.fresh_room_id("reuse");
    let result = attack(ctx, &id).await;
    let _ = ctx.admin.delete_room(&id).await;
    match result {
        Ok(attempt) => attempt,
        Err(e) => Attempt::harness_error(kind, &e),
    }
}

async fn attack(ctx: &HostileCtx, id: &str) -> anyhow::Result<Attempt> {
    let kind = Kind::DeletedRoom;
    let access = rooms::create(&ctx.admin, id, ctx.tick_hz).await?;
    let mut socket = rawws::open(&access.ws_url(&ctx.base_url, ctx.format)?, None).await?;
    // The socket works before the delete: its query is answered.
    match ask(&mut socket, ctx.format, 1).await {
        Answer::Result(_) => {}
        Answer::Error(code) => anyhow::bail!("the query before the delete answered {code}"),
        Answer::Closed(why) => anyhow::bail!("the socket closed before the delete: {why}"),
        Answer::Nothing => anyhow::bail!("no answer to the query before the delete"),
    }
    ctx.admin.delete_room(id).await?;
    let began = Instant::now();
    rooms::create(&ctx.admin, id, ctx.tick_hz).await?;
    ctx.admin
        .edit(
            id,
            vec![Op::Add {
                id: Some(MARKER),
                parent: None,
                local: Transform::default(),
                extent: [1.0; 3],
                mask: u32::MAX,
            }],
        )
        .await?;
    let token = if access.viewer_token.is_some() {
        "the old viewer token"
    } else {
        "an open server"
    };
    let answer = ask(&mut socket, ctx.format, 2).await;
    let after = Some(began.elapsed().as_secs_f64());
    let _ = socket.close(None).await;
    Ok(match answer {
        Answer::Result(nodes) => {
            Attempt::new(kind, "read_the_new_room", after, Some(false)).with(format!(
                "{token}: the query answered {} nodes{}",
                nodes.len(),
                if nodes.contains(&MARKER) {
                    ", the new room's marker among them"
                } else {
                    ""
                }
            ))
        }
        Answer::Error(code) => {
            let ok = matches!(code, ErrorCode::UnknownRoom | ErrorCode::Forbidden);
            Attempt::new(
                kind,
                &format!("answered_{}", code.as_str()),
                after,
                Some(ok),
            )
            .with(token.to_string())
        }
        Answer::Closed(why) => {
            Attempt::new(kind, "closed", after, Some(true)).with(format!("{token}: {why}"))
        }
        Answer::Nothing => Attempt::new(kind, "no_answer", None, Some(false)).with(format!(
            "{token}: no answer within {} s",
            ANSWER_TIMEOUT.as_secs()
        )),
    })
}

/// Sends a whole-world region query with `id` and waits for its answer.
async fn ask(socket: &mut RawSocket, format: Format, id: u64) -> Answer {
    let query = ClientMsg::Query {
        id,
        query: Query::Region(RegionQuery {
            min: [-1e6; 3],
            max: [1e6; 3],
            mask: u32::MAX,
        }),
    };
    let bytes = codec::encode_client(&query, format);
    let frame = match format {
        Format::Json => Message::text(String::from_utf8_lossy(&bytes).into_owned()),
        Format::Bincode => Message::binary(bytes),
    };
    if let Err(e) = socket.send(frame).await {
        return Answer::Closed(format!("the send failed: {e}"));
    }
    let deadline = tokio::time::sleep(ANSWER_TIMEOUT);
    tokio::pin!(deadline);
    loop {
        let frame = tokio::select! {
            _ = &mut deadline => return Answer::Nothing,
            frame = socket.next() => frame,
        };
        let msg = match frame {
            None => return Answer::Closed("the stream ended".into()),
            Some(Err(e)) => return Answer::Closed(e.to_string()),
            Some(Ok(Message::Close(c))) => return Answer::Closed(format!("close frame {c:?}")),
            Some(Ok(Message::Binary(b))) => codec::decode_server(&b, Format::Bincode),
            Some(Ok(Message::Text(t))) => codec::decode_server(t.as_bytes(), Format::Json),
            Some(Ok(_)) => continue,
        };
        match msg {
            Ok(ServerMsg::QueryResult { id: got, nodes, .. }) if got == id => {
                return Answer::Result(nodes.unwrap_or_default());
            }
            Ok(ServerMsg::Error { code, .. }) => return Answer::Error(code),
            Ok(ServerMsg::Closed { reason }) => return Answer::Closed(format!("closed: {reason}")),
            _ => continue,
        }
    }
}
