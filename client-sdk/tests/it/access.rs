//! Tokens against a server that runs with an admin token: the HTTP client's bearer
//! header, the WebSocket `token` parameter, the room's editor and viewer tokens, and
//! the typed `unauthorized` and `forbidden` errors on both transports.

use crate::common;

use std::time::Duration;

use canopy_client::protocol::http::CreateRoom;
use canopy_client::protocol::query::RegionQuery;
use canopy_client::{Client, ClientError, ConnectOptions, ErrorCode, Scope};
use canopy_server::config::{Secret, ServerConfig};
use common::{TestServer, add, within};

const ADMIN: &str = "admin-secret";

fn refused<T: std::fmt::Debug>(result: Result<T, ClientError>) -> (ErrorCode, Option<u16>) {
    match result {
        Err(ClientError::Api { code, status, .. }) => (code, status),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

const UNAUTHORIZED: (ErrorCode, Option<u16>) = (ErrorCode::Unauthorized, Some(401));
const FORBIDDEN: (ErrorCode, Option<u16>) = (ErrorCode::Forbidden, Some(403));

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_open_what_they_grant_and_nothing_else() {
    within(Duration::from_secs(60), async {
        let config = ServerConfig {
            admin_token: Some(Secret(ADMIN.into())),
            ..ServerConfig::default()
        };
        let server = TestServer::start_with(config).await;
        let anonymous = server.client();
        let admin = server.client().with_token(ADMIN);
        let stranger = server.client().with_token("not-a-token");

        anonymous.health().await.unwrap();
        assert_eq!(refused(anonymous.list_rooms().await), UNAUTHORIZED);
        assert_eq!(refused(stranger.list_rooms().await), FORBIDDEN);

        let room = admin
            .create_room(&CreateRoom {
                id: Some("guarded".into()),
                tick_hz: Some(60),
            })
            .await
            .unwrap();
        let editor = Client::new(&server.url())
            .unwrap()
            .with_token(room.editor_token.clone().expect("an editor token"));
        let viewer = Client::new(&server.url())
            .unwrap()
            .with_token(room.viewer_token.clone().expect("a viewer token"));
        admin
            .ensure_room("other", None)
            .await
            .expect("the admin creates a second room");

        // HTTP: the editor edits its room only; the viewer reads and queries only.
        editor
            .edit("guarded", vec![add(1, None, [0.0; 3], 1.0, 1)])
            .await
            .unwrap();
        assert_eq!(refused(editor.edit("other", vec![]).await), FORBIDDEN);
        assert_eq!(
            refused(editor.create_room(&CreateRoom::default()).await),
            FORBIDDEN
        );
        assert_eq!(
            refused(
                viewer
                    .edit("guarded", vec![add(2, None, [0.0; 3], 1.0, 1)])
                    .await
            ),
            FORBIDDEN
        );
        assert_eq!(viewer.nodes("guarded").await.unwrap().nodes.len(), 1);
        let hits = viewer
            .query_region(
                "guarded",
                &RegionQuery {
                    min: [-1.0; 3],
                    max: [1.0; 3],
                    mask: u32::MAX,
                },
            )
            .await
            .unwrap();
        assert_eq!(hits.nodes, vec![1]);

        // WebSocket: the handshake is refused without a valid token for the room.
        let options = ConnectOptions::default;
        assert_eq!(
            refused(anonymous.connect("guarded", options()).await),
            UNAUTHORIZED
        );
        assert_eq!(
            refused(stranger.connect("guarded", options()).await),
            FORBIDDEN
        );
        assert_eq!(refused(viewer.connect("other", options()).await), FORBIDDEN);

        // A viewer subscribes and queries, but its edits are refused by `seq`.
        let watching = viewer.connect("guarded", options().json()).await.unwrap();
        watching.subscribe(Scope::room()).await.unwrap();
        assert_eq!(watching.mirror().len(), 1);
        match watching.edit(vec![add(3, None, [0.0; 3], 1.0, 1)]).await {
            Err(ClientError::Api { code, status, .. }) => {
                assert_eq!((code, status), (ErrorCode::Forbidden, None));
            }
            other => panic!("{other:?}"),
        }
        assert!(watching.ping().await.is_ok());

        // An editor's WebSocket edits, and the viewer's mirror follows.
        let editing = editor.connect("guarded", options()).await.unwrap();
        let ack = editing
            .edit(vec![add(4, None, [0.5; 3], 1.0, 1)])
            .await
            .unwrap();
        assert_eq!(ack.ids, vec![4]);
        let deadline = tokio::time::Instant::now() + common::PATIENCE;
        while !watching.mirror().contains(4) {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the edit never arrived"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }

        // Options may carry their own token, overriding the client's.
        let own = anonymous
            .connect(
                "guarded",
                options().token(room.viewer_token.clone().unwrap()),
            )
            .await;
        assert!(own.is_ok());
    })
    .await;
}
