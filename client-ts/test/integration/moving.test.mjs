// A room moving between cluster nodes, as a client sees it: its socket gets `closed`
// "moving" and close code 4002, then for a while the room's HTTP requests and upgrades
// answer `503 overloaded` with `Retry-After`. The connection must never stop for that:
// it waits at least the Retry-After between attempts, reconnects, resumes with `since`,
// and its mirror ends equal to the server's. Only a room truly gone (404) stops it.
//
// The move is played by a relay in front of a real server (helpers/moving.mjs), which
// speaks for the node the room leaves; the server itself keeps the room throughout, as
// the cluster's journal does.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import WebSocket, { WebSocketServer } from 'ws';

import { ApiError, Client } from '../../dist/index.js';
import { decodeClientBincode } from '../../dist/wire/bincode-client.js';
import { encodeServerBincode } from '../../dist/wire/bincode-server.js';
import { decodeClientJson } from '../../dist/wire/json-client.js';
import { startServer } from '../helpers/server.mjs';
import { startMovingRelay } from '../helpers/moving.mjs';
import { RandomEditor, serverNodes } from '../helpers/random-edits.mjs';
import { nextEvent, sleep, until } from '../helpers/wait.mjs';

let server;
let http;
before(async () => {
  server = await startServer();
  http = new Client(server.url);
});
after(() => server.stop());

/** A `ws` WebSocket recording every message the client sends, decoded. */
function spyWebSocket(log) {
  return class extends WebSocket {
    send(data) {
      log.push(typeof data === 'string' ? decodeClientJson(data) : decodeClientBincode(new Uint8Array(data)));
      super.send(data);
    }
  };
}

async function converged(conn, room) {
  await until('the mirror to equal the server', async () =>
    JSON.stringify(conn.mirror.toSortedArray()) === JSON.stringify(await serverNodes(http, room)));
  assert.equal(conn.mirror.inconsistencies, 0);
}

for (const format of ['bincode', 'json']) {
  test(`${format}: closed "moving" (4002) reconnects, waits out the 503s, resumes with since and converges`, async (t) => {
    const room = `moving-${format}`;
    await http.createRoom({ id: room });
    const relay = await startMovingRelay(server.port);
    const sent = [];
    const conn = await new Client(relay.url).connect(room, {
      WebSocket: spyWebSocket(sent),
      format,
      backoff: { initialMs: 20, maxMs: 200 },
    });
    const editor = await http.connect(room, { WebSocket });
    t.after(() => Promise.all([conn.close(), editor.close(), relay.close()]));
    await conn.subscribe();

    // Edits go on at the server (the room's new owner) throughout the move.
    const gen = new RandomEditor(format === 'json' ? 21 : 23);
    let editing = true;
    const edits = (async () => {
      while (editing) {
        await editor.edit(gen.batch(10));
        await sleep(5);
      }
    })();
    await until('some frames', () => conn.mirror.size > 20);

    const stopped = [];
    conn.on('stopped', (info) => stopped.push(info));
    const dropped = nextEvent(conn, 'disconnected');
    const resynced = nextEvent(conn, 'resynced');
    let heldTick;
    conn.on('disconnected', () => (heldTick ??= conn.mirror.tick));
    const movedAt = Date.now();
    relay.move(1500);
    const [{ error }] = await dropped;
    assert.match(error, /4002/);
    assert.equal(conn.state, 'reconnecting');

    const [info] = await resynced;
    assert.equal(conn.state, 'connected');
    assert.deepEqual(stopped, []);
    // Nothing got through before the room was served again...
    assert.ok(Date.now() - movedAt >= 1500);
    // ...and every attempt after a 503 came at least Retry-After (1 s) later.
    const log = relay.log.filter((r) => r.at >= movedAt);
    const refused = log.filter((r) => r.status === 503);
    assert.ok(refused.length >= 1, 'the client met the move');
    for (let i = 1; i < log.length; i++) {
      const gap = log[i].at - log[i - 1].at;
      if (log[i - 1].status === 503) assert.ok(gap >= 1000, `an attempt ${gap} ms after a 503 with Retry-After: 1`);
    }
    // The resubscribe resumed from the tick the mirror held (a resumed delta, or a
    // snapshot when the server cannot: either is applied).
    const resub = sent.filter((m) => m.type === 'subscribe').at(-1);
    assert.equal(resub.since, heldTick);
    assert.equal(typeof info.resumed, 'boolean');

    editing = false;
    await edits;
    await converged(conn, room);
    await conn.ping();
  });
}

test('a 503 during a reconnect is retried after its Retry-After, however many come', async (t) => {
  const room = 'moving-long';
  await http.createRoom({ id: room });
  await http.edit(room, [{ op: 'add', id: 1 }]);
  const relay = await startMovingRelay(server.port, { retryAfter: '1' });
  const conn = await new Client(relay.url).connect(room, { WebSocket, backoff: { initialMs: 10, maxMs: 50 } });
  t.after(() => Promise.all([conn.close(), relay.close()]));
  await conn.subscribe();
  const resynced = nextEvent(conn, 'resynced');
  const movedAt = Date.now();
  relay.move(3200);
  await resynced;
  const attempts = relay.log.filter((r) => r.at >= movedAt);
  const refused = attempts.filter((r) => r.status === 503);
  // At about 0, 1-1.2, 2-2.4 s (and perhaps 3-3.6 s): three or four refusals, each
  // followed by a wait of at least a second, however short the backoff is.
  assert.ok(refused.length >= 3 && refused.length <= 4, `${refused.length} refusals`);
  for (let i = 1; i < attempts.length; i++) {
    if (attempts[i - 1].status === 503) assert.ok(attempts[i].at - attempts[i - 1].at >= 1000, JSON.stringify(attempts));
  }
  assert.equal(conn.state, 'connected');
  await until('node 1', () => conn.mirror.has(1));
});

test('a room gone after a move (404 unknown_room) stops the connection', async (t) => {
  const room = 'moving-gone';
  await http.createRoom({ id: room });
  const relay = await startMovingRelay(server.port);
  const conn = await new Client(relay.url).connect(room, { WebSocket, backoff: { initialMs: 10, maxMs: 50 } });
  t.after(() => Promise.all([conn.close(), relay.close()]));
  await conn.subscribe();
  const stopped = nextEvent(conn, 'stopped');
  relay.move(300);
  await http.deleteRoom(room);
  const [{ reason }] = await stopped;
  assert.match(reason, /unknown_room/);
  await assert.rejects(conn.ping(), (e) => e.name === 'StoppedError');
});

test('opening a connection while the room is between owners fails with the 503 and its Retry-After', async (t) => {
  const room = 'moving-open';
  await http.createRoom({ id: room });
  const relay = await startMovingRelay(server.port, { retryAfter: '2' });
  t.after(() => relay.close());
  relay.move(5000);
  await assert.rejects(new Client(relay.url).connect(room, { WebSocket }), (e) =>
    e instanceof ApiError && e.status === 503 && e.code === 'overloaded' && e.retryAfterMs === 2000);
});

for (const [status, code] of [[401, 'unauthorized'], [403, 'forbidden']]) {
  test(`a reconnect after a move refused with ${status} ${code} stops the connection`, async (t) => {
    // A fake node: the first GET and upgrade succeed; after the move the token is refused.
    let gets = 0;
    const wss = new WebSocketServer({ noServer: true, handleProtocols: (p) => [...p][0] ?? false });
    const fake = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (gets++ === 0) return res.end(JSON.stringify({ id: 'r', tick: 0, nodes: 0, subscribers: 0, tick_hz: 30, tick_ms: 0 }));
      res.statusCode = status;
      res.end(JSON.stringify({ error: { code, message: 'no' } }));
    });
    let upgrades = 0;
    fake.on('upgrade', (req, socket, head) => {
      if (upgrades++ > 0) return socket.end(`HTTP/1.1 ${status} No\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
      wss.handleUpgrade(req, socket, head, (ws) => {
        ws.send(encodeServerBincode({ type: 'closed', reason: 'moving' }));
        ws.close(4002, 'moving');
      });
    });
    await new Promise((r) => fake.listen(0, '127.0.0.1', r));
    t.after(() => new Promise((r) => {
      fake.close(r);
      fake.closeAllConnections();
    }));
    const stopped = [];
    const conn = await new Client(`http://127.0.0.1:${fake.address().port}`).connect('r', { WebSocket, backoff: { initialMs: 10 } });
    conn.on('stopped', (info) => stopped.push(info.reason));
    await until('the connection to stop', () => conn.state === 'stopped');
    assert.equal(stopped.length, 1);
    assert.match(stopped[0], new RegExp(`reconnect refused: ${code}`));
  });
}
