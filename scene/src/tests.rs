//! Unit tests of the scene core: reference cases, change lists, layout fix-up, ids,
//! callbacks. Invalid ops and random sequences are in `server/tests/it/scene_*.rs`.

use canopy_protocol::{NodeId, Op, Transform};
use glam::{Quat, Vec3};

use super::*;

const ID: Transform = Transform::IDENTITY;

/// `(id, old_mask)` entries of `removed` and `reshaped`.
fn was(id: NodeId, old_mask: u32) -> WithOldMask {
    WithOldMask { id, old_mask }
}

fn sorted(v: &[NodeId]) -> Vec<NodeId> {
    let mut v = v.to_vec();
    v.sort_unstable();
    v
}

/// 1 - 2 - 3, and 2 - 4: a 4-node tree.
fn four() -> Hierarchy {
    let mut h = Hierarchy::new();
    h.apply_batch(&[
        Op::add_root(1, Transform::from_t([1.0, 0.0, 0.0])),
        Op::add_child(2, 1, Transform::from_t([0.0, 1.0, 0.0])),
        Op::add_child(3, 2, Transform::from_t([0.0, 0.0, 1.0])),
        Op::add_child(4, 2, Transform::from_t([1.0, 1.0, 1.0])),
    ])
    .unwrap();
    h.update_dirty();
    h.finish_tick();
    h.assert_well_formed();
    h
}

#[test]
fn editing_a_leaf_recomputes_one_node() {
    let mut h = four();
    h.set_record_recomputed(true);
    h.set_local(3, Some(Vec3::new(5.0, 0.0, 0.0)), None, None)
        .unwrap();
    let c = h.update_dirty();
    assert_eq!(c.recomputed, 1);
    assert_eq!(c.moved, [3]);
    assert_eq!(h.last_recomputed_ids(), [3]);
    assert_eq!(h.world(3).unwrap().t, [6.0, 1.0, 0.0]);
    h.assert_well_formed();
}

#[test]
fn editing_the_root_recomputes_all_four() {
    let mut h = four();
    h.set_record_recomputed(true);
    h.set_local(1, Some(Vec3::new(0.0, 0.0, 0.0)), None, None)
        .unwrap();
    let c = h.update_dirty();
    assert_eq!(c.recomputed, 4);
    assert_eq!(sorted(&c.moved), [1, 2, 3, 4]);
    assert_eq!(h.last_recomputed_ids(), [1, 2, 3, 4]);
    h.assert_well_formed();
}

#[test]
fn world_formula_matches_the_contract() {
    let mut h = Hierarchy::new();
    let r = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    h.apply_batch(&[
        Op::add_root(
            1,
            Transform::from_xyz(1.0, 2.0, 3.0)
                .with_r(r.to_array())
                .with_s(2.0),
        )
        .with_mask(1),
        Op::add_child(2, 1, Transform::from_t([1.0, 0.0, 0.0])),
    ])
    .unwrap();
    h.update_all();
    let w = h.world(2).unwrap();
    // t = (1,2,3) + rotate(90° about z, 2 * (1,0,0)) = (1,4,3).
    assert!((Vec3::from_array(w.t) - Vec3::new(1.0, 4.0, 3.0)).length() < 1e-6);
    assert_eq!(w.s, 2.0);
    assert!(Quat::from_array(w.r).angle_between(r) < 1e-6);
}

#[test]
fn no_edit_recomputes_nothing_and_changes_nothing() {
    let mut h = four();
    let c = h.update_dirty();
    assert_eq!(c.recomputed, 0);
    assert!(c.is_empty());
}

#[test]
fn tick_changes_lists() {
    let mut h = four();
    h.apply_batch(&[
        Op::add_child(10, 3, ID),
        Op::add_root(11, ID),
        Op::remove(11),
        Op::set_parent(4, Some(10)),
        Op::set_shape(3, Some([1.0, 1.0, 1.0]), None),
        Op::set_shape(3, None, Some(2)),
        Op::set_t(2, [0.0, 0.0, 0.0]),
    ])
    .unwrap();
    // Before the update: the lists so far (11 still listed as added).
    assert_eq!(h.changes().added, [10, 11]);
    let c = h.update_dirty().clone();
    assert_eq!(
        c.added,
        [10],
        "added and removed in the same tick is not listed"
    );
    assert!(c.removed.is_empty(), "11 did not exist before the tick");
    assert_eq!(c.reparented, [4]);
    assert_eq!(c.reshaped, [was(3, u32::MAX)]);
    assert_eq!(sorted(&c.moved), [2, 3, 4], "10 is new, so not moved");
    h.assert_well_formed();

    // Ending the tick empties the lists; the next edit fills the next tick's.
    h.finish_tick();
    h.apply_batch(&[Op::remove(10)]).unwrap();
    assert_eq!(h.changes().removed, [was(10, u32::MAX), was(4, u32::MAX)]);
    assert!(h.changes().added.is_empty() && h.changes().moved.is_empty());
    let c = h.update_dirty();
    assert_eq!(c.removed, [was(10, u32::MAX), was(4, u32::MAX)]);
    assert_eq!(c.recomputed, 0);
    // A tick with no edit reports nothing.
    h.finish_tick();
    let c = h.update_dirty();
    assert!(c.is_empty());
    h.assert_well_formed();
}

#[test]
fn old_masks_are_the_masks_the_tick_began_with() {
    let mut h = four();
    let mask = |node, m| Op::set_shape(node, None, Some(m));
    h.apply_batch(&[
        mask(3, 2),
        mask(3, 4),
        mask(4, 8),
        Op::remove(4),
        mask(2, 16),
    ])
    .unwrap();
    let c = h.update_dirty();
    assert_eq!(c.reshaped, [was(3, u32::MAX), was(2, u32::MAX)]);
    assert_eq!(
        c.removed,
        [was(4, u32::MAX)],
        "4 had mask 8 when it was removed, but u32::MAX when the tick began"
    );
    h.finish_tick();
    h.apply_batch(&[Op::remove(2)]).unwrap();
    let c = h.update_dirty();
    assert_eq!(c.removed, [was(2, 16), was(3, 4)]);
    h.assert_well_formed();
}

#[test]
fn set_parent_back_and_removal_of_reparented_nodes() {
    let mut h = four();
    h.apply_batch(&[
        Op::set_parent(4, Some(1)),
        Op::set_parent(3, None),
        Op::remove(3),
    ])
    .unwrap();
    let c = h.update_dirty();
    assert_eq!(c.reparented, [4], "3 was removed: listed in removed only");
    assert_eq!(c.removed, [was(3, u32::MAX)]);
    h.assert_well_formed();
    assert_eq!(h.children(1).collect::<Vec<_>>(), [2, 4]);
}

#[test]
fn moving_a_subtree_under_a_later_node_fixes_the_order() {
    let mut h = Hierarchy::new();
    h.apply_batch(&[
        Op::add_root(1, Transform::from_t([1.0, 0.0, 0.0])),
        Op::add_child(2, 1, Transform::from_t([1.0, 0.0, 0.0])),
        Op::add_child(3, 2, Transform::from_t([1.0, 0.0, 0.0])),
        Op::add_root(9, Transform::from_t([0.0, 5.0, 0.0])),
    ])
    .unwrap();
    h.update_dirty();
    h.apply_batch(&[Op::set_parent(1, Some(9))]).unwrap();
    h.update_dirty();
    h.assert_well_formed();
    assert_eq!(h.world(3).unwrap().t, [3.0, 5.0, 0.0]);
    assert_eq!(h.descendants(9).collect::<Vec<_>>(), [9, 1, 2, 3]);
    assert_eq!(h.ancestors(3).collect::<Vec<_>>(), [2, 1, 9]);
    let order: Vec<NodeId> = h.iter_nodes().map(|n| n.id).collect();
    assert_eq!(order, [9, 1, 2, 3]);
}

#[test]
fn many_removals_compact_the_store() {
    let mut h = Hierarchy::new();
    let ops: Vec<Op> = (0..100)
        .map(|i| Op::add(Some(i), (i > 0).then(|| (i - 1) / 2), ID))
        .collect();
    h.apply_batch(&ops).unwrap();
    h.update_dirty();
    h.apply_batch(&[Op::remove(1), Op::remove(6)]).unwrap();
    h.update_dirty();
    h.assert_well_formed();
    assert!(h.store.len() < 100, "holes were reclaimed");
    assert!(h.contains(2) && !h.contains(1) && !h.contains(3));
    // Retired ids stay retired.
    let err = h.apply_batch(&[Op::add_root(1, ID)]).unwrap_err();
    assert_eq!(err.code(), canopy_protocol::ErrorCode::DuplicateId);
}

#[test]
fn server_assigned_ids_skip_used_ones() {
    let mut h = Hierarchy::new();
    let auto = || Op::add(None, None, ID).with_mask(1);
    let ids = h
        .apply_batch(&[Op::add_root(1, ID), auto(), auto(), auto()])
        .unwrap();
    assert_eq!(ids, [1, 0, 2, 3]);
    h.apply_batch(&[Op::remove(3)]).unwrap();
    let ids = h.apply_batch(&[auto()]).unwrap();
    assert_eq!(ids, [4], "removed ids are never reused");
    h.apply_batch(&[Op::add_root(u32::MAX, ID)]).unwrap();
    h.next_id = u64::from(u32::MAX);
    let err = h.apply_batch(&[auto()]).unwrap_err();
    assert_eq!(err.code(), canopy_protocol::ErrorCode::TooLarge);
}

#[test]
fn world_overflow_is_refused_with_the_blamed_op() {
    let mut h = four();
    let before = h.snapshot_for_tests();
    let big = |node| Op::set_local(node, None, None, Some(1e20));
    let err = h.apply_batch(&[big(1), big(3)]).unwrap_err();
    assert_eq!(err.code(), canopy_protocol::ErrorCode::InvalidValue);
    assert_eq!(err.op, 1);
    assert_eq!(h.snapshot_for_tests(), before);
    // Each alone is fine.
    h.apply_batch(&[big(3)]).unwrap();
    let err = h.apply_batch(&[big(2)]).unwrap_err();
    assert_eq!(
        err.op, 0,
        "a node with descendants is checked through its subtree"
    );
    // An extent that would overflow once scaled.
    let err = h
        .apply_batch(&[Op::set_shape(3, Some([1e20, 0.0, 0.0]), None)])
        .unwrap_err();
    assert_eq!(err.code(), canopy_protocol::ErrorCode::InvalidValue);
}

#[test]
fn depth_limit() {
    let mut h = Hierarchy::with_limits(HierarchyLimits {
        max_nodes: 100,
        max_depth: 3,
        ..HierarchyLimits::DEFAULT
    });
    h.apply_batch(&[
        Op::add_root(1, ID),
        Op::add_child(2, 1, ID),
        Op::add_child(3, 2, ID),
    ])
    .unwrap();
    let err = h.apply_batch(&[Op::add_child(4, 3, ID)]).unwrap_err();
    assert_eq!(err.code(), canopy_protocol::ErrorCode::TooLarge);
    h.apply_batch(&[Op::add_root(10, ID), Op::add_child(11, 10, ID)])
        .unwrap();
    // Moving a 2-deep subtree under depth 2 makes depth 4.
    let err = h.apply_batch(&[Op::set_parent(10, Some(2))]).unwrap_err();
    assert_eq!(err.code(), canopy_protocol::ErrorCode::TooLarge);
    h.apply_batch(&[Op::set_parent(10, Some(1))]).unwrap();
    h.update_dirty();
    h.assert_well_formed();
}

#[test]
fn node_limit() {
    let mut h = Hierarchy::with_limits(HierarchyLimits {
        max_nodes: 2,
        max_depth: 10,
        ..HierarchyLimits::DEFAULT
    });
    let err = h
        .apply_batch(&[
            Op::add_root(1, ID),
            Op::add_root(2, ID),
            Op::add_root(3, ID),
        ])
        .unwrap_err();
    assert_eq!(
        (err.op, err.code()),
        (2, canopy_protocol::ErrorCode::TooLarge)
    );
    assert!(h.is_empty());
}

#[test]
fn callbacks_chain_and_die_with_their_node() {
    struct Count(std::sync::Arc<std::sync::atomic::AtomicUsize>, bool);
    impl UpdateCallback for Count {
        fn update(
            &mut self,
            _node: NodeId,
            ctx: &mut UpdateContext<'_>,
            next: &mut dyn FnMut(&mut UpdateContext<'_>),
        ) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if self.1 {
                next(ctx);
            }
        }
    }
    let n = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut h = four();
    assert!(h.set_update_callback(
        3,
        Box::new(Spin {
            axis: Vec3::Z,
            rad_per_s: 1.0
        })
    ));
    assert!(h.add_update_callback(3, Box::new(Count(n.clone(), false))));
    assert!(h.add_nested(3, Box::new(Count(n.clone(), true))));
    h.set_record_recomputed(true);
    h.run_update_callbacks(1, 0.5);
    let c = h.update_dirty();
    assert_eq!(c.moved, [3]);
    assert_eq!(h.last_recomputed_ids(), [3]);
    // The first Count stops the chain, so the second never runs.
    assert_eq!(n.load(std::sync::atomic::Ordering::Relaxed), 1);
    let r = Quat::from_array(h.local(3).unwrap().r);
    assert!(r.angle_between(Quat::from_rotation_z(0.5)) < 1e-5);

    h.set_update_callback(
        4,
        Box::new(Orbit {
            center: Vec3::ZERO,
            axis: Vec3::Y,
            radius: 2.0,
            rad_per_s: 1.0,
            phase: 0.0,
        }),
    );
    h.add_update_callback(2, Box::new(Bob::new(Vec3::Y, 1.0, 0.25)));
    h.run_update_callbacks(2, 0.5);
    h.update_dirty();
    let t = Vec3::from_array(h.local(4).unwrap().t);
    assert!((t.length() - 2.0).abs() < 1e-5);
    assert!(
        (h.local(2).unwrap().t[1] - 2.0).abs() < 1e-5,
        "bob at its peak"
    );
    assert_eq!(h.callback_count(), 3);
    h.apply_batch(&[Op::remove(2)]).unwrap();
    h.update_dirty();
    assert_eq!(h.callback_count(), 0);
    assert_eq!(h.remove_update_callbacks(1), 0);
    h.assert_well_formed();
}

#[test]
fn update_all_and_update_dirty_agree() {
    let mut a = four();
    let mut b = four();
    for h in [&mut a, &mut b] {
        h.apply_batch(&[
            Op::set_t(2, [3.0, 0.0, 0.0]),
            Op::set_parent(2, None),
            Op::add_child(5, 4, ID),
        ])
        .unwrap();
    }
    a.update_dirty();
    b.update_all();
    let na: Vec<_> = a.iter_nodes().collect();
    let nb: Vec<_> = b.iter_nodes().collect();
    assert_eq!(na, nb);
    assert_eq!(sorted(&a.changes().moved), sorted(&b.changes().moved));
}

/// `set_local` normalizes its rotation late (`pending.rs`), a batch at once: the stored
/// rotation is the same bit for bit, read before the update (through the buffer) and
/// after it.
#[test]
fn deferred_normalization_stores_what_a_batch_stores() {
    let quats = [
        [0.0, 0.0, 2.0, 0.0],
        [0.1, 0.2, 0.3, 0.9],
        [1e30, -3e29, 0.0, 1e30],
        [3e-6, 0.0, -2e-6, 1e-7],
        [-0.5, 0.5, -0.5, 0.5000001],
    ];
    for q in quats {
        let mut a = four();
        let mut b = four();
        a.set_local(4, None, Some(Quat::from_array(q)), None)
            .unwrap();
        b.apply_batch(&[Op::set_local(4, None, Some(q), None)])
            .unwrap();
        let bits = |h: &Hierarchy| h.local(4).unwrap().r.map(f32::to_bits);
        assert_eq!(bits(&a), bits(&b), "{q:?}, buffered");
        a.update_dirty();
        b.update_dirty();
        assert_eq!(bits(&a), bits(&b), "{q:?}, written");
        assert_eq!(
            a.world(4).unwrap().r.map(f32::to_bits),
            b.world(4).unwrap().r.map(f32::to_bits)
        );
    }
}

#[test]
fn hierarchy_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Hierarchy>();
}
