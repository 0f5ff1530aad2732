//! The server's own TLS (`--tls-cert`, `--tls-key`): HTTP and WebSocket over it, and a
//! certificate reload that new handshakes see while old connections keep theirs.

use crate::common;

use std::sync::Arc;

use canopy_protocol::{ClientMsg, Format, ServerMsg, codec};
use futures_util::{SinkExt, StreamExt};
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_rustls::TlsConnector;

fn self_signed(
    dir: &std::path::Path,
) -> (
    std::path::PathBuf,
    std::path::PathBuf,
    CertificateDer<'static>,
) {
    let c = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert, c.cert.pem()).unwrap();
    std::fs::write(&key, c.signing_key.serialize_pem()).unwrap();
    (cert, key, c.cert.der().clone())
}

fn connector(root: CertificateDer<'static>) -> TlsConnector {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(root).unwrap();
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    TlsConnector::from(Arc::new(config))
}

type Wss =
    tokio_tungstenite::WebSocketStream<tokio_rustls::client::TlsStream<tokio::net::TcpStream>>;

/// Opens a JSON WebSocket over TLS on `tcp` to `room` and subscribes to all of it.
async fn wss_subscribe(
    tcp: tokio::net::TcpStream,
    root: CertificateDer<'static>,
    room: &str,
) -> Wss {
    let name = ServerName::try_from("localhost").unwrap();
    let tls = connector(root).connect(name, tcp).await.unwrap();
    let url = format!("wss://localhost/rooms/{room}/ws?format=json");
    let (mut ws, _) = tokio_tungstenite::client_async(url, tls).await.unwrap();
    let sub = codec::encode_client(&ClientMsg::subscribe(None, u32::MAX), Format::Json);
    ws.send(tokio_tungstenite::tungstenite::Message::text(
        String::from_utf8(sub).unwrap(),
    ))
    .await
    .unwrap();
    ws
}

/// The next server message.
async fn next_msg(ws: &mut Wss) -> ServerMsg {
    let frame = ws.next().await.unwrap().unwrap();
    codec::decode_server(&frame.into_data(), Format::Json).unwrap()
}

#[tokio::test]
async fn https_and_wss_are_served_and_the_certificate_reloads() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key, der) = self_signed(dir.path());
    let mut cfg = common::config();
    cfg.tls_cert = Some(cert.clone());
    cfg.tls_key = Some(key.clone());
    let s = common::start(cfg).await;
    let addr = s.base.trim_start_matches("http://").to_string();
    let name = ServerName::try_from("localhost").unwrap();

    let tcp = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let mut tls = connector(der.clone())
        .connect(name.clone(), tcp)
        .await
        .unwrap();
    tls.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut answer = String::new();
    tls.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains(r#""status":"ok""#));

    s.state
        .create_room(Some("tls".into()), Some(30), None)
        .unwrap();
    let tcp = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let mut ws = wss_subscribe(tcp, der.clone(), "tls").await;
    let msg = next_msg(&mut ws).await;
    assert!(matches!(msg, ServerMsg::Snapshot { .. }), "{msg:?}");

    // A new certificate: new handshakes trust only it, once reloaded.
    let (_, _, new_der) = self_signed(dir.path());
    s.state.tls.as_ref().unwrap().reload();
    let tcp = tokio::net::TcpStream::connect(&addr).await.unwrap();
    assert!(
        connector(der).connect(name.clone(), tcp).await.is_err(),
        "old cert no longer served"
    );
    let tcp = tokio::net::TcpStream::connect(&addr).await.unwrap();
    assert!(connector(new_der).connect(name, tcp).await.is_ok());
    s.stop().await;
}

/// A WebSocket over TLS keeps its own write deadline, not the HTTP one: the HTTP edge's
/// `--request-timeout-secs` stall limit is lifted at the upgrade, so a subscriber that
/// takes a while to start reading its snapshot is not cut at the request timeout.
#[tokio::test]
async fn a_websocket_over_tls_is_not_cut_at_the_http_write_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key, der) = self_signed(dir.path());
    let mut cfg = common::config();
    cfg.tls_cert = Some(cert);
    cfg.tls_key = Some(key);
    cfg.request_timeout = std::time::Duration::from_secs(1);
    cfg.send_buffer_bytes = 16 * 1024;
    let s = common::start(cfg).await;
    let room = s
        .state
        .create_room(Some("big".into()), Some(30), None)
        .unwrap();
    {
        // Set up outside a batch, as the demo does; the next tick takes it in.
        let mut scene = room.scene.write();
        let h = scene.hierarchy_mut();
        for i in 0..5_000 {
            let t = canopy_protocol::Transform::from_t([i as f32, 0.0, 0.0]);
            h.add(Some(i), None, t, [0.5; 3], 1).unwrap();
        }
    }
    let addr = s.base.trim_start_matches("http://").to_string();
    let sock = tokio::net::TcpSocket::new_v4().unwrap();
    sock.set_recv_buffer_size(4096).unwrap();
    let tcp = sock.connect(addr.parse().unwrap()).await.unwrap();
    let mut ws = wss_subscribe(tcp, der, "big").await;
    // The snapshot (about 700 KB) backs up in the server for three request timeouts.
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    let msg = next_msg(&mut ws).await;
    let ServerMsg::Snapshot { nodes, .. } = msg else {
        panic!("{msg:?}");
    };
    assert_eq!(nodes.len(), 5_000);
    assert_eq!(s.state.metrics.http_write_stalls.get(), 0);
    s.stop().await;
}

/// A server that cannot serve its TLS files does not start, and says which file and why.
#[test]
fn unusable_tls_files_are_named_at_start() {
    use canopy_server::StartError;
    use canopy_server::TlsError;
    let dir = tempfile::tempdir().unwrap();
    let (cert, key, _) = self_signed(dir.path());
    let start = |cert: &std::path::Path, key: &std::path::Path| {
        let mut cfg = common::config();
        cfg.tls_cert = Some(cert.to_path_buf());
        cfg.tls_key = Some(key.to_path_buf());
        canopy_server::AppState::try_new(cfg).expect_err("the server must not start")
    };
    let missing = dir.path().join("missing.pem");
    let e = start(&missing, &key);
    assert!(
        matches!(&e, StartError::Tls(TlsError::Pem { what: "certificate", path, .. }) if *path == missing),
        "{e:?}"
    );
    assert!(e.to_string().contains("missing.pem"), "{e}");

    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "").unwrap();
    let e = start(&empty, &key);
    assert!(
        matches!(e, StartError::Tls(TlsError::NoCertificate(_))),
        "{e:?}"
    );

    // The key of another certificate.
    let other = tempfile::tempdir().unwrap();
    let (_, other_key, _) = self_signed(other.path());
    let e = start(&cert, &other_key);
    assert!(matches!(e, StartError::Tls(TlsError::Mismatch(_))), "{e:?}");
}
