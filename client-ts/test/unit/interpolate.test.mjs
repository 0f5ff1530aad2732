// The Interpolator: the analytic motions of helpers/interpolation-scenarios.mjs (also
// run in Chromium by test/browser/interpolate.test.mjs) within their derived bounds, and
// the rules around them: snapping on enter, upsert and snapshot, never blending from a
// node that left, the extrapolation cap, a move after a pause taking one interval, the
// clock offset under jitter, and the defaults a connection's pace sets.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Mirror } from '../../dist/index.js';
import { Interpolator } from '../../dist/interpolate.js';
import { failures, rng, runScenario, SCENARIOS } from '../helpers/interpolation-scenarios.mjs';

for (const scenario of SCENARIOS) {
  test(`known motions at ${scenario.hz} Hz, jitter ${scenario.jitterMs} ms${scenario.hint === false ? ', interval estimated' : ''}: within the bounds`, (t) => {
    const res = runScenario(scenario);
    t.diagnostic(JSON.stringify({ samples: res.samples, delayMs: res.delayMs, worst: res.worst, bound: res.bound }));
    assert.deepEqual(failures(res), []);
  });
}

// ---- a small world with one clock ------------------------------------------------------

const T0 = 1_000_000;
const node = (id, x, s = 1) => ({ id, parent: null, world: { t: [x, 0, 0], r: [0, 0, 0, 1], s }, extent: [0, 0, 0], mask: 1 });
const rows = (list) => ({
  ids: Uint32Array.from(list.map(([id]) => id)),
  world: Float32Array.from(list.flatMap(([, x]) => [x, 0, 0, 0, 0, 0, 1, 1])),
});

/**
 * A mirror fed frames by hand: frame `k` has server time T0 + 50 k and arrives at local
 * time 50 k + 10 (no jitter), so render time = local - 10 - delay (100 ms by default).
 */
function world(options = {}) {
  const mirror = new Mirror();
  mirror.frameIntervalMs = 50;
  let clock = 0;
  const interp = new Interpolator(mirror, { now: () => clock, ...options });
  let tick = 0;
  const at = (k) => {
    clock = 50 * k + 10;
    tick++;
    return T0 + 50 * k;
  };
  return {
    mirror,
    interp,
    snapshot(k, nodes) {
      mirror.applySnapshot({ type: 'snapshot', tick: ++tick, time: at(k), nodes });
    },
    delta(k, { upsert = [], update = [], remove = [] } = {}) {
      mirror.applyDelta({ type: 'delta', tick, time: at(k), upsert, update: rows(update), remove: Uint32Array.from(remove), resumed: false });
    },
    /** Node `id`'s x at server render time `r` (local time r - T0 + 10 + delay). */
    x(id, r) {
      const out = interp.sample(r - T0 + 10 + interp.delayMs);
      assert.equal(interp.renderTime, r);
      return out[mirror.slotOf(id) * 8];
    },
  };
}

test('between two states: linear in time; the delay defaults to two intervals', () => {
  const w = world();
  w.snapshot(0, [node(1, 0)]);
  w.delta(1, { update: [[1, 10]] });
  w.delta(2, { update: [[1, 30]] });
  assert.equal(w.interp.delayMs, 100);
  assert.equal(w.x(1, T0), 0);
  assert.equal(w.x(1, T0 + 25), 5);
  assert.equal(w.x(1, T0 + 75), 20);
  assert.equal(w.x(1, T0 + 100), 30);
  assert.equal(world({ delayMs: 30 }).interp.delayMs, 30);
});

test('a node that enters starts where it is: no slide from the origin', () => {
  const w = world();
  w.snapshot(0, [node(1, 0)]);
  w.delta(1, { update: [[1, 1]] });
  w.delta(2, { upsert: [node(2, 500)], update: [[1, 2]] });
  for (const r of [T0, T0 + 50, T0 + 99, T0 + 100, T0 + 140]) assert.equal(w.x(2, r), 500, `at ${r - T0}`);
  w.delta(3, { update: [[2, 510]] });
  assert.equal(w.x(2, T0 + 125), 505, 'then it moves from there');
});

test('a node that left is never blended from, even by the node that takes its slot', () => {
  const w = world();
  w.snapshot(0, [node(1, 0), node(2, 100)]);
  w.delta(1, { update: [[2, 110]] });
  const slot = w.mirror.slotOf(2);
  w.delta(2, { remove: [2] });
  w.delta(3, { upsert: [node(3, -40)] });
  assert.equal(w.mirror.slotOf(3), slot, 'the slot was reused');
  for (const r of [T0 + 60, T0 + 100, T0 + 150, T0 + 160]) assert.equal(w.x(3, r), -40);
});

test('an upserted node snaps to its new state', () => {
  const w = world();
  w.snapshot(0, [node(1, 0)]);
  w.delta(1, { update: [[1, 10]] });
  w.delta(2, { upsert: [{ ...node(1, 300), mask: 2 }] });
  for (const r of [T0 + 10, T0 + 60, T0 + 100, T0 + 150]) assert.equal(w.x(1, r), 300);
});

test('a snapshot (a resync) snaps every node, changed or not', () => {
  const w = world();
  w.snapshot(0, [node(1, 0), node(2, 0)]);
  w.delta(1, { update: [[1, 10], [2, 10]] });
  w.delta(2, { update: [[1, 20], [2, 20]] });
  w.snapshot(3, [node(1, 1000), node(2, 20)]);
  for (const r of [T0 + 60, T0 + 120, T0 + 200]) {
    assert.equal(w.x(1, r), 1000);
    assert.equal(w.x(2, r), 20);
  }
  w.delta(4, { update: [[1, 1010]] });
  assert.equal(w.x(1, T0 + 175), 1005);
});

test('an interpolator made after the mirror filled starts from its state', () => {
  const mirror = new Mirror();
  mirror.applySnapshot({ type: 'snapshot', tick: 1, time: T0, nodes: [node(1, 7), node(2, 8, 3)] });
  const interp = new Interpolator(mirror, { now: () => 0 });
  const out = interp.sample(123);
  assert.deepEqual([out[mirror.slotOf(1) * 8], out[mirror.slotOf(2) * 8], out[mirror.slotOf(2) * 8 + 7]], [7, 8, 3]);
});

test('past the newest state a moving node goes on for one interval at most, then comes back and holds', () => {
  const w = world();
  w.snapshot(0, [node(1, 0), node(2, 0)]);
  w.delta(1, { update: [[1, 10], [2, 5]] });
  w.delta(2, { update: [[1, 20]] }); // node 2 stopped at 5: it is absent from frame 2
  // Frames 3 and later are late: node 1 moved 10 per interval in its last segment.
  assert.equal(w.x(1, T0 + 100), 20);
  assert.equal(w.x(1, T0 + 125), 25);
  assert.equal(w.x(1, T0 + 150), 30);
  assert.equal(w.x(1, T0 + 175), 25, 'capped at one interval ahead, then back');
  assert.equal(w.x(1, T0 + 200), 20);
  assert.equal(w.x(1, T0 + 400), 20, 'a still scope sends nothing: the node stays where it stopped');
  assert.equal(w.x(2, T0 + 400), 5, 'a node left out of the newest frame holds');
  const capped = world({ maxExtrapolationMs: 0 });
  capped.snapshot(0, [node(1, 0)]);
  capped.delta(1, { update: [[1, 10]] });
  assert.equal(capped.x(1, T0 + 80), 10);
});

test('a node that moves after a pause takes one interval to move, not the whole pause', () => {
  // Other nodes keep frames coming while node 1 rests...
  const w = world();
  w.snapshot(0, [node(1, 0), node(2, 0)]);
  for (let k = 1; k <= 10; k++) w.delta(k, { update: [[2, k]] });
  w.delta(11, { update: [[1, 100], [2, 11]] });
  assert.equal(w.x(1, T0 + 450), 0);
  assert.equal(w.x(1, T0 + 500), 0);
  assert.equal(w.x(1, T0 + 525), 50);
  assert.equal(w.x(1, T0 + 550), 100);
  // ...and when nothing in scope changed (no frames at all) for the pause.
  const q = world();
  q.snapshot(0, [node(1, 0)]);
  q.delta(1, { update: [[1, 10]] });
  q.delta(20, { update: [[1, 20]] });
  assert.equal(q.x(1, T0 + 500), 10);
  assert.equal(q.x(1, T0 + 950), 10);
  assert.equal(q.x(1, T0 + 975), 15);
});

test('with distance tiers a far node is blended across its own cadence', () => {
  const w = world();
  w.mirror.tierEvery = 3;
  w.snapshot(0, [node(1, 0), node(2, 0)]);
  for (let k = 1; k <= 9; k++) w.delta(k, { update: k % 3 ? [[1, k]] : [[1, k], [2, k * 10]] });
  // Node 2 came every third frame: 30, 60, 90, blended over 150 ms each.
  assert.equal(w.x(2, T0 + 200), 40);
  assert.equal(w.x(2, T0 + 375), 75);
});

test('the clock offset is the fastest frame of the window, under jitter', () => {
  const random = rng(3);
  const mirror = new Mirror();
  let clock = 0;
  const interp = new Interpolator(mirror, { now: () => clock, offsetWindowMs: 2000 });
  const SHIFT = 5000 - T0; // local = server + SHIFT + latency + jitter
  let k = 0;
  let last = -Infinity;
  const frames = (n, latency, jitter) => {
    for (let i = 0; i < n; i++, k++) {
      const time = T0 + 50 * k;
      clock = last = Math.max(last, time + SHIFT + latency + random() * jitter);
      if (k === 0) mirror.applySnapshot({ type: 'snapshot', tick: 1, time, nodes: [node(1, 0)] });
      else mirror.applyDelta({ type: 'delta', tick: k + 1, time, upsert: [], update: rows([[1, k]]), remove: new Uint32Array(0), resumed: false });
    }
  };
  frames(200, 40, 30);
  const est = interp.offsetMs - SHIFT;
  assert.ok(est >= 40 && est <= 42, `latency 40 + jitter 0..30 estimated as ${est}`);
  // The path gets faster: the estimate follows at once.
  frames(5, 10, 0);
  assert.equal(interp.offsetMs - SHIFT, 10);
  // It gets slower: the old minimum leaves the window (2 s, 40 frames) and the estimate follows.
  frames(20, 60, 5);
  assert.equal(interp.offsetMs - SHIFT, 10);
  frames(40, 60, 5);
  const later = interp.offsetMs - SHIFT;
  assert.ok(later >= 60 && later <= 61, `then ${later}`);
  // The scope is still for 10 s (no frames), then one frame comes late: the last few
  // frames still count, so it does not set the clock alone.
  k += 200;
  frames(1, 150, 0);
  const still = interp.offsetMs - SHIFT;
  assert.ok(still >= 60 && still <= 61, `after the pause ${still}`);
});

test('the interval: the mirror says it, else the shortest recent gap between frames', () => {
  const mirror = new Mirror();
  let clock = 0;
  const interp = new Interpolator(mirror, { now: () => clock });
  assert.equal(interp.intervalMs, 1000 / 30, 'nothing known yet: the contract\'s default tick rate');
  for (const [k, time] of [[1, 0], [2, 41], [3, 100], [4, 125], [5, 180]]) {
    clock = time;
    mirror.applyDelta({ type: 'delta', tick: k, time: T0 + time, upsert: [], update: rows([]), remove: new Uint32Array(0), resumed: false });
  }
  assert.equal(interp.intervalMs, 25);
  assert.equal(interp.delayMs, 50);
  mirror.frameIntervalMs = 50;
  assert.equal(interp.delayMs, 100);
  assert.equal(new Interpolator(mirror, { intervalMs: 10 }).delayMs, 20);
});

test('rotation is slerped along the shorter arc and stays unit length', () => {
  const mirror = new Mirror();
  mirror.frameIntervalMs = 50;
  let clock = 0;
  const interp = new Interpolator(mirror, { now: () => clock, delayMs: 0 });
  const q = (deg) => [0, Math.sin((deg * Math.PI) / 360), 0, Math.cos((deg * Math.PI) / 360)];
  const at = (time, r) => ({ ids: Uint32Array.of(1), world: Float32Array.from([0, 0, 0, ...r, 1]) });
  mirror.applySnapshot({ type: 'snapshot', tick: 1, time: T0, nodes: [{ ...node(1, 0), world: { t: [0, 0, 0], r: q(170), s: 1 } }] });
  // -190° is 170° the other way round; as -q it is the same rotation as 170° + 20°.
  const far = q(190).map((v) => -v);
  clock = 50;
  mirror.applyDelta({ type: 'delta', tick: 2, time: T0 + 50, upsert: [], update: at(T0 + 50, far), remove: new Uint32Array(0), resumed: false });
  const out = interp.sample(T0 + 25 + interp.offsetMs);
  const r = Array.from(out.subarray(3, 7));
  assert.ok(Math.abs(Math.hypot(...r) - 1) < 1e-6);
  // Half way is 180°, not back through 0°.
  assert.ok(Math.abs(Math.abs(r[1]) - 1) < 1e-6, `got ${r}`);
});
