//! No drift: random motion over many frames, encoded as the server would (absolute rows
//! for a snapshot, for nodes entering scope and for a client that lagged; otherwise
//! delta rows against the last value sent) and decoded by a client state machine. At
//! every frame the client's value must equal `quantize` of the server's current value
//! bit for bit, so errors can never add up, however the nodes move: steps below the
//! grid, big jumps, rotations whose dropped component changes, nodes leaving the
//! compact range and coming back.

use std::collections::BTreeMap;

use canopy_protocol::Transform;
use canopy_protocol::compact::{
    BlockWriter, CompactValue, DeltaRows, decode_delta, decode_snapshot, dequantize, quantize,
    transform_bits,
};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Step {
    /// A small translation, often below one grid step (2⁻¹⁰).
    Nudge([f32; 3]),
    /// A jump to anywhere in the compact range.
    Jump([f32; 3]),
    /// A small turn about an axis (radians).
    Turn([f32; 3], f32),
    /// A new orientation, which often changes the dropped component.
    Reorient([f32; 4]),
    /// The scale times a factor.
    Grow(f32),
    /// Out of the compact range: 0 far on x, 1 far on z (negative), 2 a tiny scale, 3 a
    /// huge one.
    Away(u8),
    /// Back in range, at a position, with scale 1.
    Back([f32; 3]),
}

/// One frame: the steps, the nodes that (re)enter scope (sent in `upsert`), and whether
/// the client is treated as lagging (every changed node sent absolute).
#[derive(Clone, Debug)]
struct Frame {
    steps: Vec<(usize, Step)>,
    enter: Vec<usize>,
    lagging: bool,
}

fn v3(range: f32) -> impl Strategy<Value = [f32; 3]> {
    [-range..range, -range..range, -range..range]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => prop_oneof![v3(0.0004), v3(0.05)].prop_map(Step::Nudge),
        1 => v3(8000.0).prop_map(Step::Jump),
        4 => (v3(1.0), -0.05f32..0.05).prop_map(|(a, t)| Step::Turn(a, t)),
        2 => [-1f32..1.0, -1f32..1.0, -1f32..1.0, -1f32..1.0].prop_map(Step::Reorient),
        1 => (0.5f32..2.0).prop_map(Step::Grow),
        1 => (0u8..4).prop_map(Step::Away),
        1 => v3(100.0).prop_map(Step::Back),
    ]
}

fn frames(nodes: usize) -> impl Strategy<Value = Vec<Frame>> {
    let frame = (
        proptest::collection::vec((0..nodes, step()), 0..8),
        proptest::collection::vec(0..nodes, 0..2),
        proptest::bool::weighted(0.1),
    )
        .prop_map(|(steps, mut enter, lagging)| {
            enter.sort_unstable();
            enter.dedup();
            Frame {
                steps,
                enter,
                lagging,
            }
        });
    proptest::collection::vec(frame, 1..150)
}

/// Node ids: distinct, with gaps of every size (0 and `u32::MAX` included).
fn ids(nodes: usize) -> impl Strategy<Value = Vec<u32>> {
    proptest::collection::btree_set(
        prop_oneof![Just(0u32), Just(u32::MAX), 0u32..300, any::<u32>()],
        nodes..=nodes,
    )
    .prop_map(|s| s.into_iter().collect())
}

fn normalize(q: [f64; 4]) -> [f32; 4] {
    let n = q.iter().map(|c| c * c).sum::<f64>().sqrt();
    if n < 1e-9 {
        return [0.0, 0.0, 0.0, 1.0];
    }
    q.map(|c| (c / n) as f32)
}

/// Applies a step to a world transform as an editor and the server's propagation would
/// (f32 results, unit quaternions).
fn apply(x: &mut Transform, step: &Step) {
    match *step {
        Step::Nudge(d) => (0..3).for_each(|k| x.t[k] += d[k]),
        Step::Jump(t) | Step::Back(t) => {
            x.t = t;
            if matches!(step, Step::Back(_)) {
                x.s = 1.0;
            }
        }
        Step::Turn(axis, angle) => {
            let n = axis
                .iter()
                .map(|c| f64::from(*c).powi(2))
                .sum::<f64>()
                .sqrt();
            if n < 1e-6 {
                return;
            }
            let (s, c) = (f64::from(angle) / 2.0).sin_cos();
            let d = [0, 1, 2].map(|k| f64::from(axis[k]) / n * s);
            let q = x.r.map(f64::from);
            // Hamilton product q · (d, c).
            let out = [
                q[3] * d[0] + q[0] * c + q[1] * d[2] - q[2] * d[1],
                q[3] * d[1] - q[0] * d[2] + q[1] * c + q[2] * d[0],
                q[3] * d[2] + q[0] * d[1] - q[1] * d[0] + q[2] * c,
                q[3] * c - q[0] * d[0] - q[1] * d[1] - q[2] * d[2],
            ];
            x.r = normalize(out);
        }
        Step::Reorient(r) => x.r = normalize(r.map(f64::from)),
        Step::Grow(f) => x.s = (x.s * f).clamp(1e-3, 1e3),
        Step::Away(0) => x.t[0] = 9000.0,
        Step::Away(1) => x.t[2] = -1e5,
        Step::Away(2) => x.s = 1e-6,
        Step::Away(_) => x.s = 1e6,
    }
}

/// The client: each node's last value, updated from blocks only.
#[derive(Default)]
struct Client {
    values: BTreeMap<u32, CompactValue>,
}

impl Client {
    fn snapshot(&mut self, ids: &[u32], bytes: &[u8]) {
        let mut values = Vec::new();
        decode_snapshot(bytes, ids.len(), &mut values).expect("a valid snapshot block");
        self.values = ids.iter().copied().zip(values).collect();
    }

    fn delta(&mut self, upsert: &[u32], bytes: &[u8], rows: &mut DeltaRows) {
        decode_delta(bytes, upsert.len(), rows).expect("a valid delta block");
        for (id, value) in upsert.iter().zip(&rows.upsert) {
            self.values.insert(*id, *value);
        }
        for (id, row) in &rows.rows {
            let base = self
                .values
                .get(id)
                .expect("a row for a node the client holds");
            let next = row.apply(base.quantized()).expect("a row that applies");
            self.values.insert(*id, next);
        }
    }
}

/// The check at every frame: the client holds `quantize(world)` exactly, and so the
/// dequantized transform, bit for bit.
fn check(frame: usize, ids: &[u32], world: &[Transform], client: &Client) {
    for (i, id) in ids.iter().enumerate() {
        let want = quantize(&world[i]);
        let got = client.values[id];
        assert_eq!(got, want, "frame {frame}, node {id}: {:?}", world[i]);
        let reference = match want {
            CompactValue::Quantized(q) => dequantize(&q),
            CompactValue::Exact(x) => x,
        };
        assert_eq!(
            transform_bits(&got.to_transform()),
            transform_bits(&reference)
        );
    }
}

fn run(ids: &[u32], frames: &[Frame]) {
    let mut world = vec![Transform::IDENTITY; ids.len()];
    let mut writer = BlockWriter::new();
    let mut client = Client::default();
    let mut rows = DeltaRows::default();

    // The snapshot: every node absolute, in the order of `nodes`.
    let mut sent: Vec<CompactValue> = world.iter().map(quantize).collect();
    sent.iter().for_each(|v| writer.absolute(v));
    client.snapshot(ids, &writer.snapshot().0);
    check(0, ids, &world, &client);

    for (f, frame) in frames.iter().enumerate() {
        for (node, step) in &frame.steps {
            apply(&mut world[*node], step);
        }
        writer.clear();
        let upsert: Vec<u32> = frame.enter.iter().map(|&i| ids[i]).collect();
        for &i in &frame.enter {
            sent[i] = quantize(&world[i]);
            writer.absolute(&sent[i]);
        }
        // `ids` is sorted, so this walks the changed nodes in ascending id order.
        for (i, &id) in ids.iter().enumerate() {
            if frame.enter.contains(&i) {
                continue;
            }
            let next = quantize(&world[i]);
            if next == sent[i] {
                continue;
            }
            let prev = (!frame.lagging).then_some(&sent[i]);
            assert!(writer.update(id, prev, &next));
            sent[i] = next;
        }
        client.delta(&upsert, &writer.delta().0, &mut rows);
        check(f + 1, ids, &world, &client);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_motion_never_drifts(
        (ids, frames) in (1usize..10).prop_flat_map(|n| (ids(n), frames(n)))
    ) {
        run(&ids, &frames);
    }
}

/// Ten thousand frames of steps of a third of a grid step and a slow spin: a decoder
/// that added up rounded steps would be far off by the end; this one is exact each frame.
#[test]
fn a_long_slow_walk_stays_exact() {
    let third = (1.0 / 3072.0) as f32;
    let frames: Vec<Frame> = (0..10_000)
        .map(|i| Frame {
            steps: vec![
                (0, Step::Nudge([third, -third, third / 2.0])),
                (1, Step::Turn([0.0, 1.0, 0.2], 0.0007)),
                (1, Step::Nudge([1e-3, 0.0, 0.0])),
            ],
            enter: if i % 2500 == 1234 { vec![1] } else { vec![] },
            lagging: i % 1000 == 999,
        })
        .collect();
    run(&[7, 1_000_000], &frames);
}
