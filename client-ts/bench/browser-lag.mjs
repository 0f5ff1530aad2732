// Does a browser page keep up with a busy room? A 20,000-node room ticking at 30 Hz,
// with 200 nodes changed per tick by an editor (a Node connection sending one batch of
// 200 set_local ops per tick), and headless Chromium subscribed to the whole room with
// the built SDK. Prints, per 5-second window, the lag between the server finishing a
// tick and the page having applied it (median, p99, max), the frames and updates
// applied, and at the end whether the lag grew from the first windows to the last.
// Prints numbers only; `LAG_SECONDS` (default 60) sets the length.
//
// Run: `npm run lag` (after `npm run build`; uses CANOPY_BIN, or target/release/canopy
// when it exists, since a debug server is itself slow at 20k nodes).

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

import { Client } from '../dist/index.js';
import { launchChromium } from '../test/helpers/browser.mjs';
import { startPageServer } from '../test/helpers/page-server.mjs';

const release = fileURLToPath(new URL('../../target/release/canopy', import.meta.url));
if (!process.env.CANOPY_BIN && existsSync(release)) process.env.CANOPY_BIN = release;
const { startServer } = await import('../test/helpers/server.mjs');

const NODES = 20_000;
const CHANGES = 200;
const HZ = 30;
const SECONDS = Number(process.env.LAG_SECONDS ?? 60);
const WINDOW_S = Math.min(5, SECONDS);

const server = await startServer();
const http = new Client(server.url);
await http.createRoom({ id: 'lag', tick_hz: HZ });
for (let base = 0; base < NODES; base += 5000) {
  const ops = [];
  for (let id = base; id < base + 5000; id++) {
    ops.push({ op: 'add', id, local: { t: [(id % 141) * 2, 0, Math.floor(id / 141) * 2] }, extent: [0.5, 0.5, 0.5] });
  }
  await http.edit('lag', ops);
}

const pages = await startPageServer(server.port);
const browser = await launchChromium();
const page = await browser.context.newPage();
await page.goto(`${pages.origin}/bench/lag.html`);
await page.waitForFunction(() => window.ready === true);
await page.evaluate(([b]) => window.start(b, 'lag'), [`${pages.origin}/api/`]);

// The editor: one batch of CHANGES moves per tick period, never more than one waiting.
const editor = await http.connect('lag', { WebSocket });
let running = true;
let batches = 0;
let seed = 1;
const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const editing = (async () => {
  let next = performance.now();
  while (running) {
    const ops = Array.from({ length: CHANGES }, () => ({
      op: 'set_local', node: Math.floor(rnd() * NODES), t: [rnd() * 280, rnd() * 10, rnd() * 280],
    }));
    await editor.edit(ops);
    batches++;
    next += 1000 / HZ;
    const wait = next - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
})();

console.log(`workload: ${NODES} nodes at ${HZ} Hz, ${CHANGES} changed per tick by a second client; Chromium subscribed to the whole room (bincode), ${SECONDS} s`);
console.log('window   frames  updates/s  lag median   p99      max   (ms from the server finishing a tick to the page applying it)');
const windows = [];
let taken = 0;
for (let w = 0; w < SECONDS / WINDOW_S; w++) {
  await new Promise((r) => setTimeout(r, WINDOW_S * 1000));
  const all = await page.evaluate(() => window.samples);
  const fresh = all.slice(taken);
  taken = all.length;
  const lags = fresh.map((s) => s[0]).sort((a, b) => a - b);
  const pick = (q) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))] ?? NaN;
  const updates = fresh.reduce((s, x) => s + x[2], 0);
  windows.push(pick(0.5));
  console.log(`${String(w * WINDOW_S).padStart(3)}-${String((w + 1) * WINDOW_S).padEnd(3)}s ${String(fresh.length).padStart(6)} ${String(Math.round(updates / WINDOW_S)).padStart(10)}  ${pick(0.5).toFixed(1).padStart(9)} ${pick(0.99).toFixed(1).padStart(8)} ${(lags.at(-1) ?? NaN).toFixed(1).padStart(8)}`);
}
running = false;
await editing;
const size = await page.evaluate(() => window.conn.mirror.size);
const k = Math.max(1, Math.floor(windows.length / 3));
const first = windows.slice(0, k).reduce((a, b) => a + b, 0) / k;
const last = windows.slice(-k).reduce((a, b) => a + b, 0) / k;
console.log(`edit batches sent: ${batches} (${(batches / SECONDS).toFixed(1)}/s); page mirror: ${size} nodes`);
console.log(`median lag, first ${k} window(s) vs last ${k}: ${first.toFixed(1)} ms -> ${last.toFixed(1)} ms (${last > first * 1.5 + 5 ? 'GROWING' : 'steady'})`);
await editor.close();
await browser.close();
await pages.close();
await server.stop();
