//! Every kind of invalid op is refused with its code and op index, and leaves the
//! hierarchy exactly as before (compared through a full state dump), even when valid ops
//! before it in the batch added, moved and removed nodes and reshaped and reparented
//! others.

use canopy_protocol::{ErrorCode, Op, Transform};
use canopy_scene::{Hierarchy, HierarchyLimits};

const ID: Transform = Transform::IDENTITY;

/// 1 - 2 - 3 and 1 - 4, 5 a root, 6 removed (retired); then a tick that moved 3, updated
/// and not yet finished, so its change lists are full.
fn scene() -> Hierarchy {
    let mut h = Hierarchy::with_limits(HierarchyLimits {
        max_nodes: 20,
        max_depth: 6,
        ..HierarchyLimits::DEFAULT
    });
    h.apply_batch(&[
        Op::add_root(1, ID),
        Op::add_child(2, 1, ID),
        Op::add_child(3, 2, ID),
        Op::add_child(4, 1, ID),
        Op::add_root(5, ID),
        Op::add_child(6, 5, ID),
        Op::remove(6),
    ])
    .unwrap();
    h.update_dirty();
    h.finish_tick();
    h.apply_batch(&[Op::set_local(3, Some([1.0, 2.0, 3.0]), None, None)])
        .unwrap();
    h.update_dirty();
    h
}

/// Valid ops that change a lot: they run before the bad op in every batch below.
fn prelude() -> Vec<Op> {
    vec![
        Op::add(None, Some(3), ID).with_mask(1),
        Op::add_child(10, 5, ID),
        Op::set_parent(1, Some(10)),
        Op::set_shape(4, Some([2.0; 3]), Some(7)),
        Op::set_local(
            2,
            Some([5.0, 0.0, 0.0]),
            Some([0.0, 0.0, 1.0, 1.0]),
            Some(2.0),
        ),
        Op::remove(4),
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
        ops.push(Op::add_root(11, ID));
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
        let ids = h
            .apply_batch(&[Op::add(None, None, ID).with_mask(1)])
            .unwrap();
        assert_eq!(ids, [0]);
        h.update_dirty();
        h.assert_well_formed();
    }
}

#[test]
fn non_finite_numbers() {
    refused(
        Op::set_local(2, Some([f32::NAN, 0.0, 0.0]), None, None),
        ErrorCode::InvalidValue,
    );
    refused(
        Op::set_local(2, None, Some([0.0, f32::INFINITY, 0.0, 1.0]), None),
        ErrorCode::InvalidValue,
    );
    refused(
        Op::set_local(2, None, None, Some(f32::NAN)),
        ErrorCode::InvalidValue,
    );
    refused(
        Op::add_root(12, Transform::from_xyz(0.0, 0.0, f32::NEG_INFINITY)).with_mask(1),
        ErrorCode::InvalidValue,
    );
    refused(
        Op::set_shape(2, Some([f32::NAN, 0.0, 0.0]), None),
        ErrorCode::InvalidValue,
    );
}

#[test]
fn bad_scale_extent_and_quaternion() {
    refused(
        Op::set_local(2, None, None, Some(0.0)),
        ErrorCode::InvalidValue,
    );
    refused(
        Op::set_local(2, None, None, Some(-2.0)),
        ErrorCode::InvalidValue,
    );
    refused(
        Op::set_local(2, None, Some([0.0, 0.0, 0.0, 5e-7]), None),
        ErrorCode::InvalidValue,
    );
    refused(
        Op::set_shape(2, Some([1.0, -1.0, 1.0]), None),
        ErrorCode::InvalidValue,
    );
    refused(
        Op::add(None, None, ID.with_r([0.0; 4])).with_mask(1),
        ErrorCode::InvalidValue,
    );
}

#[test]
fn world_transform_out_of_range() {
    refused(
        Op::set_local(3, Some([2e30, 0.0, 0.0]), None, None),
        ErrorCode::InvalidValue,
    );
    // 1e20 * 1e20 overflows the chain below 1.
    let big = |node| Op::set_local(node, None, None, Some(1e20));
    let mut h = scene();
    let before = h.snapshot_for_tests();
    let err = h.apply_batch(&[big(1), big(2)]).unwrap_err();
    assert_eq!((err.op, err.code()), (1, ErrorCode::InvalidValue));
    assert_eq!(h.snapshot_for_tests(), before);
    // 1e-20 * 1e-20 underflows the world scale towards zero.
    let tiny = |node| Op::set_local(node, None, None, Some(1e-20));
    let err = h.apply_batch(&[tiny(1), tiny(2)]).unwrap_err();
    assert_eq!((err.op, err.code()), (1, ErrorCode::InvalidValue));
    assert_eq!(h.snapshot_for_tests(), before);
}

#[test]
fn unknown_nodes() {
    refused(
        Op::set_local(99, Some([0.0; 3]), None, None),
        ErrorCode::UnknownNode,
    );
    refused(
        Op::set_local(6, Some([0.0; 3]), None, None),
        ErrorCode::UnknownNode,
    );
    refused(Op::remove(99), ErrorCode::UnknownNode);
    refused(Op::set_shape(99, None, Some(1)), ErrorCode::UnknownNode);
    refused(Op::set_parent(99, None), ErrorCode::UnknownNode);
    refused(Op::set_parent(2, Some(99)), ErrorCode::UnknownNode);
    refused(Op::add_child(12, 99, ID), ErrorCode::UnknownNode);
    refused(Op::add_child(12, 6, ID), ErrorCode::UnknownNode);
}

#[test]
fn unknown_after_removal_in_the_same_batch() {
    let mut h = scene();
    let before = h.snapshot_for_tests();
    let err = h
        .apply_batch(&[Op::remove(2), Op::set_local(3, None, None, Some(2.0))])
        .unwrap_err();
    assert_eq!((err.op, err.code()), (1, ErrorCode::UnknownNode));
    assert_eq!(h.snapshot_for_tests(), before);
}

#[test]
fn duplicate_ids() {
    refused(Op::add_root(2, ID), ErrorCode::DuplicateId);
    refused(Op::add_root(6, ID), ErrorCode::DuplicateId);
    let mut h = scene();
    let before = h.snapshot_for_tests();
    let err = h
        .apply_batch(&[Op::add_root(12, ID), Op::add_root(12, ID)])
        .unwrap_err();
    assert_eq!((err.op, err.code()), (1, ErrorCode::DuplicateId));
    // An id assigned earlier in the batch is taken too.
    let err = h
        .apply_batch(&[Op::add(None, None, ID).with_mask(1), Op::add_root(0, ID)])
        .unwrap_err();
    assert_eq!((err.op, err.code()), (1, ErrorCode::DuplicateId));
    assert_eq!(h.snapshot_for_tests(), before);
}

#[test]
fn cycles() {
    refused(Op::set_parent(2, Some(2)), ErrorCode::Cycle);
    refused(Op::set_parent(1, Some(3)), ErrorCode::Cycle);
    let mut h = scene();
    let before = h.snapshot_for_tests();
    // A cycle created through an earlier op of the same batch.
    let err = h
        .apply_batch(&[Op::set_parent(5, Some(3)), Op::set_parent(1, Some(5))])
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
            Op::add_child(20, 3, ID),
            Op::add_child(21, 20, ID),
            Op::add_child(22, 21, ID),
            Op::add_child(23, 22, ID),
        ])
        .unwrap_err();
    assert_eq!((err.op, err.code()), (3, ErrorCode::TooLarge));
    assert_eq!(h.snapshot_for_tests(), before);
    // Moving a subtree deeper than the limit.
    h.apply_batch(&[
        Op::add_child(20, 5, ID),
        Op::add_child(21, 20, ID),
        Op::add_child(22, 21, ID),
        Op::add_child(23, 22, ID),
    ])
    .unwrap();
    let before = h.snapshot_for_tests();
    let err = h.apply_batch(&[Op::set_parent(20, Some(3))]).unwrap_err();
    assert_eq!((err.op, err.code()), (0, ErrorCode::TooLarge));
    assert_eq!(h.snapshot_for_tests(), before);
    // Node count: 9 live, limit 20.
    let ops: Vec<Op> = (0..12)
        .map(|_| Op::add(None, None, ID).with_mask(1))
        .collect();
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

/// A chain `0 - 1 - ... - (n-1)`, then a walk budget of `walk` ancestors per batch.
fn chain(n: u32, walk: usize) -> Hierarchy {
    let limits = HierarchyLimits {
        max_depth: 1024,
        ..HierarchyLimits::DEFAULT
    };
    let mut h = Hierarchy::with_limits(limits);
    let mut ops = vec![Op::add_root(0, ID)];
    ops.extend((1..n).map(|i| Op::add_child(i, i - 1, ID)));
    h.apply_batch(&ops).unwrap();
    h.update_dirty();
    h.finish_tick();
    h.set_limits(HierarchyLimits {
        max_batch_walk: walk,
        ..limits
    });
    h
}

#[test]
fn a_set_parent_that_changes_nothing_walks_no_ancestor() {
    // 100,000 no-op moves of the deepest node of a chain of 1,000, under a walk budget
    // of 10 ancestors in all: each costs O(1), none spends the budget.
    let mut h = chain(1000, 10);
    let ops = vec![Op::set_parent(999, Some(998)); 100_000];
    h.apply_batch(&ops).expect("no-op moves walk nothing");
    h.assert_well_formed();
    assert_eq!(h.node(999).unwrap().parent, Some(998));
}

#[test]
fn the_ancestor_walks_of_one_batch_are_budgeted() {
    let mut h = chain(100, 150);
    let before = h.snapshot_for_tests();
    // Each move walks from its new parent to the root: 79 + 80 ancestors > 150.
    let e = h
        .apply_batch(&[Op::set_parent(99, Some(78)), Op::set_parent(99, Some(79))])
        .unwrap_err();
    assert_eq!((e.op, e.code()), (1, ErrorCode::TooLarge), "{e}");
    assert!(e.to_string().contains("150 ancestors"), "{e}");
    assert_eq!(
        h.snapshot_for_tests(),
        before,
        "a refused batch changes nothing"
    );
    h.assert_well_formed();
    // One such move alone is within the budget.
    h.apply_batch(&[Op::set_parent(99, Some(78))]).unwrap();
    h.assert_well_formed();
}
