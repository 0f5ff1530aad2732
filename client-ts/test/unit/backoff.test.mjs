// Reconnect delays: exponential growth, a cap, and jitter that only shortens.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { backoffDelay, DEFAULT_BACKOFF } from '../../dist/index.js';

test('grows exponentially and caps', () => {
  const b = { ...DEFAULT_BACKOFF, jitter: 0 };
  assert.deepEqual([0, 1, 3, 30, 1e9].map((n) => backoffDelay(b, n, 0.5)), [100, 200, 800, 5000, 5000]);
});

test('jitter only shortens, within its fraction', () => {
  assert.equal(backoffDelay(DEFAULT_BACKOFF, 10, 0), 5000);
  const d = backoffDelay(DEFAULT_BACKOFF, 10, 0.999999);
  assert.ok(d >= 2500 && d < 5000);
});
