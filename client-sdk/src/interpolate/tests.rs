//! The interpolator's rules, one at a time, with frames written by hand: snaps on
//! entering, leaving, upserts and reconnects, rest inferred from absence, the
//! extrapolation cap through the clock, and buffers that stop growing.

use super::*;
use canopy_protocol::Node;

/// The server's clock at the first frame, ms since the Unix epoch.
const T0: u64 = 1_700_000_000_000;
/// Frames every 50 ms (20 Hz); the path takes 40 ms.
const STEP: u64 = 50;
const PATH: u64 = 40;

fn world(x: f32) -> Transform {
    Transform {
        t: [x, 0.0, 0.0],
        ..Transform::IDENTITY
    }
}

fn node(id: NodeId, x: f32) -> Node {
    Node {
        id,
        parent: None,
        world: world(x),
        extent: [0.0; 3],
        mask: u32::MAX,
    }
}

/// Feeds frames to an interpolator as a connection would, each received `PATH` ms after
/// its server time.
struct Feed {
    view: Interpolator,
    base: Instant,
}

impl Feed {
    fn new(view: Interpolator) -> Self {
        Feed {
            view,
            base: Instant::now(),
        }
    }

    /// When the frame stamped `T0 + ms` arrives.
    fn arrival(&self, ms: u64) -> Instant {
        self.base + Duration::from_millis(ms + PATH)
    }

    /// The frame `k` (server time `T0 + k * STEP`) with these events, closed by a tick.
    fn frame(&mut self, k: u64, events: &[Event]) {
        let at = self.arrival(k * STEP);
        for e in events {
            self.view.observe(e, at);
        }
        let marker = Event::Tick {
            tick: k,
            time: T0 + k * STEP,
        };
        self.view.observe(&marker, at);
    }

    /// The x of the node at server time `T0 + ms`.
    fn x(&self, id: NodeId, ms: f64) -> Option<f32> {
        Some(self.view.pose_at(id, T0 as f64 + ms)?.t[0])
    }
}

fn moved(id: NodeId, x: f32) -> Event {
    Event::Updated {
        id,
        world: world(x),
    }
}

fn close(a: Option<f32>, b: f32) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-4)
}

#[test]
fn a_node_that_enters_is_exact_at_once_with_nothing_to_interpolate_from() {
    let mut feed = Feed::new(Interpolator::new(20));
    feed.frame(0, &[Event::Entered(node(1, 0.0))]);
    feed.frame(1, &[moved(1, 1.0), Event::Entered(node(2, 50.0))]);
    // Before its first frame, a node that entered is where it entered.
    assert_eq!(feed.x(2, 0.0), Some(50.0));
    assert_eq!(feed.x(2, 50.0), Some(50.0));
    assert!(close(feed.x(1, 25.0), 0.5));
    assert!(feed.view.contains(2) && feed.view.len() == 2);
}

#[test]
fn a_node_that_leaves_is_forgotten_and_starts_afresh_when_it_returns() {
    let mut feed = Feed::new(Interpolator::new(20));
    feed.frame(0, &[Event::Entered(node(1, 0.0))]);
    feed.frame(1, &[moved(1, 1.0)]);
    feed.frame(2, &[Event::Left(1)]);
    assert!(!feed.view.contains(1));
    assert_eq!(feed.x(1, 60.0), None);
    // Back far away: no slide from where it was.
    feed.frame(3, &[Event::Entered(node(1, 900.0))]);
    for ms in [0.0, 60.0, 150.0, 170.0] {
        assert_eq!(feed.x(1, ms), Some(900.0), "at {ms}");
    }
}

#[test]
fn an_upserted_node_jumps_at_its_frame_time_instead_of_sliding() {
    let mut feed = Feed::new(Interpolator::new(20));
    feed.frame(0, &[Event::Entered(node(1, 0.0))]);
    feed.frame(1, &[moved(1, 1.0)]);
    // Reparented: the world transform is sent in full, far away.
    feed.frame(2, &[Event::Changed(node(1, 100.0))]);
    feed.frame(3, &[moved(1, 101.0)]);
    assert!(close(feed.x(1, 25.0), 0.5));
    assert_eq!(feed.x(1, 75.0), Some(1.0), "held until the jump's time");
    assert_eq!(feed.x(1, 99.99), Some(1.0));
    assert_eq!(feed.x(1, 100.0), Some(100.0), "exact at its time");
    assert!(close(feed.x(1, 125.0), 100.5), "and moving on from there");
}

#[test]
fn the_first_frame_after_a_reconnect_jumps() {
    let mut feed = Feed::new(Interpolator::new(20));
    feed.frame(0, &[Event::Entered(node(1, 0.0))]);
    feed.frame(1, &[moved(1, 1.0)]);
    let at = feed.arrival(STEP);
    feed.view.observe(&Event::Reconnected, at);
    // Gone for 2 s; the resumed delta moves it far.
    feed.frame(41, &[moved(1, 80.0)]);
    feed.frame(42, &[moved(1, 81.0)]);
    assert_eq!(feed.x(1, 1000.0), Some(1.0));
    assert_eq!(feed.x(1, 2050.0), Some(80.0));
    assert!(close(feed.x(1, 2075.0), 80.5));
}

#[test]
fn a_node_absent_from_a_frame_rests_and_moves_again_from_where_it_rested() {
    let mut feed = Feed::new(Interpolator::new(20));
    feed.frame(
        0,
        &[Event::Entered(node(1, 0.0)), Event::Entered(node(2, 0.0))],
    );
    feed.frame(1, &[moved(1, 1.0), moved(2, 1.0)]);
    // Node 1 stops; node 2 keeps the frames coming.
    for k in 2..6 {
        feed.frame(k, &[moved(2, k as f32)]);
    }
    // Held, not extrapolated, once a frame without it has come.
    assert_eq!(feed.x(1, 60.0), Some(1.0));
    assert_eq!(feed.x(1, 500.0), Some(1.0));
    // It moves again at frame 6: at rest until frame 5, then one step.
    feed.frame(6, &[moved(1, 3.0)]);
    assert_eq!(feed.x(1, 240.0), Some(1.0));
    assert_eq!(feed.x(1, 250.0), Some(1.0));
    assert!(close(feed.x(1, 275.0), 2.0));
    // With tiers absence means nothing: the move spreads over the whole gap.
    let mut tiered = Feed::new(Interpolator::new(20).absent_means_at_rest(false));
    tiered.frame(
        0,
        &[Event::Entered(node(1, 0.0)), Event::Entered(node(2, 0.0))],
    );
    tiered.frame(1, &[moved(2, 1.0)]);
    tiered.frame(2, &[moved(2, 2.0)]);
    tiered.frame(3, &[moved(1, 3.0), moved(2, 3.0)]);
    assert!(close(tiered.x(1, 50.0), 1.0));
}

#[test]
fn extrapolation_past_the_newest_frame_is_capped_then_holds() {
    let mut feed = Feed::new(Interpolator::new(20));
    feed.frame(0, &[Event::Entered(node(1, 0.0))]);
    for k in 1..=10 {
        feed.frame(k, &[moved(1, k as f32)]);
    }
    // The newest frame (T0 + 500, x = 10) arrived at base + 540. The clock puts the
    // server's now at local - 40 ms; the delay (100 ms) puts the sample 100 ms before.
    let base = feed.base;
    let view = &feed.view;
    let at = |ms: u64| base + Duration::from_millis(ms);
    let sample = |ms: u64| view.sample_time(at(ms)).unwrap() - T0 as f64;
    assert!((sample(640) - 500.0).abs() < 1e-6, "{}", sample(640));
    let x = |ms: u64| view.pose(1, at(ms)).unwrap().t[0];
    assert!((x(590) - 9.0).abs() < 1e-4, "interpolated: {}", x(590));
    assert!((x(665) - 10.5).abs() < 1e-4, "extrapolated: {}", x(665));
    // One interval (50 ms) past the newest at most: x = 11, then held.
    assert!((x(690) - 11.0).abs() < 1e-4, "{}", x(690));
    assert!((x(2000) - 11.0).abs() < 1e-4, "{}", x(2000));
    // The next frame shows where it really went.
    feed.frame(11, &[moved(1, 11.0)]);
    let x = feed.view.pose(1, at(2000)).unwrap().t[0];
    assert!((x - 12.0).abs() < 1e-4, "{x}");
    let zero = Interpolator::new(20).with_max_extrapolation(Duration::ZERO);
    assert_eq!(zero.max_extrapolation(), Duration::ZERO);
}

#[test]
fn defaults_follow_the_expected_rate_and_the_scope() {
    let view = Interpolator::new(20);
    assert_eq!(view.interval(), Duration::from_millis(50));
    assert_eq!(view.delay(), Duration::from_millis(100));
    assert_eq!(view.max_extrapolation(), Duration::from_millis(50));
    let scope = Scope::follow(1, 10.0).with_send_hz(10);
    let view = Interpolator::for_scope(&scope, 60);
    assert_eq!(view.delay(), Duration::from_millis(200));
    assert!(view.absent_at_rest);
    // A send rate above the tick rate cannot happen: the tick rate wins.
    let view = Interpolator::for_scope(&Scope::room().with_send_hz(120), 30);
    assert!((view.interval().as_secs_f64() - 1.0 / 30.0).abs() < 1e-9);
    let tiers = [
        canopy_protocol::Tier {
            within: Some(5.0),
            every: 1,
        },
        canopy_protocol::Tier {
            within: None,
            every: 3,
        },
    ];
    let view = Interpolator::for_scope(&Scope::follow(1, 10.0).with_tiers(tiers), 30);
    assert!(!view.absent_at_rest);
    let view = Interpolator::new(20).with_delay(Duration::from_millis(250));
    assert_eq!(view.delay(), Duration::from_millis(250));
}

#[test]
fn unsubscribing_forgets_every_node_and_a_mirror_starts_it_over() {
    let mut feed = Feed::new(Interpolator::new(20));
    feed.frame(
        0,
        &[Event::Entered(node(1, 0.0)), Event::Entered(node(2, 0.0))],
    );
    let at = feed.arrival(0);
    feed.view.observe(&Event::Left(1), at);
    feed.view.observe(&Event::Left(2), at);
    feed.view.observe(&Event::Unsubscribed, at);
    assert!(feed.view.is_empty());

    let mut mirror = Mirror::new();
    mirror.apply(canopy_protocol::ServerMsg::snapshot(
        9,
        T0 + 450,
        vec![node(3, 7.0), node(4, 8.0)],
    ));
    feed.view.reset_from_mirror(&mirror);
    assert_eq!(feed.view.len(), 2);
    // A fresh interpolator, with no clock yet, shows the mirror as it is.
    let mut fresh = Interpolator::new(20);
    fresh.reset_from_mirror(&mirror);
    assert_eq!(fresh.sample_time(Instant::now()), None);
    assert_eq!(fresh.pose(3, Instant::now()), Some(world(7.0)));
    let mut all = Vec::new();
    fresh.for_each(Instant::now(), |id, pose| all.push((id, pose.t[0])));
    all.sort_by_key(|p| p.0);
    assert_eq!(all, vec![(3, 7.0), (4, 8.0)]);
    assert_eq!(feed.x(3, 0.0), Some(7.0));
    assert_eq!(feed.x(4, 900.0), Some(8.0));
}

#[test]
fn steady_state_frames_and_samples_do_not_grow_the_buffers() {
    let mut feed = Feed::new(Interpolator::new(20));
    let enter: Vec<Event> = (0..100).map(|id| Event::Entered(node(id, 0.0))).collect();
    feed.frame(0, &enter);
    let moves = |k: u64| -> Vec<Event> { (0..100).map(|id| moved(id, k as f32)).collect() };
    for k in 1..20 {
        feed.frame(k, &moves(k));
    }
    let before = feed.view.capacities();
    let mut seen = 0;
    for k in (20..400).step_by(2) {
        // A node leaves in one frame and comes back in the next: its slot is reused.
        let id = (k / 2 % 100) as u32;
        let mut events = moves(k);
        events[id as usize] = Event::Left(id);
        feed.frame(k, &events);
        let mut events = moves(k + 1);
        events[id as usize] = Event::Entered(node(id, 0.0));
        feed.frame(k + 1, &events);
        feed.view.for_each(feed.arrival(k * STEP), |_, _| seen += 1);
    }
    assert_eq!(feed.view.capacities(), before);
    assert!(seen > 0);
}
