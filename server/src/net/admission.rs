//! Connection admission: a cap on open connections in all and per address, taken at
//! accept and held for the connection's life (an upgraded WebSocket keeps the permit of
//! the HTTP connection it came from).
//!
//! Invariant: at most `--max-connections` permits exist (fewer when the open-files limit
//! leaves less, see [`fit_to_descriptors`]), and at most `--max-connections-per-ip` for
//! one address; a permit gives its place back when its last holder drops it, so the
//! counts follow the connections that are open.

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use dashmap::DashMap;

/// Descriptors kept back from connections for what else the server opens: its listener,
/// storage segments and snapshots, the NATS connection, epoll, the runtime's pipes.
pub(crate) const DESCRIPTORS_RESERVED: u64 = 64;

/// `max_connections` lowered, if need be, to what an open-files limit of `nofile` leaves
/// after [`DESCRIPTORS_RESERVED`] (at least one). A connection is one descriptor, so past
/// this cap connections are refused at accept, one at a time, instead of `accept`
/// failing with `EMFILE` for every client, health checks included, and storage being
/// unable to open its next segment.
pub(crate) fn fit_to_descriptors(max_connections: usize, nofile: u64) -> usize {
    let room = nofile.saturating_sub(DESCRIPTORS_RESERVED).max(1);
    max_connections.min(usize::try_from(room).unwrap_or(usize::MAX))
}

/// The process's soft open-files limit, if the platform has one.
pub(crate) fn open_files_limit() -> Option<u64> {
    rlimit::getrlimit(rlimit::Resource::NOFILE)
        .ok()
        .map(|(soft, _)| soft)
}

/// The connection counts of a server.
#[derive(Debug)]
pub struct ConnectionLimits {
    max_total: usize,
    max_per_ip: usize,
    total: AtomicUsize,
    per_ip: DashMap<IpAddr, usize>,
}

/// One admitted connection; cloned into whatever outlives the HTTP connection.
#[derive(Debug, Clone)]
pub struct ConnPermit(Arc<PermitInner>);

#[derive(Debug)]
struct PermitInner {
    limits: Arc<ConnectionLimits>,
    ip: IpAddr,
}

impl Drop for PermitInner {
    fn drop(&mut self) {
        self.limits.total.fetch_sub(1, Ordering::AcqRel);
        if let dashmap::mapref::entry::Entry::Occupied(mut e) = self.limits.per_ip.entry(self.ip) {
            *e.get_mut() -= 1;
            if *e.get() == 0 {
                e.remove();
            }
        }
    }
}

/// Why a connection was not admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error("the server has {0} connections open, its limit")]
    Total(usize),
    #[error("this address has {0} connections open, its limit")]
    PerAddress(usize),
}

impl ConnPermit {
    /// The address the connection came from.
    pub fn ip(&self) -> IpAddr {
        self.0.ip
    }
}

impl ConnectionLimits {
    /// Caps of `max_total` connections, `max_per_ip` of them from one address (no more
    /// than `max_total`).
    pub fn new(max_total: usize, max_per_ip: usize) -> Arc<Self> {
        Arc::new(Self {
            max_total,
            max_per_ip: max_per_ip.min(max_total),
            total: AtomicUsize::new(0),
            per_ip: DashMap::new(),
        })
    }

    /// Admits a connection from `ip`, or says which limit it hit.
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Result<ConnPermit, Refused> {
        if self.total.fetch_add(1, Ordering::AcqRel) >= self.max_total {
            self.total.fetch_sub(1, Ordering::AcqRel);
            return Err(Refused::Total(self.max_total));
        }
        let mut count = self.per_ip.entry(ip).or_insert(0);
        if *count >= self.max_per_ip {
            drop(count);
            self.total.fetch_sub(1, Ordering::AcqRel);
            return Err(Refused::PerAddress(self.max_per_ip));
        }
        *count += 1;
        drop(count);
        Ok(ConnPermit(Arc::new(PermitInner {
            limits: Arc::clone(self),
            ip,
        })))
    }

    /// Connections open now.
    pub fn open(&self) -> usize {
        self.total.load(Ordering::Acquire)
    }

    /// The cap on connections in all.
    pub fn max_total(&self) -> usize {
        self.max_total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permits_count_until_dropped() {
        let l = ConnectionLimits::new(3, 2);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let p1 = l.admit(a).unwrap();
        let p2 = l.admit(a).unwrap();
        assert_eq!(l.admit(a).unwrap_err(), Refused::PerAddress(2));
        let p3 = l.admit(b).unwrap();
        assert_eq!(l.admit(b).unwrap_err(), Refused::Total(3));
        let shared = p1.clone();
        drop(p1);
        assert_eq!(l.open(), 3, "a clone keeps the place");
        drop(shared);
        assert!(l.admit(b).is_ok());
        drop((p2, p3));
        assert!(l.per_ip.len() <= 1);
    }

    #[test]
    fn the_cap_leaves_descriptors_for_the_rest_of_the_server() {
        assert_eq!(fit_to_descriptors(16_384, 256), 192);
        assert_eq!(fit_to_descriptors(100, 256), 100);
        assert_eq!(fit_to_descriptors(16_384, u64::MAX), 16_384);
        assert_eq!(fit_to_descriptors(16_384, 10), 1, "never zero");
        let l = ConnectionLimits::new(2, 1024);
        assert_eq!(l.max_per_ip, 2);
    }
}
