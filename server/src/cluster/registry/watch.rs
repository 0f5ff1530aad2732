//! Keeps a node's view of the registry current: watches both buckets and folds their
//! events in. Invariant: an event never replaces a newer revision already seen (the
//! node's own writes and the watch arrive in either order).

use std::time::Duration;

use async_nats::jetstream::kv;
use futures_util::StreamExt;

use super::{NodeRecord, Registry, RoomRecord, Seen};
use canopy_room::lease::monotonic_ms;

impl Registry {
    /// Keeps the view current: watches both buckets, starting again after an error
    /// (NATS away), until cancelled.
    pub(in crate::cluster) async fn watch(&self) {
        loop {
            let rooms = self.rooms.watch_all();
            let nodes = self.nodes.watch_all();
            match (rooms.await, nodes.await) {
                (Ok(mut rooms), Ok(mut nodes)) => loop {
                    tokio::select! {
                        e = rooms.next() => match e {
                            Some(Ok(e)) => self.room_event(e),
                            _ => break,
                        },
                        e = nodes.next() => match e {
                            Some(Ok(e)) => self.node_event(e),
                            _ => break,
                        },
                    }
                },
                (r, n) => {
                    tracing::debug!(
                        rooms = r.is_ok(),
                        nodes = n.is_ok(),
                        "registry watch failed; retrying"
                    );
                }
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }

    fn room_event(&self, e: kv::Entry) {
        match e.operation {
            kv::Operation::Put => {
                if let Ok(record) = serde_json::from_slice::<RoomRecord>(&e.value) {
                    self.saw_room(&e.key, record, e.revision);
                }
            }
            kv::Operation::Delete | kv::Operation::Purge => {
                self.room_view
                    .remove_if(&e.key, |_, s| s.revision <= e.revision);
            }
        }
    }

    fn node_event(&self, e: kv::Entry) {
        match e.operation {
            kv::Operation::Put => {
                if let Ok(record) = serde_json::from_slice::<NodeRecord>(&e.value) {
                    self.node_view.insert(
                        e.key.clone(),
                        Seen {
                            value: record,
                            revision: e.revision,
                            at_ms: monotonic_ms(),
                        },
                    );
                }
            }
            kv::Operation::Delete | kv::Operation::Purge => {
                self.node_view.remove(&e.key);
            }
        }
    }
}
