//! The `canopy` binary as a process. Under a small open-files limit it takes the whole
//! hard limit for itself, and fits its connection cap to what the limit leaves, so that
//! idle sockets past it are refused at accept one by one instead of `accept` failing
//! with `EMFILE` for every client (`admission::fit_to_descriptors`). Its log never
//! holds a client's messages, whatever `CANOPY_LOG` says.
#![cfg(target_os = "linux")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_canopy");

/// Descriptors the server keeps back from connections (`DESCRIPTORS_RESERVED`).
const RESERVED: usize = 64;

/// Starts the server under `prlimit --nofile=LIMITS`; its address, what it logged until
/// it listened, and its later log lines as they come.
fn serve(limits: &str, args: &[&str]) -> (Server, SocketAddr, Vec<String>, mpsc::Receiver<String>) {
    serve_with(limits, args, None)
}

/// [`serve`], with `CANOPY_LOG` set to `log` when given.
fn serve_with(
    limits: &str,
    args: &[&str],
    log: Option<&str>,
) -> (Server, SocketAddr, Vec<String>, mpsc::Receiver<String>) {
    let mut cmd = Command::new("prlimit");
    cmd.env_remove("CANOPY_LOG");
    if let Some(log) = log {
        cmd.env("CANOPY_LOG", log);
    }
    let mut child = cmd
        .arg(format!("--nofile={limits}"))
        .args([
            BIN,
            "--addr",
            "127.0.0.1:0",
            "--in-memory",
            "--log-format",
            "text",
        ])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start canopy under prlimit (util-linux)");
    let stderr = child.stderr.take().expect("stderr piped");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut start = Vec::new();
    let addr = loop {
        let line = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("canopy listens");
        start.push(line.clone());
        if line.contains("canopy listening") {
            let at = line.find("addr=").expect("the address is logged") + 5;
            let addr = line[at..].split_whitespace().next().unwrap();
            break addr.parse().expect("a socket address");
        }
    };
    (Server(child), addr, start, rx)
}

/// The server process, killed when the test ends, failed or not.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The soft and hard open-files limits of a process, from `/proc/PID/limits`.
fn open_files(child: &Child) -> (String, String) {
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", child.id())).unwrap();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .expect("a Max open files line");
    let mut v = line["Max open files".len()..].split_whitespace();
    (v.next().unwrap().into(), v.next().unwrap().into())
}

fn healthz(addr: SocketAddr) -> Option<String> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    Some(out)
}

#[test]
fn the_soft_limit_is_raised_to_the_hard_one() {
    let (child, addr, _, _) = serve("256:4096", &[]);
    assert_eq!(open_files(&child.0), ("4096".into(), "4096".into()));
    assert!(healthz(addr).is_some_and(|r| r.starts_with("HTTP/1.1 200")));
}

#[test]
fn idle_sockets_past_the_descriptors_are_refused_at_accept_not_by_emfile() {
    let limit = 256;
    let cap = limit - RESERVED;
    let (_server, addr, start, log) =
        serve(&limit.to_string(), &["--http-header-timeout-secs", "120"]);
    assert!(
        start.iter().any(
            |l| l.contains("open-files limit") && l.contains(&format!("max_connections={cap}"))
        ),
        "the server says its cap was lowered: {start:#?}"
    );
    // More idle sockets than the limit: the first `cap` are held (they have two minutes
    // to send a request), every later one is closed at once.
    let socks: Vec<TcpStream> = (0..limit + 44)
        .map(|_| TcpStream::connect(addr).expect("connect"))
        .collect();
    let refused = socks.len() - cap;
    let mut closed = vec![false; socks.len()];
    for _ in 0..100 {
        for (s, closed) in socks.iter().zip(closed.iter_mut()) {
            s.set_nonblocking(true).unwrap();
            let mut byte = [0u8; 1];
            // A refused socket reads its end (or a reset); a held one has nothing yet.
            match (&*s).read(&mut byte) {
                Ok(0) => *closed = true,
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => *closed = true,
                _ => {}
            }
        }
        if closed.iter().filter(|c| **c).count() >= refused {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let closed = closed.iter().filter(|c| **c).count();
    assert_eq!(closed, socks.len() - cap, "all but the cap were refused");
    drop(socks);
    // With the idle ones gone the server serves again, and it never ran out of
    // descriptors meanwhile.
    let mut ok = false;
    for _ in 0..100 {
        if healthz(addr).is_some_and(|r| r.starts_with("HTTP/1.1 200")) {
            ok = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(ok, "healthz answers once the idle sockets closed");
    let said: Vec<String> = log.try_iter().collect();
    assert!(
        !said.iter().any(|l| l.contains("accept failed")),
        "accept never failed: {said:#?}"
    );
}

/// A marker no log line has a reason to hold unless it copied a client's message.
const MARKER: &str = "clientsecretmarker";

#[tokio::test]
async fn clients_messages_never_reach_the_log_even_at_trace() {
    use futures_util::SinkExt;
    use tokio_tungstenite::tungstenite::Message;
    let (_server, addr, _, log) = serve_with("4096", &[], Some("trace"));
    let http = |req: String| async move {
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        tokio::io::AsyncWriteExt::write_all(&mut s, req.as_bytes())
            .await
            .unwrap();
        let mut out = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut s, &mut out)
            .await
            .unwrap();
        out
    };
    let body = r#"{"id":"logged"}"#;
    let created = http(format!(
        "POST /rooms HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    ))
    .await;
    assert!(created.starts_with("HTTP/1.1 201"), "{created}");
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/rooms/logged/ws"))
        .await
        .unwrap();
    // A text frame that is not even a valid message: tungstenite would log it as it came.
    let edits = format!(r#"{{"type":"edits","seq":1,"ops":[],"note":"{MARKER}"}}"#);
    ws.send(Message::text(edits)).await.unwrap();
    ws.send(Message::text(format!(r#"{{"type":"{MARKER}"}}"#)))
        .await
        .unwrap();
    // Wait for the answers, so the server has read both messages.
    use futures_util::StreamExt;
    let answers = async {
        let mut answers = 0;
        while answers < 2 {
            match ws.next().await {
                Some(Ok(Message::Text(_) | Message::Binary(_))) => answers += 1,
                Some(Ok(_)) => {}
                other => panic!("the server answers: {other:?}"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(60), answers)
        .await
        .expect("both messages answered");
    ws.close(None).await.ok();
    // Everything the server logged up to the session's end.
    let mut lines = Vec::new();
    while let Ok(line) = log.recv_timeout(Duration::from_secs(30)) {
        let end = line.contains("ws closed");
        lines.push(line);
        if end {
            break;
        }
    }
    assert!(
        lines.iter().any(|l| l.contains("TRACE")),
        "the log is at trace level"
    );
    let leaked: Vec<&String> = lines.iter().filter(|l| l.contains(MARKER)).collect();
    assert!(leaked.is_empty(), "client messages in the log: {leaked:#?}");
}
