//! The kernel's view of a TCP connection, from `/proc/net/tcp` and `/proc/net/tcp6`:
//! whether the server has closed a connection that the harness holds but never reads.
//!
//! A hostile client that never reads cannot learn from its own socket that the server
//! closed it: the server's FIN waits behind the data that fills the client's receive
//! window. The kernel knows, though, and on loopback both ends are on this machine: the
//! server's end of the connection shows `FIN_WAIT1` once the server closed it, or is
//! gone once it reset it; the client's end shows `CLOSE_WAIT` after a FIN and is gone
//! after a reset. Invariant: [`TcpTable::verdict`] says `Closed` only on such evidence,
//! never on a missing file or an unparsable line (those give `Unknown`).

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// The TCP states of the kernel's table that the verdict uses (`include/net/tcp_states.h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TcpState {
    Established,
    SynSent,
    FinWait1,
    FinWait2,
    TimeWait,
    CloseWait,
    LastAck,
    Closing,
    /// Any other (listening sockets, SYN_RECV, new states).
    Other(u8),
}

impl TcpState {
    fn from_code(code: u8) -> TcpState {
        match code {
            0x01 => TcpState::Established,
            0x02 => TcpState::SynSent,
            0x04 => TcpState::FinWait1,
            0x05 => TcpState::FinWait2,
            0x06 => TcpState::TimeWait,
            0x08 => TcpState::CloseWait,
            0x09 => TcpState::LastAck,
            0x0B => TcpState::Closing,
            other => TcpState::Other(other),
        }
    }
}

/// Whether the server still holds a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Held {
    /// Both ends established (or the client's end is, and the server's is not visible).
    Open,
    /// The server closed its end (`how` says what showed it).
    Closed { how: &'static str },
    /// No evidence either way (no procfs, or the client's own end is not listed).
    Unknown,
}

/// One reading of the kernel's TCP tables: state by (local, remote) address.
#[derive(Debug, Default)]
pub(crate) struct TcpTable {
    states: HashMap<(SocketAddr, SocketAddr), TcpState>,
}

impl TcpTable {
    /// Reads `/proc/net/tcp` and `/proc/net/tcp6`; empty where there is no procfs.
    pub(crate) fn read() -> TcpTable {
        let mut table = TcpTable::default();
        for path in ["/proc/net/tcp", "/proc/net/tcp6"] {
            if let Ok(text) = std::fs::read_to_string(path) {
                table.add(&text);
            }
        }
        table
    }

    /// Adds the lines of one table file (the header is skipped).
    pub(crate) fn add(&mut self, text: &str) {
        for line in text.lines().skip(1) {
            if let Some((local, remote, state)) = parse_line(line) {
                self.states.insert((local, remote), state);
            }
        }
    }

    /// The state of the socket bound to `local` and connected to `remote`.
    pub(crate) fn state(&self, local: SocketAddr, remote: SocketAddr) -> Option<TcpState> {
        self.states.get(&(local, remote)).copied()
    }

    /// Whether the server at `server` still holds the connection whose client end is
    /// `client` (a socket this process holds open).
    pub(crate) fn verdict(&self, client: SocketAddr, server: SocketAddr) -> Held {
        if self.states.is_empty() {
            return Held::Unknown;
        }
        // The server's end first: on loopback it is the more direct evidence.
        match self.state(server, client) {
            Some(TcpState::FinWait1 | TcpState::FinWait2 | TcpState::Closing) => {
                return Held::Closed {
                    how: "the server closed its end",
                };
            }
            Some(TcpState::TimeWait | TcpState::LastAck) => {
                return Held::Closed {
                    how: "the server closed its end",
                };
            }
            _ => {}
        }
        match self.state(client, server) {
            Some(TcpState::CloseWait) => Held::Closed {
                how: "the server sent FIN",
            },
            Some(TcpState::Established | TcpState::SynSent) => Held::Open,
            Some(_) => Held::Closed {
                how: "the connection is closing",
            },
            // The client still holds its socket, so a missing entry means the kernel
            // tore it down: the server reset the connection.
            None if is_loopback(server) => Held::Closed {
                how: "the server reset the connection",
            },
            None => Held::Unknown,
        }
    }
}

fn is_loopback(addr: SocketAddr) -> bool {
    addr.ip().is_loopback()
}

/// `  0: 0100007F:1F90 0100007F:D2F0 01 ...` into (local, remote, state).
fn parse_line(line: &str) -> Option<(SocketAddr, SocketAddr, TcpState)> {
    let mut fields = line.split_whitespace();
    fields.next()?;
    let local = parse_addr(fields.next()?)?;
    let remote = parse_addr(fields.next()?)?;
    let state = u8::from_str_radix(fields.next()?, 16).ok()?;
    Some((local, remote, TcpState::from_code(state)))
}

/// The kernel prints the address as the raw 32-bit words of `in_addr` / `in6_addr` in
/// the machine's byte order, and the port in host order.
fn parse_addr(field: &str) -> Option<SocketAddr> {
    let (ip, port) = field.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let ip = match ip.len() {
        8 => IpAddr::V4(Ipv4Addr::from(
            u32::from_str_radix(ip, 16).ok()?.to_ne_bytes(),
        )),
        32 => {
            let mut bytes = [0u8; 16];
            for (i, chunk) in bytes.chunks_mut(4).enumerate() {
                let word = u32::from_str_radix(ip.get(i * 8..i * 8 + 8)?, 16).ok()?;
                chunk.copy_from_slice(&word.to_ne_bytes());
            }
            IpAddr::V6(Ipv6Addr::from(bytes))
        }
        _ => return None,
    };
    Some(SocketAddr::new(ip, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(s: &str) -> SocketAddr {
        s.parse().unwrap()
    }

    /// A table as the kernel prints it on a little-endian machine: the server on
    /// 127.0.0.1:8080, clients on ports 53488 (open), 53489 (server closed, FIN pending
    /// behind a full window) and 53490 (server FIN received).
    fn table() -> TcpTable {
        let mut t = TcpTable::default();
        let text = "  sl  local_address rem_address   st tx_queue rx_queue\n\
            0: 0100007F:1F90 00000000:0000 0A 00000000:00000000\n\
            1: 0100007F:1F90 0100007F:D0F0 01 00000000:00000000\n\
            2: 0100007F:D0F0 0100007F:1F90 01 00000000:00000000\n\
            3: 0100007F:1F90 0100007F:D0F1 04 00000000:00000000\n\
            4: 0100007F:D0F1 0100007F:1F90 01 00000000:00000000\n\
            5: 0100007F:D0F2 0100007F:1F90 08 00000000:00000000\n\
            garbage\n";
        if cfg!(target_endian = "little") {
            t.add(text);
        }
        t
    }

    #[test]
    fn reads_states_and_judges_who_closed() {
        if cfg!(target_endian = "big") {
            return;
        }
        let t = table();
        let server = addr("127.0.0.1:8080");
        assert_eq!(
            t.state(addr("127.0.0.1:53488"), server),
            Some(TcpState::Established)
        );
        assert_eq!(t.verdict(addr("127.0.0.1:53488"), server), Held::Open);
        assert!(matches!(
            t.verdict(addr("127.0.0.1:53489"), server),
            Held::Closed { .. }
        ));
        assert!(matches!(
            t.verdict(addr("127.0.0.1:53490"), server),
            Held::Closed { .. }
        ));
        // Gone from the table while this process holds it: reset by the server.
        assert!(matches!(
            t.verdict(addr("127.0.0.1:53491"), server),
            Held::Closed { .. }
        ));
        assert_eq!(
            TcpTable::default().verdict(addr("127.0.0.1:1"), server),
            Held::Unknown
        );
    }

    #[test]
    fn parses_ipv6_words() {
        // ::1 is three zero words and then 1 in network order.
        let one = if cfg!(target_endian = "little") {
            "00000000000000000000000001000000:1F90"
        } else {
            "00000000000000000000000000000001:1F90"
        };
        assert_eq!(parse_addr(one), Some(addr("[::1]:8080")));
        assert_eq!(parse_addr("zz:1"), None);
    }

    #[test]
    fn sees_a_real_socket_of_this_process() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let server = listener.local_addr().unwrap();
        let client = std::net::TcpStream::connect(server).unwrap();
        let (_accepted, _) = listener.accept().unwrap();
        let t = TcpTable::read();
        if t.states.is_empty() {
            return; // no procfs here
        }
        assert_eq!(t.verdict(client.local_addr().unwrap(), server), Held::Open);
    }
}
