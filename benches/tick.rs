//! One tick of a 100,000-node room with 1% of the nodes edited, with 0, 100 and 1,000
//! whole-room subscribers and with 100 region subscribers; plus the same room with every
//! node edited, the baseline the 1% tick is compared with.
//!
//! Run: `cargo bench -p canopy-benches --bench tick`. It prints the workload, the bytes
//! per updated node of a bincode delta, and criterion's times.

#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented `pub fn`"
)]

use std::hint::black_box;
use std::sync::Arc;

use canopy_protocol::message::Region;
use canopy_protocol::{Format, Op, Transform};
use canopy_room::metrics::RoomMetrics;
use canopy_room::outbox::{Outbox, OutboxLimits, Outgoing};
use canopy_room::scope::Scope;
use canopy_room::{Room, RoomCommand, RoomConfig, SubscribeRequest};
use criterion::{Criterion, criterion_group, criterion_main};

const NODES: u32 = 100_000;
const ROOTS: u32 = 1_000;

/// A room of 1,000 roots with 99 children each, spread over a 1000 × 1000 plane.
fn room() -> Room {
    let mut room = Room::new(
        "bench".into(),
        30,
        RoomConfig::default(),
        Arc::new(RoomMetrics::default()),
        None,
    );
    let mut ops = Vec::with_capacity(NODES as usize);
    for r in 0..ROOTS {
        let root = r * 100;
        let (x, z) = ((r % 32) as f32 * 31.0, (r / 32) as f32 * 31.0);
        ops.push(Op::Add {
            id: Some(root),
            parent: None,
            local: Transform {
                t: [x, 0.0, z],
                ..Transform::IDENTITY
            },
            extent: [1.0; 3],
            mask: u32::MAX,
        });
        for c in 1..100 {
            ops.push(Op::Add {
                id: Some(root + c),
                parent: Some(root),
                local: Transform {
                    t: [(c % 10) as f32, 0.0, (c / 10) as f32],
                    ..Transform::IDENTITY
                },
                extent: [0.4; 3],
                mask: u32::MAX,
            });
        }
    }
    submit(&room, ops);
    room.tick(0);
    room
}

fn submit(room: &Room, ops: Vec<Op>) {
    room.shared().submit_unanswered(ops).expect("admitted");
}

/// Edits every `stride`-th leaf (stride 100 edits 1%).
fn edits(frame: u32, every_node: bool) -> Vec<Op> {
    let k = frame as f32 * 0.001;
    if every_node {
        (0..NODES)
            .map(|id| Op::SetLocal {
                node: id,
                t: None,
                r: None,
                s: Some(1.0 + k),
            })
            .collect()
    } else {
        (0..ROOTS)
            .map(|r| Op::SetLocal {
                node: r * 100 + 1 + frame % 99,
                t: Some([k, 0.0, 0.0]),
                r: None,
                s: None,
            })
            .collect()
    }
}

fn subscribe(room: &mut Room, n: usize, region: bool) -> Vec<Arc<Outbox>> {
    let outboxes: Vec<Arc<Outbox>> = (0..n)
        .map(|i| {
            let outbox = Outbox::new(
                i as u64 + 1,
                Format::Bincode,
                OutboxLimits {
                    frames: 1 << 20,
                    frame_bytes: usize::MAX,
                    ..OutboxLimits::DEFAULT
                },
            );
            let scope = if region {
                let x = (i % 10) as f32 * 100.0;
                let z = (i / 10) as f32 * 100.0;
                Scope {
                    region: Some(Region {
                        min: [x, -10.0, z],
                        max: [x + 100.0, 10.0, z + 100.0],
                    }),
                    mask: u32::MAX,
                    ..Scope::WHOLE_ROOM
                }
            } else {
                Scope::WHOLE_ROOM
            };
            room.handle(RoomCommand::from(SubscribeRequest::new(
                Arc::clone(&outbox),
                scope,
            )));
            outbox
        })
        .collect();
    // One tick answers the subscriptions (sharing the whole-room snapshot).
    room.tick(0);
    for o in &outboxes {
        drain(o);
    }
    outboxes
}

/// What a fast writer task does: take everything queued.
fn drain(outbox: &Outbox) -> usize {
    let mut n = 0;
    while let Some(o) = outbox.try_next() {
        if let Outgoing::Frame(m) = o {
            black_box(m);
        }
        n += 1;
    }
    n
}

fn bench(c: &mut Criterion) {
    // Bytes per updated node in a bincode delta of 1,000 updates.
    {
        let mut r = room();
        let subs = subscribe(&mut r, 1, false);
        submit(&r, edits(1, false));
        r.tick(1);
        let mut bytes = 0;
        while let Some(o) = subs[0].try_next() {
            if let Outgoing::Frame(b) = o {
                bytes = b.len();
            }
        }
        println!(
            "workload: {NODES} nodes ({ROOTS} roots x 100), {ROOTS} leaves edited per tick (1%); bincode delta of {ROOTS} updates = {bytes} bytes = {:.1} bytes per updated node (header included)",
            bytes as f64 / ROOTS as f64
        );
    }
    let mut g = c.benchmark_group("tick_100k_1pct");
    g.sample_size(20);
    for (name, n, region) in [
        ("subs_0", 0, false),
        ("subs_100", 100, false),
        ("subs_1000", 1000, false),
        ("region_100", 100, true),
    ] {
        let mut r = room();
        let subs = subscribe(&mut r, n, region);
        let mut frame = 0;
        g.bench_function(name, |b| {
            b.iter(|| {
                frame += 1;
                submit(&r, edits(frame, false));
                let rep = r.tick(frame as u64);
                for s in &subs {
                    drain(s);
                }
                black_box(rep)
            })
        });
    }
    {
        let mut r = room();
        let mut frame = 0;
        g.bench_function("subs_0_every_node_edited", |b| {
            b.iter(|| {
                frame += 1;
                submit(&r, edits(frame, true));
                black_box(r.tick(frame as u64))
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
