//! Golden vectors: every client and server message kind, with edge values, written by
//! this crate's codecs into `protocol/testdata/golden/` (`NAME.bin` = the bincode bytes,
//! `NAME.json` = the JSON bytes of the same message). Clients in other languages (the
//! TypeScript SDK in `client-ts/`) decode and re-encode the same files, so the two sides
//! cannot drift apart: a change of layout here fails this test until the fixtures are
//! re-blessed, and then fails theirs until they follow.
//!
//! `CANOPY_BLESS=1 cargo test -p canopy-protocol --test it golden` rewrites the fixtures
//! (and deletes stale ones); without it any difference, missing or extra file fails.
//! File names start with `client_` or `server_`, naming the message's direction.

// `0.7071068` is the contract's own example quaternion component (the f32 just above
// 1/√2), not an approximation of `FRAC_1_SQRT_2`, whose f32 is one ulp lower.
#![allow(clippy::approx_constant)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use canopy_protocol::codec;
use canopy_protocol::message::Region;
use canopy_protocol::query::{NearestQuery, RayQuery, RegionQuery, SphereQuery};
use canopy_protocol::{
    ClientMsg, CompactRows, Encoding, ErrorCode, Hits, NearestHit, Node, Op, Query, RayHit,
    ServerMsg, Transform, UpdateRow,
};

/// The largest integer a JavaScript `number` holds exactly (2^53 - 1): the TypeScript
/// SDK decodes u64 fields up to it as numbers and refuses larger ones.
const MAX_SAFE: u64 = (1 << 53) - 1;

const NON_ASCII: &str = "ünïcödé ✓ 日本語 🎯 \"quoted\" \\ \n";

enum Msg {
    Client(ClientMsg),
    Server(ServerMsg),
}

fn tf(t: [f32; 3], r: [f32; 4], s: f32) -> Transform {
    Transform { t, r, s }
}

/// Edge floats that JSON can carry (no NaN or infinity, which JSON has no form for).
fn odd_transform() -> Transform {
    tf(
        [-0.0, f32::MAX, f32::MIN_POSITIVE],
        [0.0, -0.0, 0.707_106_8, 0.707_106_8],
        1e-45,
    )
}

fn node(id: u32, parent: Option<u32>, world: Transform, extent: [f32; 3], mask: u32) -> Node {
    Node {
        id,
        parent,
        world,
        extent,
        mask,
    }
}

fn nodes() -> Vec<Node> {
    vec![
        node(0, None, Transform::IDENTITY, [0.0; 3], u32::MAX),
        node(
            u32::MAX,
            Some(0),
            tf([1.5, -2.25, 1e30], [0.1, 0.2, 0.3, 0.927_361_8], 0.5),
            [0.5, 1.0, 2.0],
            0,
        ),
        node(250, Some(251), odd_transform(), [3.4e38, 0.0, 1e-7], 1),
        node(
            65_536,
            Some(65_535),
            Transform::IDENTITY,
            [1.0; 3],
            0x8000_0000,
        ),
    ]
}

fn every_op() -> Vec<Op> {
    vec![
        Op::Add {
            id: None,
            parent: None,
            local: Transform::IDENTITY,
            extent: [0.0; 3],
            mask: u32::MAX,
        },
        Op::Add {
            id: Some(0),
            parent: Some(u32::MAX),
            local: tf([1.0, 2.0, 3.0], [0.0, 0.0, 0.707_106_8, 0.707_106_8], 2.5),
            extent: [0.5, 0.25, 0.125],
            mask: 0,
        },
        Op::SetLocal {
            node: 7,
            t: None,
            r: None,
            s: None,
        },
        Op::SetLocal {
            node: 251,
            t: Some([-1.0, 0.0, 1e-3]),
            r: Some([1.0, 0.0, 0.0, 0.0]),
            s: Some(0.001),
        },
        Op::SetLocal {
            node: 3,
            t: None,
            r: Some([0.0, 0.0, 0.0, 1.0]),
            s: None,
        },
        Op::SetParent {
            node: 65_535,
            parent: Some(65_536),
        },
        Op::SetParent {
            node: 1,
            parent: None,
        },
        Op::SetShape {
            node: 2,
            extent: None,
            mask: None,
        },
        Op::SetShape {
            node: 2,
            extent: Some([1.0, 2.0, 3.0]),
            mask: Some(u32::MAX),
        },
        Op::SetShape {
            node: 2,
            extent: None,
            mask: Some(0),
        },
        Op::Remove { node: u32::MAX },
    ]
}

fn error(seq: Option<u64>, id: Option<u64>, code: ErrorCode, op: Option<u32>) -> ServerMsg {
    ServerMsg::Error {
        seq,
        id,
        code,
        message: format!("{} happened", code.as_str()),
        op,
    }
}

fn rows() -> Vec<UpdateRow> {
    vec![
        UpdateRow {
            id: 0,
            world: Transform::IDENTITY,
        },
        UpdateRow {
            id: 300,
            world: tf(
                [10.0, -20.5, 0.125],
                [0.0, 0.382_683_4, 0.0, 0.923_879_5],
                3.0,
            ),
        },
        UpdateRow {
            id: u32::MAX,
            world: odd_transform(),
        },
    ]
}

fn cases() -> Vec<(String, Msg)> {
    let mut out: Vec<(String, Msg)> = Vec::new();
    let mut client =
        |name: &str, m: ClientMsg| out.push((format!("client_{name}"), Msg::Client(m)));

    client("subscribe_room", ClientMsg::subscribe(None, u32::MAX));
    client(
        "subscribe_region_mask0",
        ClientMsg::subscribe(
            Some(Region {
                min: [-1.5, -0.0, -1e30],
                max: [1.5, 0.0, 1e30],
            }),
            0,
        ),
    );
    client(
        "subscribe_since_compact",
        ClientMsg::Subscribe {
            region: Some(Region {
                min: [0.0; 3],
                max: [8192.0; 3],
            }),
            mask: 0x0000_00ff,
            since: Some(MAX_SAFE),
            encoding: Encoding::Compact,
            follow: None,
            frustum: None,
            send_hz: None,
            tiers: Vec::new(),
        },
    );
    // v1.2: bincode variant 5, the v1.1 fields and then the four new ones.
    client(
        "subscribe_follow_tiers",
        ClientMsg::Subscribe {
            region: None,
            mask: 6,
            since: None,
            encoding: Encoding::Exact,
            follow: Some(canopy_protocol::Follow {
                node: 300,
                radius: 25.0,
                margin: Some(2.5),
            }),
            frustum: None,
            send_hz: Some(20),
            tiers: vec![
                canopy_protocol::Tier {
                    within: Some(10.0),
                    every: 1,
                },
                canopy_protocol::Tier {
                    within: None,
                    every: 3,
                },
            ],
        },
    );
    client(
        "subscribe_frustum",
        ClientMsg::Subscribe {
            region: None,
            mask: u32::MAX,
            since: Some(12),
            encoding: Encoding::Compact,
            follow: None,
            frustum: Some(canopy_protocol::Frustum([
                [1.0, 0.0, 0.0, 10.0],
                [-1.0, 0.0, 0.0, 10.0],
                [0.0, 1.0, 0.0, 10.0],
                [0.0, -1.0, 0.0, 10.0],
                [0.0, 0.0, 1.0, -0.5],
                [0.0, 0.0, -1.0, 100.0],
            ])),
            send_hz: None,
            tiers: Vec::new(),
        },
    );
    client(
        "subscribe_since_zero",
        ClientMsg::Subscribe {
            region: None,
            mask: u32::MAX,
            since: Some(0),
            encoding: Encoding::Exact,
            follow: None,
            frustum: None,
            send_hz: None,
            tiers: Vec::new(),
        },
    );
    client(
        "subscribe_compact_only",
        ClientMsg::Subscribe {
            region: None,
            mask: 1,
            since: None,
            encoding: Encoding::Compact,
            follow: None,
            frustum: None,
            send_hz: None,
            tiers: Vec::new(),
        },
    );
    client(
        "subscribe_since_u64max",
        ClientMsg::Subscribe {
            region: None,
            mask: u32::MAX,
            since: Some(u64::MAX),
            encoding: Encoding::Exact,
            follow: None,
            frustum: None,
            send_hz: None,
            tiers: Vec::new(),
        },
    );
    client("unsubscribe", ClientMsg::Unsubscribe);
    client(
        "edits_empty",
        ClientMsg::Edits {
            seq: 0,
            ops: vec![],
        },
    );
    client(
        "edits_every_op",
        ClientMsg::Edits {
            seq: MAX_SAFE,
            ops: every_op(),
        },
    );
    client(
        "query_region",
        ClientMsg::Query {
            id: 0,
            query: Query::Region(RegionQuery {
                min: [-10.0, -10.0, -10.0],
                max: [10.0, 10.0, 10.0],
                mask: u32::MAX,
            }),
        },
    );
    client(
        "query_sphere",
        ClientMsg::Query {
            id: 1,
            query: Query::Sphere(SphereQuery {
                center: Some([1.0, 2.0, 3.0]),
                around: None,
                radius: 0.0,
                mask: 0,
            }),
        },
    );
    client(
        "query_ray_defaults",
        ClientMsg::Query {
            id: 250,
            query: Query::Ray(RayQuery {
                origin: [0.0; 3],
                dir: [0.0, 0.0, 1.0],
                max_t: None,
                mask: u32::MAX,
                all: false,
            }),
        },
    );
    client(
        "query_ray_all",
        ClientMsg::Query {
            id: 251,
            query: Query::Ray(RayQuery {
                origin: [-5.0, 0.5, 0.25],
                dir: [1e-20, -1e20, 3.0],
                max_t: Some(100.0),
                mask: 6,
                all: true,
            }),
        },
    );
    client(
        "query_nearest_defaults",
        ClientMsg::Query {
            id: 65_535,
            query: Query::Nearest(NearestQuery {
                point: Some([1.0, 1.0, 1.0]),
                around: None,
                k: 1,
                max_dist: None,
                mask: u32::MAX,
            }),
        },
    );
    client(
        "query_nearest_all",
        ClientMsg::Query {
            id: 65_536,
            query: Query::Nearest(NearestQuery {
                point: Some([-1.0, 0.0, 7.5]),
                around: None,
                k: u32::MAX,
                max_dist: Some(0.0),
                mask: 0x8000_0000,
            }),
        },
    );
    // v1.2: a sphere and a nearest query around a node are bincode variants 4 and 5.
    client(
        "query_sphere_around",
        ClientMsg::Query {
            id: 2,
            query: Query::Sphere(SphereQuery {
                center: None,
                around: Some(300),
                radius: 12.5,
                mask: u32::MAX,
            }),
        },
    );
    client(
        "query_nearest_around",
        ClientMsg::Query {
            id: 3,
            query: Query::Nearest(NearestQuery {
                point: None,
                around: Some(70_000),
                k: 8,
                max_dist: Some(50.0),
                mask: 2,
            }),
        },
    );
    // Every varint width and its boundaries: 1 byte below 251, then 251+u16, 252+u32,
    // 253+u64, and the largest value a JavaScript number holds exactly.
    for nonce in [
        0u64,
        9,
        250,
        251,
        65_535,
        65_536,
        u32::MAX as u64,
        1 << 32,
        MAX_SAFE,
        u64::MAX,
    ] {
        client(&format!("ping_{nonce}"), ClientMsg::Ping { nonce });
    }

    let mut server =
        |name: &str, m: ServerMsg| out.push((format!("server_{name}"), Msg::Server(m)));
    server("snapshot_empty", ServerMsg::snapshot(0, 0, vec![]));
    server(
        "snapshot_nodes",
        ServerMsg::snapshot(MAX_SAFE, 1_767_225_600_000, nodes()),
    );
    server(
        "snapshot_compact",
        ServerMsg::Snapshot {
            tick: 3,
            time: 4,
            nodes: nodes()[..1].to_vec(),
            // One row A: translation (1, 2, 0) grid steps, the rest the identity's.
            compact: Some(CompactRows(vec![0x4b, 1, 0, 0, 2, 0, 0])),
        },
    );
    server(
        "snapshot_compact_empty",
        ServerMsg::Snapshot {
            tick: 3,
            time: 4,
            nodes: vec![],
            compact: Some(CompactRows(vec![])),
        },
    );
    server(
        "delta_empty",
        ServerMsg::delta(1, 2, vec![], vec![], vec![]),
    );
    server(
        "delta_full",
        ServerMsg::delta(251, 65_536, nodes(), rows(), vec![0, 1, 250, 251, u32::MAX]),
    );
    server(
        "delta_resumed",
        ServerMsg::Delta {
            tick: 10,
            time: 11,
            upsert: vec![],
            update: rows()[1..2].to_vec(),
            remove: vec![5],
            resumed: true,
            compact: None,
        },
    );
    server(
        "delta_compact",
        ServerMsg::Delta {
            tick: 12,
            time: 13,
            upsert: vec![],
            update: vec![],
            remove: vec![],
            resumed: false,
            compact: Some(CompactRows(vec![1, 5, 0x09, 2, 3, 4])),
        },
    );
    server(
        "delta_resumed_compact",
        ServerMsg::Delta {
            tick: u32::MAX as u64,
            time: 1 << 32,
            upsert: nodes()[..1].to_vec(),
            update: vec![],
            remove: vec![],
            resumed: true,
            compact: Some(CompactRows((0u8..=255).collect())),
        },
    );
    server(
        "ack_empty",
        ServerMsg::Ack {
            seq: 0,
            tick: 0,
            ids: vec![],
        },
    );
    server(
        "ack_ids",
        ServerMsg::Ack {
            seq: MAX_SAFE,
            tick: 65_536,
            ids: vec![0, 250, 251, 65_535, 65_536, u32::MAX],
        },
    );
    for code in ErrorCode::ALL {
        server(
            &format!("error_{}", code.as_str()),
            error(None, None, code, None),
        );
    }
    server(
        "error_edits_op",
        error(Some(0), None, ErrorCode::Cycle, Some(u32::MAX)),
    );
    server(
        "error_query_id",
        error(None, Some(MAX_SAFE), ErrorCode::InvalidValue, None),
    );
    server(
        "error_all_fields_non_ascii",
        ServerMsg::Error {
            seq: Some(251),
            id: Some(252),
            code: ErrorCode::BadRequest,
            message: NON_ASCII.to_string(),
            op: Some(0),
        },
    );
    server(
        "error_empty_message",
        ServerMsg::Error {
            seq: None,
            id: None,
            code: ErrorCode::TooLarge,
            message: String::new(),
            op: None,
        },
    );
    server(
        "query_result_nodes",
        ServerMsg::QueryResult {
            id: 0,
            tick: 9,
            nodes: Some(vec![0, 1, u32::MAX]),
            hits: None,
        },
    );
    server(
        "query_result_nodes_empty",
        ServerMsg::QueryResult {
            id: 1,
            tick: 9,
            nodes: Some(vec![]),
            hits: None,
        },
    );
    server(
        "query_result_ray",
        ServerMsg::QueryResult {
            id: 2,
            tick: 9,
            nodes: None,
            hits: Some(Hits::Ray(vec![
                RayHit { node: 4, t: 0.0 },
                RayHit {
                    node: u32::MAX,
                    t: 12.5,
                },
            ])),
        },
    );
    server(
        "query_result_ray_empty",
        ServerMsg::QueryResult {
            id: 3,
            tick: 9,
            nodes: None,
            hits: Some(Hits::Ray(vec![])),
        },
    );
    server(
        "query_result_nearest",
        ServerMsg::QueryResult {
            id: 4,
            tick: 9,
            nodes: None,
            hits: Some(Hits::Nearest(vec![
                NearestHit { node: 0, dist: 0.0 },
                NearestHit {
                    node: 70_000,
                    dist: 3.25,
                },
            ])),
        },
    );
    // In JSON an empty `hits` cannot say which kind it is (the untagged enum reads it
    // back as a ray answer); bincode keeps the variant. Clients match hits to the query
    // they sent, so either reading is right.
    server(
        "query_result_nearest_empty",
        ServerMsg::QueryResult {
            id: 5,
            tick: 9,
            nodes: None,
            hits: Some(Hits::Nearest(vec![])),
        },
    );
    server(
        "query_result_neither",
        ServerMsg::QueryResult {
            id: MAX_SAFE,
            tick: MAX_SAFE,
            nodes: None,
            hits: None,
        },
    );
    server("pong_zero", ServerMsg::Pong { nonce: 0, tick: 0 });
    server(
        "pong_u64max",
        ServerMsg::Pong {
            nonce: u64::MAX,
            tick: u64::MAX,
        },
    );
    server(
        "closed_room_deleted",
        ServerMsg::Closed {
            reason: "room deleted".into(),
        },
    );
    server(
        "closed_non_ascii",
        ServerMsg::Closed {
            reason: NON_ASCII.into(),
        },
    );
    server(
        "closed_empty",
        ServerMsg::Closed {
            reason: String::new(),
        },
    );
    out
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/golden")
}

/// The files every case stands for, with their bytes.
fn expected_files() -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for (name, msg) in cases() {
        let (bin, json) = match &msg {
            Msg::Client(m) => (codec::to_bincode(m), codec::to_json(m)),
            Msg::Server(m) => (codec::to_bincode(m), codec::to_json(m)),
        };
        assert!(
            files.insert(format!("{name}.bin"), bin).is_none(),
            "two cases are named {name}"
        );
        files.insert(format!("{name}.json"), json);
    }
    files
}

#[test]
fn every_case_decodes_back_to_itself() {
    for (name, msg) in cases() {
        match msg {
            Msg::Client(m) => {
                let bin: ClientMsg = codec::from_bincode(&codec::to_bincode(&m)).unwrap();
                let json: ClientMsg = codec::from_json(&codec::to_json(&m)).unwrap();
                assert_eq!(bin, m, "{name} (bincode)");
                assert_eq!(json, m, "{name} (JSON)");
            }
            Msg::Server(m) => {
                let bin: ServerMsg = codec::from_bincode(&codec::to_bincode(&m)).unwrap();
                assert_eq!(bin, m, "{name} (bincode)");
                let json: ServerMsg = codec::from_json(&codec::to_json(&m)).unwrap();
                let ambiguous = matches!(
                    &m,
                    ServerMsg::QueryResult { hits: Some(Hits::Nearest(h)), .. } if h.is_empty()
                );
                if ambiguous {
                    assert!(matches!(
                        json,
                        ServerMsg::QueryResult { hits: Some(Hits::Ray(ref h)), .. } if h.is_empty()
                    ));
                } else {
                    assert_eq!(json, m, "{name} (JSON)");
                }
            }
        }
    }
}

#[test]
fn fixtures_match_the_codecs() {
    let dir = dir();
    let expected = expected_files();
    if std::env::var_os("CANOPY_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(&dir).unwrap();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let fixture = name.ends_with(".bin") || name.ends_with(".json");
            if fixture && !expected.contains_key(&name) {
                std::fs::remove_file(&path).unwrap();
            }
        }
        for (name, bytes) in &expected {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
        return;
    }
    let mut problems = Vec::new();
    for (name, bytes) in &expected {
        match std::fs::read(dir.join(name)) {
            Ok(found) if &found == bytes => {}
            Ok(_) => problems.push(format!("{name}: differs from the codec's output")),
            Err(e) => problems.push(format!("{name}: {e}")),
        }
    }
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let fixture = name.ends_with(".bin") || name.ends_with(".json");
        if fixture && !expected.contains_key(&name) {
            problems.push(format!("{name}: no case writes it"));
        }
    }
    assert!(
        problems.is_empty(),
        "golden fixtures out of date (CANOPY_BLESS=1 rewrites them):\n{}",
        problems.join("\n")
    );
}

#[test]
fn a_few_bytes_are_as_the_codec_docs_say() {
    // `protocol/src/codec.rs` and `docs/protocol.md` quote these; keep them true.
    let f = expected_files();
    assert_eq!(f["client_ping_9.bin"], [0x04, 0x09]);
    assert_eq!(f["client_ping_251.bin"], [0x04, 0xfb, 0xfb, 0x00]);
    assert_eq!(f["client_unsubscribe.bin"], [0x01]);
    assert_eq!(
        f["client_subscribe_room.bin"],
        [0x00, 0x00, 0xfc, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00]
    );
}
