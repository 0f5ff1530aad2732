// Waiting for conditions in integration tests. Nothing here asserts on time: the
// deadline only turns a hang into a failure with a message, and is generous so that a
// slow CI machine never fails a correct run.

export const PATIENCE_MS = 30_000;

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `check()` (sync or async) until it returns a truthy value, which it returns. */
export async function until(what, check, patienceMs = PATIENCE_MS) {
  const deadline = Date.now() + patienceMs;
  let last;
  for (;;) {
    try {
      last = await check();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${last})`);
    await sleep(15);
  }
}

/** Resolves with the arguments of the next `name` event of `conn` that passes `want`. */
export function nextEvent(conn, name, want = () => true, patienceMs = PATIENCE_MS) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out waiting for the ${name} event`));
    }, patienceMs);
    const off = conn.on(name, (...args) => {
      if (!want(...args)) return;
      clearTimeout(timer);
      off();
      resolve(args);
    });
  });
}
