// Does the inspector keep up with a busy room? A 20,000-node room ticking at 30 Hz, an
// editor (this process, over HTTP) moving 200 random nodes per tick, and the inspector in
// headless Chromium showing the whole room. It prints the per-frame update time (the one
// pass that writes the changed instances' matrices and uploads them), the slots written
// per frame, frames and renders per second, and the page's lag behind the server's
// ticks; it asserts behaviour only: every node mirrored and drawn, and once the editor
// stops, the drawn boxes equal the mirror (nothing left behind).
//
// PERF_SECONDS (default 10) sets the length; CANOPY_BIN may point at a release build
// (`npm run perf` in README uses one: a debug server itself ticks slowly at 20k nodes).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { api, launch, shot, startServer } from './helpers.mjs';

const NODES = 20_000;
const CHANGES = 200;
const HZ = 30;
const SECONDS = Number(process.env.PERF_SECONDS ?? 10);

let server;
let browser;

before(async () => {
  server = await startServer();
  assert.equal((await api(server.url, 'POST', '/rooms', { body: { id: 'load', tick_hz: HZ } })).status, 201);
  for (let base = 0; base < NODES; base += 5000) {
    const ops = [];
    for (let id = base; id < base + 5000; id++) {
      ops.push({ op: 'add', id, local: { t: [(id % 141) * 2, 0, Math.floor(id / 141) * 2] }, extent: [0.5, 0.5, 0.5], mask: 1 << (id % 4) });
    }
    assert.equal((await api(server.url, 'POST', '/rooms/load/edits', { body: { ops } })).status, 200);
  }
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN;
};

test(`the inspector keeps up with ${NODES} nodes at ${HZ} Hz, ${CHANGES} changes a tick`, async () => {
  const page = await browser.context.newPage();
  page.on('pageerror', (e) => console.log(`page error: ${e.message}`));
  await page.goto(`${server.url}/`);
  await page.waitForFunction((n) => window.canopyInspector?.state().room === 'load' && window.canopyInspector.state().nodes === n, NODES);
  await page.waitForFunction(() => window.canopyInspector.state().pending === 0);
  await page.evaluate(() => window.canopyInspector.resetFrameStats());

  // The editor: one batch of CHANGES moves per tick period, the next sent when the last
  // is applied (HTTP edits answer after their tick), so the room sees at most HZ a second.
  let running = true;
  let batches = 0;
  let seed = 7;
  const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const moved = new Set();
  const editing = (async () => {
    let next = performance.now();
    while (running) {
      const ops = Array.from({ length: CHANGES }, () => {
        const node = Math.floor(rnd() * NODES);
        moved.add(node);
        return { op: 'set_local', node, t: [rnd() * 280, rnd() * 10, rnd() * 280] };
      });
      const r = await api(server.url, 'POST', '/rooms/load/edits', { body: { ops } });
      assert.equal(r.status, 200);
      batches++;
      next += 1000 / HZ;
      const wait = next - performance.now();
      if (wait > 0) await new Promise((res) => setTimeout(res, wait));
    }
  })();
  const lags = [];
  const started = Date.now();
  const first = await page.evaluate(() => window.canopyInspector.frameStats());
  while (Date.now() - started < SECONDS * 1000) {
    await new Promise((r) => setTimeout(r, 250));
    lags.push(await page.evaluate(() => window.canopyInspector.state().lagMs));
  }
  const stats = await page.evaluate(() => window.canopyInspector.frameStats());
  const elapsed = (Date.now() - started) / 1000;
  running = false;
  await editing;
  await page.screenshot({ path: shot('load-20k.png') });

  console.log(`workload: ${NODES} nodes at ${HZ} Hz, ${CHANGES} set_local per tick from an HTTP editor (${(batches / elapsed).toFixed(1)} batches/s applied), the inspector showing the whole room, ${SECONDS} s`);
  console.log(`per-frame update (frames with changes: ${stats.updateFrames}): median ${stats.updateMsMedian.toFixed(3)} ms, p95 ${stats.updateMsP95.toFixed(3)} ms, max ${stats.updateMsMax.toFixed(3)} ms; slots written per frame median ${stats.updatedMedian}, max ${stats.updatedMax}`);
  console.log(`animation frames ${((stats.frames - first.frames) / elapsed).toFixed(1)}/s, renders ${((stats.renders - first.renders) / elapsed).toFixed(1)}/s; mirror lag behind the server's tick: median ${quantile(lags, 0.5).toFixed(0)} ms, p95 ${quantile(lags, 0.95).toFixed(0)} ms`);

  // Behaviour: the whole room stays mirrored, frames carried updates, and after the last
  // batch the drawn instances catch up with the mirror for every node that was moved.
  assert.equal((await page.evaluate(() => window.canopyInspector.state())).nodes, NODES);
  assert.ok(stats.updateFrames > 0, 'no frame applied an update');
  await page.waitForFunction(() => window.canopyInspector.state().pending === 0);
  const sample = [...moved].slice(0, 500);
  const stale = await page.evaluate((ids) => ids.filter((id) => !window.canopyInspector.drawnMatchesMirror(id)), sample);
  assert.deepEqual(stale, [], 'drawn boxes that differ from the mirror');
  // No per-node DOM: the hierarchy panel holds a screenful of rows for 20,000 roots.
  const rows = await page.locator('#tree-rows .row').count();
  assert.ok(rows < 150, `${rows} tree rows in the DOM`);
  await page.close();
});
