// Compact blocks (v1.1 `encoding: "compact"`) against vectors derived by hand from the
// layout (docs/protocol.md section 10, from the Rust codec's documentation): the bytes
// are written here with the layout's own rules (flags, i24, LEB128, zigzag, the rotation
// head and its 15-bit components, binary16) and the expected floats come from its
// formulas, not from the decoder. The Rust codec's fixtures (protocol/testdata/compact/)
// are checked by compact-fixtures.test.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { DecodeError, Mirror } from '../../dist/index.js';
import { decodeCompact } from '../../dist/codecs.js';

// The compact decoder loads on demand (connections load it when they subscribe with
// `encoding: "compact"`); a Mirror used alone loads it first.
await Mirror.loadCompact();

// ---- the doc's encodings, written independently of the decoder ----------------------
const i24 = (v) => [v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff];
const uleb = (v) => {
  const out = [];
  do {
    let b = v % 128;
    v = Math.floor(v / 128);
    if (v > 0) b |= 0x80;
    out.push(b);
  } while (v > 0);
  return out;
};
const sleb = (v) => uleb(v >= 0 ? 2 * v : -2 * v - 1);
const u16 = (v) => [v & 0xff, v >> 8];
const f32le = (...vs) => [...new Uint8Array(Float32Array.from(vs).buffer)];
// Flags: TX TY TZ (axis k is 1 << k), TA, R, S, A, X.
const TA = 0x08, R = 0x10, S = 0x20, A = 0x40;
/** A row A with every axis and rotation component written out (valid, if not minimal). */
const rowA = (t, [index, a, b, c], s) => [A | TA | 7 | R | S, ...t.flatMap(i24), index | 0x1c, ...u16(a), ...u16(b), ...u16(c), ...u16(s)];

/** The layout's rotation quantization: smallest three, 15 bits per kept component. */
function quantRot(q) {
  let idx = 0;
  for (let i = 1; i < 4; i++) if (Math.abs(q[i]) > Math.abs(q[idx])) idx = i;
  const sign = q[idx] < 0 ? -1 : 1;
  const kept = q.filter((_, i) => i !== idx).map((c) => Math.min(32766, Math.max(0, Math.floor(sign * c * 16383 * Math.SQRT2 + 16383.5))));
  return [idx, ...kept];
}
const dequantRot = ([idx, a, b, c]) => {
  const kept = [a, b, c].map((v) => ((v - 16383) / 16383) * Math.SQRT1_2);
  const w = Math.sqrt(Math.max(0, 1 - ((kept[0] * kept[0] + kept[1] * kept[1]) + kept[2] * kept[2])));
  const out = [];
  for (let i = 0, k = 0; i < 4; i++) out.push(Math.fround(i === idx ? w : kept[k++]));
  return out;
};

const node = (id, t = [0, 0, 0]) => ({ id, parent: null, world: { t, r: [0, 0, 0, 1], s: 1 }, extent: [0, 0, 0], mask: 0xffffffff });
const close = (a, b, eps, what) => a.forEach((v, i) => assert.ok(Math.abs(v - b[i]) <= eps, `${what}[${i}]: ${v} vs ${b[i]}`));
const world = (m, id) => Array.from(m.world.subarray(m.slotOf(id) * 8, m.slotOf(id) * 8 + 8));

test('a snapshot block: rows A (what they leave out is the identity) and an exact row', () => {
  const rot = quantRot([0, 0.38268343, 0, 0.92387953]); // 45 degrees about y
  assert.deepEqual([rot[0], rot[1], rot[3]], [3, 16383, 16383]);
  const block = Uint8Array.from([
    A | TA | 7 | R, ...i24(1024), ...i24(-2048), ...i24(5), rot[0] | 0x08, ...u16(rot[2]), // t (1, -2, 5/1024), only b kept
    A, // the identity: flags alone
    A | TA | 2 | S, ...i24(-7), ...u16(0x4000), // t (0, -7/1024, 0), scale 2
    0x80, ...f32le(9000, -1.5, 0.25, 0, 0, 0, 1, 70000), // beyond the compact range: exact
  ]);
  const m = new Mirror();
  m.applySnapshot({ type: 'snapshot', tick: 3, time: 4, nodes: [node(10), node(11, [4, 4, 4]), node(12), node(13)], compact: block });
  const a = world(m, 10);
  assert.deepEqual(a.slice(0, 3), [1, -2, 5 / 1024]);
  assert.deepEqual(a.slice(3, 7), dequantRot(rot), 'rotation, bit for bit');
  close(a.slice(3, 7), [0, 0.38268343, 0, 0.92387953], (0.01 * Math.PI) / 180, 'rotation vs the original');
  assert.equal(a[7], 1);
  assert.deepEqual(world(m, 11), [0, 0, 0, 0, 0, 0, 1, 1]);
  assert.deepEqual(world(m, 12), [0, -7 / 1024, 0, 0, 0, 0, 1, 2]);
  assert.deepEqual(world(m, 13), [9000, -1.5, 0.25, 0, 0, 0, 1, 70000]);
  assert.equal(m.inconsistencies, 0);
});

test('relative rows apply to the integer baseline, component by component, without drift', () => {
  const m = new Mirror();
  const rot = quantRot([0.5, 0.5, 0.5, 0.5]);
  m.applySnapshot({
    type: 'snapshot', tick: 1, time: 0, nodes: [node(5), node(7)],
    compact: Uint8Array.from([...rowA([100, 200, -300], rot, 0x3c00), ...rowA([0, 0, 0], rot, 0x4000)]),
  });
  // Frame after frame: node 5 moves +1/-1 grid units on x and y in turn (z left out),
  // node 7 turns components a and c a step and back (a as a difference, c absolute, b
  // left out) and changes scale; the baseline must come back to its exact start.
  for (let tick = 2; tick < 202; tick++) {
    const step = tick % 2 === 0 ? 1 : -1;
    const c = step > 0 ? rot[3] - 3 : rot[3];
    const compact = Uint8Array.from([
      ...uleb(2), // two rows, no upserts
      ...uleb(5), 0x01 | 0x02, ...sleb(step), ...sleb(-step),
      ...uleb(2), R | S, rot[0] | 0x04 | 0x10 | 0x20, ...sleb(step * 3), ...u16(c), ...u16(tick % 2 === 0 ? 0x3800 : 0x4000),
    ]);
    const ok = m.applyDelta({ type: 'delta', tick, time: 0, upsert: [], update: { ids: new Uint32Array(0), world: new Float32Array(0) }, remove: new Uint32Array(0), resumed: false, compact });
    assert.ok(ok, `tick ${tick}`);
    if (tick === 2) {
      assert.deepEqual(world(m, 5).slice(0, 3), [101 / 1024, 199 / 1024, -300 / 1024]);
      close(world(m, 7).slice(3, 7), dequantRot([rot[0], rot[1] + 3, rot[2], rot[3] - 3]), 1e-7, 'turned');
      assert.equal(world(m, 7)[7], 0.5);
    }
  }
  assert.deepEqual(world(m, 5).slice(0, 3), [100 / 1024, 200 / 1024, -300 / 1024]);
  close(world(m, 7).slice(3, 7), dequantRot(rot), 1e-7, 'back');
  assert.equal(world(m, 7)[7], 2);
});

test('under a new dropped index, rotation components left out are zero', () => {
  const m = new Mirror();
  const rot = quantRot([0.1, 0.2, 0.3, 0.927]);
  m.applySnapshot({ type: 'snapshot', tick: 1, time: 0, nodes: [node(3)], compact: Uint8Array.from(rowA([0, 0, 0], rot, 0x3c00)) });
  // Index 1 (y dropped), only c (w) present: a quarter turn about y.
  const delta = (bytes) => m.applyDelta({ type: 'delta', tick: 2, time: 0, upsert: [], update: { ids: new Uint32Array(0), world: new Float32Array(0) }, remove: new Uint32Array(0), resumed: false, compact: Uint8Array.from(bytes) });
  assert.ok(delta([...uleb(1), ...uleb(3), R, 1 | 0x10, ...u16(32766)]));
  assert.deepEqual(world(m, 3).slice(3, 7), dequantRot([1, 16383, 16383, 32766]));
  // A difference under another index cannot apply.
  assert.equal(delta([...uleb(1), ...uleb(3), R, 0 | 0x04 | 0x20, ...sleb(1)]), false);
  assert.equal(m.compact.lastError?.kind, 'index_changed');
});

test('a delta block starts with one absolute row per upsert', () => {
  const m = new Mirror();
  m.applySnapshot({ type: 'snapshot', tick: 1, time: 0, nodes: [] });
  const compact = Uint8Array.from([A | TA | 7, ...i24(-1), ...i24(2), ...i24(3), ...uleb(0)]);
  const ok = m.applyDelta({ type: 'delta', tick: 2, time: 0, upsert: [node(40, [9, 9, 9])], update: { ids: new Uint32Array(0), world: new Float32Array(0) }, remove: new Uint32Array(0), resumed: false, compact });
  assert.ok(ok);
  assert.deepEqual(world(m, 40).slice(0, 3), [-1 / 1024, 2 / 1024, 3 / 1024]);
});

test('a relative row without a quantized baseline is an inconsistency (the connection resyncs)', () => {
  const m = new Mirror();
  m.applySnapshot({ type: 'snapshot', tick: 1, time: 0, nodes: [node(1)], compact: Uint8Array.from([0x80, ...f32le(0, 0, 0, 0, 0, 0, 1, 1)]) });
  const compact = Uint8Array.from([...uleb(1), ...uleb(1), 0x07, ...sleb(1), ...sleb(1), ...sleb(1)]);
  const ok = m.applyDelta({ type: 'delta', tick: 2, time: 0, upsert: [], update: { ids: new Uint32Array(0), world: new Float32Array(0) }, remove: new Uint32Array(0), resumed: false, compact });
  assert.equal(ok, false);
  assert.equal(m.inconsistencies, 1);
  assert.equal(m.compact.lastError?.kind, 'no_baseline');
});

test('malformed blocks are DecodeErrors', () => {
  const bad = [
    [[A | TA | 1, 1, 2], 1, false], // truncated row A
    [[S, 0, 0x3c], 1, false], // a snapshot row must be A or X
    [[A | 1, ...sleb(1)], 1, false], // a row A's axes are absolute
    [[0x81, ...f32le(0, 0, 0, 0, 0, 0, 1, 1)], 1, false], // exact with other bits
    [[...uleb(1), ...uleb(1), TA], 0, true], // TA without an axis
    [[...uleb(1), ...uleb(1), 0], 0, true], // a relative row with no part
    [[...uleb(1), ...uleb(1), R, 3 | 0x20], 0, true], // a difference for a component left out
    [[A | R, 3 | 0x04 | 0x20, 2], 1, false], // a difference in a row A
    [[A | R, 3 | 0x04, 0xff, 0xff], 1, false], // a component over 15 bits
    [[...uleb(2), ...uleb(4), S, 0, 0x3c, ...uleb(0), S, 0, 0x3c], 0, true], // ids not ascending
    [[...uleb(1e6)], 0, true], // a count the bytes cannot hold
    [[...uleb(0), 9], 0, true], // trailing bytes
    [[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], 0, true], // LEB128 too long
  ];
  for (const [bytes, abs, updates] of bad) {
    assert.throws(() => decodeCompact(Uint8Array.from(bytes), abs, updates), DecodeError, JSON.stringify(bytes));
  }
  assert.throws(() => decodeCompact(new Uint8Array(3), 1000, false), DecodeError);
});
