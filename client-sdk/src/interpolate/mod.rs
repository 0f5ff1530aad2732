//! [`Interpolator`]: a smooth view of the mirror for rendering, fed the connection's
//! events: the last few states of every in-scope node, each stamped with its frame's
//! server time (`track`), the estimate of the server's clock (`clock`), and the rules
//! that turn frames into states and a render time into poses (here).
//!
//! Invariant: the work of a frame is O(1) per node it changed, and once the
//! interpolator follows as many nodes as it ever will, neither a frame nor a sample
//! allocates (the per-frame buffer and the state slab are reused).
//!
//! The rules and the tested error bounds are documented on [`Interpolator`].

mod clock;
mod track;

use std::time::{Duration, Instant};

use canopy_protocol::{NodeId, Transform};

use crate::events::Event;
use crate::mirror::Mirror;
use crate::scope::Scope;
use clock::ServerClock;
use track::{Kind, Past, State, Tracks};

/// How many states each node keeps by default: enough for a delay of about four frame
/// intervals, with room for the state a node at rest adds.
pub const DEFAULT_HISTORY: usize = 6;

/// How long the clock estimate's window is by default.
pub const DEFAULT_CLOCK_WINDOW: Duration = Duration::from_secs(5);

/// How fast (a fraction of local time) the clock estimate may move by default.
const SLEW: f64 = 0.05;

/// One change of the frame whose closing event has not come yet.
#[derive(Clone, Copy, Debug)]
enum Change {
    /// Entered the scope: a new track.
    Enter(NodeId, Transform),
    /// Sent in full again: a jump at the frame's time.
    Jump(NodeId, Transform),
    /// Moved.
    Move(NodeId, Transform),
    /// Left the scope.
    Leave(NodeId),
}

/// An interpolated view of a connection's mirror, for rendering between frames: each
/// node's pose at `render time - delay`, between two states the server sent.
///
/// It is fed the connection's events ([`Interpolator::observe`]), so it sees exactly
/// what the mirror applied, in either transform encoding. The rules:
///
/// * **Time**: a frame's changes are stamped with its `time` (the server's clock, ms
///   since the Unix epoch, when the frame's tick finished; a merged frame carries its
///   newest tick's). The server clock is estimated from the local one as the smallest
///   `local receive - server time` over a sliding window (5 s): delays on the way only
///   ever add to it, so the least delayed frame gives the floor. The estimate in use
///   moves towards a new floor at most 5% faster or slower than local time, so the
///   render time never runs backwards (a change larger than the delay, such as another
///   server's clock after a reconnect, is taken at once). The interpolator samples the
///   server time `estimated now - delay`.
/// * **Cost**: a frame costs O(1) per node it changed; once the interpolator follows as
///   many nodes as it ever will, neither frames nor samples allocate.
/// * **Between states**: translation and scale are interpolated linearly, rotation
///   spherically along the shorter arc (normalized).
/// * **Past the newest state**: a node that moved in its last two states goes on at
///   that speed for at most `max_extrapolation` (one expected frame interval by
///   default), then holds; one that moved only once since it rested, entered or jumped
///   is held at its newest state (a single step is no speed). A node absent from a
///   later frame is known to be at rest (the server sends only changes), so it is held
///   at once, and when it moves again it starts from where it rested at that frame's
///   time, not from where it was long ago. Subscriptions with tiers that send far nodes
///   less often than every frame break that inference: there absence says nothing, and
///   [`Interpolator::for_scope`] turns it off. So a node that stops while nothing else
///   in scope changes is shown up to one cap past where it stopped until the next
///   frame; a cap of zero never overshoots.
/// * **Snaps**: a node that enters the scope starts at its state exactly, with nothing
///   to interpolate from; a node sent in full again (`upsert`: reparented, reshaped, or
///   different in a resynchronising snapshot) and every change of the first frame after
///   a reconnect jump at their frame's time rather than slide there; a node that leaves
///   is forgotten at once, so if it comes back it starts afresh.
///
///
/// **Tested error bounds** (`tests/it/interpolation.rs`: frames from analytic motions
/// at 10 to 60 Hz, stamped in whole milliseconds, arriving in order with random extra
/// delay of up to 0.8 frame interval, sampled every 7 ms with the default delay): for a
/// node on a circle of radius `R` at angular speed `ω`, frames at most `Δ` apart, the
/// translation error stays within the sagitta of linear interpolation,
/// `R·(1 - cos(ω·Δ/2))` (0.0050 units for `R` = 4, `ω` = 2 rad/s at 20 Hz), plus 1e-4
/// units of f32 rounding, and reaches at least half of that bound, so the bound is
/// tight. The rotation of a constant-axis spin is within 0.001° of the exact one (about
/// 1e-5° is seen: slerp is exact for it), at up to 2.5 radians per frame and with the
/// quaternions' signs flipped at random. A linearly ramped scale is within 1e-5
/// relative. The sampled server time is never later than the true `now - delay` (to
/// the server's 0.5 ms stamp rounding) and at most the arrival jitter earlier (plus a
/// render frame when events are read once per rendered frame).
///
/// ```no_run
/// # use canopy_client::{Connection, Interpolator, Scope};
/// # fn draw(_: u32, _: canopy_client::Transform) {}
/// # async fn demo(room: Connection, scope: Scope) -> canopy_client::Result<()> {
/// let mut events = room.events();
/// room.subscribe(scope.clone()).await?;
/// let mut view = Interpolator::for_scope(&scope, 30); // the room's tick rate
/// loop {
///     let now = std::time::Instant::now();
///     while let Some(event) = events.try_next() {
///         view.observe(&event, now);
///     }
///     view.for_each(now, |id, pose| draw(id, pose));
///     # break;
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Interpolator {
    tracks: Tracks,
    clock: ServerClock,
    interval_ms: f64,
    delay_ms: f64,
    extrapolate_ms: f64,
    absent_at_rest: bool,
    /// Local times are kept as ms since this instant (the first event observed).
    epoch: Option<Instant>,
    /// The changes of the frame under way, until its closing event (reused).
    frame: Vec<Change>,
    /// The newest frame's server time.
    last_frame: Option<f64>,
    /// Every change of the next frame is a jump (the first frame after a reconnect).
    jump_next: bool,
}

impl Interpolator {
    /// An interpolator for frames expected `hz` times a second (the subscription's
    /// `send_hz`, or else the room's tick rate): a delay of two frame intervals and an
    /// extrapolation cap of one. `hz` of 0 is taken as 1.
    pub fn new(hz: u32) -> Self {
        let interval_ms = 1000.0 / f64::from(hz.max(1));
        let delay_ms = 2.0 * interval_ms;
        Interpolator {
            tracks: Tracks::new(DEFAULT_HISTORY),
            clock: ServerClock::new(ms(DEFAULT_CLOCK_WINDOW), SLEW, delay_ms),
            interval_ms,
            delay_ms,
            extrapolate_ms: interval_ms,
            absent_at_rest: true,
            epoch: None,
            frame: Vec::new(),
            last_frame: None,
            jump_next: false,
        }
    }

    /// An interpolator for a subscription to `scope` in a room ticking at
    /// `room_tick_hz`: frames come at `send_hz` when the scope sets one (at most the
    /// tick rate), and with tiers that skip sends a node's absence from a frame is not
    /// taken for rest.
    pub fn for_scope(scope: &Scope, room_tick_hz: u32) -> Self {
        let hz = scope
            .send_hz
            .map_or(room_tick_hz, |s| s.min(room_tick_hz.max(1)));
        Interpolator::new(hz).absent_means_at_rest(!scope.has_sparse_tiers())
    }

    /// Renders this far behind the estimated server time (default: two frame
    /// intervals). Longer tolerates more jitter and lost frames; shorter shows changes
    /// sooner. Past about `history - 2` frame intervals the states run out and the
    /// oldest is held.
    pub fn with_delay(mut self, delay: Duration) -> Self {
        self.set_delay(delay);
        self
    }

    /// Changes the delay (see [`Interpolator::with_delay`]).
    pub fn set_delay(&mut self, delay: Duration) {
        self.delay_ms = ms(delay);
        // A change of the clock estimate the delay can no longer absorb is taken at once.
        self.clock.set_snap(self.delay_ms.max(self.interval_ms));
    }

    /// Extrapolates at most this far past a node's newest state, then holds (default:
    /// one frame interval; zero holds at once).
    pub fn with_max_extrapolation(mut self, cap: Duration) -> Self {
        self.extrapolate_ms = ms(cap);
        self
    }

    /// Keeps this many states per node (at least 2; default [`DEFAULT_HISTORY`]).
    /// Forgets every node followed so far.
    pub fn with_history(mut self, states: usize) -> Self {
        self.tracks = Tracks::new(states);
        self
    }

    /// The window of the clock estimate (default [`DEFAULT_CLOCK_WINDOW`]): longer is
    /// steadier, shorter follows a path that got slower sooner.
    pub fn with_clock_window(mut self, window: Duration) -> Self {
        self.clock = ServerClock::new(ms(window), SLEW, self.delay_ms.max(self.interval_ms));
        self
    }

    /// Whether a node absent from a frame is at rest at that frame's time (default
    /// true, as the contract sends only changes; false for tiers that skip sends).
    pub fn absent_means_at_rest(mut self, at_rest: bool) -> Self {
        self.absent_at_rest = at_rest;
        self
    }

    /// The delay behind the estimated server time.
    pub fn delay(&self) -> Duration {
        Duration::from_secs_f64(self.delay_ms / 1000.0)
    }

    /// The extrapolation cap.
    pub fn max_extrapolation(&self) -> Duration {
        Duration::from_secs_f64(self.extrapolate_ms / 1000.0)
    }

    /// The expected time between frames.
    pub fn interval(&self) -> Duration {
        Duration::from_secs_f64(self.interval_ms / 1000.0)
    }

    /// The number of nodes followed.
    pub fn len(&self) -> usize {
        self.tracks.len()
    }

    /// Whether no node is followed.
    pub fn is_empty(&self) -> bool {
        self.tracks.len() == 0
    }

    /// Whether the node is followed.
    pub fn contains(&self, id: NodeId) -> bool {
        self.tracks.contains(id)
    }

    /// Takes one event of the connection, `received` being when it was read (or, better,
    /// when its frame arrived). Pass every event, in order: a frame's changes are kept
    /// until the event that closes it ([`Event::Tick`], [`Event::Snapshot`] or
    /// [`Event::Resynced`]) gives their time. [`Event::Unsubscribed`] forgets every
    /// node, [`Event::Reconnected`] restarts the clock estimate and makes the next frame
    /// jump. After [`Event::Lagged`] frames were lost: call
    /// [`Interpolator::reset_from_mirror`].
    pub fn observe(&mut self, event: &Event, received: Instant) {
        match event {
            Event::Entered(node) => self.frame.push(Change::Enter(node.id, node.world)),
            Event::Changed(node) => self.frame.push(Change::Jump(node.id, node.world)),
            Event::Updated { id, world } => self.frame.push(Change::Move(*id, *world)),
            Event::Left(id) => self.frame.push(Change::Leave(*id)),
            Event::Tick { time, .. }
            | Event::Snapshot { time, .. }
            | Event::Resynced { time, .. } => self.commit(*time, received),
            Event::Unsubscribed => self.clear(),
            Event::Reconnected => {
                self.clock.reset();
                self.frame.clear();
                self.jump_next = true;
            }
            Event::Lagged { .. } => self.frame.clear(),
            _ => {}
        }
    }

    /// Applies the frame under way, stamped `time` (server ms) and received at
    /// `received`: O(1) per change.
    fn commit(&mut self, time: u64, received: Instant) {
        let server = time as f64;
        let local = self.local_ms(received);
        self.clock.observe(local, server);
        let previous = self.last_frame;
        let jump = self.jump_next;
        for change in self.frame.drain(..) {
            match change {
                Change::Enter(id, world) => {
                    self.tracks
                        .restart(id, State::new(server, &world, Kind::Jump));
                }
                Change::Jump(id, world) => {
                    self.tracks.push(id, State::new(server, &world, Kind::Jump));
                }
                Change::Move(id, world) => {
                    if let (Some(p), true, false) = (previous, self.absent_at_rest, jump) {
                        // Absent from the frame before: at rest there, so the move
                        // starts from that frame's time, not from the node's last state.
                        if let Some(newest) = self.tracks.newest(id).copied()
                            && newest.time < p
                            && p < server
                        {
                            let rest = State {
                                time: p,
                                kind: Kind::Rest,
                                ..newest
                            };
                            self.tracks.push(id, rest);
                        }
                    }
                    let kind = if jump { Kind::Jump } else { Kind::Move };
                    self.tracks.push(id, State::new(server, &world, kind));
                }
                Change::Leave(id) => self.tracks.remove(id),
            }
        }
        self.last_frame = Some(previous.map_or(server, |p| p.max(server)));
        self.jump_next = false;
    }

    /// Forgets every node and the frame under way (the clock estimate stays).
    pub fn clear(&mut self) {
        self.tracks.clear();
        self.frame.clear();
    }

    /// Starts over from `mirror` (after [`Event::Lagged`], or to begin following a
    /// connection already subscribed): every node is taken exactly as the mirror holds
    /// it, at the mirror's time, with nothing to interpolate from.
    pub fn reset_from_mirror(&mut self, mirror: &Mirror) {
        self.clear();
        let time = mirror.time_ms() as f64;
        for node in mirror.iter() {
            self.tracks
                .restart(node.id, State::new(time, &node.world, Kind::Jump));
        }
        self.last_frame = Some(self.last_frame.map_or(time, |p| p.max(time)));
    }

    /// The estimated server time at `now` (ms since the Unix epoch); `None` before the
    /// first frame.
    pub fn server_time(&self, now: Instant) -> Option<f64> {
        let epoch = self.epoch?;
        let local = signed_ms(epoch, now);
        Some(local - self.clock.offset_at(local)?)
    }

    /// The server time sampled at `now`: [`Interpolator::server_time`] minus the delay.
    pub fn sample_time(&self, now: Instant) -> Option<f64> {
        Some(self.server_time(now)? - self.delay_ms)
    }

    /// The node's pose to render at `now`, or `None` for a node not followed. Before
    /// the first frame a node's newest state.
    pub fn pose(&self, id: NodeId, now: Instant) -> Option<Transform> {
        let (at, past) = self.when(now);
        self.tracks.pose_at(id, at, past)
    }

    /// The node's pose at server time `at` (ms since the Unix epoch).
    pub fn pose_at(&self, id: NodeId, at: f64) -> Option<Transform> {
        self.tracks.pose_at(id, at, self.past())
    }

    /// Calls `f` with every followed node's pose at `now`, in no particular order,
    /// without allocating.
    pub fn for_each(&self, now: Instant, mut f: impl FnMut(NodeId, Transform)) {
        let (at, past) = self.when(now);
        for id in self.tracks.ids() {
            if let Some(pose) = self.tracks.pose_at(id, at, past) {
                f(id, pose);
            }
        }
    }

    /// The server time to sample at `now` and how to treat the time past a node's
    /// newest state; with no clock yet (nodes taken from a mirror before any frame),
    /// every node's newest state, never extrapolated.
    fn when(&self, now: Instant) -> (f64, Past) {
        match self.sample_time(now) {
            Some(at) => (at, self.past()),
            None => (
                f64::INFINITY,
                Past {
                    extrapolate_ms: 0.0,
                    at_rest_since: None,
                },
            ),
        }
    }

    fn past(&self) -> Past {
        Past {
            extrapolate_ms: self.extrapolate_ms,
            at_rest_since: self.last_frame.filter(|_| self.absent_at_rest),
        }
    }

    fn local_ms(&mut self, at: Instant) -> f64 {
        let epoch = *self.epoch.get_or_insert(at);
        signed_ms(epoch, at)
    }

    /// The slab's and the frame buffer's capacities, which a steady state must not grow.
    #[cfg(test)]
    fn capacities(&self) -> (usize, usize) {
        (self.tracks.capacity(), self.frame.capacity())
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// `at - epoch` in ms, negative when `at` is earlier.
fn signed_ms(epoch: Instant, at: Instant) -> f64 {
    match at.checked_duration_since(epoch) {
        Some(d) => ms(d),
        None => -ms(epoch.duration_since(at)),
    }
}

#[cfg(test)]
mod tests;
