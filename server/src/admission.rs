//! Connection admission: a cap on open connections in all and per address, taken at
//! accept and held for the connection's life (an upgraded WebSocket keeps the permit of
//! the HTTP connection it came from).
//!
//! Invariant: at most `--max-connections` permits exist, and at most
//! `--max-connections-per-ip` for one address; a permit gives its place back when its
//! last holder drops it, so the counts follow the connections that are open.

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use dashmap::DashMap;

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
    pub fn new(max_total: usize, max_per_ip: usize) -> Arc<Self> {
        Arc::new(Self {
            max_total,
            max_per_ip,
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
}
