//! A subscriber's WebSocket without a WebSocket library on the read path: frames are
//! parsed straight out of one reused receive buffer.
//!
//! Why: a harness of 5,000 subscribers on the same two cores as the server is itself the
//! bottleneck of the latency it measures. tungstenite zero-fills its whole read buffer
//! before every read (16 KiB per frame here, 11.7% of the harness's CPU by `perf` at
//! 5,000 subscribers); this reader reads into spare capacity without filling it and
//! hands out each payload as a slice of the buffer it arrived in, no copy.
//!
//! Invariant: the API is the part of tokio-tungstenite's the harness uses (`send`,
//! `next`, `close`, with tungstenite's `Message`), so the callers read the same; `next`
//! is cancel-safe (a `select!` may drop it between frames or mid-frame: what was read
//! stays in the buffer, a pong not yet written stays queued).

use std::io;

use bytes::{Buf, Bytes, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{Error as WsError, Message, Utf8Bytes};

use super::client_frame;

/// Spare capacity the buffer keeps for the next read.
const READ_AHEAD: usize = 64 * 1024;

use super::{OP_BINARY, OP_CLOSE, OP_CONTINUATION, OP_PING, OP_PONG, OP_TEXT};

/// An open subscriber socket (after the handshake).
#[derive(Debug)]
pub(crate) struct RawSocket {
    stream: TcpStream,
    buf: BytesMut,
    /// The data frames of a fragmented message so far, and its opcode.
    partial: Option<(u8, BytesMut)>,
    /// Frames to write (pongs, a close reply) not yet written.
    out: Vec<u8>,
    max_message: usize,
    closed: bool,
}

/// One parsed frame.
struct Frame {
    fin: bool,
    opcode: u8,
    payload: Bytes,
}

impl RawSocket {
    /// The socket after a handshake whose response was followed by `rest`.
    pub(crate) fn new(stream: TcpStream, rest: &[u8], max_message: usize) -> RawSocket {
        let mut buf = BytesMut::with_capacity(READ_AHEAD);
        buf.extend_from_slice(rest);
        RawSocket {
            stream,
            buf,
            partial: None,
            out: Vec::new(),
            max_message,
            closed: false,
        }
    }

    /// Sends a text or binary message (anything else is refused).
    pub(crate) async fn send(&mut self, msg: Message) -> Result<(), WsError> {
        let (opcode, payload): (u8, &[u8]) = match &msg {
            Message::Text(t) => (OP_TEXT, t.as_bytes()),
            Message::Binary(b) => (OP_BINARY, b),
            _ => return Err(WsError::Io(io::ErrorKind::Unsupported.into())),
        };
        client_frame(&mut self.out, opcode, payload);
        self.write_out().await.map_err(WsError::Io)
    }

    /// Sends a close frame (code 1000 unless given) and stops reading.
    pub(crate) async fn close(&mut self, frame: Option<CloseFrame>) -> Result<(), WsError> {
        if !self.closed {
            self.closed = true;
            let code = frame.as_ref().map_or(1000, |f| u16::from(f.code));
            client_frame(&mut self.out, OP_CLOSE, &code.to_be_bytes());
        }
        self.write_out().await.map_err(WsError::Io)
    }

    /// The next text, binary or close message; `None` once the stream ended. Pings are
    /// answered here.
    pub(crate) async fn next(&mut self) -> Option<Result<Message, WsError>> {
        loop {
            if let Err(e) = self.write_out().await {
                return Some(Err(WsError::Io(e)));
            }
            let frame = match self.parse() {
                Ok(Some(f)) => f,
                Ok(None) => {
                    if self.buf.capacity() - self.buf.len() < READ_AHEAD / 4 {
                        self.buf.reserve(READ_AHEAD);
                    }
                    match self.stream.read_buf(&mut self.buf).await {
                        Ok(0) => return None,
                        Ok(_) => continue,
                        Err(e) => return Some(Err(WsError::Io(e))),
                    }
                }
                Err(e) => return Some(Err(e)),
            };
            match frame.opcode {
                OP_PING => {
                    client_frame(&mut self.out, OP_PONG, &frame.payload);
                    continue;
                }
                OP_PONG => continue,
                OP_CLOSE => {
                    let close = close_frame(&frame.payload);
                    if !self.closed {
                        self.closed = true;
                        let code = close.as_ref().map_or(1000, |c| u16::from(c.code));
                        client_frame(&mut self.out, OP_CLOSE, &code.to_be_bytes());
                        let _ = self.write_out().await;
                    }
                    return Some(Ok(Message::Close(close)));
                }
                _ => {}
            }
            if let Some(msg) = self.assemble(frame) {
                return Some(msg);
            }
        }
    }

    /// Puts data frames together into messages.
    fn assemble(&mut self, frame: Frame) -> Option<Result<Message, WsError>> {
        let (opcode, payload) = match (frame.opcode, self.partial.take()) {
            (OP_TEXT | OP_BINARY, None) if frame.fin => (frame.opcode, frame.payload),
            (OP_TEXT | OP_BINARY, None) => {
                self.partial = Some((frame.opcode, BytesMut::from(&frame.payload[..])));
                return None;
            }
            (OP_CONTINUATION, Some((opcode, mut so_far))) => {
                if so_far.len() + frame.payload.len() > self.max_message {
                    return Some(Err(protocol("a message over the size limit")));
                }
                so_far.extend_from_slice(&frame.payload);
                if !frame.fin {
                    self.partial = Some((opcode, so_far));
                    return None;
                }
                (opcode, so_far.freeze())
            }
            _ => return Some(Err(protocol("a frame out of place"))),
        };
        Some(match opcode {
            OP_TEXT => Utf8Bytes::try_from(payload)
                .map(Message::Text)
                .map_err(|_| protocol("text that is not UTF-8")),
            _ => Ok(Message::Binary(payload)),
        })
    }

    /// The next whole frame in the buffer, if one is there.
    fn parse(&mut self) -> Result<Option<Frame>, WsError> {
        let b = &self.buf[..];
        if b.len() < 2 {
            return Ok(None);
        }
        if b[1] & 0x80 != 0 {
            return Err(protocol("a masked frame from the server"));
        }
        let (len, head) = match b[1] & 0x7F {
            126 if b.len() >= 4 => (usize::from(u16::from_be_bytes([b[2], b[3]])), 4),
            127 if b.len() >= 10 => {
                let n = u64::from_be_bytes(b[2..10].try_into().expect("8 bytes"));
                (usize::try_from(n).unwrap_or(usize::MAX), 10)
            }
            126 | 127 => return Ok(None),
            n => (usize::from(n), 2),
        };
        if len > self.max_message {
            return Err(protocol("a frame over the size limit"));
        }
        if b.len() < head + len {
            self.buf.reserve(head + len - self.buf.len());
            return Ok(None);
        }
        let (fin, opcode) = (b[0] & 0x80 != 0, b[0] & 0x0F);
        self.buf.advance(head);
        let payload = self.buf.split_to(len).freeze();
        Ok(Some(Frame {
            fin,
            opcode,
            payload,
        }))
    }

    /// Writes what is queued; cancel-safe (only what was written is dropped).
    async fn write_out(&mut self) -> io::Result<()> {
        while !self.out.is_empty() {
            let n = self.stream.write(&self.out).await?;
            if n == 0 {
                return Err(io::ErrorKind::WriteZero.into());
            }
            self.out.drain(..n);
        }
        Ok(())
    }
}

fn protocol(what: &str) -> WsError {
    WsError::Io(io::Error::new(io::ErrorKind::InvalidData, what.to_string()))
}

/// The close frame a close payload holds.
fn close_frame(payload: &[u8]) -> Option<CloseFrame> {
    if payload.len() < 2 {
        return None;
    }
    let code = u16::from_be_bytes([payload[0], payload[1]]);
    let reason = String::from_utf8_lossy(&payload[2..]).into_owned();
    Some(CloseFrame {
        code: CloseCode::from(code),
        reason: reason.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames written by the server's rules (unmasked), parsed back.
    fn server_frame(fin: bool, opcode: u8, payload: &[u8]) -> Vec<u8> {
        let mut out = vec![if fin { 0x80 } else { 0 } | opcode];
        if payload.len() < 126 {
            out.push(payload.len() as u8);
        } else {
            out.push(126);
            out.extend_from_slice(&(payload.len() as u16).to_be_bytes());
        }
        out.extend_from_slice(payload);
        out
    }

    #[tokio::test]
    async fn reads_fragmented_messages_answers_pings_and_masks_what_it_sends() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            let mut wire = Vec::new();
            wire.extend(server_frame(false, OP_BINARY, &[1; 200]));
            wire.extend(server_frame(true, OP_PING, b"hi"));
            wire.extend(server_frame(true, OP_CONTINUATION, &[2; 3]));
            wire.extend(server_frame(true, OP_TEXT, "é".as_bytes()));
            wire.extend(server_frame(true, OP_CLOSE, &4000u16.to_be_bytes()));
            // Byte by byte: every partial frame must wait for the rest.
            for b in wire {
                s.write_all(&[b]).await.unwrap();
            }
            let mut got = Vec::new();
            s.read_to_end(&mut got).await.unwrap();
            got
        });
        let stream = TcpStream::connect(addr).await.unwrap();
        let mut socket = RawSocket::new(stream, &[], 1 << 20);
        let Some(Ok(Message::Binary(b))) = socket.next().await else {
            panic!("a binary message")
        };
        assert_eq!(b.len(), 203);
        assert!(matches!(socket.next().await, Some(Ok(Message::Text(t))) if t.as_str() == "é"));
        let Some(Ok(Message::Close(Some(c)))) = socket.next().await else {
            panic!("the close")
        };
        assert_eq!(u16::from(c.code), 4000);
        drop(socket);
        let got = server.await.unwrap();
        // A masked pong with "hi", then a masked close reply with 4000.
        assert_eq!(got[0], 0x80 | OP_PONG);
        assert_eq!(got[1], 0x80 | 2);
        let mask = &got[2..6];
        assert_eq!([got[6] ^ mask[0], got[7] ^ mask[1]], *b"hi");
        assert_eq!(got[8], 0x80 | OP_CLOSE);
        let mask = &got[10..14];
        assert_eq!(
            [got[14] ^ mask[0], got[15] ^ mask[1]],
            4000u16.to_be_bytes()
        );
    }
}
