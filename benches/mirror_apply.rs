//! The Rust SDK's cost of one delta frame on a big mirror: decode a bincode (or JSON)
//! delta of 1,000 `update` rows and apply it to a 20,000-node [`Mirror`] through its
//! public API, the same workload as the TypeScript SDK's `npm run bench`
//! (`client-ts/bench/mirror-apply.mjs`), which prints this figure beside its own.
//!
//! Run: `cargo bench -p canopy-benches --bench mirror_apply`.

#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented `pub fn`"
)]

use std::hint::black_box;

use canopy_client::Mirror;
use canopy_client::protocol::codec::{self, Format};
use canopy_client::protocol::{Node, ServerMsg, Transform, UpdateRow};
use criterion::{Criterion, criterion_group, criterion_main};

const NODES: u32 = 20_000;
const UPDATES: u32 = 1_000;

fn node(id: u32) -> Node {
    Node {
        id,
        parent: (!id.is_multiple_of(10)).then_some(id - id % 10),
        world: Transform {
            t: [id as f32 * 0.5, (id % 100) as f32, -(id as f32)],
            ..Transform::IDENTITY
        },
        extent: [0.5; 3],
        mask: u32::MAX,
    }
}

/// Every 20th node moved and turned: ids spread over the whole mirror.
fn delta() -> ServerMsg {
    let update = (0..UPDATES)
        .map(|i| UpdateRow {
            id: i * (NODES / UPDATES),
            world: Transform {
                t: [i as f32 + 0.25, 1.5, -2.75],
                r: [0.0, 0.382_683_4, 0.0, 0.923_879_5],
                s: 1.0,
            },
        })
        .collect();
    ServerMsg::delta(2, 1_767_225_600_000, vec![], update, vec![])
}

fn bench(c: &mut Criterion) {
    let mut mirror = Mirror::new();
    mirror.apply(ServerMsg::snapshot(1, 0, (0..NODES).map(node).collect()));
    let msg = delta();
    for format in [Format::Bincode, Format::Json] {
        let bytes = codec::encode_server(&msg, format);
        println!(
            "workload: decode a {} delta of {UPDATES} update rows ({} bytes) and apply it to a {NODES}-node mirror",
            format.as_str(),
            bytes.len()
        );
        c.bench_function(&format!("mirror_apply/{}", format.as_str()), |b| {
            b.iter(|| {
                let ServerMsg::Delta {
                    tick,
                    time,
                    upsert,
                    update,
                    remove,
                    ..
                } = codec::decode_server(black_box(&bytes), format).expect("decodes")
                else {
                    unreachable!("a delta was encoded")
                };
                black_box(mirror.apply_delta(tick, time, upsert, &update, &remove, None))
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
