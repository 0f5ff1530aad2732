//! Interest scopes (v1.2) against a brute-force model: random trees, random edits and
//! followed nodes that move, with follow, region and frustum scopes, send rates and
//! distance tiers. Each subscriber's mirror (snapshot plus every frame) is checked after
//! every tick against a model that scans every node with the contract's rule:
//! - frames come only on the subscriber's sends (`floor(t·N/T)` grew), ticks increasing;
//! - at every send, the mirror holds exactly the model's scope (hysteresis: enter within
//!   R, leave beyond R + M; the mask; the followed node always), every node's parent,
//!   extent and mask as the server has them, and the exact world transform of every node
//!   in a tier sent every time;
//! - once edits stop and every tier has had its send, the mirror equals the server's
//!   state restricted to the scope;
//! - a removed followed node empties the scope and brings an `unknown_node` error.

use crate::room_support::CheckedTick;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use canopy_protocol::interest::{Follow, Frustum, Tier};
use canopy_protocol::message::Region;
use canopy_protocol::{ErrorCode, Format, Node, NodeId, Op, ServerMsg, Transform, codec};
use canopy_room::interest::{Pacing, Tiers};
use canopy_room::metrics::RoomMetrics;
use canopy_room::outbox::{Outbox, OutboxLimits, Outgoing};
use canopy_room::scope::Scope;
use canopy_room::{Room, RoomCommand, RoomConfig, SubscribeRequest};
use canopy_scene::octree::ObjectBox;
use glam::Vec3;
use proptest::prelude::*;

const TICK_HZ: u32 = 30;

/// The shape of one subscriber's scope, as generated.
#[derive(Clone, Debug)]
enum Shape {
    Follow { node: u32, radius: f32, margin: f32 },
    Region { min: [f32; 3], max: [f32; 3] },
    Frustum { min: [f32; 3], max: [f32; 3] },
}

#[derive(Clone, Debug)]
struct SubSpec {
    shape: Shape,
    mask: u32,
    send_hz: Option<u32>,
    /// `(within, every)` of the first tier and `every` of the open one.
    tiers: Option<(f32, u32, u32)>,
}

#[derive(Clone, Debug)]
enum Edit {
    Move(u32, [f32; 3]),
    Nudge(u32, [f32; 3]),
    Reparent(u32, Option<u32>),
    Shape(u32, f32, u32),
    Remove(u32),
    Add(Option<u32>, [f32; 3]),
}

fn coord() -> impl Strategy<Value = f32> {
    (-12i32..=12).prop_map(|v| v as f32 * 0.5)
}

fn point() -> impl Strategy<Value = [f32; 3]> {
    [coord(), coord(), coord()]
}

fn mask() -> impl Strategy<Value = u32> {
    prop_oneof![Just(u32::MAX), Just(1u32), Just(2u32), Just(3u32)]
}

fn sub_spec(n: u32) -> impl Strategy<Value = SubSpec> {
    let follow = (
        0..n.min(6),
        0.0f32..8.0,
        prop_oneof![Just(0.0f32), 0.0f32..3.0],
    )
        .prop_map(|(node, radius, margin)| Shape::Follow {
            node,
            radius,
            margin,
        });
    let boxed = (point(), point(), any::<bool>()).prop_map(|(a, b, frustum)| {
        let (min, max) = (
            [a[0].min(b[0]), a[1].min(b[1]), a[2].min(b[2])],
            [a[0].max(b[0]), a[1].max(b[1]), a[2].max(b[2])],
        );
        if frustum {
            Shape::Frustum { min, max }
        } else {
            Shape::Region { min, max }
        }
    });
    let shape = prop_oneof![3 => follow, 1 => boxed];
    let send_hz = prop_oneof![
        Just(None),
        Just(Some(30)),
        Just(Some(20)),
        Just(Some(7)),
        Just(Some(1))
    ];
    let tiers = prop::option::of((0.5f32..6.0, 1u32..3, 1u32..5));
    (shape, mask(), send_hz, tiers).prop_map(|(shape, mask, send_hz, tiers)| {
        // Tiers need a centre: none on a frustum.
        let tiers = tiers.filter(|_| !matches!(shape, Shape::Frustum { .. }));
        SubSpec {
            shape,
            mask,
            send_hz,
            tiers,
        }
    })
}

fn edit(n: u32) -> impl Strategy<Value = Edit> {
    let id = 0..n + 8;
    prop_oneof![
        4 => (id.clone(), point()).prop_map(|(i, p)| Edit::Move(i, p)),
        6 => (id.clone(), [-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0]).prop_map(|(i, d)| Edit::Nudge(i, d)),
        // A followed node walking: small steps, so scopes sweep from their bands.
        4 => (0..n.min(6), [-0.3f32..0.3, -0.3f32..0.3, -0.3f32..0.3]).prop_map(|(i, d)| Edit::Nudge(i, d)),
        1 => (id.clone(), prop::option::of(id.clone())).prop_map(|(i, p)| Edit::Reparent(i, p)),
        1 => (id.clone(), 0.0f32..2.0, mask()).prop_map(|(i, e, m)| Edit::Shape(i, e, m)),
        1 => id.clone().prop_filter("rarely the first nodes", |i| *i >= 4).prop_map(Edit::Remove),
        1 => (prop::option::of(id), point()).prop_map(|(p, t)| Edit::Add(p, t)),
    ]
}

fn scope_of(spec: &SubSpec) -> Scope {
    let tiers = match spec.tiers {
        None => Tiers::NONE,
        Some((within, e0, e1)) => Tiers::new(&[
            Tier {
                within: Some(within),
                every: e0,
            },
            Tier {
                within: None,
                every: e1,
            },
        ])
        .expect("valid tiers"),
    };
    let mut scope = Scope {
        mask: spec.mask,
        pacing: Pacing {
            send_hz: spec.send_hz,
            tiers,
        },
        ..Scope::WHOLE_ROOM
    };
    match spec.shape {
        Shape::Follow {
            node,
            radius,
            margin,
        } => {
            scope.follow = Some(Follow {
                node,
                radius,
                margin: Some(margin),
            })
        }
        Shape::Region { min, max } => scope.region = Some(Region { min, max }),
        Shape::Frustum { min, max } => scope.frustum = Some(box_frustum(min, max)),
    }
    scope
}

/// The six inward planes of an axis-aligned box.
fn box_frustum(min: [f32; 3], max: [f32; 3]) -> Frustum {
    let mut planes = [[0.0; 4]; 6];
    for axis in 0..3 {
        planes[2 * axis][axis] = 1.0;
        planes[2 * axis][3] = -min[axis];
        planes[2 * axis + 1][axis] = -1.0;
        planes[2 * axis + 1][3] = max[axis];
    }
    Frustum(planes)
}

/// The world AABB of a node, from the server's world transform and extent.
fn aabb(n: &Node) -> (Vec3, Vec3) {
    let w = &n.world;
    let r = glam::Quat::from_array(w.r);
    ObjectBox::from_world(
        Vec3::from_array(w.t),
        r,
        w.s,
        Vec3::from_array(n.extent),
        n.mask,
    )
    .aabb()
}

fn dist(p: Vec3, (lo, hi): (Vec3, Vec3)) -> f32 {
    let d = (lo - p).max(p - hi).max(Vec3::ZERO);
    let (x, y, z) = (f64::from(d.x), f64::from(d.y), f64::from(d.z));
    (x * x + y * y + z * z).sqrt() as f32
}

fn in_frustum(f: &Frustum, (lo, hi): (Vec3, Vec3)) -> bool {
    f.0.iter().all(|&[nx, ny, nz, d]| {
        let x = if nx >= 0.0 { hi.x } else { lo.x };
        let y = if ny >= 0.0 { hi.y } else { lo.y };
        let z = if nz >= 0.0 { hi.z } else { lo.z };
        nx * x + ny * y + nz * z + d >= 0.0
    })
}

/// One subscriber: its connection, the model of its scope and its mirror.
struct Watcher {
    spec: SubSpec,
    scope: Scope,
    outbox: Arc<Outbox>,
    model: BTreeSet<NodeId>,
    lost: bool,
    mirror: BTreeMap<NodeId, Node>,
    last_tick: u64,
    errors: usize,
    /// For each held node whose world changed since it was last sent: its tier then.
    held_tier: BTreeMap<NodeId, u32>,
}

impl Watcher {
    /// The scope's centre and the tier every-count of a node at the server's state.
    fn centre(&self, state: &BTreeMap<NodeId, Node>) -> Option<Vec3> {
        match (&self.spec.shape, self.lost) {
            (Shape::Follow { node, .. }, false) => {
                state.get(node).map(|n| Vec3::from_array(n.world.t))
            }
            (Shape::Region { min, max }, _) => {
                Some((Vec3::from_array(*min) + Vec3::from_array(*max)) * 0.5)
            }
            _ => None,
        }
    }

    /// The tier of a node (0 or 1) and that tier's `every`.
    fn tier(&self, centre: Option<Vec3>, n: &Node) -> (u32, u32) {
        match (self.spec.tiers, centre) {
            (Some((within, e0, e1)), Some(c)) => {
                if dist(c, aabb(n)) <= within {
                    (0, e0)
                } else {
                    (1, e1)
                }
            }
            _ => (0, 1),
        }
    }

    /// Notes the tier of each held node whose world this tick changed first since its
    /// last send (the tier its held update is in).
    fn note_moves(&mut self, before: &BTreeMap<NodeId, Node>, state: &BTreeMap<NodeId, Node>) {
        let centre = self.centre(state);
        for id in self.mirror.keys() {
            let (Some(b), Some(s)) = (before.get(id), state.get(id)) else {
                continue;
            };
            if b.world != s.world && !self.held_tier.contains_key(id) {
                self.held_tier.insert(*id, self.tier(centre, s).0);
            }
        }
    }

    /// The model's scope after a tick: the contract's rule over every node.
    fn advance_model(&mut self, state: &BTreeMap<NodeId, Node>) {
        let mask = self.spec.mask;
        self.model = match &self.spec.shape {
            Shape::Follow {
                node,
                radius,
                margin,
            } => {
                if self.lost || !state.contains_key(node) {
                    self.lost = true;
                    BTreeSet::new()
                } else {
                    let c = Vec3::from_array(state[node].world.t);
                    state
                        .values()
                        .filter(|n| {
                            let d = dist(c, aabb(n));
                            n.id == *node
                                || (n.mask & mask != 0
                                    && (d <= *radius
                                        || (self.model.contains(&n.id) && d <= radius + margin)))
                        })
                        .map(|n| n.id)
                        .collect()
                }
            }
            Shape::Region { min, max } => state
                .values()
                .filter(|n| {
                    let (lo, hi) = aabb(n);
                    n.mask & mask != 0
                        && lo.cmple(Vec3::from_array(*max)).all()
                        && Vec3::from_array(*min).cmple(hi).all()
                })
                .map(|n| n.id)
                .collect(),
            Shape::Frustum { min, max } => {
                let f = box_frustum(*min, *max);
                state
                    .values()
                    .filter(|n| n.mask & mask != 0 && in_frustum(&f, aabb(n)))
                    .map(|n| n.id)
                    .collect()
            }
        };
    }

    fn is_send(&self, tick: u64) -> bool {
        match self.spec.send_hz {
            None => true,
            Some(hz) => tick * u64::from(hz) / 30 > (tick - 1) * u64::from(hz) / 30,
        }
    }

    /// Applies what the outbox holds to the mirror.
    fn read(&mut self) {
        while let Some(o) = self.outbox.try_next() {
            let (Outgoing::Message(b) | Outgoing::Frame(b) | Outgoing::Merged(b)) = o else {
                panic!("unexpected {o:?}")
            };
            match codec::decode_server(&b, Format::Json).expect("own encoding") {
                ServerMsg::Snapshot { tick, nodes, .. } => {
                    self.mirror = nodes.into_iter().map(|n| (n.id, n)).collect();
                    self.last_tick = tick;
                }
                ServerMsg::Delta {
                    tick,
                    upsert,
                    update,
                    remove,
                    ..
                } => {
                    assert!(tick > self.last_tick, "frame ticks increase");
                    assert!(self.is_send(tick), "a frame at tick {tick}, not a send");
                    self.last_tick = tick;
                    for id in remove {
                        assert!(self.mirror.remove(&id).is_some(), "remove of unheld {id}");
                    }
                    for n in upsert {
                        self.mirror.insert(n.id, n);
                    }
                    for row in update {
                        self.mirror
                            .get_mut(&row.id)
                            .expect("update of a held node")
                            .world = row.world;
                    }
                }
                ServerMsg::Error { code, .. } => {
                    assert_eq!(code, ErrorCode::UnknownNode);
                    assert!(self.lost, "an error while the followed node lives");
                    self.errors += 1;
                }
                other => panic!("unexpected {other:?}"),
            }
        }
    }

    /// The checks at a send (see the module doc); `exact`: every tier has had its send.
    fn check(&mut self, tick: u64, state: &BTreeMap<NodeId, Node>, exact: bool) {
        if !self.is_send(tick) {
            return;
        }
        let send = match self.spec.send_hz {
            None => tick,
            Some(hz) => tick * u64::from(hz) / 30,
        };
        let held: BTreeSet<NodeId> = self.mirror.keys().copied().collect();
        assert_eq!(
            held, self.model,
            "tick {tick}: mirror vs model of {:?}",
            self.spec
        );
        let centre = self.centre(state);
        for (id, m) in &self.mirror {
            let s = &state[id];
            assert_eq!(
                (m.parent, m.extent, m.mask),
                (s.parent, s.extent, s.mask),
                "node {id}"
            );
            if m.world == s.world {
                continue;
            }
            // Stale only while its update waits in the same tier for that tier's send.
            let (tier, every) = self.tier(centre, s);
            let waits =
                self.held_tier.get(id).is_none_or(|t| *t == tier) && send % u64::from(every) != 0;
            assert!(
                !exact && waits,
                "tick {tick} (send {send}): world of node {id} stale in tier {tier}, {:?}",
                self.spec
            );
        }
        let mirror = &self.mirror;
        self.held_tier
            .retain(|id, _| mirror.get(id).is_some_and(|m| m.world != state[id].world));
    }
}

fn op_of(e: &Edit, state: &BTreeMap<NodeId, Node>, next_id: &mut u32) -> Op {
    match *e {
        Edit::Move(node, t) => Op::SetLocal {
            node,
            t: Some(t),
            r: None,
            s: None,
        },
        Edit::Nudge(node, d) => {
            let t = state.get(&node).map_or([0.0; 3], |n| n.world.t);
            Op::SetLocal {
                node,
                t: Some([t[0] + d[0], t[1] + d[1], t[2] + d[2]]),
                r: None,
                s: None,
            }
        }
        Edit::Reparent(node, parent) => Op::SetParent { node, parent },
        Edit::Shape(node, e, mask) => Op::SetShape {
            node,
            extent: Some([e; 3]),
            mask: Some(mask),
        },
        Edit::Remove(node) => Op::Remove { node },
        Edit::Add(parent, t) => {
            *next_id += 1;
            Op::Add {
                id: Some(*next_id),
                parent,
                local: Transform {
                    t,
                    ..Transform::IDENTITY
                },
                extent: [0.5; 3],
                mask: u32::MAX,
            }
        }
    }
}

fn submit(r: &Room, ops: Vec<Op>) {
    let _ = r.shared().submit_unanswered(ops);
}

fn server_state(r: &Room) -> BTreeMap<NodeId, Node> {
    r.shared()
        .scene
        .read()
        .hierarchy()
        .iter_nodes()
        .map(|n| (n.id, n))
        .collect()
}

fn run(tree: Vec<(Option<u32>, [f32; 3], u32)>, specs: Vec<SubSpec>, steps: Vec<Vec<Edit>>) {
    let mut r = Room::new(
        "t".into(),
        TICK_HZ,
        RoomConfig::default(),
        Arc::new(RoomMetrics::default()),
        None,
    );
    let n = tree.len() as u32;
    let adds = tree.iter().enumerate().map(|(i, (p, t, mask))| Op::Add {
        id: Some(i as u32),
        parent: p.filter(|p| *p < i as u32),
        local: Transform {
            t: *t,
            ..Transform::IDENTITY
        },
        extent: [0.5; 3],
        mask: *mask,
    });
    submit(&r, adds.collect());
    r.checked_tick(0);
    let mut subs: Vec<Watcher> = specs
        .into_iter()
        .enumerate()
        .map(|(i, spec)| {
            let outbox = Outbox::new(
                i as u64,
                Format::Json,
                OutboxLimits {
                    frames: 1 << 20,
                    frame_bytes: usize::MAX,
                    ..OutboxLimits::DEFAULT
                },
            );
            let scope = scope_of(&spec);
            r.handle(RoomCommand::from(SubscribeRequest::new(
                Arc::clone(&outbox),
                scope,
            )));
            Watcher {
                spec,
                scope,
                outbox,
                model: BTreeSet::new(),
                lost: false,
                mirror: BTreeMap::new(),
                last_tick: 0,
                errors: 0,
                held_tier: BTreeMap::new(),
            }
        })
        .collect();
    r.checked_tick(1);
    let state = server_state(&r);
    for w in &mut subs {
        // The snapshot: no hysteresis yet. A followed node that does not exist is
        // refused with the same error as a lost one, and the scope stays empty.
        w.advance_model(&state);
        w.read();
        assert_eq!(
            w.mirror.keys().copied().collect::<BTreeSet<_>>(),
            w.model,
            "snapshot of {:?}",
            w.scope
        );
    }
    let mut next_id = n + 100;
    // Long enough for the slowest send rate (1 Hz) to reach the farthest tier (every 4).
    let quiet = 30 * 5;
    for (k, step) in steps
        .iter()
        .map(Some)
        .chain(std::iter::repeat_n(None, quiet))
        .enumerate()
    {
        let before = server_state(&r);
        for e in step.into_iter().flatten() {
            submit(&r, vec![op_of(e, &before, &mut next_id)]);
        }
        let tick = r.checked_tick(2 + k as u64).tick;
        let state = server_state(&r);
        let exact = k >= steps.len() + quiet - 5;
        for w in &mut subs {
            w.advance_model(&state);
            w.note_moves(&before, &state);
            w.read();
            w.check(tick, &state, exact);
        }
    }
    for w in &subs {
        assert_eq!(
            w.errors,
            usize::from(w.lost),
            "one error for a lost followed node"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(96),
        ..ProptestConfig::default()
    })]

    #[test]
    fn mirrors_follow_the_scope_rule(
        tree in prop::collection::vec((prop::option::weighted(0.3, 0u32..32), point(), mask()), 4..32),
        specs in prop::collection::vec(sub_spec(32), 1..5),
        steps in prop::collection::vec(prop::collection::vec(edit(32), 0..8), 1..40),
    ) {
        run(tree, specs, steps);
    }
}
