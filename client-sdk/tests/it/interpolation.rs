//! The interpolator against known analytic motions: frames are generated from a spin
//! about an axis at constant angular speed and from an orbit around a centre at
//! constant speed (with a scale ramp), at a given send rate, stamped with whole
//! milliseconds as the server stamps them, and delivered with random jitter on one
//! in-order stream. The interpolated pose is sampled every few milliseconds and
//! compared with the exact pose at the interpolator's own sample time, within bounds
//! derived from the motion:
//!
//! * translation: linear interpolation between two points of a circle of radius `R`
//!   taken `Δ` apart at angular speed `ω` strays from the arc by at most the sagitta
//!   `R·(1 - cos(ω·Δ/2))` (at the midpoint; `Δ` the longest gap between frames);
//! * rotation: slerp is exact for a rotation about a fixed axis at constant speed, so
//!   only f32 rounding is left: 0.001° (about 1e-5° is seen);
//! * scale: linear interpolation is exact for a linear ramp: 1e-5 relative.
//!
//! The sample time itself must lag the true `now - delay` by no more than the jitter,
//! and never run ahead of it (the clock estimate takes the least delayed frame).
//!
//! Last, the interpolator fed by a live connection to the in-process server settles
//! exactly on the mirror once the motion stops.

use crate::common;

use std::time::{Duration, Instant};

use canopy_client::{ConnectOptions, Event, Interpolator, Node, Scope, Transform};
use common::{TestServer, add, move_to, within};
use glam::{DQuat, DVec3};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// The server's clock at the first frame, ms since the Unix epoch.
const T0: u64 = 1_700_000_000_000;
/// The fastest the path ever is, ms.
const BASE: f64 = 25.0;
/// How long each run lasts, and how long the clock estimate is given to settle first.
const SECONDS: f64 = 8.0;
const WARM_UP_MS: f64 = 1000.0;
/// 1e-4 units of f32 rounding on coordinates of magnitude ~20.
const ROUNDING: f64 = 1e-4;
/// f32 rounding of a slerp, in degrees.
const ROTATION_DEG: f64 = 0.001;

/// An exact pose at `t` seconds from the first frame.
#[derive(Clone, Copy)]
struct Pose {
    t: DVec3,
    r: DQuat,
    s: f64,
}

/// How the frames travel and how the render loop reads them.
#[derive(Clone, Copy, Debug)]
struct Delivery {
    hz: u32,
    /// The largest extra delay of a frame, as a fraction of the frame interval.
    jitter: f64,
    /// The render loop's period, ms.
    render_ms: f64,
    /// Events are taken as received when the render loop reads them, rather than
    /// when they arrived (as a game that drains events once per rendered frame does).
    read_at_render: bool,
    /// Negate the quaternion of a random half of the frames (the same rotation).
    flip_signs: bool,
    seed: u64,
}

impl Delivery {
    fn at(hz: u32) -> Self {
        Delivery {
            hz,
            jitter: 0.8,
            render_ms: 7.0,
            read_at_render: false,
            flip_signs: false,
            seed: u64::from(hz),
        }
    }
}

/// The largest errors of one run.
#[derive(Debug, Default)]
struct Errors {
    translation: f64,
    rotation_deg: f64,
    scale_rel: f64,
    /// How much earlier than the true `now - delay` the sample time was, at most
    /// (negative: later).
    lag_ms: f64,
    lead_ms: f64,
    /// The longest gap between two frames, ms.
    gap_ms: f64,
    samples: usize,
}

fn transform(p: &Pose, flip: bool) -> Transform {
    let r = if flip { -p.r } else { p.r };
    Transform {
        t: p.t.as_vec3().to_array(),
        r: r.as_quat().to_array(),
        s: p.s as f32,
    }
}

/// The angle between two rotations, in degrees, computed in f64.
fn angle_deg(a: DQuat, b: DQuat) -> f64 {
    let d = a.inverse() * b;
    (2.0 * d.xyz().length().atan2(d.w.abs())).to_degrees()
}

/// Generates the frames of `motion`, delivers them as `delivery` says, samples the
/// interpolator every `render_ms` and returns the largest errors.
fn run(motion: impl Fn(f64) -> Pose, delivery: Delivery) -> Errors {
    let mut rng = SmallRng::seed_from_u64(delivery.seed);
    let interval = 1000.0 / f64::from(delivery.hz);
    let most_jitter = delivery.jitter * interval;
    // (server ms, arrival ms since `base`, frame events)
    let mut frames: Vec<(u64, f64, Vec<Event>)> = Vec::new();
    let mut arrival = 0.0f64;
    let mut k = 0u64;
    loop {
        let time = T0 + (k as f64 * interval).round() as u64;
        let t = (time - T0) as f64 / 1000.0;
        if t > SECONDS {
            break;
        }
        let flip = delivery.flip_signs && rng.random_bool(0.5);
        let world = transform(&motion(t), flip);
        arrival = arrival.max((time - T0) as f64 + BASE + rng.random_range(0.0..=most_jitter));
        let events = if k == 0 {
            let node = Node {
                id: 7,
                parent: None,
                world,
                extent: [0.5; 3],
                mask: u32::MAX,
            };
            vec![
                Event::Entered(node),
                Event::Snapshot {
                    tick: k,
                    time,
                    len: 1,
                },
            ]
        } else {
            vec![
                Event::Updated { id: 7, world },
                Event::Tick { tick: k, time },
            ]
        };
        frames.push((time, arrival, events));
        k += 1;
    }

    let base = Instant::now();
    let at = |ms: f64| base + Duration::from_secs_f64(ms / 1000.0);
    let mut view = Interpolator::new(delivery.hz);
    let delay = view.delay().as_secs_f64() * 1000.0;
    let mut errors = Errors {
        lag_ms: f64::NEG_INFINITY,
        lead_ms: f64::NEG_INFINITY,
        ..Errors::default()
    };
    errors.gap_ms = frames
        .windows(2)
        .map(|w| (w[1].0 - w[0].0) as f64)
        .fold(0.0, f64::max);
    let mut next = 0;
    let mut newest = 0u64;
    let mut local = 0.0;
    let end = frames.last().unwrap().1;
    while local < end {
        while next < frames.len() && frames[next].1 <= local {
            let (time, arrived, events) = &frames[next];
            let received = if delivery.read_at_render {
                local
            } else {
                *arrived
            };
            for e in events {
                view.observe(e, at(received));
            }
            newest = *time;
            next += 1;
        }
        if local >= WARM_UP_MS {
            let sampled = view.sample_time(at(local)).expect("frames came");
            let truth = T0 as f64 + (local - BASE) - delay;
            errors.lag_ms = errors.lag_ms.max(truth - sampled);
            errors.lead_ms = errors.lead_ms.max(sampled - truth);
            assert!(
                sampled <= newest as f64,
                "{delivery:?}: sampled {} ms past the newest frame",
                sampled - newest as f64
            );
            let got = view.pose(7, at(local)).expect("the node is followed");
            let want = motion((sampled - T0 as f64) / 1000.0);
            let t = DVec3::from_array(got.t.map(f64::from));
            let r = DQuat::from_array(got.r.map(f64::from));
            errors.translation = errors.translation.max((t - want.t).length());
            errors.rotation_deg = errors.rotation_deg.max(angle_deg(want.r, r));
            let s = f64::from(got.s);
            errors.scale_rel = errors.scale_rel.max((s - want.s).abs() / want.s);
            errors.samples += 1;
        }
        local += delivery.render_ms;
    }
    errors
}

/// A node circling `centre` at radius `r` and `omega` rad/s in the xz plane, facing
/// along its path, growing linearly.
fn orbit(centre: DVec3, r: f64, omega: f64) -> impl Fn(f64) -> Pose {
    move |t| Pose {
        t: centre + r * DVec3::new((omega * t).cos(), 0.0, (omega * t).sin()),
        r: DQuat::from_axis_angle(DVec3::Y, -omega * t),
        s: 1.0 + 0.25 * t,
    }
}

/// A node at a fixed place turning about `axis` at `omega` rad/s.
fn spin(axis: DVec3, omega: f64) -> impl Fn(f64) -> Pose {
    let axis = axis.normalize();
    move |t| Pose {
        t: DVec3::new(1.0, 2.0, 3.0),
        r: DQuat::from_axis_angle(axis, omega * t),
        s: 1.0,
    }
}

/// The sagitta bound of linear interpolation on a circle, for frames `gap_ms` apart.
fn chord_bound(r: f64, omega: f64, gap_ms: f64) -> f64 {
    r * (1.0 - (omega * gap_ms / 1000.0 / 2.0).cos())
}

fn check_time(e: &Errors, d: &Delivery) {
    let interval = 1000.0 / f64::from(d.hz);
    let read = if d.read_at_render { d.render_ms } else { 0.0 };
    // Never later than the truth: the clock's offset is never below the path's floor
    // (0.5 ms of slack for the server's whole-millisecond stamps).
    assert!(e.lead_ms <= 0.5, "{d:?}: {} ms ahead", e.lead_ms);
    assert!(
        e.lag_ms <= d.jitter * interval + read + 0.5,
        "{d:?}: {} ms behind",
        e.lag_ms
    );
}

#[test]
fn an_orbit_stays_within_the_chord_error_of_linear_interpolation() {
    let (centre, r, omega) = (DVec3::new(10.0, -5.0, 3.0), 4.0, 2.0);
    for hz in [10, 20, 30, 60] {
        let d = Delivery::at(hz);
        let e = run(orbit(centre, r, omega), d);
        let bound = chord_bound(r, omega, e.gap_ms) + ROUNDING;
        println!(
            "orbit at {hz} Hz: translation {:.6} (bound {bound:.6}), rotation {:.5}°, \
             scale {:.2e}, lag {:.1} ms, {} samples",
            e.translation, e.rotation_deg, e.scale_rel, e.lag_ms, e.samples
        );
        assert!(e.translation <= bound, "{hz} Hz: {e:?}, bound {bound}");
        // The bound is tight: samples between frames come near it.
        assert!(
            e.translation >= 0.5 * bound,
            "{hz} Hz: {e:?}, bound {bound}"
        );
        assert!(e.rotation_deg <= ROTATION_DEG, "{hz} Hz: {e:?}");
        assert!(e.scale_rel <= 1e-5, "{hz} Hz: {e:?}");
        check_time(&e, &d);
        assert!(e.samples > 500);
    }
}

#[test]
fn a_spin_is_exact_to_a_thousandth_of_a_degree_whatever_the_quaternion_signs() {
    let axis = DVec3::new(1.0, 2.0, 2.0);
    // Up to 2.5 radians a frame: still the shorter arc, which slerp must take even
    // when the server's quaternions change sign from frame to frame.
    for (omega, hz) in [(3.0, 20), (40.0, 20), (10.0, 60), (25.0, 10)] {
        let d = Delivery {
            flip_signs: true,
            ..Delivery::at(hz)
        };
        let e = run(spin(axis, omega), d);
        println!(
            "spin of {omega} rad/s at {hz} Hz: rotation {:.5}°, translation {:.2e}",
            e.rotation_deg, e.translation
        );
        assert!(
            e.rotation_deg <= ROTATION_DEG,
            "{omega} rad/s at {hz} Hz: {e:?}"
        );
        assert!(e.translation <= ROUNDING, "{e:?}");
        check_time(&e, &d);
    }
}

#[test]
fn reading_events_once_per_rendered_frame_stays_within_the_bounds() {
    let (centre, r, omega) = (DVec3::new(-20.0, 1.0, 0.0), 6.0, 1.5);
    for hz in [20, 30] {
        let d = Delivery {
            render_ms: 1000.0 / 60.0,
            read_at_render: true,
            jitter: 0.5,
            seed: 99,
            ..Delivery::at(hz)
        };
        let e = run(orbit(centre, r, omega), d);
        let bound = chord_bound(r, omega, e.gap_ms) + ROUNDING;
        assert!(e.translation <= bound, "{hz} Hz: {e:?}, bound {bound}");
        assert!(e.rotation_deg <= ROTATION_DEG, "{hz} Hz: {e:?}");
        check_time(&e, &d);
    }
}

#[test]
fn without_jitter_the_sample_time_is_the_true_one() {
    let d = Delivery {
        jitter: 0.0,
        ..Delivery::at(30)
    };
    let e = run(orbit(DVec3::ZERO, 1.0, 1.0), d);
    assert!(e.lag_ms.abs() <= 0.5 && e.lead_ms <= 0.5, "{e:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_connection_feeds_it_and_it_settles_exactly_on_the_mirror() {
    within(Duration::from_secs(60), async {
        let server = TestServer::start().await;
        let client = server.client();
        client.ensure_room("smooth", Some(30)).await.unwrap();
        client
            .edit(
                "smooth",
                vec![
                    add(1, None, [0.0; 3], 0.5, 1),
                    add(2, None, [0.0; 3], 0.5, 1),
                ],
            )
            .await
            .unwrap();
        let conn = client
            .connect("smooth", ConnectOptions::default())
            .await
            .unwrap();
        let mut events = conn.events();
        conn.subscribe(Scope::room()).await.unwrap();
        let mut view = Interpolator::for_scope(&Scope::room(), 30);

        // Node 1 walks along x, one step a tick, while the view is sampled.
        let steps = 45;
        let walker = tokio::spawn({
            let client = client.clone();
            async move {
                for i in 1..=steps {
                    let x = i as f32 * 0.1;
                    client
                        .edit("smooth", vec![move_to(1, [x, 0.0, 0.0])])
                        .await
                        .unwrap();
                }
            }
        });
        let mut sampled = 0;
        while !walker.is_finished() {
            let now = Instant::now();
            while let Some(event) = events.try_next() {
                view.observe(&event, now);
            }
            if let Some(pose) = view.pose(1, now) {
                // Within the walk, give or take one step of extrapolation.
                let x = pose.t[0];
                assert!(
                    (-1e-4..=steps as f32 * 0.1 + 0.1 + 1e-4).contains(&x),
                    "{x}"
                );
                sampled += 1;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        walker.await.unwrap();
        assert!(sampled > 10);

        // A frame without node 1 says it is at rest: the view settles on the mirror.
        let ack = client
            .edit("smooth", vec![move_to(2, [0.0, 1.0, 0.0])])
            .await
            .unwrap();
        loop {
            let event = tokio::time::timeout(Duration::from_secs(10), events.next())
                .await
                .expect("the last frame")
                .expect("the connection runs");
            view.observe(&event, Instant::now());
            if matches!(event, Event::Tick { tick, .. } if tick >= ack.tick) {
                break;
            }
        }
        let later = Instant::now() + Duration::from_secs(1);
        let held = conn.mirror().get(1).unwrap().world;
        assert_eq!(held.t, [steps as f32 * 0.1, 0.0, 0.0]);
        assert_eq!(view.pose(1, later), Some(held));
        assert_eq!(view.pose(2, later).unwrap().t, [0.0, 1.0, 0.0]);
    })
    .await;
}
