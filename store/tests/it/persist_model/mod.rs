//! An independent model of what the storage layer must give back, and a deterministic
//! random workload that drives the layer and the model side by side.
//!
//! The model knows nothing of segments, frames or snapshots: it is the list of records
//! appended, by seq, and a toy scene per room (nodes with a parent and a translation,
//! retired ids, an id counter) that interprets the batches. Recovery is correct when the
//! rooms rebuilt from what `open` returns (snapshot, then replay) equal the model's rooms
//! after the records up to the recovered seq, for a seq no lower than the last
//! acknowledged one.

use std::collections::{BTreeMap, BTreeSet};

use canopy_protocol::{Op, Transform};
use canopy_store::{Persist, RecoveredRoom, Replay, RoomMeta, RoomState, SnapNode, ranges_of};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// A room's scene, as the model interprets batches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ToyScene {
    /// id -> (parent, translation bits)
    pub nodes: BTreeMap<u32, (Option<u32>, [u32; 3])>,
    pub retired: BTreeSet<u32>,
    pub next_id: u64,
}

impl ToyScene {
    pub(crate) fn apply(&mut self, ops: &[Op]) {
        for op in ops {
            match op {
                Op::Add {
                    id, parent, local, ..
                } => {
                    let id = id.expect("the workload names its ids");
                    self.next_id = self.next_id.max(u64::from(id) + 1);
                    self.nodes.insert(id, (*parent, local.t.map(f32::to_bits)));
                }
                Op::SetLocal { node, t, .. } => {
                    let n = self.nodes.get_mut(node).expect("valid op");
                    n.1 = t.expect("the workload sets t").map(f32::to_bits);
                }
                Op::Remove { node } => {
                    let mut stack = vec![*node];
                    while let Some(id) = stack.pop() {
                        self.nodes.remove(&id);
                        self.retired.insert(id);
                        stack.extend(
                            self.nodes
                                .iter()
                                .filter(|(_, n)| n.0 == Some(id))
                                .map(|(k, _)| *k),
                        );
                    }
                }
                Op::SetParent { .. } | Op::SetShape { .. } => unreachable!("not generated"),
            }
        }
    }

    /// As a snapshot takes it: parent before child.
    pub(crate) fn to_nodes(&self) -> Vec<SnapNode> {
        let mut out = Vec::new();
        let mut frontier: Vec<Option<u32>> = vec![None];
        while let Some(parent) = frontier.pop() {
            for (id, (p, t)) in &self.nodes {
                if *p == parent {
                    out.push(SnapNode {
                        id: *id,
                        parent: *p,
                        t: t.map(f32::from_bits),
                        r: [0.0, 0.0, 0.0, 1.0],
                        s: 1.0,
                        extent: [0.0; 3],
                        mask: u32::MAX,
                    });
                    frontier.push(Some(*id));
                }
            }
        }
        out
    }

    pub(crate) fn from_state(state: &RoomState) -> Self {
        let mut scene = ToyScene {
            next_id: state.next_id,
            ..ToyScene::default()
        };
        for n in &state.nodes {
            scene.nodes.insert(n.id, (n.parent, n.t.map(f32::to_bits)));
        }
        for &(a, b) in &state.retired {
            scene.retired.extend(a..=b);
        }
        scene
    }
}

/// A room as the model sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ToyRoom {
    pub meta: RoomMeta,
    pub created_seq: u64,
    pub last_seq: u64,
    pub tick: u64,
    pub time_ms: u64,
    pub scene: ToyScene,
}

impl ToyRoom {
    pub(crate) fn state(&self) -> RoomState {
        RoomState {
            tick: self.tick,
            time_ms: self.time_ms,
            next_id: self.scene.next_id,
            nodes: self.scene.to_nodes(),
            retired: ranges_of(self.scene.retired.iter().copied()),
        }
    }

    /// The room rebuilt from what recovery returned.
    pub(crate) fn from_recovered(r: &RecoveredRoom) -> Self {
        let mut room = ToyRoom {
            meta: r.meta.clone(),
            created_seq: r.created_seq,
            last_seq: r.last_seq,
            tick: 0,
            time_ms: 0,
            scene: ToyScene::default(),
        };
        if let Some((_, state)) = &r.snapshot {
            room.tick = state.tick;
            room.time_ms = state.time_ms;
            room.scene = ToyScene::from_state(state);
        }
        for rep in &r.replay {
            match rep {
                Replay::Tick {
                    tick,
                    time_ms,
                    batches,
                    ..
                } => {
                    room.tick = *tick;
                    room.time_ms = *time_ms;
                    for b in batches {
                        room.scene.apply(b);
                    }
                }
                Replay::Checkpoint { tick, time_ms, .. } => {
                    room.tick = *tick;
                    room.time_ms = *time_ms;
                }
            }
        }
        room
    }
}

/// A record as the model keeps it.
#[derive(Clone, Debug)]
pub(crate) enum Entry {
    Created(RoomMeta),
    Deleted(String),
    Tick(String, u64, u64, Vec<Vec<Op>>),
    Checkpoint(String, u64, u64),
}

/// Every record appended, by seq, and the rooms they make.
#[derive(Clone, Debug, Default)]
pub(crate) struct Model {
    pub entries: BTreeMap<u64, Entry>,
}

impl Model {
    pub(crate) fn last_seq(&self) -> u64 {
        self.entries.keys().next_back().copied().unwrap_or(0)
    }

    /// The rooms after every record up to `seq`.
    pub(crate) fn rooms_at(&self, seq: u64) -> BTreeMap<String, ToyRoom> {
        let mut rooms = BTreeMap::new();
        for (&s, e) in self.entries.range(..=seq) {
            apply_entry(&mut rooms, s, e);
        }
        rooms
    }

    /// Forgets records after `seq` (those recovery did not bring back).
    pub(crate) fn cut(&mut self, seq: u64) {
        self.entries.retain(|&s, _| s <= seq);
    }
}

/// Applies one record to the model's rooms.
pub(crate) fn apply_entry(rooms: &mut BTreeMap<String, ToyRoom>, s: u64, e: &Entry) {
    match e {
        Entry::Created(meta) => {
            let room = ToyRoom {
                meta: meta.clone(),
                created_seq: s,
                last_seq: s,
                tick: 0,
                time_ms: 0,
                scene: ToyScene::default(),
            };
            rooms.insert(meta.id.clone(), room);
        }
        Entry::Deleted(id) => {
            rooms.remove(id);
        }
        Entry::Tick(id, tick, time, batches) => {
            let r = rooms.get_mut(id).expect("model rooms exist");
            r.tick = *tick;
            r.time_ms = *time;
            r.last_seq = s;
            for b in batches {
                r.scene.apply(b);
            }
        }
        Entry::Checkpoint(id, tick, time) => {
            let r = rooms.get_mut(id).expect("model rooms exist");
            r.tick = *tick;
            r.time_ms = *time;
            r.last_seq = s;
        }
    }
}

/// Drives a `Persist` (without threads) and the model with one seeded random workload.
pub(crate) struct Driver {
    pub model: Model,
    pub rng: SmallRng,
    /// Rooms as the driver knows them now (after every append).
    pub rooms: BTreeMap<String, ToyRoom>,
    pub snapshots: u64,
}

impl Driver {
    pub(crate) fn new(seed: u64, model: Model) -> Self {
        let rooms = model.rooms_at(u64::MAX);
        Driver {
            model,
            rng: SmallRng::seed_from_u64(seed),
            rooms,
            snapshots: 0,
        }
    }

    fn random_ops(&mut self, scene: &mut ToyScene) -> Vec<Op> {
        let mut ops = Vec::new();
        for _ in 0..self.rng.random_range(1..=4) {
            let live: Vec<u32> = scene.nodes.keys().copied().collect();
            let pick = self.rng.random_range(0..10);
            let op = if live.is_empty() || pick < 4 {
                let parent = if live.is_empty() || self.rng.random_bool(0.4) {
                    None
                } else {
                    Some(live[self.rng.random_range(0..live.len())])
                };
                let id = scene.next_id as u32;
                Op::Add {
                    id: Some(id),
                    parent,
                    local: Transform {
                        t: [self.rng.random(), self.rng.random(), -0.0],
                        ..Transform::default()
                    },
                    extent: [0.0; 3],
                    mask: u32::MAX,
                }
            } else if pick < 9 {
                Op::SetLocal {
                    node: live[self.rng.random_range(0..live.len())],
                    t: Some([self.rng.random(), f32::from_bits(self.rng.random()), 1.0]),
                    r: None,
                    s: None,
                }
            } else {
                Op::Remove {
                    node: live[self.rng.random_range(0..live.len())],
                }
            };
            scene.apply(std::slice::from_ref(&op));
            ops.push(op);
        }
        ops
    }

    fn record(&mut self, seq: u64, entry: Entry) {
        apply_entry(&mut self.rooms, seq, &entry);
        self.model.entries.insert(seq, entry);
    }

    /// One random action; `Err` once the layer refuses (the disk crashed or failed).
    pub(crate) fn act(&mut self, p: &Persist) -> Result<(), String> {
        let e = |e: canopy_store::PersistError| e.to_string();
        let live: Vec<String> = self.rooms.keys().cloned().collect();
        let pick = self.rng.random_range(0..100);
        if live.is_empty() || (pick < 6 && live.len() < 4) {
            let free: Vec<String> = (0..5)
                .map(|i| format!("room-{i}"))
                .filter(|r| !self.rooms.contains_key(r))
                .collect();
            let id = free[self.rng.random_range(0..free.len())].clone();
            let meta = RoomMeta {
                id,
                tick_hz: self.rng.random_range(1..=240),
                editor_token: self.rng.random_bool(0.5).then(|| "ed-secret".to_string()),
                viewer_token: self.rng.random_bool(0.3).then(|| "v".to_string()),
                created_ms: self.rng.random(),
            };
            let seq = p.create_room(&meta).map_err(e)?;
            self.record(seq, Entry::Created(meta));
            return Ok(());
        }
        let id = live[self.rng.random_range(0..live.len())].clone();
        let room = &self.rooms[&id];
        let (tick, time) = (room.tick + self.rng.random_range(1..3), room.time_ms + 33);
        match pick {
            0..=2 => {
                let seq = p.delete_room(&id).map_err(e)?;
                self.record(seq, Entry::Deleted(id));
            }
            3..=14 => {
                let seq = p.checkpoint(&id, tick, time).map_err(e)?;
                self.record(seq, Entry::Checkpoint(id, tick, time));
            }
            15..=29 => {
                let room = &self.rooms[&id];
                p.request_snapshot(&id, room.last_seq, room.state())
                    .map_err(e)?;
                self.snapshots += 1;
            }
            30..=59 => p.step().map_err(e)?,
            _ => {
                let n = self.rng.random_range(1..=3);
                let mut batches = Vec::new();
                // Each batch is valid against the scene the batches before it leave.
                let mut scene = self.rooms[&id].scene.clone();
                for _ in 0..n {
                    batches.push(self.random_ops(&mut scene));
                }
                let seq = p.tick(&id, tick, time, &batches).map_err(e)?;
                self.record(seq, Entry::Tick(id, tick, time, batches));
            }
        }
        Ok(())
    }
}

/// The rooms recovery returned, rebuilt.
pub(crate) fn rebuilt(rooms: &[RecoveredRoom]) -> BTreeMap<String, ToyRoom> {
    rooms
        .iter()
        .map(|r| (r.meta.id.clone(), ToyRoom::from_recovered(r)))
        .collect()
}
