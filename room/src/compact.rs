//! Compact frames for subscribers that asked for `"encoding":"compact"` on a bincode
//! connection (v1.1): world transforms as quantized rows (`canopy_protocol::compact`),
//! delta-coded against the room's baseline, the quantized value every compact client in
//! step last received for each node.
//!
//! Invariants: while any compact subscriber exists, the baseline holds the quantization
//! of every live node's world transform as of the last finished tick, so a client that
//! got every frame since its snapshot holds exactly the baseline; it is advanced only
//! after the tick's frames are built. A client that was not in step (a snapshot, a
//! resumed delta, a merged frame) gets absolute rows, which set its baseline to the
//! server's; a row whose quantized value did not change is not sent.

use bytes::Bytes;
use canopy_protocol::compact::{BlockWriter, CompactValue, quantize};
use canopy_protocol::{Format, Node, NodeId, ServerMsg, codec};
use rustc_hash::FxHashMap;

use super::delta::DeltaParts;
use super::diff::{NodeChange, TickDiff};
use super::scene_state::SceneState;

/// The room's compact baseline and its scratch buffers.
#[derive(Debug, Default)]
pub(super) struct CompactState {
    baseline: FxHashMap<NodeId, CompactValue>,
    active: bool,
    writer: BlockWriter,
    order: Vec<u32>,
}

/// Writes `parts` as compact rows into `writer`: an absolute row per upsert, then the
/// updates in id order, each against `prev(id)` (absolute where it gives none).
fn write_rows<'a>(
    writer: &mut BlockWriter,
    order: &mut Vec<u32>,
    parts: &DeltaParts,
    prev: impl Fn(NodeId) -> Option<&'a CompactValue>,
) {
    writer.clear();
    for u in &parts.upsert {
        writer.absolute(&quantize(&u.node.world));
    }
    order.clear();
    order.extend(0..parts.update.len() as u32);
    order.sort_unstable_by_key(|&i| parts.update[i as usize].id);
    for &i in order.iter() {
        let row = &parts.update[i as usize];
        writer.update(row.id, prev(row.id), &quantize(&row.world));
    }
}

fn delta_message(
    parts: &DeltaParts,
    tick: u64,
    time: u64,
    resumed: bool,
    writer: &BlockWriter,
) -> ServerMsg {
    ServerMsg::Delta {
        tick,
        time,
        upsert: parts.upsert.iter().map(|u| u.node).collect(),
        update: Vec::new(),
        remove: parts.remove.clone(),
        resumed,
        compact: Some(writer.delta()),
    }
}

/// A compact delta with absolute rows only: for a client not in step (merged frames,
/// resumed deltas), whose baseline it sets.
pub(super) fn absolute_delta(parts: &DeltaParts, tick: u64, time: u64, resumed: bool) -> ServerMsg {
    let mut writer = BlockWriter::new();
    write_rows(&mut writer, &mut Vec::new(), parts, |_| None);
    delta_message(parts, tick, time, resumed, &writer)
}

/// A compact snapshot: the nodes, and one absolute row per node.
pub(super) fn snapshot(tick: u64, time: u64, nodes: Vec<Node>) -> ServerMsg {
    let mut writer = BlockWriter::new();
    for n in &nodes {
        writer.absolute(&quantize(&n.world));
    }
    ServerMsg::Snapshot {
        tick,
        time,
        nodes,
        compact: Some(writer.snapshot()),
    }
}

impl CompactState {
    /// Starts keeping the baseline (the first compact subscriber): every live node's
    /// quantized world transform now.
    pub(super) fn activate(&mut self, scene: &SceneState) {
        if self.active {
            return;
        }
        self.baseline.clear();
        for n in scene.hierarchy().iter_nodes() {
            self.baseline.insert(n.id, quantize(&n.world));
        }
        self.active = true;
    }

    /// Stops keeping it (no compact subscriber is left), giving its memory back.
    pub(super) fn deactivate(&mut self) {
        self.active = false;
        self.baseline = FxHashMap::default();
    }

    /// The encoded compact frame of one tick's parts for clients in step.
    pub(super) fn frame(&mut self, parts: &DeltaParts, tick: u64, time: u64) -> Bytes {
        let baseline = &self.baseline;
        write_rows(&mut self.writer, &mut self.order, parts, |id| {
            baseline.get(&id)
        });
        let msg = delta_message(parts, tick, time, false, &self.writer);
        Bytes::from(codec::encode_server(&msg, Format::Bincode))
    }

    /// After the tick's frames are built: the baseline follows the tick's changes.
    pub(super) fn advance(&mut self, diff: &TickDiff, scene: &SceneState) {
        if !self.active {
            return;
        }
        for e in &diff.entries {
            if e.change.contains(NodeChange::REMOVED) {
                self.baseline.remove(&e.id);
            } else if e.change.intersects(NodeChange::ADDED | NodeChange::MOVED)
                && let Some(world) = scene.hierarchy().world(e.id)
            {
                self.baseline.insert(e.id, quantize(&world));
            }
        }
    }
}
