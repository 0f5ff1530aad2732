// Known motions for the Interpolator, run the same way in Node (test/unit/) and in
// headless Chromium (test/browser/): this module uses nothing but the built SDK and
// plain JavaScript, and the page imports it as it is.
//
// A simulated server sends frames at `hz` of three nodes on analytic paths: node 1
// spins about a tilted axis at a constant rate, node 2 orbits a centre at constant
// speed, yawing to face along its path, node 3's scale ramps linearly. Frame times are
// whole milliseconds, a little late at random (the server's tick jitter); frames arrive
// after a base latency plus a random jitter, in order (one TCP stream), on a local
// clock unrelated to the server's. A renderer samples at random local times; each
// sample is compared with the true motion at the server time it shows (`renderTime`).
//
// The bounds, derived in `bounds()`: with the default delay (two intervals) and arrival
// jitter within one interval, every sample falls between two states that came in
// time, so the error is that of interpolating between exact states:
// * rotation about a fixed axis at constant rate: slerp follows it exactly, so only f32
//   rounding (about 1e-5 degrees) is left: bound 0.001 degrees;
// * a linear scale ramp: lerp is exact: bound 1e-5;
// * an orbit of radius R at angular speed w, states dt apart: the chord between two
//   states is off the arc by at most its sagitta R (1 - cos(w dt / 2)), at the middle of
//   the segment; plus 1e-4 for f32 rounding of coordinates near 100.

import { Mirror } from '../../dist/index.js';
import { Interpolator } from '../../dist/interpolate.js';

/** xorshift32, so both runtimes draw the same numbers. */
export function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

const SERVER_EPOCH = 1_764_000_000_000;
const CENTRE = [100, 5, -50];
export const ORBIT_RADIUS = 10;
/** A lap every 4 s. */
export const ORBIT_RATE = (2 * Math.PI) / 4;
const SPIN_AXIS = (() => {
  const a = [1, 2, 3];
  const n = Math.hypot(...a);
  return a.map((x) => x / n);
})();
/** 1.5 turns a second. */
const SPIN_RATE = 3 * Math.PI;

const axisAngle = (axis, angle) => {
  const s = Math.sin(angle / 2);
  return [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)];
};

/** The true world transform of node `id` at server time `ms`. */
export function truth(id, ms) {
  const sec = (ms - SERVER_EPOCH) / 1000;
  if (id === 1) return { t: [-3, 2, 1], r: axisAngle(SPIN_AXIS, SPIN_RATE * sec), s: 1 };
  if (id === 2) {
    const a = ORBIT_RATE * sec;
    const t = [CENTRE[0] + ORBIT_RADIUS * Math.cos(a), CENTRE[1], CENTRE[2] + ORBIT_RADIUS * Math.sin(a)];
    // Facing along the path: a yaw about y that grows with the orbit angle.
    return { t, r: axisAngle([0, 1, 0], -a), s: 1 };
  }
  return { t: [0, 0, 0], r: [0, 0, 0, 1], s: 1 + 0.5 * sec };
}

const IDS = [1, 2, 3];
const node = (id, ms) => ({ id, parent: null, world: truth(id, ms), extent: [1, 1, 1], mask: 0xffffffff });
function rows(ms) {
  const world = new Float32Array(IDS.length * 8);
  IDS.forEach((id, i) => {
    const { t, r, s } = truth(id, ms);
    world.set([...t, ...r, s], i * 8);
  });
  return { ids: Uint32Array.from(IDS), world };
}

/** The angle in degrees between two unit quaternions (either sign). */
export function angleDeg(a, b) {
  // The relative rotation conj(a) * b: its vector part's length is sin(angle / 2).
  const w = a[3] * b[3] + a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const x = a[3] * b[0] - a[0] * b[3] - a[1] * b[2] + a[2] * b[1];
  const y = a[3] * b[1] + a[0] * b[2] - a[1] * b[3] - a[2] * b[0];
  const z = a[3] * b[2] - a[0] * b[1] + a[1] * b[0] - a[2] * b[3];
  return (2 * Math.atan2(Math.hypot(x, y, z), Math.abs(w)) * 180) / Math.PI;
}

/** The error bounds for states at most `gapMs` apart (see the header). */
export function bounds(gapMs) {
  return {
    translation: ORBIT_RADIUS * (1 - Math.cos((ORBIT_RATE * gapMs) / 1000 / 2)) + 1e-4,
    rotationDeg: 0.001,
    scale: 1e-5,
  };
}

/**
 * Runs one scenario: `hz` frames a second for `seconds`, arrival jitter up to
 * `jitterMs`, tick jitter up to `tickJitterMs`; `hint`: whether the mirror is told the
 * frame interval (as a Connection does) or the Interpolator must estimate it.
 */
export function runScenario({ hz, seconds = 5, jitterMs, tickJitterMs = 2, latencyMs = 40, hint = true, seed = 1 }) {
  const random = rng(seed);
  const interval = 1000 / hz;
  // Frame times: on the tick grid, whole milliseconds, a little late at random.
  const times = [];
  for (let k = 0; k <= seconds * hz; k++) times.push(SERVER_EPOCH + Math.round(k * interval + random() * tickJitterMs));
  // Arrival on a local clock that starts near 0 (as performance.now() does), in order.
  const LOCAL_SHIFT = 12_345.678 - SERVER_EPOCH;
  const arrivals = [];
  for (const t of times) arrivals.push(Math.max(arrivals.at(-1) ?? -Infinity, t + LOCAL_SHIFT + latencyMs + random() * jitterMs));

  const mirror = new Mirror();
  if (hint) mirror.frameIntervalMs = interval;
  let clock = 0;
  const interp = new Interpolator(mirror, { now: () => clock });
  const worst = { translation: 0, rotationDeg: 0, scale: 0 };
  let samples = 0;
  let gap = 0;
  const warm = arrivals[0] + 500;
  let local = arrivals[0];
  for (let k = 0; k < times.length; k++) {
    // Samples at random local times until this frame arrives.
    for (; local < arrivals[k]; local += 1 + random() * 6) {
      if (local < warm) continue;
      clock = local;
      const world = interp.sample(local);
      samples++;
      for (const id of IDS) {
        const o = mirror.slotOf(id) * 8;
        const want = truth(id, interp.renderTime);
        const dt = Math.hypot(world[o] - want.t[0], world[o + 1] - want.t[1], world[o + 2] - want.t[2]);
        worst.translation = Math.max(worst.translation, dt);
        worst.rotationDeg = Math.max(worst.rotationDeg, angleDeg([world[o + 3], world[o + 4], world[o + 5], world[o + 6]], want.r));
        worst.scale = Math.max(worst.scale, Math.abs(world[o + 7] - want.s));
      }
    }
    clock = arrivals[k];
    if (k === 0) mirror.applySnapshot({ type: 'snapshot', tick: 1, time: times[0], nodes: IDS.map((id) => node(id, times[0])) });
    else {
      gap = Math.max(gap, times[k] - times[k - 1]);
      mirror.applyDelta({
        type: 'delta', tick: k + 1, time: times[k], upsert: [], update: rows(times[k]), remove: new Uint32Array(0), resumed: false,
      });
    }
  }
  interp.dispose();
  return { hz, jitterMs, hint, samples, gapMs: gap, delayMs: interp.delayMs, intervalMs: interp.intervalMs, worst, bound: bounds(gap) };
}

/** The scenarios both runtimes run: three send rates, jitter up to 90% of an interval. */
export const SCENARIOS = [
  { hz: 20, jitterMs: 45, seed: 7 },
  { hz: 30, jitterMs: 30, seed: 8 },
  { hz: 60, jitterMs: 15, seed: 9 },
  { hz: 30, jitterMs: 30, seed: 10, hint: false },
];

/** What is wrong with a scenario's result (empty: within every bound). */
export function failures(res) {
  const out = [];
  const name = `${res.hz} Hz, jitter ${res.jitterMs} ms${res.hint ? '' : ', interval estimated'}`;
  for (const k of ['translation', 'rotationDeg', 'scale']) {
    if (!(res.worst[k] <= res.bound[k])) out.push(`${name}: ${k} error ${res.worst[k]} over the bound ${res.bound[k]}`);
  }
  // The orbit's error must come near the sagitta: the samples did land mid-segment.
  const sagitta = res.bound.translation - 1e-4;
  if (!(res.worst.translation >= 0.5 * sagitta)) out.push(`${name}: translation error ${res.worst.translation} suspiciously small`);
  if (res.samples < 500) out.push(`${name}: only ${res.samples} samples`);
  return out;
}
