// How long a dropped connection waits before each reconnect attempt: attempt n (from 0)
// waits min(maxMs, initialMs * multiplier^n), shortened by a random fraction of up to
// `jitter` of itself, so many clients dropped at once (a server restart) do not all
// come back in the same millisecond. The attempt count goes back to 0 once a new
// connection has delivered its resynchronising snapshot.

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
}

export const DEFAULT_BACKOFF: Backoff = {
  initialMs: 100,
  maxMs: 5000,
  multiplier: 2,
  jitter: 0.5,
  maxAttempts: Infinity,
};

/** The delay of attempt `attempt` (from 0) with the random draw `unit` in [0, 1). */
export function backoffDelay(b: Backoff, attempt: number, unit: number): number {
  const growth = Math.max(1, b.multiplier) ** Math.min(attempt, 64);
  const capped = Math.min(b.initialMs * growth, b.maxMs);
  const cut = Math.min(Math.max(b.jitter, 0), 1) * Math.min(Math.max(unit, 0), 1);
  return Math.max(0, capped * (1 - cut));
}
