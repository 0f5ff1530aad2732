// v1.1 resume, against a fake server that answers exactly as scripted: after a drop the
// client resubscribes with `since: N`, N being the tick its mirror held, naming in the
// upgrade the room instance its copy came from; a `delta` with `resumed: true` applies
// on top of the mirror, a snapshot replaces it, and either way `resynced` tells the
// caller. A server that names no instance is never asked to resume.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import WebSocket, { WebSocketServer } from 'ws';

import { Connection, follow, frustum } from '../../dist/index.js';
import { decodeClientBincode } from '../../dist/wire/bincode-client.js';
import { encodeServerBincode } from '../../dist/wire/bincode-server.js';
import { nextEvent } from '../helpers/wait.mjs';

const node = (id, x) => ({ id, parent: null, world: { t: [x, 0, 0], r: [0, 0, 0, 1], s: 1 }, extent: [0, 0, 0], mask: 0xffffffff });
const noRows = () => ({ ids: new Uint32Array(0), world: new Float32Array(0) });

/**
 * A fake Canopy on a free port: `GET /rooms/r` answers `roomDetail()`, every upgrade is
 * recorded (its `instance` parameter in `upgrades`, its socket in `sockets`), and the
 * n-th subscribe (from 1) is answered with `answer(n)`. Closed when the test ends.
 */
async function fakeServer(t, roomDetail, answer) {
  const fake = { subscribes: [], sockets: [], upgrades: [] };
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (p) => [...p][0] ?? false });
  const http = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(roomDetail()));
  });
  http.on('upgrade', (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (ws) => {
      fake.upgrades.push(new URL(req.url, 'http://x').searchParams.get('instance'));
      fake.sockets.push(ws);
      ws.on('message', (data) => {
        const msg = decodeClientBincode(new Uint8Array(data));
        if (msg.type !== 'subscribe') return;
        fake.subscribes.push(msg);
        ws.send(encodeServerBincode(answer(fake.subscribes.length)));
      });
    }));
  await new Promise((r) => http.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => {
    // The fake's sockets end with it (its hooks run before the client's close).
    for (const ws of wss.clients) ws.terminate();
    http.close(r);
    http.closeAllConnections();
  }));
  fake.url = `http://127.0.0.1:${http.address().port}`;
  return fake;
}

const detail = (extra) => ({ id: 'r', tick: 0, nodes: 0, subscribers: 0, tick_hz: 30, tick_ms: 0, ...extra });

test('resume with since: a resumed delta applies on top, a snapshot replaces', async (t) => {
  const answers = [
    () => ({ type: 'snapshot', tick: 10, time: 1, nodes: [node(1, 0), node(2, 0)] }),
    () => ({
      type: 'delta', tick: 12, time: 2, upsert: [node(3, 3)], remove: Uint32Array.of(2), resumed: true,
      update: { ids: Uint32Array.of(1), world: Float32Array.of(5, 0, 0, 0, 0, 0, 1, 1) },
    }),
    () => ({ type: 'snapshot', tick: 20, time: 3, nodes: [node(3, 4)] }),
  ];
  // `GET /rooms/r` names the instance, which changes before the third socket.
  const instances = ['00000000000000aa', '00000000000000aa', '00000000000000bb'];
  let gets = 0;
  const { subscribes, sockets, upgrades, url } = await fakeServer(t, () => detail({ instance: instances[gets++] }), (n) => answers[n - 1]());
  const conn = await Connection.open(url, 'r', { WebSocket, backoff: { initialMs: 10 } });
  t.after(() => conn.close());
  const events = [];
  for (const name of ['entered', 'left', 'updated']) conn.on(name, (id) => events.push([name, id]));
  assert.equal(await conn.subscribe(), 10);
  assert.equal(subscribes[0].since, undefined);

  let resynced = nextEvent(conn, 'resynced');
  sockets.at(-1).terminate();
  let [info] = await resynced;
  assert.equal(subscribes[1].since, 10, 'the resubscribe names the tick the mirror held');
  assert.deepEqual(info, { tick: 12, time: 2, size: 2, resumed: true });
  assert.deepEqual(conn.mirror.toSortedArray(), [node(1, 5), node(3, 3)]);
  assert.deepEqual(events.slice(-3), [['updated', 1], ['entered', 3], ['left', 2]]);

  resynced = nextEvent(conn, 'resynced');
  sockets.at(-1).terminate();
  [info] = await resynced;
  assert.equal(subscribes[2].since, 12);
  // The upgrades named the instance of the copy: none, then aa twice (the third GET
  // saw bb, but the copy came from aa: the server is the one to refuse the resume).
  assert.deepEqual(upgrades, [null, '00000000000000aa', '00000000000000aa']);
  assert.equal(info.resumed, false);
  assert.deepEqual(conn.mirror.toSortedArray(), [node(3, 4)]);
  assert.equal(conn.mirror.tick, 20);
});

test('a server that names no instance is never asked to resume', async (t) => {
  const { subscribes, sockets, url } = await fakeServer(t, () => detail({}), (n) => (
    { type: 'snapshot', tick: 10 + n, time: 1, nodes: [node(1, 0)] }));
  const conn = await Connection.open(url, 'r', { WebSocket, backoff: { initialMs: 10 } });
  t.after(() => conn.close());
  await conn.subscribe();
  const resynced = nextEvent(conn, 'resynced');
  sockets.at(-1).terminate();
  await resynced;
  assert.deepEqual(subscribes.map((m) => m.since), [undefined, undefined]);
});

test('(v1.2) follow, frustum, send rate and tiers are kept across reconnects, resuming with since', async (t) => {
  // A resubscribe naming `since` gets a resumed delta, any other a snapshot.
  const { subscribes, sockets, url } = await fakeServer(t, () => detail({ instance: '00000000000000aa' }), (n) => (
    subscribes[n - 1].since === undefined
      ? { type: 'snapshot', tick: 10 + n, time: 1, nodes: [node(1, 0)] }
      : { type: 'delta', tick: 10 + n, time: 2, upsert: [], update: noRows(), remove: new Uint32Array(0), resumed: true }));
  const conn = await Connection.open(url, 'r', { WebSocket, backoff: { initialMs: 10 } });
  t.after(() => conn.close());
  const tiers = [{ within: 10, every: 1 }, { every: 3 }];
  await conn.subscribe({ ...follow(1, 25, 2.5, 6), sendHz: 20, tiers });
  const wire = { type: 'subscribe', region: null, mask: 6, follow: { node: 1, radius: 25, margin: 2.5 }, send_hz: 20, tiers };
  assert.deepEqual(subscribes[0], wire);
  // The mirror's pace, for an Interpolator: the send rate and the slowest tier.
  assert.equal(conn.mirror.frameIntervalMs, 50);
  assert.equal(conn.mirror.tierEvery, 3);

  let resynced = nextEvent(conn, 'resynced');
  sockets.at(-1).terminate();
  assert.equal((await resynced)[0].resumed, true);
  assert.deepEqual(subscribes[1], { ...wire, since: 11 });

  // A new scope is sent whole, and is the one a later reconnect resumes.
  const planes = [[1, 0, 0, 1], [-1, 0, 0, 1], [0, 1, 0, 1], [0, -1, 0, 1], [0, 0, 1, 1], [0, 0, -1, 1]];
  await conn.subscribe({ ...frustum(planes), encoding: 'compact' });
  assert.deepEqual(subscribes[2], { type: 'subscribe', region: null, mask: 0xffffffff, encoding: 'compact', frustum: planes });
  // Without a send rate, the room's tick rate (30 Hz here) paces the frames.
  assert.equal(conn.mirror.frameIntervalMs, 1000 / 30);
  assert.equal(conn.mirror.tierEvery, 1);
  resynced = nextEvent(conn, 'resynced');
  sockets.at(-1).terminate();
  await resynced;
  assert.deepEqual(subscribes[3], { ...subscribes[2], since: 13 });
});
