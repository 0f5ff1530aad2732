//! Every client and server message survives a round trip through both codecs, and the
//! documented bincode layout holds byte for byte.

use canopy_protocol::codec::{self, Format};
use canopy_protocol::message::Region;
use canopy_protocol::query::{NearestQuery, RayQuery, RegionQuery, SphereQuery};
use canopy_protocol::{
    ClientMsg, ErrorCode, Hits, NearestHit, Node, Op, Query, RayHit, ServerMsg, Transform,
    UpdateRow,
};
use proptest::prelude::*;

fn f() -> BoxedStrategy<f32> {
    prop_oneof![
        -1e6f32..1e6f32,
        any::<f32>().prop_filter("finite", |v| v.is_finite()),
        Just(0.0f32),
        Just(-0.0f32),
        Just(f32::MAX),
        Just(f32::MIN_POSITIVE),
    ]
    .boxed()
}

fn v3() -> BoxedStrategy<[f32; 3]> {
    [f(), f(), f()].boxed()
}

fn v4() -> BoxedStrategy<[f32; 4]> {
    [f(), f(), f(), f()].boxed()
}

fn transform() -> BoxedStrategy<Transform> {
    (v3(), v4(), f())
        .prop_map(|(t, r, s)| Transform { t, r, s })
        .boxed()
}

fn node() -> BoxedStrategy<Node> {
    (
        any::<u32>(),
        any::<Option<u32>>(),
        transform(),
        v3(),
        any::<u32>(),
    )
        .prop_map(|(id, parent, world, extent, mask)| Node {
            id,
            parent,
            world,
            extent,
            mask,
        })
        .boxed()
}

fn op() -> BoxedStrategy<Op> {
    prop_oneof![
        (
            any::<Option<u32>>(),
            any::<Option<u32>>(),
            transform(),
            v3(),
            any::<u32>()
        )
            .prop_map(|(id, parent, local, extent, mask)| Op::Add {
                id,
                parent,
                local,
                extent,
                mask
            }),
        (
            any::<u32>(),
            proptest::option::of(v3()),
            proptest::option::of(v4()),
            proptest::option::of(f())
        )
            .prop_map(|(node, t, r, s)| Op::SetLocal { node, t, r, s }),
        (any::<u32>(), any::<Option<u32>>())
            .prop_map(|(node, parent)| Op::SetParent { node, parent }),
        (
            any::<u32>(),
            proptest::option::of(v3()),
            any::<Option<u32>>()
        )
            .prop_map(|(node, extent, mask)| Op::SetShape { node, extent, mask }),
        any::<u32>().prop_map(|node| Op::Remove { node }),
    ]
    .boxed()
}

fn query() -> BoxedStrategy<Query> {
    prop_oneof![
        (v3(), v3(), any::<u32>()).prop_map(|(min, max, mask)| Query::Region(RegionQuery {
            min,
            max,
            mask
        })),
        (origin(), f(), any::<u32>()).prop_map(|((center, around), radius, mask)| {
            Query::Sphere(SphereQuery {
                center,
                around,
                radius,
                mask,
            })
        }),
        (
            v3(),
            v3(),
            proptest::option::of(f()),
            any::<u32>(),
            any::<bool>()
        )
            .prop_map(|(origin, dir, max_t, mask, all)| Query::Ray(RayQuery {
                origin,
                dir,
                max_t,
                mask,
                all
            })),
        (
            origin(),
            any::<u32>(),
            proptest::option::of(f()),
            any::<u32>()
        )
            .prop_map(|((point, around), k, max_dist, mask)| Query::Nearest(
                NearestQuery {
                    point,
                    around,
                    k,
                    max_dist,
                    mask
                }
            )),
    ]
    .boxed()
}

/// A sphere's or nearest query's origin: a point (v1.1) or (v1.2) a node, never both.
fn origin() -> BoxedStrategy<(Option<[f32; 3]>, Option<u32>)> {
    prop_oneof![
        v3().prop_map(|p| (Some(p), None)),
        any::<u32>().prop_map(|id| (None, Some(id))),
    ]
    .boxed()
}

/// The v1.2 fields of a `subscribe`: each absent half the time, so that both bincode
/// layouts (variants 0 and 5) are drawn.
#[allow(clippy::type_complexity)]
fn v1_2_fields() -> BoxedStrategy<(
    Option<canopy_protocol::Follow>,
    Option<canopy_protocol::Frustum>,
    Option<u32>,
    Vec<canopy_protocol::Tier>,
)> {
    let follow =
        (any::<u32>(), f(), proptest::option::of(f())).prop_map(|(node, radius, margin)| {
            canopy_protocol::Follow {
                node,
                radius,
                margin,
            }
        });
    let plane = (f(), f(), f(), f()).prop_map(|(a, b, c, d)| [a, b, c, d]);
    let frustum = proptest::array::uniform6(plane).prop_map(canopy_protocol::Frustum);
    let tier = (proptest::option::of(f()), any::<u32>())
        .prop_map(|(within, every)| canopy_protocol::Tier { within, every });
    (
        proptest::option::of(follow),
        proptest::option::of(frustum),
        any::<Option<u32>>(),
        prop_oneof![Just(Vec::new()), proptest::collection::vec(tier, 1..4)],
    )
        .boxed()
}

fn client_msg() -> BoxedStrategy<ClientMsg> {
    prop_oneof![
        (
            proptest::option::of((v3(), v3()).prop_map(|(min, max)| Region { min, max })),
            any::<u32>(),
            any::<Option<u64>>(),
            any::<bool>(),
            v1_2_fields(),
        )
            .prop_map(
                |(region, mask, since, compact, (follow, frustum, send_hz, tiers))| {
                    ClientMsg::Subscribe {
                        region,
                        mask,
                        since,
                        encoding: if compact {
                            canopy_protocol::Encoding::Compact
                        } else {
                            canopy_protocol::Encoding::Exact
                        },
                        follow,
                        frustum,
                        send_hz,
                        tiers,
                    }
                }
            ),
        Just(ClientMsg::Unsubscribe),
        (any::<u64>(), proptest::collection::vec(op(), 0..8))
            .prop_map(|(seq, ops)| ClientMsg::Edits { seq, ops }),
        (any::<u64>(), query()).prop_map(|(id, query)| ClientMsg::Query { id, query }),
        any::<u64>().prop_map(|nonce| ClientMsg::Ping { nonce }),
    ]
    .boxed()
}

fn code() -> BoxedStrategy<ErrorCode> {
    proptest::sample::select(ErrorCode::ALL.to_vec()).boxed()
}

fn server_msg() -> BoxedStrategy<ServerMsg> {
    let rows = proptest::collection::vec(
        (any::<u32>(), transform()).prop_map(|(id, world)| UpdateRow { id, world }),
        0..6,
    );
    prop_oneof![
        (
            any::<u64>(),
            any::<u64>(),
            proptest::collection::vec(node(), 0..6),
            proptest::option::of(proptest::collection::vec(any::<u8>(), 0..20))
        )
            .prop_map(|(tick, time, nodes, compact)| ServerMsg::Snapshot {
                tick,
                time,
                nodes,
                compact: compact.map(canopy_protocol::CompactRows)
            }),
        (
            any::<u64>(),
            any::<u64>(),
            proptest::collection::vec(node(), 0..4),
            rows,
            proptest::collection::vec(any::<u32>(), 0..6),
            any::<bool>(),
            proptest::option::of(proptest::collection::vec(any::<u8>(), 0..20))
        )
            .prop_map(|(tick, time, upsert, update, remove, resumed, compact)| {
                ServerMsg::Delta {
                    tick,
                    time,
                    upsert,
                    update,
                    remove,
                    resumed,
                    compact: compact.map(canopy_protocol::CompactRows),
                }
            }),
        (
            any::<u64>(),
            any::<u64>(),
            proptest::collection::vec(any::<u32>(), 0..6)
        )
            .prop_map(|(seq, tick, ids)| ServerMsg::Ack { seq, tick, ids }),
        (
            any::<Option<u64>>(),
            any::<Option<u64>>(),
            code(),
            ".{0,40}",
            any::<Option<u32>>()
        )
            .prop_map(|(seq, id, code, message, op)| ServerMsg::Error {
                seq,
                id,
                code,
                message,
                op
            }),
        (
            any::<u64>(),
            any::<u64>(),
            proptest::collection::vec(any::<u32>(), 0..6)
        )
            .prop_map(|(id, tick, n)| ServerMsg::QueryResult {
                id,
                tick,
                nodes: Some(n),
                hits: None
            }),
        (
            any::<u64>(),
            any::<u64>(),
            proptest::collection::vec(
                (any::<u32>(), f()).prop_map(|(node, t)| RayHit { node, t }),
                1..6
            )
        )
            .prop_map(|(id, tick, h)| ServerMsg::QueryResult {
                id,
                tick,
                nodes: None,
                hits: Some(Hits::Ray(h))
            }),
        (
            any::<u64>(),
            any::<u64>(),
            proptest::collection::vec(
                (any::<u32>(), f()).prop_map(|(node, dist)| NearestHit { node, dist }),
                1..6
            )
        )
            .prop_map(|(id, tick, h)| ServerMsg::QueryResult {
                id,
                tick,
                nodes: None,
                hits: Some(Hits::Nearest(h))
            }),
        (any::<u64>(), any::<u64>()).prop_map(|(nonce, tick)| ServerMsg::Pong { nonce, tick }),
        ".{0,40}".prop_map(|reason| ServerMsg::Closed { reason }),
    ]
    .boxed()
}

proptest! {
    #[test]
    fn client_messages_round_trip(msg in client_msg()) {
        for format in [Format::Json, Format::Bincode] {
            let bytes = codec::encode_client(&msg, format);
            prop_assert_eq!(&codec::decode_client(&bytes, format).unwrap(), &msg, "{:?}", format);
        }
    }

    #[test]
    fn server_messages_round_trip(msg in server_msg()) {
        for format in [Format::Json, Format::Bincode] {
            let bytes = codec::encode_server(&msg, format);
            prop_assert_eq!(&codec::decode_server(&bytes, format).unwrap(), &msg, "{:?}", format);
        }
    }

    /// Decoding arbitrary bytes never panics: it answers a message or a typed error.
    #[test]
    fn decoding_garbage_is_an_error_not_a_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let _ = codec::decode_client(&bytes, Format::Bincode);
        let _ = codec::decode_client(&bytes, Format::Json);
        let _ = codec::decode_server(&bytes, Format::Bincode);
    }
}

#[test]
fn bincode_layout_is_as_documented() {
    // A ping with nonce 9 is variant 4, then the varint 9.
    assert_eq!(
        codec::encode_client(&ClientMsg::Ping { nonce: 9 }, Format::Bincode),
        vec![4, 9]
    );
    // Large varints take a marker byte: 251 for u16, 252 for u32.
    assert_eq!(
        codec::encode_client(&ClientMsg::Ping { nonce: 300 }, Format::Bincode),
        vec![4, 251, 0x2c, 0x01]
    );
    // An update row is the id varint and eight little-endian f32s.
    let row = UpdateRow {
        id: 7,
        world: Transform::IDENTITY,
    };
    let bytes = codec::to_bincode(&row);
    assert_eq!(bytes.len(), 1 + 8 * 4);
    assert_eq!(bytes[0], 7);
    assert_eq!(&bytes[1 + 6 * 4..1 + 7 * 4], &1.0f32.to_le_bytes(), "rw");
    // A trailing byte is refused.
    let mut ping = codec::encode_client(&ClientMsg::Ping { nonce: 9 }, Format::Bincode);
    ping.push(0);
    assert!(codec::decode_client(&ping, Format::Bincode).is_err());
}

#[test]
fn json_shapes_follow_the_contract() {
    let row = UpdateRow {
        id: 2,
        world: Transform {
            t: [4.0, 0.5, 0.1],
            ..Transform::IDENTITY
        },
    };
    assert_eq!(
        serde_json::to_string(&row).unwrap(),
        "[2,4.0,0.5,0.1,0.0,0.0,0.0,1.0,1.0]"
    );
    let m: ClientMsg = serde_json::from_str(r#"{"type":"subscribe","region":null}"#).unwrap();
    assert_eq!(m, ClientMsg::subscribe(None, u32::MAX));
    let m: ClientMsg = serde_json::from_str(r#"{"type":"subscribe"}"#).unwrap();
    assert_eq!(m, ClientMsg::subscribe(None, u32::MAX));
    let s = serde_json::to_value(ServerMsg::Delta {
        tick: 3,
        time: 4,
        upsert: vec![],
        update: vec![],
        remove: vec![],
        resumed: false,
        compact: None,
    })
    .unwrap();
    assert_eq!(
        s,
        serde_json::json!({"type":"delta","tick":3,"time":4,"upsert":[],"update":[],"remove":[]})
    );
    let e = serde_json::to_value(ServerMsg::Error {
        seq: Some(6),
        id: None,
        code: ErrorCode::UnknownNode,
        message: "m".into(),
        op: Some(0),
    })
    .unwrap();
    assert_eq!(
        e,
        serde_json::json!({"type":"error","seq":6,"code":"unknown_node","message":"m","op":0})
    );
    // f32 values are written as the shortest decimal that reads back as the same f32.
    let t = Transform {
        t: [0.1, 1.0 / 3.0, 1e-7],
        ..Transform::IDENTITY
    };
    assert_eq!(
        serde_json::to_string(&t).unwrap(),
        r#"{"t":[0.1,0.33333334,1e-7],"r":[0.0,0.0,0.0,1.0],"s":1.0}"#
    );
}

#[test]
fn json_number_out_of_range_is_invalid_value() {
    // The classification reads serde_json's message: this pins it.
    let e = codec::decode_client(br#"{"type":"ping","nonce":1e400}"#, Format::Json).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidValue, "{e}");
}

#[test]
fn the_edits_header_is_read_without_decoding_the_ops() {
    let ops = vec![canopy_protocol::Op::Remove { node: 3 }; 300];
    let msg = ClientMsg::Edits { seq: 70_000, ops };
    let bytes = codec::encode_client(&msg, Format::Bincode);
    assert_eq!(codec::bincode_edits_header(&bytes), Some((70_000, 300)));
    let ping = codec::encode_client(&ClientMsg::Ping { nonce: 2 }, Format::Bincode);
    assert_eq!(codec::bincode_edits_header(&ping), None);
    assert_eq!(codec::bincode_edits_header(&[2, 251]), None, "truncated");
    // A length prefix claiming more than the codec allows is too_large, not malformed.
    let huge = [2u8, 1, 253, 0, 0, 0, 0, 0, 0, 0, 1];
    let e = codec::decode_client(&huge, Format::Bincode).unwrap_err();
    assert_eq!(e.code(), ErrorCode::TooLarge, "{e}");
}
