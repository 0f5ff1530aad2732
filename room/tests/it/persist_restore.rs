//! A logged room, driven through its real tick (`Room::tick` with the persist phase) by
//! random batches of all five ops (valid and invalid, with and without ids), with
//! snapshots taken at random ticks, is read back by recovery into a room whose state is
//! bit for bit the live one: every node's parent, local transform, extent and mask, the
//! retired ids, the next assigned id and the tick. Also: acks over HTTP-style replies
//! name a record that is durable by the time they are reported.

use crate::room_support;
use room_support::CheckedTick;

use std::sync::Arc;

use canopy_protocol::{NodeId, Op, Transform};
use canopy_room::metrics::RoomMetrics;
use canopy_room::{EditReply, EditTicket, LogLink, Room, RoomConfig, RoomLog, durable};
use canopy_scene::Hierarchy;
use canopy_store::{self, PersistConfig};
use proptest::prelude::*;

/// One op, as numbers resolved against the live nodes when it is applied.
#[derive(Clone, Debug)]
struct OpSeed {
    kind: u8,
    a: u32,
    b: u32,
    x: f32,
}

fn op_seed() -> impl Strategy<Value = OpSeed> {
    (0u8..12, any::<u32>(), any::<u32>(), -50.0f32..50.0).prop_map(|(kind, a, b, x)| OpSeed {
        kind,
        a,
        b,
        x,
    })
}

/// Ticks of batches of ops, and whether to snapshot after each tick.
fn history() -> impl Strategy<Value = Vec<(Vec<Vec<OpSeed>>, bool)>> {
    let batch = prop::collection::vec(op_seed(), 1..4);
    let tick = (
        prop::collection::vec(batch, 0..4),
        prop::bool::weighted(0.15),
    );
    prop::collection::vec(tick, 1..25)
}

fn pick(h: &Hierarchy, i: u32) -> NodeId {
    let ids: Vec<NodeId> = h.ids().collect();
    if ids.is_empty() || i.is_multiple_of(29) {
        // Sometimes a node that does not exist: the batch is refused, never logged.
        return 1_000_000 + i % 7;
    }
    ids[i as usize % ids.len()]
}

fn resolve(h: &Hierarchy, s: &OpSeed) -> Op {
    let t = Transform::from_xyz(s.x, s.x * 0.5, -s.x);
    let kind = if h.len() < 3 { s.kind % 3 } else { s.kind };
    match kind {
        0..=3 => {
            let parent = (!s.b.is_multiple_of(3) && !h.is_empty()).then(|| pick(h, s.b));
            let id = (s.a.is_multiple_of(4)).then_some(s.a % 5_000);
            Op::Add {
                id,
                parent,
                local: t,
                extent: [s.x.abs() * 0.1; 3],
                mask: s.b | 1,
            }
        }
        4 | 5 => Op::set_local(
            pick(h, s.a),
            Some(t.t),
            Some([0.0, 0.6, 0.0, 0.8]),
            Some(1.5),
        ),
        6 | 7 => {
            let parent = (!s.b.is_multiple_of(4)).then(|| pick(h, s.b));
            Op::set_parent(pick(h, s.a), parent)
        }
        8..=10 => Op::set_shape(pick(h, s.a), Some([s.x.abs(); 3]), Some(s.b)),
        _ => Op::remove(pick(h, s.a)),
    }
}

fn assert_same(live: &Hierarchy, back: &Hierarchy) {
    back.assert_well_formed();
    assert_eq!(back.len(), live.len(), "live node counts");
    for id in live.ids() {
        let bits = |t: Transform| {
            let mut v: Vec<u32> = t.t.iter().map(|f| f.to_bits()).collect();
            v.extend(t.r.iter().map(|f| f.to_bits()));
            v.push(t.s.to_bits());
            v
        };
        assert_eq!(back.parent(id), live.parent(id), "parent of {id}");
        assert_eq!(
            back.local(id).map(bits),
            live.local(id).map(bits),
            "local of {id}"
        );
        assert_eq!(back.extent(id), live.extent(id), "extent of {id}");
        assert_eq!(back.mask(id), live.mask(id), "mask of {id}");
        assert_eq!(back.world(id), live.world(id), "world of {id}");
    }
    assert_eq!(back.retired_ids(), live.retired_ids(), "retired ids");
    assert_eq!(back.next_assigned_id(), live.next_assigned_id(), "next id");
}

/// Runs the history, restarts, compares; returns the live and retired node counts.
fn run(history: Vec<(Vec<Vec<OpSeed>>, bool)>) -> (usize, usize) {
    let dir = tempfile::tempdir().unwrap();
    let (persist, recovered) =
        canopy_store::open_dir(dir.path(), PersistConfig::default()).unwrap();
    assert!(recovered.rooms.is_empty());
    let persist = Arc::new(persist);
    let meta = canopy_room::recovered::room_meta("r", 30, None, 1);
    let created = persist.create_room(&meta).unwrap();
    let config = RoomConfig::default();
    let scene = canopy_room::SceneState::new(config.hierarchy, config.octree);
    let log = RoomLog::new(LogLink::new(Arc::clone(&persist)), created, created, 0);
    let metrics = Arc::new(RoomMetrics::default());
    let mut room = Room::owner(
        canopy_room::RoomSpec {
            id: "r".into(),
            tick_hz: 30,
            config,
            metrics,
            tokens: None,
        },
        scene,
        canopy_room::Durability::logged(log),
    );
    let mut now = 1_000;
    for (batches, snapshot) in history {
        for seeds in batches {
            let ops: Vec<Op> = {
                let scene = room.shared().scene.read();
                seeds
                    .iter()
                    .map(|s| resolve(scene.hierarchy(), s))
                    .collect()
            };
            let (tx, _rx) = tokio::sync::oneshot::channel();
            let ticket = Arc::new(EditTicket::default());
            room.shared()
                .submit_edits(ops, EditReply::Oneshot(tx), ticket, None)
                .unwrap();
        }
        now += 33;
        room.checked_tick(now);
        if snapshot {
            let scene = room.shared().scene.read();
            let seq = persist.last_seq("r").unwrap();
            persist
                .request_snapshot("r", seq, durable::capture(&scene))
                .unwrap();
        }
    }
    persist
        .wait_durable(persist.last_seq("r").unwrap())
        .unwrap();
    persist.wait_snapshots().unwrap();
    persist.shutdown().unwrap();
    drop(persist);

    let (persist, recovered) =
        canopy_store::open_dir(dir.path(), PersistConfig::default()).unwrap();
    assert_eq!(recovered.rooms.len(), 1);
    let back = canopy_room::recovered::restore_room(
        &recovered.rooms[0],
        RoomConfig::default(),
        Arc::new(RoomMetrics::default()),
        LogLink::new(Arc::new(persist)),
        None,
    )
    .unwrap();
    back.assert_well_formed();
    let live = room.shared().scene.read();
    let restored = back.shared().scene.read();
    // The last tick may have applied nothing and not been logged (idle ticks are
    // checkpointed once a second): the state is the same, the tick at most that behind.
    assert!(restored.tick() <= live.tick() && live.tick() - restored.tick() < 30);
    assert_same(live.hierarchy(), restored.hierarchy());
    (live.hierarchy().len(), live.hierarchy().retired_ids().len())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn recovery_rebuilds_the_live_state(h in history()) {
        let _ = run(h);
    }
}

#[test]
fn a_long_history_with_snapshots_and_removals_comes_back() {
    let seeds: Vec<(Vec<Vec<OpSeed>>, bool)> = (0..200u32)
        .map(|t| {
            let batch = (0..2)
                .map(|i| OpSeed {
                    kind: ((t * 7 + i * 5) % 12) as u8,
                    a: t * 31 + i,
                    b: t * 17 + i * 3 + 1,
                    x: (t as f32 * 0.37 + i as f32).sin() * 40.0,
                })
                .collect();
            (vec![batch], t % 50 == 49)
        })
        .collect();
    let (live, retired) = run(seeds);
    assert!(
        live > 10 && retired > 5,
        "the history exercised little: {live} live, {retired} retired"
    );
}
