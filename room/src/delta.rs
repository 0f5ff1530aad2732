//! One tick's changes as one scope sees them, before encoding: the `upsert`, `update`
//! and `remove` lists of a `delta` frame.
//!
//! Invariant: a node appears in at most one of the three lists of a [`DeltaParts`]
//! (the contract's "a node appears at most once per frame").

use bytes::Bytes;
use canopy_protocol::codec;
use canopy_protocol::{Format, Node, NodeId, ServerMsg, UpdateRow};
use std::sync::OnceLock;

/// An `upsert` entry and whether the client already `held` the node (it changed parent,
/// extent or mask) or not (it entered the scope). That matters when a slow client's
/// changes are merged: a node that enters and leaves again while the client is behind
/// need not be told at all.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Upsert {
    /// The node in full, as the `upsert` list carries it.
    pub node: Node,
    /// True when the client already held the node (it was reshaped or reparented),
    /// false when it entered the scope.
    pub held: bool,
}

/// The three lists of a delta, for one scope and one tick.
#[derive(Clone, Debug, Default)]
pub struct DeltaParts {
    /// Nodes that entered the scope or changed parent, extent or mask.
    pub upsert: Vec<Upsert>,
    /// In-scope nodes whose world transform alone changed.
    pub update: Vec<UpdateRow>,
    /// Nodes that left the scope.
    pub remove: Vec<NodeId>,
}

impl DeltaParts {
    /// True when all three lists are empty (the tick sends this scope nothing).
    pub fn is_empty(&self) -> bool {
        self.upsert.is_empty() && self.update.is_empty() && self.remove.is_empty()
    }

    /// Empties the three lists, keeping their capacity for the next tick.
    pub fn clear(&mut self) {
        self.upsert.clear();
        self.update.clear();
        self.remove.clear();
    }

    /// The wire message for these parts.
    pub fn to_message(&self, tick: u64, time: u64) -> ServerMsg {
        ServerMsg::Delta {
            tick,
            time,
            upsert: self.upsert.iter().map(|u| u.node).collect(),
            update: self.update.clone(),
            remove: self.remove.clone(),
            resumed: false,
            compact: None,
        }
    }
}

/// A delta shared by every subscriber of one scope: the parts (for merging into a slow
/// client's pending state) and the encoded frame per format, made at most once per tick
/// however many subscribers share it.
#[derive(Debug)]
pub struct SharedDelta {
    /// The tick whose changes these are.
    pub tick: u64,
    /// That tick's time, milliseconds since the Unix epoch.
    pub time: u64,
    /// The changes, before encoding.
    pub parts: DeltaParts,
    json: OnceLock<Bytes>,
    bincode: OnceLock<Bytes>,
    /// The compact frame, for compact subscribers in step (built by the fan-out, which
    /// holds the room's baseline).
    compact: OnceLock<Bytes>,
}

impl SharedDelta {
    /// The delta of `parts` at `tick`, with no frame encoded yet.
    pub fn new(tick: u64, time: u64, parts: DeltaParts) -> Self {
        Self {
            tick,
            time,
            parts,
            json: OnceLock::new(),
            bincode: OnceLock::new(),
            compact: OnceLock::new(),
        }
    }

    /// The encoded frame in `format`, encoded on first use. Cloning [`Bytes`] clones a
    /// reference-counted buffer, not the bytes.
    pub fn frame(&self, format: Format) -> Bytes {
        let cell = match format {
            Format::Json => &self.json,
            Format::Bincode => &self.bincode,
        };
        cell.get_or_init(|| {
            Bytes::from(codec::encode_server(
                &self.parts.to_message(self.tick, self.time),
                format,
            ))
        })
        .clone()
    }

    /// The compact frame, if the fan-out made one.
    pub fn compact_frame(&self) -> Option<Bytes> {
        self.compact.get().cloned()
    }

    /// Gives the delta its compact frame (made once, by the fan-out).
    pub fn set_compact(&self, frame: impl FnOnce() -> Bytes) {
        self.compact.get_or_init(frame);
    }

    /// The encoded size of the frame in `format`.
    pub fn encoded_len(&self, format: Format) -> usize {
        self.frame(format).len()
    }
}
