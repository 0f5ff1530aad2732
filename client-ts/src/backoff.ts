// How long a dropped connection waits before each reconnect attempt: attempt n (from 0)
// waits min(maxMs, initialMs * multiplier^n), shortened by a random fraction of up to
// `jitter` of itself, so many clients dropped at once (a server restart) do not all
// come back in the same millisecond. The attempt count goes back to 0 once a new
// connection has delivered its resynchronising snapshot.
//
// A server that answers `503` with `Retry-After` (a room moving between cluster nodes,
// a server draining) says when to come back: the next attempt then waits at least that
// long, capped at `maxRetryAfterMs`, plus up to a fifth more at random.

export interface Backoff {
  /** Delay before the first attempt (default 100 ms). */
  initialMs: number;
  /** The longest delay (default 5000 ms). */
  maxMs: number;
  /** Growth per failed attempt, at least 1 (default 2). */
  multiplier: number;
  /** Largest fraction, 0 to 1, taken off a delay at random (default 0.5). */
  jitter: number;
  /** Give up after this many failed attempts in a row; Infinity retries forever. */
  maxAttempts: number;
  /** The longest wait a `Retry-After` may ask for (default 30 s). */
  maxRetryAfterMs: number;
}

export const DEFAULT_BACKOFF: Backoff = {
  initialMs: 100,
  maxMs: 5000,
  multiplier: 2,
  jitter: 0.5,
  maxAttempts: Infinity,
  maxRetryAfterMs: 30_000,
};

/** The delay of attempt `attempt` (from 0) with the random draw `unit` in [0, 1). */
export function backoffDelay(b: Backoff, attempt: number, unit: number): number {
  const growth = Math.max(1, b.multiplier) ** Math.min(attempt, 64);
  const capped = Math.min(b.initialMs * growth, b.maxMs);
  const cut = Math.min(Math.max(b.jitter, 0), 1) * Math.min(Math.max(unit, 0), 1);
  return Math.max(0, capped * (1 - cut));
}

/**
 * The wait a `Retry-After` of `ms` asks for: at least `ms` (up to `maxRetryAfterMs`),
 * and up to a fifth more with the random draw `unit`, so clients told the same do not
 * all come back at once.
 */
export function retryAfterDelay(b: Backoff, ms: number, unit: number): number {
  return Math.min(Math.max(ms, 0), b.maxRetryAfterMs) * (1 + 0.2 * Math.min(Math.max(unit, 0), 1));
}

/** A `Retry-After` header (delay-seconds or an HTTP date) in ms; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, nowMs = Date.now()): number | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // An HTTP date starts with the day's name ("Wed, 21 Oct 2026 07:28:00 GMT").
  const at = /^[a-z]{3}/i.test(v) ? Date.parse(v) : NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
