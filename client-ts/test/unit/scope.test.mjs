// Scopes as the caller writes them, v1.2 included: what validateScope refuses before
// anything is sent, the frustum helper, and which bincode variant a subscribe or a
// query takes (a message without v1.2 fields must keep the bytes a v1.1 server reads).

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { follow, frustum, frustumPlanes, InvalidArgumentError, region, validateScope, wholeRoom } from '../../dist/index.js';
import { decodeClientBincode, encodeClientBincode } from '../../dist/wire/bincode-client.js';
import { decodeClientJson, encodeClientJson } from '../../dist/wire/json-client.js';

const BOX = [
  [1, 0, 0, 10], [-1, 0, 0, 10], [0, 1, 0, 10], [0, -1, 0, 10], [0, 0, 1, 10], [0, 0, -1, 10],
];

test('good scopes pass', () => {
  for (const s of [
    wholeRoom(),
    region([0, 0, 0], [1, 1, 1], 0),
    follow(0, 0),
    follow(0xffffffff, 25, 2.5, 6),
    frustum(BOX),
    { ...wholeRoom(), sendHz: 1 },
    { ...follow(3, 10), sendHz: 240, tiers: [{ within: 10, every: 1 }, { within: 20, every: 2 }, { every: 3 }] },
    { ...region([0, 0, 0], [1, 1, 1]), tiers: [{ every: 2 }] },
    { ...wholeRoom(), tiers: [] },
  ]) validateScope(s);
});

test('bad v1.2 scopes are refused with a message naming the field', () => {
  const bad = [
    [{ ...region([0, 0, 0], [1, 1, 1]), follow: { node: 1, radius: 1 } }, /at most one/],
    [{ ...follow(1, 1), frustum: BOX }, /at most one/],
    [follow(-1, 1), /follow.node/],
    [follow(1.5, 1), /follow.node/],
    [follow(1, -1), /follow.radius/],
    [follow(1, Infinity), /follow.radius/],
    [follow(1, NaN), /follow.radius/],
    [follow(1, 1, -0.5), /follow.margin/],
    [frustum(BOX.slice(0, 5)), /six planes/],
    [frustum([...BOX.slice(0, 5), [0, 0, 1]]), /four finite/],
    [frustum([...BOX.slice(0, 5), [0, 0, 2, 1]]), /unit length/],
    [frustum([...BOX.slice(0, 5), [0, 0, NaN, 1]]), /four finite/],
    [{ ...wholeRoom(), sendHz: 0 }, /sendHz/],
    [{ ...wholeRoom(), sendHz: 241 }, /sendHz/],
    [{ ...wholeRoom(), sendHz: 2.5 }, /sendHz/],
    [{ ...wholeRoom(), tiers: [{ within: 5, every: 1 }] }, /last tier/],
    [{ ...wholeRoom(), tiers: [{ every: 1 }, { every: 2 }] }, /tiers\[0\].within/],
    [{ ...wholeRoom(), tiers: [{ within: 5, every: 1 }, { within: 5, every: 2 }, { every: 3 }] }, /tiers\[1\].within/],
    [{ ...wholeRoom(), tiers: [{ within: -1, every: 1 }, { every: 3 }] }, /tiers\[0\].within/],
    [{ ...wholeRoom(), tiers: [{ within: 1, every: 0 }, { every: 3 }] }, /tiers\[0\].every/],
    [{ ...wholeRoom(), tiers: [{ every: 1.5 }] }, /tiers\[0\].every/],
    [{ ...follow(3, 10), tiers: Array.from({ length: 9 }, (_, i) => (i < 8 ? { within: i, every: 1 } : { every: 1 })) }, /at most 8 tiers/],
  ];
  for (const [scope, message] of bad) {
    assert.throws(() => validateScope(scope), (e) => e instanceof InvalidArgumentError && message.test(e.message), JSON.stringify(scope));
  }
});

test('frustumPlanes: inward unit planes that contain what the camera sees', () => {
  // The identity is the clip cube itself: |x|, |y|, |z| <= 1 (WebGL depth).
  assert.deepEqual(frustumPlanes([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]), [
    [1, 0, 0, 1], [-1, 0, 0, 1], [0, 1, 0, 1], [0, -1, 0, 1], [0, 0, 1, 1], [0, 0, -1, 1],
  ]);
  // WebGPU depth 0..1: the near plane is z >= 0.
  assert.deepEqual(frustumPlanes([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], true)[4], [0, 0, 1, 0]);
  // A perspective camera at the origin looking down -z (90° fov, near 1, far 100).
  const [n, f] = [1, 100];
  const m = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, (f + n) / (n - f), -1, 0, 0, (2 * f * n) / (n - f), 0];
  const planes = frustumPlanes(m);
  validateScope(frustum(planes));
  const inside = (p) => planes.every(([a, b, c, d]) => a * p[0] + b * p[1] + c * p[2] + d >= -1e-9);
  assert.ok(inside([0, 0, -50]));
  assert.ok(inside([9, -9, -10]));
  assert.ok(!inside([11, 0, -10]), 'outside the 90° cone');
  assert.ok(!inside([0, 0, -0.5]), 'before the near plane');
  assert.ok(!inside([0, 0, -101]), 'past the far plane');
  assert.ok(!inside([0, 0, 5]), 'behind the camera');
});

test('a subscribe is variant 5 only when it uses a v1.2 field', () => {
  const base = { type: 'subscribe', region: null, mask: 1 };
  assert.equal(encodeClientBincode(base)[0], 0);
  assert.equal(encodeClientBincode({ ...base, since: 4, encoding: 'compact', tiers: [] })[0], 0, 'empty tiers are no tiers');
  for (const extra of [{ send_hz: 5 }, { follow: { node: 1, radius: 2 } }, { frustum: BOX }, { tiers: [{ every: 2 }] }]) {
    const msg = { ...base, ...extra };
    const bytes = encodeClientBincode(msg);
    assert.equal(bytes[0], 5, JSON.stringify(extra));
    assert.deepEqual(decodeClientBincode(bytes), msg);
    assert.deepEqual(decodeClientJson(encodeClientJson(msg)), msg);
  }
});

test('queries around a node: variants 4 and 5, and exactly one origin', () => {
  const sphere = { type: 'query', id: 1, query: { kind: 'sphere', around: 7, radius: 2, mask: 3 } };
  const nearest = { type: 'query', id: 1, query: { kind: 'nearest', around: 7, k: 2, mask: 3 } };
  assert.deepEqual([...encodeClientBincode(sphere).subarray(0, 4)], [3, 1, 4, 7]);
  assert.deepEqual([...encodeClientBincode(nearest).subarray(0, 4)], [3, 1, 5, 7]);
  assert.equal(encodeClientBincode({ ...sphere, query: { kind: 'sphere', center: [0, 0, 0], radius: 1 } })[2], 1);
  assert.equal(encodeClientBincode({ ...nearest, query: { kind: 'nearest', point: [0, 0, 0], k: 1 } })[2], 3);
  assert.deepEqual(JSON.parse(encodeClientJson(sphere)).query, { kind: 'sphere', around: 7, radius: 2, mask: 3 });
  for (const query of [
    { kind: 'sphere', radius: 1 },
    { kind: 'sphere', center: [0, 0, 0], around: 1, radius: 1 },
    { kind: 'nearest', k: 1 },
    { kind: 'nearest', point: [0, 0, 0], around: 1, k: 1 },
  ]) {
    assert.throws(() => encodeClientBincode({ type: 'query', id: 1, query }), InvalidArgumentError);
    assert.throws(() => encodeClientJson({ type: 'query', id: 1, query }), InvalidArgumentError);
  }
  assert.throws(() => decodeClientJson('{"type":"query","id":1,"query":{"kind":"sphere","radius":1}}'), /center/);
});
