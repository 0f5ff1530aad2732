//! Property tests of the storage formats and of recovery: records and snapshots
//! round-trip bit-exactly, a flipped bit is always caught, and recovery of random
//! histories (with a random crash image) equals the model.

use crate::persist_model;

use std::sync::Arc;

use canopy_protocol::{Op, Transform};
use canopy_store::{
    Body, PersistConfig, Record, RoomMeta, RoomSnapshot, RoomState, SimDisk, SnapNode,
    decode_batches, decode_record, encode_batches, encode_record, open, snapshot_file,
};
use persist_model::{Driver, Model, rebuilt};
use proptest::prelude::*;

fn any_f32() -> impl Strategy<Value = f32> {
    any::<u32>().prop_map(f32::from_bits)
}

fn room_id() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_-]{1,64}"
}

fn meta() -> impl Strategy<Value = RoomMeta> {
    (
        room_id(),
        1u32..=240,
        proptest::option::of(".{0,40}"),
        proptest::option::of(".{0,40}"),
        any::<u64>(),
    )
        .prop_map(
            |(id, tick_hz, editor_token, viewer_token, created_ms)| RoomMeta {
                id,
                tick_hz,
                editor_token,
                viewer_token,
                created_ms,
            },
        )
}

fn op() -> impl Strategy<Value = Op> {
    let f = -1e6f32..1e6;
    prop_oneof![
        (
            any::<u32>(),
            proptest::option::of(any::<u32>()),
            [f.clone(), f.clone(), f.clone()]
        )
            .prop_map(|(id, parent, t)| Op::Add {
                id: Some(id),
                parent,
                local: Transform {
                    t,
                    ..Transform::default()
                },
                extent: [1.0, 2.0, 3.0],
                mask: 5,
            }),
        (any::<u32>(), [f.clone(), f.clone(), f]).prop_map(|(node, t)| Op::SetLocal {
            node,
            t: Some(t),
            r: None,
            s: Some(2.0),
        }),
        any::<u32>().prop_map(|node| Op::Remove { node }),
        (any::<u32>(), proptest::option::of(any::<u32>()))
            .prop_map(|(node, parent)| Op::SetParent { node, parent }),
    ]
}

fn record() -> impl Strategy<Value = Record> {
    let body = prop_oneof![
        meta().prop_map(Body::Created),
        Just(Body::Deleted),
        (
            any::<u64>(),
            any::<u64>(),
            proptest::collection::vec(proptest::collection::vec(op(), 0..5), 0..4)
        )
            .prop_map(|(tick, time_ms, b)| Body::Tick {
                tick,
                time_ms,
                batches: encode_batches(&b),
            }),
        (any::<u64>(), any::<u64>()).prop_map(|(tick, time_ms)| Body::Checkpoint { tick, time_ms }),
    ];
    (any::<u64>(), 1u64..u64::MAX, room_id(), body).prop_map(|(epoch, seq, room, body)| {
        let (room, prev) = match &body {
            Body::Created(m) => (m.id.clone(), seq),
            _ => (room, seq / 2),
        };
        Record {
            epoch,
            seq,
            room,
            prev,
            body,
        }
    })
}

fn node() -> impl Strategy<Value = SnapNode> {
    (
        any::<u32>(),
        [any_f32(), any_f32(), any_f32()],
        [any_f32(), any_f32(), any_f32(), any_f32()],
        any_f32(),
        [any_f32(), any_f32(), any_f32()],
        any::<u32>(),
    )
        .prop_map(|(id, t, r, s, extent, mask)| SnapNode {
            id,
            parent: None,
            t,
            r,
            s,
            extent,
            mask,
        })
}

fn snapshot() -> impl Strategy<Value = RoomSnapshot> {
    (
        meta(),
        any::<u64>(),
        any::<u64>(),
        any::<u64>(),
        any::<u64>(),
        proptest::collection::vec(node(), 0..40),
        proptest::collection::btree_set(any::<u32>(), 0..40),
    )
        .prop_map(
            |(meta, created_seq, seq, tick, time_ms, mut nodes, retired)| {
                // Unique ids, parents among earlier nodes, retired ids not live.
                nodes.sort_by_key(|n| n.id);
                nodes.dedup_by_key(|n| n.id);
                for i in 1..nodes.len() {
                    if nodes[i].id % 3 != 0 {
                        nodes[i].parent = Some(nodes[(i * 7) % i].id);
                    }
                }
                let live: std::collections::BTreeSet<u32> = nodes.iter().map(|n| n.id).collect();
                let retired =
                    canopy_store::ranges_of(retired.into_iter().filter(|r| !live.contains(r)));
                RoomSnapshot {
                    meta,
                    created_seq,
                    seq,
                    state: RoomState {
                        tick,
                        time_ms,
                        next_id: tick ^ seq,
                        nodes,
                        retired,
                    },
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn records_round_trip(r in record()) {
        let bytes = encode_record(&r);
        let (back, used) = decode_record(&bytes).expect("decodes");
        prop_assert_eq!(used, bytes.len());
        prop_assert_eq!(&back, &r);
        if let Body::Tick { batches, .. } = &back.body {
            prop_assert!(decode_batches(batches).is_ok());
        }
    }

    #[test]
    fn a_flipped_bit_in_a_record_is_caught(r in record(), at in any::<prop::sample::Index>(), bit in 0u8..8) {
        let mut bytes = encode_record(&r);
        let i = at.index(bytes.len());
        bytes[i] ^= 1 << bit;
        prop_assert!(decode_record(&bytes).is_err(), "flip at byte {} went unnoticed", i);
    }

    #[test]
    fn snapshots_round_trip(s in snapshot()) {
        let bytes = snapshot_file::encode(&s);
        let back = snapshot_file::decode(&bytes).expect("decodes");
        prop_assert_eq!(&back, &s);
        prop_assert_eq!(snapshot_file::encode(&back), bytes);
    }

    #[test]
    fn a_flipped_bit_in_a_snapshot_is_caught(s in snapshot(), at in any::<prop::sample::Index>(), bit in 0u8..8) {
        let mut bytes = snapshot_file::encode(&s);
        let i = at.index(bytes.len());
        bytes[i] ^= 1 << bit;
        prop_assert!(snapshot_file::decode(&bytes).is_err());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random histories, random sizes, a random power loss at the end: recovery equals
    /// the model at a seq no lower than the last acknowledged one.
    #[test]
    fn recovery_of_random_histories_equals_the_model(
        seed in any::<u64>(),
        actions in 1usize..400,
        segment_bytes in 300u64..5000,
        torn in any::<bool>(),
    ) {
        let config = || PersistConfig { segment_bytes, threads: false, ..PersistConfig::default() };
        let disk = SimDisk::new(seed);
        let (p, _) = open(Arc::new(disk.clone()), config()).expect("opens");
        let mut driver = Driver::new(seed, Model::default());
        for _ in 0..actions {
            driver.act(&p).expect("no faults injected");
        }
        let acked = p.durable_seq();
        std::mem::forget(p); // a crash: no shutdown, no last step
        let image = disk.crash_image(torn, seed);
        let (_p, rec) = open(Arc::new(image), config()).expect("recovers");
        let x = rec.next_seq - 1;
        prop_assert!(acked <= x && x <= driver.model.last_seq());
        prop_assert_eq!(rebuilt(&rec.rooms), driver.model.rooms_at(x));
    }
}

#[test]
fn batches_keep_their_bincode_encoding() {
    let batches = vec![vec![Op::Remove { node: 7 }], vec![]];
    let bytes = encode_batches(&batches);
    assert_eq!(bytes, canopy_protocol::codec::to_bincode(&batches));
    assert_eq!(decode_batches(&bytes).unwrap(), batches);
}
