//! The mirror applying compact frames (`encoding: compact`): absolute rows replace world
//! transforms, id-coded rows apply to each node's quantized baseline, and whatever
//! cannot be applied is counted as an inconsistency instead of guessed at. Expected
//! values are computed independently, as `dequantize(quantize(x))` of the transforms the
//! frames were built from.

use canopy_client::Mirror;
use canopy_client::protocol::compact::{BlockWriter, quantize};
use canopy_client::protocol::{CompactRows, ServerMsg, UpdateRow};
use canopy_client::{Event, Node, NodeId, Transform};

fn node(id: NodeId, x: f32) -> Node {
    Node {
        id,
        parent: None,
        world: Transform {
            t: [x, 0.0, 0.0],
            ..Transform::IDENTITY
        },
        extent: [0.0; 3],
        mask: u32::MAX,
    }
}

fn delta(tick: u64, update: Vec<UpdateRow>) -> ServerMsg {
    ServerMsg::delta(tick, 0, vec![], update, vec![])
}

fn moved(x: f32, turn: f32) -> Transform {
    let (s, c) = (turn / 2.0).sin_cos();
    Transform {
        t: [x, 1.0 / 3.0, -2.0],
        r: [0.0, s, 0.0, c],
        s: 1.1,
    }
}

/// What a compact client must hold for `x`: its quantization, dequantized.
fn held(x: &Transform) -> Transform {
    quantize(x).to_transform()
}

fn compact_snapshot(tick: u64, values: &[(NodeId, Transform)]) -> ServerMsg {
    let mut w = BlockWriter::new();
    values.iter().for_each(|(_, x)| w.absolute(&quantize(x)));
    // The nodes' own `world` is a placeholder: the rows are what counts.
    let nodes = values.iter().map(|(id, _)| node(*id, 99.0)).collect();
    ServerMsg::Snapshot {
        tick,
        time: 0,
        nodes,
        compact: Some(w.snapshot()),
    }
}

fn compact_delta(tick: u64, upsert: Vec<Node>, block: CompactRows) -> ServerMsg {
    ServerMsg::Delta {
        tick,
        time: 0,
        upsert,
        update: vec![],
        remove: vec![],
        resumed: false,
        compact: Some(block),
    }
}

#[test]
fn compact_snapshot_rows_replace_the_world_transforms() {
    let far = Transform {
        t: [1e5, 0.0, 0.0],
        ..Transform::IDENTITY
    };
    let mut m = Mirror::new();
    let events = m.apply(compact_snapshot(3, &[(1, moved(0.5, 0.3)), (2, far)]));
    assert_eq!(m.get(1).unwrap().world, held(&moved(0.5, 0.3)));
    assert_ne!(m.get(1).unwrap().world, moved(0.5, 0.3));
    assert_eq!(m.baseline(1), quantize(&moved(0.5, 0.3)).quantized());
    // Out of range: exact, and no baseline.
    assert_eq!(m.get(2).unwrap().world, far);
    assert_eq!(m.baseline(2), None);
    assert!(events.contains(&Event::Entered(Node {
        world: held(&moved(0.5, 0.3)),
        ..node(1, 0.0)
    })));
    assert_eq!(m.inconsistencies(), 0);
}

#[test]
fn compact_delta_rows_apply_to_the_baselines() {
    let mut m = Mirror::new();
    m.apply(compact_snapshot(
        1,
        &[(1, moved(0.0, 0.0)), (5, moved(1.0, 1.0))],
    ));
    let (a0, a1) = (quantize(&moved(0.0, 0.0)), quantize(&moved(0.001, 0.01)));
    let (b0, b1) = (quantize(&moved(1.0, 1.0)), quantize(&moved(1.0, 1.5)));
    let mut w = BlockWriter::new();
    w.absolute(&quantize(&moved(7.0, 0.0)));
    assert!(w.update(1, Some(&a0), &a1));
    assert!(w.update(5, Some(&b0), &b1));
    let events = m.apply(compact_delta(2, vec![node(9, 0.0)], w.delta()));
    assert_eq!(m.get(9).unwrap().world, held(&moved(7.0, 0.0)));
    assert_eq!(m.get(1).unwrap().world, held(&moved(0.001, 0.01)));
    assert_eq!(m.get(5).unwrap().world, held(&moved(1.0, 1.5)));
    assert_eq!(
        &events[1..],
        &[
            Event::Updated {
                id: 1,
                world: held(&moved(0.001, 0.01))
            },
            Event::Updated {
                id: 5,
                world: held(&moved(1.0, 1.5))
            },
            Event::Tick { tick: 2, time: 0 },
        ]
    );
    assert_eq!(m.inconsistencies(), 0);
}

#[test]
fn a_delta_row_without_a_quantized_baseline_is_an_inconsistency() {
    let mut m = Mirror::new();
    m.apply(compact_snapshot(1, &[(1, moved(0.0, 0.0))]));
    // An exact `update` row leaves the node without a baseline...
    m.apply(delta(
        2,
        vec![UpdateRow {
            id: 1,
            world: moved(2.0, 0.0),
        }],
    ));
    assert_eq!(m.baseline(1), None);
    // ...so a delta row for it cannot apply, and neither can one for a stranger.
    let mut w = BlockWriter::new();
    let (a, b) = (quantize(&moved(2.0, 0.0)), quantize(&moved(2.5, 0.0)));
    w.update(1, Some(&a), &b);
    w.update(4, Some(&a), &b);
    let ok = m.apply_frame(compact_delta(3, vec![], w.delta()), None);
    assert_eq!(ok, Some(false));
    assert_eq!(m.inconsistencies(), 2);
    assert_eq!(m.get(1).unwrap().world, moved(2.0, 0.0));
    assert_eq!(m.tick(), 3);
}

#[test]
fn a_broken_block_applies_none_of_its_rows() {
    let mut m = Mirror::new();
    m.apply(compact_snapshot(1, &[(1, moved(0.0, 0.0))]));
    let mut w = BlockWriter::new();
    let (a, b) = (quantize(&moved(0.0, 0.0)), quantize(&moved(0.5, 0.0)));
    w.update(1, Some(&a), &b);
    let mut bytes = w.delta().0;
    bytes.push(0);
    let msg = ServerMsg::Delta {
        tick: 2,
        time: 0,
        upsert: vec![],
        update: vec![],
        remove: vec![1],
        resumed: false,
        compact: Some(CompactRows(bytes)),
    };
    assert_eq!(m.apply_frame(msg, None), Some(false));
    // The exact parts of the frame still apply.
    assert!(m.is_empty());
    assert_eq!(m.inconsistencies(), 1);
    // A snapshot whose block is broken keeps the nodes as sent, without baselines.
    let mut snap = compact_snapshot(3, &[(1, moved(0.0, 0.0))]);
    if let ServerMsg::Snapshot { compact, .. } = &mut snap {
        compact.as_mut().unwrap().0.truncate(5);
    }
    assert_eq!(m.apply_frame(snap, None), Some(false));
    assert_eq!(m.get(1), Some(&node(1, 99.0)));
    assert_eq!(m.baseline(1), None);
    assert_eq!(m.inconsistencies(), 2);
}
