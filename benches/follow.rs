//! Follow scopes at scale: 5,000 players in a 1,000,000-node room, each subscribed with
//! `follow` around its own avatar, the avatars moving slowly (steps of 0.1 units): every
//! avatar each tick (3 units a second at 30 Hz), then one avatar in a hundred each tick.
//! The scope update is what a tick costs with the 5,000 follow subscribers minus what
//! the same tick costs with none (both apply the same moves, refit the octree, and the
//! first also builds and queues each subscriber's frame).
//!
//! Run: `cargo bench -p canopy-benches --bench follow`. It prints the workload (nodes in
//! scope on average, nodes entering and leaving per tick, the octree's shape) and
//! criterion's times. `FOLLOW_BENCH_SETUP_ONLY=1` stops after the octree's shape and the
//! times of a sphere query and of a moving scope's two shells.
//!
//! The octree's root is sized to hold the plane from the start (`FOLLOW_BENCH_ROOT`,
//! default 8192): grown from the default 1024 by the inserts, the root kept 192,848 of
//! the 1,000,000 objects in its own list and every query scanned them (1.3 ms for a
//! sphere of radius 56 against 11 µs with the root sized), which would measure that,
//! not the scopes.

#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented `pub fn`"
)]

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use canopy_protocol::interest::Follow;
use canopy_protocol::{Format, Op, ServerMsg, Transform, codec};
use canopy_room::metrics::RoomMetrics;
use canopy_room::outbox::{Outbox, OutboxLimits, Outgoing};
use canopy_room::scope::Scope;
use canopy_room::{Room, RoomCommand, RoomConfig, SubscribeRequest};
use criterion::{Criterion, criterion_group, criterion_main};

const NODES: u32 = 1_000_000;
const PLAYERS: u32 = 5_000;
/// The room is a 10,000 × 10,000 plane: 0.01 nodes per square unit, so a radius of 56
/// holds about 100 nodes.
const SIDE: f32 = 10_000.0;
const RADIUS: f32 = 56.0;
const STEP: f32 = 0.1;

/// A deterministic spread: the `i`-th point of a low-discrepancy sequence on the plane.
fn spot(i: u32) -> [f32; 3] {
    let x = (i as f64 * 0.618_033_988_75).fract() as f32 * SIDE - SIDE / 2.0;
    let z = (i as f64 * 0.754_877_666_25).fract() as f32 * SIDE - SIDE / 2.0;
    [x, ((i % 13) as f32 - 6.0) * 0.3, z]
}

fn submit(room: &Room, ops: Vec<Op>) {
    room.shared().submit_unanswered(ops).expect("admitted");
}

/// The room: avatars are ids `0..PLAYERS`, every node a root with a unit box.
fn room() -> Room {
    let config = RoomConfig {
        // A root that holds the whole plane from the start: see the module doc.
        octree: canopy_scene::octree::OctreeConfig {
            initial_half_size: std::env::var("FOLLOW_BENCH_ROOT")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(8192.0),
            ..canopy_scene::octree::OctreeConfig::DEFAULT
        },
        tick_op_budget: usize::MAX,
        tick_snapshot_budget: usize::MAX,
        ..RoomConfig::default()
    };
    let mut room = Room::new(
        "bench".into(),
        30,
        config,
        Arc::new(RoomMetrics::default()),
        None,
    );
    for chunk in (0..NODES).collect::<Vec<_>>().chunks(50_000) {
        let ops = chunk
            .iter()
            .map(|&id| Op::Add {
                id: Some(id),
                parent: None,
                local: Transform {
                    t: spot(id),
                    ..Transform::IDENTITY
                },
                extent: [0.5; 3],
                mask: u32::MAX,
            })
            .collect();
        submit(&room, ops);
        room.tick(0);
    }
    room
}

/// The avatars' moves at `tick` when one in `share` moves each tick (1: every avatar):
/// a step of `STEP` along its own heading, at each of its turns.
fn moves(tick: u64, share: u64) -> Vec<Op> {
    (0..PLAYERS)
        .filter(|&id| tick % share == u64::from(id) % share)
        .map(|id| {
            let a = id as f32 * 2.4;
            let [x, y, z] = spot(id);
            let d = (tick / share) as f32 * STEP;
            Op::SetLocal {
                node: id,
                t: Some([x + a.cos() * d, y, z + a.sin() * d]),
                r: None,
                s: None,
            }
        })
        .collect()
}

fn subscribe(room: &mut Room) -> (Vec<Arc<Outbox>>, usize) {
    let limits = OutboxLimits {
        frames: 1 << 20,
        frame_bytes: usize::MAX,
        ..OutboxLimits::DEFAULT
    };
    let outboxes: Vec<Arc<Outbox>> = (0..PLAYERS)
        .map(|i| {
            let outbox = Outbox::new(u64::from(i) + 1, Format::Bincode, limits);
            let scope = Scope {
                follow: Some(Follow {
                    node: i,
                    radius: RADIUS,
                    margin: None,
                }),
                ..Scope::WHOLE_ROOM
            };
            room.handle(RoomCommand::from(SubscribeRequest::new(
                Arc::clone(&outbox),
                scope,
            )));
            outbox
        })
        .collect();
    room.tick(0);
    let mut in_scope = 0;
    for o in &outboxes {
        while let Some(Outgoing::Message(b)) = o.try_next() {
            if let Ok(ServerMsg::Snapshot { nodes, .. }) = codec::decode_server(&b, Format::Bincode)
            {
                in_scope += nodes.len();
            }
        }
    }
    (outboxes, in_scope)
}

/// Takes every queued frame; answers the upserts and removes they carry.
fn drain(outboxes: &[Arc<Outbox>], count: bool) -> usize {
    let mut crossing = 0;
    for o in outboxes {
        while let Some(out) = o.try_next() {
            if let (true, Outgoing::Frame(b)) = (count, &out)
                && let Ok(ServerMsg::Delta { upsert, remove, .. }) =
                    codec::decode_server(b, Format::Bincode)
            {
                crossing += upsert.len() + remove.len();
            }
            black_box(out);
        }
    }
    crossing
}

/// Times `iters` ticks of `room` moving one avatar in `share`, draining `outboxes`
/// untimed.
fn timed_ticks(
    (room, tick): (&mut Room, &mut u64),
    share: u64,
    outboxes: &[Arc<Outbox>],
    iters: u64,
) -> Duration {
    let mut spent = Duration::ZERO;
    for _ in 0..iters {
        *tick += 1;
        submit(room, moves(*tick, share));
        let start = Instant::now();
        black_box(room.tick(*tick));
        spent += start.elapsed();
        drain(outboxes, false);
    }
    spent
}

/// The octree's shape, and with `FOLLOW_BENCH_SETUP_ONLY` the time of a few queries.
fn octree_report(room: &Room) {
    let scene = room.shared().scene.read();
    let octree = scene.octree();
    println!(
        "octree: {} cells, {} objects outside the root",
        octree.cell_count(),
        octree.outside_count()
    );
    if std::env::var_os("FOLLOW_BENCH_SETUP_ONLY").is_none() {
        return;
    }
    let cells = octree.cells();
    let big = cells.iter().max_by_key(|c| c.objects).expect("a root");
    println!(
        "largest cell: {} objects at depth {}; root {:?}..{:?}",
        big.objects, big.depth, cells[0].min, cells[0].max
    );
    let mut out = Vec::new();
    for r in [RADIUS, 5.0] {
        let t = Instant::now();
        for i in 0..1000 {
            octree.sphere(glam::Vec3::from_array(spot(i)), r, u32::MAX, &mut out);
        }
        println!("sphere of radius {r}: {:?} per query", t.elapsed() / 1000);
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let outer = RADIUS * 1.1;
    let t = Instant::now();
    for i in 0..1000 {
        let shells = ((RADIUS - STEP, RADIUS), (outer, outer + STEP));
        octree.shells(
            glam::Vec3::from_array(spot(i)),
            shells,
            u32::MAX,
            (&mut a, &mut b),
        );
    }
    println!(
        "a moving scope's two shells (step {STEP}): {:?} per query",
        t.elapsed() / 1000
    );
}

/// Each avatar moving each tick, then one in a hundred.
const SHARES: [(&str, u64); 2] = [("every_avatar_moving", 1), ("1pct_of_avatars_moving", 100)];

fn bench(c: &mut Criterion) {
    let mut with = room();
    octree_report(&with);
    if std::env::var_os("FOLLOW_BENCH_SETUP_ONLY").is_some() {
        return;
    }
    let (outboxes, in_scope) = subscribe(&mut with);
    let mut tick = 0;
    let mut crossing = 0;
    for _ in 0..30 {
        tick += 1;
        submit(&with, moves(tick, 1));
        with.tick(tick);
        crossing += drain(&outboxes, true);
    }
    println!(
        "workload: {NODES} nodes, {PLAYERS} follow subscribers (radius {RADIUS}, margin {:.1}), \
         {:.1} nodes in scope on average, avatars moving {STEP} a step; with every avatar \
         stepping each tick, {:.2} nodes entered or left per subscriber per tick",
        RADIUS * 0.1,
        in_scope as f64 / f64::from(PLAYERS),
        crossing as f64 / 30.0 / f64::from(PLAYERS),
    );
    let mut g = c.benchmark_group("follow_1m");
    g.sample_size(10);
    for (name, share) in SHARES {
        g.bench_function(format!("{name}/5000_follow_subscribers"), |b| {
            b.iter_custom(|iters| timed_ticks((&mut with, &mut tick), share, &outboxes, iters))
        });
    }
    drop(outboxes);
    drop(with);
    let mut without = room();
    let mut tick = 0;
    for (name, share) in SHARES {
        g.bench_function(format!("{name}/no_subscribers"), |b| {
            b.iter_custom(|iters| timed_ticks((&mut without, &mut tick), share, &[], iters))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
