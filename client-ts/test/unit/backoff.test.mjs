// Reconnect delays: exponential growth, a cap, and jitter that only shortens; and a
// server's Retry-After, waited at least (up to a cap), with jitter that only lengthens.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ApiError, backoffDelay, DEFAULT_BACKOFF, errorFromBody, parseRetryAfter, retryAfterDelay } from '../../dist/index.js';

test('grows exponentially and caps', () => {
  const b = { ...DEFAULT_BACKOFF, jitter: 0 };
  assert.deepEqual([0, 1, 3, 30, 1e9].map((n) => backoffDelay(b, n, 0.5)), [100, 200, 800, 5000, 5000]);
});

test('jitter only shortens, within its fraction', () => {
  assert.equal(backoffDelay(DEFAULT_BACKOFF, 10, 0), 5000);
  const d = backoffDelay(DEFAULT_BACKOFF, 10, 0.999999);
  assert.ok(d >= 2500 && d < 5000);
});

test('Retry-After: delay-seconds or an HTTP date, in ms', () => {
  assert.equal(parseRetryAfter('1'), 1000);
  assert.equal(parseRetryAfter(' 120 '), 120_000);
  const now = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');
  assert.equal(parseRetryAfter('Wed, 21 Oct 2026 07:28:03 GMT', now), 3000);
  assert.equal(parseRetryAfter('Wed, 21 Oct 2026 07:27:00 GMT', now), 0, 'a date past is now');
  for (const v of [null, undefined, '', 'soon', '-1', '1.5']) assert.equal(parseRetryAfter(v), undefined, String(v));
});

test('a Retry-After is waited at least, capped, with up to a fifth more', () => {
  const b = DEFAULT_BACKOFF;
  assert.equal(retryAfterDelay(b, 1000, 0), 1000);
  assert.equal(retryAfterDelay(b, 1000, 0.999999) < 1200, true);
  assert.ok(retryAfterDelay(b, 1000, 0.5) > 1000);
  assert.equal(retryAfterDelay(b, 3_600_000, 0), 30_000, 'capped at maxRetryAfterMs');
  assert.equal(retryAfterDelay({ ...b, maxRetryAfterMs: 5000 }, 10_000, 0), 5000);
});

test('an HTTP error keeps its Retry-After', () => {
  const body = '{"error":{"code":"overloaded","message":"the room is moving"}}';
  const e = errorFromBody(503, body, '2');
  assert.ok(e instanceof ApiError);
  assert.equal(e.code, 'overloaded');
  assert.equal(e.retryAfterMs, 2000);
  assert.equal(errorFromBody(503, body).retryAfterMs, undefined);
});
