//! The SDK over TLS: `https://` for HTTP and `wss://` for the WebSocket against the
//! server's own TLS, with a self-signed certificate the client is told to trust; without
//! it, both refuse the certificate.

use crate::common;

use std::time::Duration;

use canopy_client::{Client, ConnectOptions, Event, Scope};
use canopy_server::config::ServerConfig;
use common::{TestServer, add, wait_for, within};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_and_wss_with_a_trusted_self_signed_certificate() {
    within(Duration::from_secs(60), async {
        let dir = tempfile::tempdir().unwrap();
        let c = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
        std::fs::write(&cert, c.cert.pem()).unwrap();
        std::fs::write(&key, c.signing_key.serialize_pem()).unwrap();
        let config = ServerConfig {
            tls_cert: Some(cert),
            tls_key: Some(key),
            ..ServerConfig::default()
        };
        let server = TestServer::start_with(config).await;
        let base = format!("https://localhost:{}", server.addr.port());

        // Not trusted: the handshake fails, over HTTP and WebSocket alike.
        let untrusting = Client::new(&base).unwrap();
        assert!(untrusting.health().await.is_err());
        let refused = canopy_client::Connection::connect(&base, "t", ConnectOptions::default());
        assert!(refused.await.is_err());

        let client = Client::new(&base)
            .unwrap()
            .with_root_certificate_pem(c.cert.pem().as_bytes())
            .unwrap();
        client.health().await.unwrap();
        client.ensure_room("t", Some(30)).await.unwrap();
        client
            .edit("t", vec![add(1, None, [1.0, 2.0, 3.0], 0.5, 1)])
            .await
            .unwrap();
        let conn = client
            .connect("t", ConnectOptions::default())
            .await
            .unwrap();
        let mut events = conn.events();
        conn.subscribe(Scope::room()).await.unwrap();
        assert!(conn.mirror().contains(1));
        client
            .edit("t", vec![add(2, Some(1), [1.0, 0.0, 0.0], 0.5, 1)])
            .await
            .unwrap();
        wait_for(
            &mut events,
            "the delta over wss",
            |e| matches!(e, Event::Entered(n) if n.id == 2),
        )
        .await;
        assert!(
            ConnectOptions::default()
                .root_certificate_pem(b"not a certificate")
                .is_err()
        );
    })
    .await;
}
