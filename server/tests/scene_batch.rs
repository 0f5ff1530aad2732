//! Every kind of invalid op is refused with its code and op index, and leaves the
//! hierarchy exactly as before (compared through a full state dump), even when valid ops
//! before it in the batch added, moved and removed nodes and opened a new tick.

use canopy_protocol::{ErrorCode, Op, Transform};
use canopy_server::scene::{Hierarchy, HierarchyLimits};

fn add(id: u32, parent: Option<u32>) -> Op {
    Op::Add {
        id: Some(id),
        parent,
        local: Transform::IDENTITY,
        extent: [1.0; 3],
        mask: u32::MAX,
    }
}

fn auto(parent: Option<u32>) -> Op {
    Op::Add {
        id: None,
        parent,
        local: Transform::IDENTITY,
        extent: [0.0; 3],
        mask: 1,
    }
}

fn set_local(node: u32, t: Option<[f32; 3]>, r: Option<[f32; 4]>, s: Option<f32>) -> Op {
    Op::SetLocal { node, t, r, s }
}

/// 1 - 2 - 3 and 1 - 4, 5 a root, 6 removed (retired). Updated, so its tick is closed.
fn scene() -> Hierarchy {
    let mut h = Hierarchy::with_limits(HierarchyLimits {
        max_nodes: 20,
        max_depth: 6,
        ..HierarchyLimits::DEFAULT
    });
    h.apply_batch(&[
        add(1, None),
        add(2, Some(1)),
        add(3, Some(2)),
        add(4, Some(1)),
        add(5, None),
        add(6, Some(5)),
        Op::Remove { node: 6 },
    ])
    .unwrap();
    h.update_dirty();
    h.apply_batch(&[set_local(3, Some([1.0, 2.0, 3.0]), None, None)])
        .unwrap();
    h.update_dirty();
    h
}

/// Valid ops that change a lot: they run before the bad op in every batch below.
fn prelude() -> Vec<Op> {
    vec![
        auto(Some(3)),
        add(10, Some(5)),
        Op::SetParent {
            node: 1,
            parent: Some(10),
        },
        Op::SetShape {
            node: 4,
            extent: Some([2.0; 3]),
            mask: Some(7),
        },
        set_local(
            2,
            Some([5.0, 0.0, 0.0]),
            Some([0.0, 0.0, 1.0, 1.0]),
            Some(2.0),
        ),
        Op::Remove { node: 4 },
    ]
}

fn refused(bad: Op, code: ErrorCode) {
    for with_prelude in [false, true] {
        let mut h = scene();
        let before = h.snapshot_for_tests();
        let changes_before = h.changes().clone();
        let mut ops = if with_prelude { prelude() } else { Vec::new() };
        let index = ops.len() as u32;
        ops.push(bad.clone());
        ops.push(add(11, None));
        let err = h.apply_batch(&ops).unwrap_err();
        assert_eq!((err.op, err.code()), (index, code), "{bad:?}: {err}");
        assert!(
            err.to_string().starts_with(&format!("op {index}: ")),
            "{err}"
        );
        assert_eq!(h.snapshot_for_tests(), before, "{bad:?} changed the state");
        assert_eq!(h.changes(), &changes_before);
        h.assert_well_formed();
        // And the hierarchy still works as before.
        let ids = h.apply_batch(&[auto(None)]).unwrap();
        assert_eq!(ids, [0]);
        h.update_dirty();
        h.assert_well_formed();
    }
}

#[test]
fn non_finite_numbers() {
    refused(
        set_local(2, Some([f32::NAN, 0.0, 0.0]), None, None),
        ErrorCode::InvalidValue,
    );
    refused(
        set_local(2, None, Some([0.0, f32::INFINITY, 0.0, 1.0]), None),
        ErrorCode::InvalidValue,
    );
    refused(
        set_local(2, None, None, Some(f32::NAN)),
        ErrorCode::InvalidValue,
    );
    refused(
        Op::Add {
            id: Some(12),
            parent: None,
            local: Transform {
                t: [0.0, 0.0, f32::NEG_INFINITY],
                ..Transform::IDENTITY
            },
            extent: [0.0; 3],
            mask: 1,
        },
        ErrorCode::InvalidValue,
    );
    refused(
        Op::SetShape {
            node: 2,
            extent: Some([f32::NAN, 0.0, 0.0]),
            mask: None,
        },
        ErrorCode::InvalidValue,
    );
}

#[test]
fn bad_scale_extent_and_quaternion() {
    refused(set_local(2, None, None, Some(0.0)), ErrorCode::InvalidValue);
    refused(
        set_local(2, None, None, Some(-2.0)),
        ErrorCode::InvalidValue,
    );
    refused(
        set_local(2, None, Some([0.0, 0.0, 0.0, 5e-7]), None),
        ErrorCode::InvalidValue,
    );
    refused(
        Op::SetShape {
            node: 2,
            extent: Some([1.0, -1.0, 1.0]),
            mask: None,
        },
        ErrorCode::InvalidValue,
    );
    refused(
        Op::Add {
            id: None,
            parent: None,
            local: Transform {
                r: [0.0; 4],
                ..Transform::IDENTITY
            },
            extent: [0.0; 3],
            mask: 1,
        },
        ErrorCode::InvalidValue,
    );
}

#[test]
fn world_transform_out_of_range() {
    refused(
        set_local(3, Some([2e30, 0.0, 0.0]), None, None),
        ErrorCode::InvalidValue,
    );
    // 1e20 * 1e20 overflows the chain below 1.
    let big = |node| set_local(node, None, None, Some(1e20));
    let mut h = scene();
    let before = h.snapshot_for_tests();
    let err = h.apply_batch(&[big(1), big(2)]).unwrap_err();
    assert_eq!((err.op, err.code()), (1, ErrorCode::InvalidValue));
    assert_eq!(h.snapshot_for_tests(), before);
    // 1e-20 * 1e-20 underflows the world scale towards zero.
    let tiny = |node| set_local(node, None, None, Some(1e-20));
    let err = h.apply_batch(&[tiny(1), tiny(2)]).unwrap_err();
    assert_eq!((err.op, err.code()), (1, ErrorCode::InvalidValue));
    assert_eq!(h.snapshot_for_tests(), before);
}

#[test]
fn unknown_nodes() {
    refused(
        set_local(99, Some([0.0; 3]), None, None),
        ErrorCode::UnknownNode,
    );
    refused(
        set_local(6, Some([0.0; 3]), None, None),
        ErrorCode::UnknownNode,
    );
    refused(Op::Remove { node: 99 }, ErrorCode::UnknownNode);
    refused(
        Op::SetShape {
            node: 99,
            extent: None,
            mask: Some(1),
        },
        ErrorCode::UnknownNode,
    );
    refused(
        Op::SetParent {
            node: 99,
            parent: None,
        },
        ErrorCode::UnknownNode,
    );
    refused(
        Op::SetParent {
            node: 2,
            parent: Some(99),
        },
        ErrorCode::UnknownNode,
    );
    refused(add(12, Some(99)), ErrorCode::UnknownNode);
    refused(add(12, Some(6)), ErrorCode::UnknownNode);
}

#[test]
fn unknown_after_removal_in_the_same_batch() {
    let mut h = scene();
    let before = h.snapshot_for_tests();
    let err = h
        .apply_batch(&[Op::Remove { node: 2 }, set_local(3, None, None, Some(2.0))])
        .unwrap_err();
    assert_eq!((err.op, err.code()), (1, ErrorCode::UnknownNode));
    assert_eq!(h.snapshot_for_tests(), before);
}

#[test]
fn duplicate_ids() {
    refused(add(2, None), ErrorCode::DuplicateId);
    refused(add(6, None), ErrorCode::DuplicateId);
    let mut h = scene();
    let before = h.snapshot_for_tests();
    let err = h.apply_batch(&[add(12, None), add(12, None)]).unwrap_err();
    assert_eq!((err.op, err.code()), (1, ErrorCode::DuplicateId));
    // An id assigned earlier in the batch is taken too.
    let err = h.apply_batch(&[auto(None), add(0, None)]).unwrap_err();
    assert_eq!((err.op, err.code()), (1, ErrorCode::DuplicateId));
    assert_eq!(h.snapshot_for_tests(), before);
}

#[test]
fn cycles() {
    refused(
        Op::SetParent {
            node: 2,
            parent: Some(2),
        },
        ErrorCode::Cycle,
    );
    refused(
        Op::SetParent {
            node: 1,
            parent: Some(3),
        },
        ErrorCode::Cycle,
    );
    let mut h = scene();
    let before = h.snapshot_for_tests();
    // A cycle created through an earlier op of the same batch.
    let err = h
        .apply_batch(&[
            Op::SetParent {
                node: 5,
                parent: Some(3),
            },
            Op::SetParent {
                node: 1,
                parent: Some(5),
            },
        ])
        .unwrap_err();
    assert_eq!((err.op, err.code()), (1, ErrorCode::Cycle));
    assert_eq!(h.snapshot_for_tests(), before);
}

#[test]
fn limits() {
    // Depth: 1-2-3 is depth 3; the limit is 6.
    let mut h = scene();
    let before = h.snapshot_for_tests();
    let err = h
        .apply_batch(&[
            add(20, Some(3)),
            add(21, Some(20)),
            add(22, Some(21)),
            add(23, Some(22)),
        ])
        .unwrap_err();
    assert_eq!((err.op, err.code()), (3, ErrorCode::TooLarge));
    assert_eq!(h.snapshot_for_tests(), before);
    // Moving a subtree deeper than the limit.
    h.apply_batch(&[
        add(20, Some(5)),
        add(21, Some(20)),
        add(22, Some(21)),
        add(23, Some(22)),
    ])
    .unwrap();
    let before = h.snapshot_for_tests();
    let err = h
        .apply_batch(&[Op::SetParent {
            node: 20,
            parent: Some(3),
        }])
        .unwrap_err();
    assert_eq!((err.op, err.code()), (0, ErrorCode::TooLarge));
    assert_eq!(h.snapshot_for_tests(), before);
    // Node count: 9 live, limit 20.
    let ops: Vec<Op> = (0..12).map(|_| auto(None)).collect();
    let err = h.apply_batch(&ops).unwrap_err();
    assert_eq!((err.op, err.code()), (11, ErrorCode::TooLarge));
    assert_eq!(h.snapshot_for_tests(), before);
}

#[test]
fn empty_batch_changes_nothing() {
    let mut h = scene();
    let before = h.snapshot_for_tests();
    assert_eq!(h.apply_batch(&[]).unwrap(), Vec::<u32>::new());
    assert_eq!(h.snapshot_for_tests(), before);
}
