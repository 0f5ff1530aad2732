//! The demo room: a solar system and a forest of spinning rigs, animated by the scene's
//! built-in update callbacks, so that a new user sees deltas flow at once.
//!
//! The room is filled through the same atomic batch API that clients use, before its
//! first tick; the first tick then reports every node as added and indexes it.

use canopy_protocol::{Op, Transform};
use glam::Vec3;

use crate::registry::{AppState, RegistryError};
use crate::scene::{Bob, Hierarchy, Orbit, Spin};

/// Ids below this are the solar system; the forest starts here.
const FOREST: u32 = 10_000;

fn add(id: u32, parent: Option<u32>, t: [f32; 3], s: f32, extent: f32, mask: u32) -> Op {
    Op::Add {
        id: Some(id),
        parent,
        local: Transform {
            t,
            s,
            ..Transform::IDENTITY
        },
        extent: [extent; 3],
        mask,
    }
}

/// Fills `h` with the demo scene. Returns the number of nodes.
pub fn populate(h: &mut Hierarchy) -> usize {
    let mut ops = vec![add(1, None, [0.0; 3], 1.0, 5.0, 1)];
    // Eight planets, each with a few moons; layer 1 bodies, layer 2 moons.
    for p in 0..8u32 {
        let planet = 100 + p * 100;
        ops.push(add(planet, Some(1), [0.0; 3], 1.0, 1.0 + p as f32 * 0.2, 1));
        for m in 1..=(p + 2) {
            ops.push(add(planet + m, Some(planet), [0.0; 3], 0.5, 0.3, 2));
        }
    }
    // A forest of 48 rigs: a trunk with three arms of 18 segments each.
    for r in 0..48u32 {
        let root = FOREST + r * 100;
        let (x, z) = ((r % 8) as f32 * 40.0 - 140.0, (r / 8) as f32 * 40.0 + 80.0);
        ops.push(add(root, None, [x, 0.0, z], 1.0, 1.0, 4));
        for arm in 0..3u32 {
            let mut parent = root;
            for seg in 0..18u32 {
                let id = root + 1 + arm * 30 + seg;
                let t = if seg == 0 {
                    [0.0, 2.0 + arm as f32 * 3.0, 0.0]
                } else {
                    [1.0, 0.2, 0.0]
                };
                ops.push(add(id, Some(parent), t, 0.97, 0.4, 4));
                parent = id;
            }
        }
    }
    let ids = h
        .apply_batch(&ops)
        .expect("the demo scene is a valid batch");
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
    ids.len()
}

/// Creates the room `demo` and fills it. Returns the number of nodes.
pub fn create(state: &AppState) -> Result<usize, RegistryError> {
    let room = state.create_room(Some("demo".into()), None)?;
    let mut scene = room.scene.write();
    Ok(populate(scene.hierarchy_mut()))
}
