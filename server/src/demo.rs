//! The demo room: a solar system and a forest of spinning rigs, animated by the scene's
//! built-in update callbacks, so that a new user sees deltas flow at once.
//!
//! The room is filled through the same atomic batch API that clients use, before its
//! first tick; the first tick then reports every node as added and indexes it.

use canopy_protocol::{Op, Transform};
use glam::Vec3;

use crate::state::{AppState, RegistryError};
use canopy_scene::{Bob, Hierarchy, Orbit, Spin};

/// Ids below this are the solar system; the forest starts here.
const FOREST: u32 = 10_000;

/// Fills `h` with the demo scene. Returns the number of nodes.
pub fn populate(h: &mut Hierarchy) -> usize {
    let mut ops = solar_system();
    ops.extend(forest());
    let ids = h
        .apply_batch(&ops)
        .expect("the demo scene is a valid batch");
    animate_solar_system(h);
    animate_forest(h);
    ids.len()
}

/// A sun and eight planets, each with a few moons; layer 1 bodies, layer 2 moons.
fn solar_system() -> Vec<Op> {
    const ID: Transform = Transform::IDENTITY;
    let mut ops = vec![Op::add_root(1, ID).with_extent([5.0; 3]).with_mask(1)];
    for p in 0..8u32 {
        let planet = 100 + p * 100;
        let body = Op::add_child(planet, 1, ID).with_extent([1.0 + p as f32 * 0.2; 3]);
        ops.push(body.with_mask(1));
        for m in 1..=(p + 2) {
            let moon = Op::add_child(planet + m, planet, ID.with_s(0.5));
            ops.push(moon.with_extent([0.3; 3]).with_mask(2));
        }
    }
    ops
}

/// A forest of 48 rigs: a trunk with three arms of 18 segments each; layer 4.
fn forest() -> Vec<Op> {
    let mut ops = Vec::new();
    for r in 0..48u32 {
        let root = FOREST + r * 100;
        let (x, z) = ((r % 8) as f32 * 40.0 - 140.0, (r / 8) as f32 * 40.0 + 80.0);
        let trunk = Op::add_root(root, Transform::from_xyz(x, 0.0, z));
        ops.push(trunk.with_extent([1.0; 3]).with_mask(4));
        for arm in 0..3u32 {
            let mut parent = root;
            for seg in 0..18u32 {
                let id = root + 1 + arm * 30 + seg;
                let t = if seg == 0 {
                    Transform::from_xyz(0.0, 2.0 + arm as f32 * 3.0, 0.0)
                } else {
                    Transform::from_xyz(1.0, 0.2, 0.0)
                };
                let segment = Op::add_child(id, parent, t.with_s(0.97));
                ops.push(segment.with_extent([0.4; 3]).with_mask(4));
                parent = id;
            }
        }
    }
    ops
}

/// The sun spins; planets orbit it, moons their planet.
fn animate_solar_system(h: &mut Hierarchy) {
    h.set_update_callback(
        1,
        Box::new(Spin {
            axis: Vec3::Y,
            rad_per_s: 0.1,
        }),
    );
    for p in 0..8u32 {
        let planet = 100 + p * 100;
        let radius = 20.0 + p as f32 * 12.0;
        h.set_update_callback(
            planet,
            Box::new(Orbit {
                center: Vec3::ZERO,
                axis: Vec3::Y,
                radius,
                rad_per_s: 1.5 / (1.0 + p as f32),
                phase: p as f32,
            }),
        );
        for m in 1..=(p + 2) {
            h.set_update_callback(
                planet + m,
                Box::new(Orbit {
                    center: Vec3::ZERO,
                    axis: Vec3::new(0.2 * m as f32, 1.0, 0.0),
                    radius: 3.0 + m as f32,
                    rad_per_s: 2.0 + m as f32 * 0.3,
                    phase: m as f32,
                }),
            );
        }
    }
}

/// Every trunk spins and bobs; every third arm segment spins on its own.
fn animate_forest(h: &mut Hierarchy) {
    for r in 0..48u32 {
        let root = FOREST + r * 100;
        h.set_update_callback(
            root,
            Box::new(Spin {
                axis: Vec3::Y,
                rad_per_s: 0.3 + r as f32 * 0.01,
            }),
        );
        h.add_update_callback(
            root,
            Box::new(Bob::new(Vec3::Y, 1.5, 0.2 + (r % 5) as f32 * 0.05)),
        );
        for arm in 0..3u32 {
            for seg in (0..18u32).step_by(3) {
                let id = root + 1 + arm * 30 + seg;
                h.set_update_callback(
                    id,
                    Box::new(Spin {
                        axis: Vec3::new(0.0, 0.3, 1.0),
                        rad_per_s: 0.4 + seg as f32 * 0.05,
                    }),
                );
            }
        }
    }
}

/// Creates the room `demo` and fills it. Returns the number of nodes.
pub fn create(state: &AppState) -> Result<usize, RegistryError> {
    let room = state.create_room_in_memory(Some("demo".into()), None)?;
    let mut scene = room.scene.write();
    let nodes = populate(scene.hierarchy_mut());
    // Compute every world transform and the octree now, while nothing is subscribed,
    // and show the result as tick 0: otherwise the room's first tick does that work
    // and is reported as a slow tick on every start.
    let now = canopy_room::tick_pool::now_ms();
    let dt = 1.0 / room.tick_hz.max(1) as f32;
    scene.advance(dt, now, &mut canopy_room::diff::TickDiff::default());
    scene.restore_clock(0, now);
    Ok(nodes)
}
