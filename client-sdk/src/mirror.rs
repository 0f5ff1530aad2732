//! [`Mirror`]: the client's copy of the in-scope nodes (world transform, parent, extent,
//! mask), kept by applying the server's snapshots and deltas exactly as the contract
//! says, in either encoding of world transforms.
//!
//! * A snapshot replaces the copy.
//! * A delta's `upsert` inserts or overwrites whole nodes, its `update` replaces world
//!   transforms of nodes the copy holds, its `remove` deletes nodes. A merged frame (the
//!   server folding several ticks for a slow reader) and a resumed delta (the answer to
//!   a `subscribe` with `since`) are just deltas.
//! * **Compact** frames (`encoding: compact`, see `canopy_protocol::compact`): a
//!   snapshot's or an upsert's absolute row replaces that node's world transform, then
//!   each id-coded row is applied to the node's *baseline*, the quantized value it was
//!   last sent as, and the result becomes both the new baseline and the world transform
//!   (dequantized). A node whose value last came exactly (an exact row, or any frame
//!   without compact rows) has no baseline.
//!
//! Invariant: after the snapshot and every later frame of a connection are applied in
//! order, the copy equals the server's in-scope state at the last frame's tick (for
//! compact frames: `dequantize(quantize(server value))`, bit for bit, with no error
//! carried over from frame to frame). Anything that would break that is counted as an
//! inconsistency (the connection then asks for a fresh snapshot) rather than guessed
//! at: an `update` of a node the copy does not hold, a `remove` of one outside a
//! resumed delta (a resumed delta may remove nodes the client never held), a compact block that
//! does not decode (none of its rows is applied then), or a compact row that does not
//! apply to its node's baseline.
//!
//! The mirror is a plain value: [`Connection`](crate::Connection) keeps one up to date,
//! and a caller reading frames itself can drive one with [`Mirror::apply`].

use rustc_hash::FxHashMap as HashMap;
use std::collections::hash_map::Entry;

use canopy_protocol::compact::{self, DeltaRows, Quantized};
use canopy_protocol::{CompactRows, Node, NodeId, ServerMsg, UpdateRow};

use crate::events::Event;

/// One node of the copy and, on a compact connection, its baseline.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Held {
    node: Node,
    base: Option<Quantized>,
}

/// The lists of a delta, borrowed where the mirror only reads them.
struct DeltaLists<'a> {
    upsert: Vec<Node>,
    update: &'a [UpdateRow],
    remove: &'a [NodeId],
    compact: Option<&'a CompactRows>,
    /// A resumed delta may name in `remove` nodes the copy never held (the server
    /// cannot know which out-of-scope nodes were in scope at the client's tick), so
    /// those are no inconsistency there.
    resumed: bool,
}

/// The client's copy of the nodes in scope.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mirror {
    nodes: HashMap<NodeId, Held>,
    tick: u64,
    time: u64,
    inconsistencies: u64,
}

impl Mirror {
    /// An empty mirror at tick 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// The node with this id, if it is in scope.
    pub fn get(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(&id).map(|h| &h.node)
    }

    /// The quantized value the node's world transform was last sent as on a compact
    /// connection; `None` when it came exactly (or the node is not in scope).
    pub fn baseline(&self, id: NodeId) -> Option<&Quantized> {
        self.nodes.get(&id).and_then(|h| h.base.as_ref())
    }

    /// Whether the node is in scope.
    pub fn contains(&self, id: NodeId) -> bool {
        self.nodes.contains_key(&id)
    }

    /// The number of nodes in scope.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether no node is in scope.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Every node in scope, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &Node> {
        self.nodes.values().map(|h| &h.node)
    }

    /// Every node in scope, sorted by id (to compare with `GET /rooms/{room}/nodes`).
    pub fn to_sorted_vec(&self) -> Vec<Node> {
        let mut nodes: Vec<Node> = self.iter().copied().collect();
        nodes.sort_unstable_by_key(|n| n.id);
        nodes
    }

    /// The tick of the last applied frame (0 before the first).
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// The server time of the last applied frame, in milliseconds since the Unix epoch.
    pub fn time_ms(&self) -> u64 {
        self.time
    }

    /// How many entries could not be applied: `update` or `remove` entries naming a node
    /// the copy did not hold, compact blocks that did not decode and compact rows that
    /// did not apply. Always 0 against a server that keeps the contract.
    pub fn inconsistencies(&self) -> u64 {
        self.inconsistencies
    }

    /// Applies a `snapshot` or `delta` message and returns its events (a snapshot ends
    /// with [`Event::Snapshot`], a delta with [`Event::Tick`]). Other messages change
    /// nothing and return no events.
    pub fn apply(&mut self, msg: ServerMsg) -> Vec<Event> {
        let mut events = Vec::new();
        let snapshot = matches!(msg, ServerMsg::Snapshot { .. });
        if self.apply_frame(msg, Some(&mut events)).is_some() && snapshot {
            events.push(Event::Snapshot {
                tick: self.tick,
                time: self.time,
                len: self.len(),
            });
        }
        events
    }

    /// Applies a `snapshot` or `delta`, exact or compact, resumed or not, pushing its
    /// events to `events` when given: for a snapshot the difference from the old copy
    /// (as [`Mirror::apply_snapshot`]), for a delta its changes and a closing
    /// [`Event::Tick`]. Returns whether the frame was consistent with the copy, or
    /// `None` (and changes nothing) for any other message.
    pub fn apply_frame(&mut self, msg: ServerMsg, events: Option<&mut Vec<Event>>) -> Option<bool> {
        match msg {
            ServerMsg::Snapshot {
                tick,
                time,
                nodes,
                compact,
            } => Some(self.snapshot(tick, time, nodes, compact.as_ref(), events)),
            ServerMsg::Delta {
                tick,
                time,
                upsert,
                update,
                remove,
                compact,
                resumed,
            } => {
                let lists = DeltaLists {
                    upsert,
                    update: &update,
                    remove: &remove,
                    compact: compact.as_ref(),
                    resumed,
                };
                Some(self.delta(tick, time, lists, events))
            }
            _ => None,
        }
    }

    /// Replaces the copy with a snapshot's nodes (exact world transforms). When `events`
    /// is given it receives the difference from the old copy: `Left` for nodes that are
    /// gone, `Entered` for new ones, `Changed` for nodes whose values differ (no marker
    /// event; the caller adds the one that says why the snapshot came).
    pub fn apply_snapshot(
        &mut self,
        tick: u64,
        time: u64,
        nodes: Vec<Node>,
        events: Option<&mut Vec<Event>>,
    ) {
        self.snapshot(tick, time, nodes, None, events);
    }

    fn snapshot(
        &mut self,
        tick: u64,
        time: u64,
        mut nodes: Vec<Node>,
        compact: Option<&CompactRows>,
        events: Option<&mut Vec<Event>>,
    ) -> bool {
        let mut bases = vec![None; nodes.len()];
        let mut consistent = true;
        if let Some(rows) = compact {
            let mut values = Vec::new();
            match compact::decode_snapshot(&rows.0, nodes.len(), &mut values) {
                Ok(()) => {
                    for ((node, base), value) in nodes.iter_mut().zip(&mut bases).zip(&values) {
                        node.world = value.to_transform();
                        *base = value.quantized().copied();
                    }
                }
                // The nodes are taken as sent (exact, no baseline); the caller resyncs.
                Err(_) => consistent = false,
            }
        }
        let mut fresh: HashMap<NodeId, Held> = nodes
            .into_iter()
            .zip(bases)
            .map(|(node, base)| (node.id, Held { node, base }))
            .collect();
        if let Some(events) = events {
            let mut gone: Vec<NodeId> = self
                .nodes
                .keys()
                .filter(|id| !fresh.contains_key(id))
                .copied()
                .collect();
            gone.sort_unstable();
            events.extend(gone.into_iter().map(Event::Left));
            let mut arrived: Vec<&Node> = fresh.values().map(|h| &h.node).collect();
            arrived.sort_unstable_by_key(|n| n.id);
            for node in arrived {
                match self.nodes.get(&node.id) {
                    None => events.push(Event::Entered(*node)),
                    Some(old) if old.node != *node => events.push(Event::Changed(*node)),
                    Some(_) => {}
                }
            }
        }
        std::mem::swap(&mut self.nodes, &mut fresh);
        self.tick = tick;
        self.time = time;
        if !consistent {
            self.inconsistencies += 1;
        }
        consistent
    }

    /// Applies an exact delta (`upsert`, then `update`, then `remove`; the contract puts
    /// a node in at most one list per frame, so the order does not change the result)
    /// and, when `events` is given, pushes its events and a closing [`Event::Tick`].
    /// Returns whether the frame was consistent with the copy; entries naming unknown
    /// nodes are skipped and counted.
    pub fn apply_delta(
        &mut self,
        tick: u64,
        time: u64,
        upsert: Vec<Node>,
        update: &[UpdateRow],
        remove: &[NodeId],
        events: Option<&mut Vec<Event>>,
    ) -> bool {
        let lists = DeltaLists {
            upsert,
            update,
            remove,
            compact: None,
            resumed: false,
        };
        self.delta(tick, time, lists, events)
    }

    /// A delta: `upsert` (world transforms from the compact block's absolute rows when
    /// there is one), exact `update` rows, the compact id-coded rows, then `remove`.
    fn delta(
        &mut self,
        tick: u64,
        time: u64,
        lists: DeltaLists<'_>,
        mut events: Option<&mut Vec<Event>>,
    ) -> bool {
        let before = self.inconsistencies;
        let DeltaLists {
            mut upsert,
            update,
            remove,
            compact,
            resumed,
        } = lists;
        let mut rows = DeltaRows::default();
        let decoded = match compact {
            None => false,
            Some(block) => {
                let ok = compact::decode_delta(&block.0, upsert.len(), &mut rows).is_ok();
                if !ok {
                    // None of a broken block's rows is trusted; the rest of the frame is.
                    self.inconsistencies += 1;
                }
                ok
            }
        };
        let mut bases = vec![None; upsert.len()];
        if decoded {
            for ((node, base), value) in upsert.iter_mut().zip(&mut bases).zip(&rows.upsert) {
                node.world = value.to_transform();
                *base = value.quantized().copied();
            }
        }
        for (node, base) in upsert.into_iter().zip(bases) {
            let held = Held { node, base };
            let event = match self.nodes.entry(node.id) {
                Entry::Occupied(mut slot) => {
                    slot.insert(held);
                    Event::Changed(node)
                }
                Entry::Vacant(slot) => {
                    slot.insert(held);
                    Event::Entered(node)
                }
            };
            if let Some(events) = events.as_deref_mut() {
                events.push(event);
            }
        }
        for row in update {
            match self.nodes.get_mut(&row.id) {
                Some(held) => {
                    held.node.world = row.world;
                    held.base = None;
                    if let Some(events) = events.as_deref_mut() {
                        events.push(Event::Updated {
                            id: row.id,
                            world: row.world,
                        });
                    }
                }
                None => self.inconsistencies += 1,
            }
        }
        if decoded {
            for (id, row) in &rows.rows {
                let Some(held) = self.nodes.get_mut(id) else {
                    self.inconsistencies += 1;
                    continue;
                };
                match row.apply(held.base.as_ref()) {
                    Ok(value) => {
                        held.node.world = value.to_transform();
                        held.base = value.quantized().copied();
                        if let Some(events) = events.as_deref_mut() {
                            events.push(Event::Updated {
                                id: *id,
                                world: held.node.world,
                            });
                        }
                    }
                    Err(_) => self.inconsistencies += 1,
                }
            }
        }
        for &id in remove {
            if self.nodes.remove(&id).is_some() {
                if let Some(events) = events.as_deref_mut() {
                    events.push(Event::Left(id));
                }
            } else if !resumed {
                self.inconsistencies += 1;
            }
        }
        self.tick = tick;
        self.time = time;
        if let Some(events) = events {
            events.push(Event::Tick { tick, time });
        }
        self.inconsistencies == before
    }

    /// Empties the copy (after `unsubscribe`), pushing a `Left` for every node.
    pub fn clear(&mut self, events: Option<&mut Vec<Event>>) {
        if let Some(events) = events {
            let mut ids: Vec<NodeId> = self.nodes.keys().copied().collect();
            ids.sort_unstable();
            events.extend(ids.into_iter().map(Event::Left));
        }
        self.nodes.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_protocol::Transform;

    fn node(id: NodeId, x: f32) -> Node {
        Node {
            id,
            parent: None,
            world: Transform {
                t: [x, 0.0, 0.0],
                ..Transform::IDENTITY
            },
            extent: [0.0; 3],
            mask: u32::MAX,
        }
    }

    fn delta(
        tick: u64,
        upsert: Vec<Node>,
        update: Vec<UpdateRow>,
        remove: Vec<NodeId>,
    ) -> ServerMsg {
        ServerMsg::delta(tick, 0, upsert, update, remove)
    }

    #[test]
    fn snapshot_replaces_and_reports_the_difference() {
        let mut m = Mirror::new();
        m.apply(ServerMsg::snapshot(1, 5, vec![node(1, 0.0), node(2, 0.0)]));
        let events = m.apply(ServerMsg::snapshot(4, 9, vec![node(2, 1.0), node(3, 0.0)]));
        assert_eq!(
            events,
            vec![
                Event::Left(1),
                Event::Changed(node(2, 1.0)),
                Event::Entered(node(3, 0.0)),
                Event::Snapshot {
                    tick: 4,
                    time: 9,
                    len: 2
                },
            ]
        );
        assert_eq!(m.to_sorted_vec(), vec![node(2, 1.0), node(3, 0.0)]);
        assert_eq!((m.tick(), m.time_ms()), (4, 9));
    }

    #[test]
    fn delta_upserts_updates_and_removes() {
        let mut m = Mirror::new();
        m.apply(ServerMsg::snapshot(1, 0, vec![node(1, 0.0), node(2, 0.0)]));
        let moved = node(1, 7.0).world;
        let events = m.apply(delta(
            2,
            vec![node(3, 1.0)],
            vec![UpdateRow {
                id: 1,
                world: moved,
            }],
            vec![2],
        ));
        assert_eq!(
            events,
            vec![
                Event::Entered(node(3, 1.0)),
                Event::Updated {
                    id: 1,
                    world: moved
                },
                Event::Left(2),
                Event::Tick { tick: 2, time: 0 },
            ]
        );
        assert_eq!(m.get(1).unwrap().world, moved);
        assert_eq!(m.len(), 2);
        assert_eq!(m.inconsistencies(), 0);
    }

    #[test]
    fn unknown_nodes_in_update_or_remove_are_inconsistencies() {
        let mut m = Mirror::new();
        let ok = m.apply_delta(
            1,
            0,
            vec![],
            &[UpdateRow {
                id: 9,
                world: Transform::IDENTITY,
            }],
            &[8],
            None,
        );
        assert!(!ok);
        assert_eq!(m.inconsistencies(), 2);
        assert!(m.is_empty());
    }

    #[test]
    fn a_resumed_delta_may_remove_nodes_the_copy_never_held() {
        let mut m = Mirror::new();
        let resumed = ServerMsg::Delta {
            tick: 4,
            time: 0,
            upsert: vec![],
            update: vec![],
            remove: vec![8],
            compact: None,
            resumed: true,
        };
        assert_eq!(m.apply_frame(resumed, None), Some(true));
        assert_eq!((m.inconsistencies(), m.tick()), (0, 4));
    }

    #[test]
    fn clear_reports_every_node_as_left() {
        let mut m = Mirror::new();
        m.apply(ServerMsg::snapshot(1, 0, vec![node(2, 0.0), node(1, 0.0)]));
        let mut events = vec![];
        m.clear(Some(&mut events));
        assert_eq!(events, vec![Event::Left(1), Event::Left(2)]);
        assert!(m.is_empty());
    }
}
