//! [`Tracks`]: the last few states of every node the interpolator follows, with the
//! server time of each, and the sampling of one node's pose at a server time
//! ([`Tracks::pose_at`]): linear in translation and scale, spherical (shortest arc) in
//! rotation, held before the oldest state and across a jump, extrapolated a bounded time
//! past the newest.
//!
//! Storage is one slab: every node owns a slot of `history` states in one `Vec`, used
//! as a ring, and freed slots are reused. So a frame's work is O(1) per node it
//! changes, and once the slab has grown to the number of nodes followed nothing is
//! allocated, neither by frames nor by sampling.
//!
//! Invariants: within a track, state times strictly increase (a state stamped no later
//! than the newest replaces it, or, if older than the newest, restarts the track); a
//! [`Kind::Jump`] state is never interpolated into from the one before it; only two
//! [`Kind::Move`] states in a row are extrapolated from (a move that starts from rest or
//! from a jump says nothing of a speed to go on at); a sampled rotation is a unit
//! quaternion and a sampled scale is positive.

use glam::{Quat, Vec3};
use rustc_hash::FxHashMap as HashMap;

use canopy_protocol::{NodeId, Transform};

/// How a node came to a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// It moved there since the state before (a frame's `update`).
    Move,
    /// It was still there at this time (absent from a frame): the state before, again.
    Rest,
    /// It jumped there (it entered scope, or was sent in full again): hold the state
    /// before until this one's time, then show this one exactly.
    Jump,
}

/// One state of a node: its world transform as of a frame's server time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct State {
    /// The frame's server time, ms since the Unix epoch.
    pub(crate) time: f64,
    pub(crate) t: Vec3,
    pub(crate) r: Quat,
    pub(crate) s: f32,
    pub(crate) kind: Kind,
}

impl State {
    pub(crate) fn new(time: f64, world: &Transform, kind: Kind) -> Self {
        State {
            time,
            t: Vec3::from_array(world.t),
            r: Quat::from_array(world.r),
            s: world.s,
            kind,
        }
    }

    fn transform(&self) -> Transform {
        Transform {
            t: self.t.to_array(),
            r: self.r.to_array(),
            s: self.s,
        }
    }

    /// The pose a fraction `u` of the way from `a` to `b`; `u > 1` extrapolates along
    /// the same motion.
    fn between(a: &State, b: &State, u: f32) -> Transform {
        Transform {
            t: a.t.lerp(b.t, u).to_array(),
            r: slerp(a.r, b.r, u).to_array(),
            s: (a.s + (b.s - a.s) * u).max(f32::MIN_POSITIVE),
        }
    }
}

/// Spherical interpolation along the shorter arc, for any `u` (beyond 1 it goes on
/// turning at the same rate), normalized. `std`'s `acos` rather than glam's `slerp`,
/// whose approximate `acos` costs precision the interpolator promises to keep.
pub(crate) fn slerp(a: Quat, b: Quat, u: f32) -> Quat {
    let mut dot = a.dot(b);
    let b = if dot < 0.0 {
        dot = -dot;
        -b
    } else {
        b
    };
    if dot > 0.999_99 {
        // Under half a degree apart: the chord is the arc to well within f32 precision.
        return (a + (b - a) * u).normalize();
    }
    let theta = dot.min(1.0).acos();
    let sin = theta.sin();
    let wa = ((1.0 - u) * theta).sin() / sin;
    let wb = (u * theta).sin() / sin;
    (a * wa + b * wb).normalize()
}

/// Where a node's states live in the slab, and how many there are.
#[derive(Clone, Copy, Debug)]
struct Track {
    slot: u32,
    /// The ring index of the newest state.
    head: u16,
    len: u16,
}

/// Every followed node's recent states.
#[derive(Clone, Debug)]
pub(crate) struct Tracks {
    history: usize,
    states: Vec<State>,
    free: Vec<u32>,
    index: HashMap<NodeId, Track>,
}

/// How sampling past a node's newest state behaves.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Past {
    /// Extrapolate at most this many ms past the newest state, then hold.
    pub(crate) extrapolate_ms: f64,
    /// The newest frame's time, when a node absent from a frame is known to be at rest
    /// then: a node whose newest state is older than this is held, not extrapolated.
    pub(crate) at_rest_since: Option<f64>,
}

impl Tracks {
    /// No tracks, each to hold `history` states (at least 2).
    pub(crate) fn new(history: usize) -> Self {
        Tracks {
            history: history.clamp(2, u16::MAX as usize),
            states: Vec::new(),
            free: Vec::new(),
            index: HashMap::default(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.index.len()
    }

    pub(crate) fn contains(&self, id: NodeId) -> bool {
        self.index.contains_key(&id)
    }

    pub(crate) fn clear(&mut self) {
        let slots = self.index.drain().map(|(_, t)| t.slot);
        self.free.extend(slots);
    }

    /// The slab's capacity in states: what a steady state must not grow.
    #[cfg(test)]
    pub(crate) fn capacity(&self) -> usize {
        self.states.capacity()
    }

    /// Starts the node's track over with `state` alone.
    pub(crate) fn restart(&mut self, id: NodeId, state: State) {
        let track = match self.index.get(&id) {
            Some(t) => t.slot,
            None => self.allocate(),
        };
        let at = track as usize * self.history;
        self.states[at] = state;
        self.index.insert(
            id,
            Track {
                slot: track,
                head: 0,
                len: 1,
            },
        );
    }

    /// Appends `state` to the node's track (starting one if there is none).
    pub(crate) fn push(&mut self, id: NodeId, state: State) {
        let Some(track) = self.index.get_mut(&id) else {
            return self.restart(
                id,
                State {
                    kind: Kind::Jump,
                    ..state
                },
            );
        };
        let base = track.slot as usize * self.history;
        let newest = self.states[base + track.head as usize];
        if state.time < newest.time {
            // A frame older than what the track holds: the timeline itself jumped.
            return self.restart(
                id,
                State {
                    kind: Kind::Jump,
                    ..state
                },
            );
        }
        if state.time == newest.time {
            // The same instant sent again: the later value, and a jump stays a jump.
            let kind = if newest.kind == Kind::Jump {
                Kind::Jump
            } else {
                state.kind
            };
            self.states[base + track.head as usize] = State { kind, ..state };
            return;
        }
        track.head = ((track.head as usize + 1) % self.history) as u16;
        track.len = (track.len as usize + 1).min(self.history) as u16;
        self.states[base + track.head as usize] = state;
    }

    /// Forgets the node.
    pub(crate) fn remove(&mut self, id: NodeId) {
        if let Some(track) = self.index.remove(&id) {
            self.free.push(track.slot);
        }
    }

    /// The node's newest state.
    pub(crate) fn newest(&self, id: NodeId) -> Option<&State> {
        let track = self.index.get(&id)?;
        Some(&self.states[track.slot as usize * self.history + track.head as usize])
    }

    /// Every followed node, in no particular order.
    pub(crate) fn ids(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.index.keys().copied()
    }

    fn allocate(&mut self) -> u32 {
        if let Some(slot) = self.free.pop() {
            return slot;
        }
        let slot = (self.states.len() / self.history) as u32;
        let blank = State::new(0.0, &Transform::IDENTITY, Kind::Jump);
        self.states.extend(std::iter::repeat_n(blank, self.history));
        slot
    }

    /// The node's pose at server time `at` (ms), or `None` for a node not followed.
    pub(crate) fn pose_at(&self, id: NodeId, at: f64, past: Past) -> Option<Transform> {
        let track = self.index.get(&id)?;
        let base = track.slot as usize * self.history;
        let len = track.len as usize;
        // The i-th newest state (0: the newest).
        let nth =
            |i: usize| &self.states[base + (track.head as usize + self.history - i) % self.history];
        let newest = nth(0);
        if at >= newest.time {
            return Some(self.past_newest(len, &nth, at, past));
        }
        for i in 1..len {
            let (a, b) = (nth(i), nth(i - 1));
            if at >= a.time {
                if b.kind == Kind::Jump {
                    return Some(a.transform());
                }
                let u = (at - a.time) / (b.time - a.time);
                return Some(State::between(a, b, u as f32));
            }
        }
        // Older than anything held: the oldest state.
        Some(nth(len - 1).transform())
    }

    fn past_newest<'a>(
        &self,
        len: usize,
        nth: &impl Fn(usize) -> &'a State,
        at: f64,
        past: Past,
    ) -> Transform {
        let newest = nth(0);
        let at_rest = past.at_rest_since.is_some_and(|f| newest.time < f);
        if at_rest || len < 2 || past.extrapolate_ms <= 0.0 {
            return newest.transform();
        }
        let before = nth(1);
        if newest.kind != Kind::Move || before.kind != Kind::Move {
            return newest.transform();
        }
        let ahead = (at - newest.time).min(past.extrapolate_ms);
        let u = 1.0 + ahead / (newest.time - before.time);
        State::between(before, newest, u as f32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_x(time: f64, x: f32, jump: bool) -> State {
        let world = Transform {
            t: [x, 0.0, 0.0],
            ..Transform::IDENTITY
        };
        State::new(time, &world, if jump { Kind::Jump } else { Kind::Move })
    }

    const FREE: Past = Past {
        extrapolate_ms: 50.0,
        at_rest_since: None,
    };

    fn x_at(tracks: &Tracks, id: NodeId, at: f64, past: Past) -> f32 {
        tracks.pose_at(id, at, past).unwrap().t[0]
    }

    #[test]
    fn extrapolation_goes_on_for_at_most_the_cap_then_holds() {
        let mut tracks = Tracks::new(4);
        tracks.restart(1, at_x(950.0, -5.0, true));
        tracks.push(1, at_x(1000.0, 0.0, false));
        tracks.push(1, at_x(1050.0, 5.0, false));
        // 0.1 units per ms: 20 ms ahead is 2 units further, 50 ms the cap, then held.
        assert!((x_at(&tracks, 1, 1070.0, FREE) - 7.0).abs() < 1e-5);
        assert!((x_at(&tracks, 1, 1100.0, FREE) - 10.0).abs() < 1e-5);
        assert!((x_at(&tracks, 1, 5000.0, FREE) - 10.0).abs() < 1e-5);
        // No extrapolation from a jump, none when the cap is 0, none for a node known
        // to be at rest since a later frame.
        let no_cap = Past {
            extrapolate_ms: 0.0,
            ..FREE
        };
        assert_eq!(x_at(&tracks, 1, 1100.0, no_cap), 5.0);
        let at_rest = Past {
            at_rest_since: Some(1100.0),
            ..FREE
        };
        assert_eq!(x_at(&tracks, 1, 1200.0, at_rest), 5.0);
        tracks.push(1, at_x(1100.0, 40.0, true));
        assert_eq!(x_at(&tracks, 1, 1150.0, FREE), 40.0);
    }

    #[test]
    fn a_jump_holds_the_state_before_until_its_time_then_is_exact() {
        let mut tracks = Tracks::new(4);
        tracks.restart(1, at_x(0.0, 0.0, true));
        tracks.push(1, at_x(100.0, 10.0, false));
        tracks.push(1, at_x(200.0, 500.0, true));
        assert!((x_at(&tracks, 1, 50.0, FREE) - 5.0).abs() < 1e-5);
        assert_eq!(x_at(&tracks, 1, 150.0, FREE), 10.0);
        assert_eq!(x_at(&tracks, 1, 199.9, FREE), 10.0);
        assert_eq!(x_at(&tracks, 1, 200.0, FREE), 500.0);
        // Before the oldest state: the oldest, held.
        assert_eq!(x_at(&tracks, 1, -50.0, FREE), 0.0);
    }

    #[test]
    fn the_ring_keeps_the_newest_states_and_times_only_increase() {
        let mut tracks = Tracks::new(3);
        tracks.restart(1, at_x(0.0, 0.0, true));
        for k in 1..10 {
            tracks.push(1, at_x(k as f64 * 10.0, k as f32, false));
        }
        // Holds 70, 80, 90: 75 interpolates, 20 is before the oldest.
        assert!((x_at(&tracks, 1, 75.0, FREE) - 7.5).abs() < 1e-5);
        assert_eq!(x_at(&tracks, 1, 20.0, FREE), 7.0);
        // The same time again replaces the newest; an older one restarts the track.
        tracks.push(1, at_x(90.0, 19.0, false));
        assert_eq!(tracks.newest(1).unwrap().t.x, 19.0);
        tracks.push(1, at_x(50.0, -1.0, false));
        assert_eq!(x_at(&tracks, 1, 95.0, FREE), -1.0);
        assert_eq!(tracks.newest(1).unwrap().kind, Kind::Jump);
    }

    #[test]
    fn only_two_moves_in_a_row_are_extrapolated() {
        let mut tracks = Tracks::new(4);
        // Entered, then one move: a step, not a speed.
        tracks.restart(1, at_x(0.0, 0.0, true));
        tracks.push(1, at_x(50.0, 5.0, false));
        assert_eq!(x_at(&tracks, 1, 80.0, FREE), 5.0);
        // At rest, then one move: the same.
        let rest = State {
            kind: Kind::Rest,
            ..at_x(100.0, 5.0, false)
        };
        tracks.push(1, rest);
        tracks.push(1, at_x(150.0, 9.0, false));
        assert_eq!(x_at(&tracks, 1, 180.0, FREE), 9.0);
        assert!((x_at(&tracks, 1, 125.0, FREE) - 7.0).abs() < 1e-5);
        // A second move in a row: now it goes on.
        tracks.push(1, at_x(200.0, 13.0, false));
        assert!((x_at(&tracks, 1, 225.0, FREE) - 15.0).abs() < 1e-5);
    }

    #[test]
    fn slots_are_reused_after_a_node_leaves() {
        let mut tracks = Tracks::new(4);
        for id in 0..8 {
            tracks.restart(id, at_x(0.0, 0.0, true));
        }
        let capacity = tracks.capacity();
        for round in 0..100 {
            tracks.remove(round % 8);
            tracks.restart(100 + round, at_x(1.0, 1.0, true));
            tracks.remove(100 + round);
            tracks.restart(round % 8, at_x(2.0, 2.0, true));
        }
        assert_eq!(tracks.capacity(), capacity);
        assert_eq!(tracks.len(), 8);
    }

    #[test]
    fn slerp_takes_the_short_way_and_stays_unit() {
        let a = Quat::from_axis_angle(Vec3::Z, 0.0);
        let b = Quat::from_axis_angle(Vec3::Z, 1.0);
        let mid = slerp(a, -b, 0.5);
        let want = Quat::from_axis_angle(Vec3::Z, 0.5);
        assert!(mid.dot(want).abs() > 1.0 - 1e-6, "{mid:?}");
        let ahead = slerp(a, b, 1.5);
        let want = Quat::from_axis_angle(Vec3::Z, 1.5);
        assert!(ahead.dot(want).abs() > 1.0 - 1e-6, "{ahead:?}");
        assert!((ahead.length() - 1.0).abs() < 1e-6);
        let near = slerp(a, Quat::from_axis_angle(Vec3::Z, 1e-4), 0.5);
        assert!((near.length() - 1.0).abs() < 1e-6);
    }
}
