// An Interpolator on a live connection to a real server, with real clocks: its pace
// comes from the room's tick rate, its render time tracks the server's clock behind by
// the delay, samples of a node moving in steps stay on its path, and once the node
// stops the view settles exactly on the mirror.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';

import { Client } from '../../dist/index.js';
import { Interpolator } from '../../dist/interpolate.js';
import { startServer } from '../helpers/server.mjs';
import { sleep, until } from '../helpers/wait.mjs';

let server;
let http;
before(async () => {
  server = await startServer();
  http = new Client(server.url);
});
after(() => server.stop());

test('a live mirror, interpolated', async (t) => {
  const room = 'interp-live';
  const { tick_hz: hz } = await http.createRoom({ id: room });
  await http.edit(room, [{ op: 'add', id: 1 }]);
  const conn = await http.connect(room, { WebSocket });
  t.after(() => conn.close());
  await conn.subscribe();
  const interp = new Interpolator(conn.mirror);
  t.after(() => interp.dispose());
  assert.equal(interp.intervalMs, 1000 / hz);
  assert.equal(interp.delayMs, 2000 / hz);

  const xs = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const out = interp.sample();
      xs.push(out[conn.mirror.slotOf(1) * 8]);
      // Same machine, same clock: the view is the server's time less the delay and
      // the fastest frame's latency.
      if (conn.mirror.tick > 1) assert.ok(Math.abs(Date.now() - interp.delayMs - interp.renderTime) < 250, `${Date.now() - interp.renderTime}`);
      await sleep(3);
    }
  })();
  for (let i = 1; i <= 20; i++) {
    await conn.edit([{ op: 'set_local', node: 1, t: [i, 0, 0] }]);
    await sleep(10);
  }
  await until('the last move', () => conn.mirror.get(1).world.t[0] === 20);
  await sleep(300);
  sampling = false;
  await sampler;
  // On the path (x from 0 to 20), plus what extrapolation adds past it: one interval at
  // the last segment's speed, a step when ticks are even; a tick that came early on a
  // busy machine makes the last segment shorter and its speed higher, hence the half
  // step of slack.
  assert.ok(xs.every((x) => x >= 0 && x <= 21.5), `samples off the path: ${xs.filter((x) => x < 0 || x > 21.5)}`);
  assert.ok(new Set(xs.map((x) => Math.round(x * 4))).size > 10, 'the samples went through the motion');
  assert.equal(interp.sample()[conn.mirror.slotOf(1) * 8], 20, 'settled on the mirror');
});
