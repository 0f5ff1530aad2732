// The mirror converges with the server's own state (`GET /rooms/{room}/nodes`, and the
// server's region query for region scopes) under random edits from a second client, in
// both formats; and again after the network drops in the middle of the stream, without
// the caller's help, while every request in flight at the drop fails instead of hanging.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';

import { Client, DisconnectedError, region, wholeRoom } from '../../dist/index.js';
import { decodeClientBincode } from '../../dist/wire/bincode-client.js';
import { decodeClientJson } from '../../dist/wire/json-client.js';
import { startServer } from '../helpers/server.mjs';
import { startProxy } from '../helpers/proxy.mjs';
import { RandomEditor, serverNodes, serverScope } from '../helpers/random-edits.mjs';
import { nextEvent, until } from '../helpers/wait.mjs';

let server;
let http;
before(async () => {
  server = await startServer();
  http = new Client(server.url);
});
after(() => server.stop());

/** A `ws` WebSocket that records every message the client sends, decoded (and every URL it opens). */
function spyWebSocket(log, urls = []) {
  return class extends WebSocket {
    constructor(url, ...rest) {
      super(url, ...rest);
      urls.push(new URL(url));
    }
    send(data) {
      log.push(typeof data === 'string' ? decodeClientJson(data) : decodeClientBincode(new Uint8Array(data)));
      super.send(data);
    }
  };
}

async function converged(conn, expected) {
  let want;
  await until('the mirror to equal the server', async () => {
    want = await expected();
    return JSON.stringify(conn.mirror.toSortedArray()) === JSON.stringify(want);
  });
  assert.equal(conn.mirror.inconsistencies, 0);
  return want;
}

for (const format of ['bincode', 'json']) {
  test(`${format}: mirrors converge under random edits from another client`, async (t) => {
    const room = `converge-${format}`;
    await http.createRoom({ id: room });
    const whole = await http.connect(room, { WebSocket, format });
    const scope = region([-40, -40, -40], [40, 40, 40], 0b011);
    const part = await http.connect(room, { WebSocket, format });
    const editor = await http.connect(room, { WebSocket });
    t.after(() => Promise.all([whole.close(), part.close(), editor.close()]));
    await whole.subscribe(wholeRoom());
    await part.subscribe(scope);

    const gen = new RandomEditor(format === 'json' ? 7 : 11);
    for (let i = 0; i < 40; i++) await editor.edit(gen.batch(25));
    const nodes = await converged(whole, () => serverNodes(http, room));
    assert.ok(nodes.length > 50, `only ${nodes.length} nodes`);
    const inRegion = await converged(part, () => serverScope(http, room, scope));
    assert.ok(inRegion.length > 0 && inRegion.length < nodes.length);
  });
}

for (const format of ['bincode', 'json']) {
  test(`${format}: a drop mid-stream fails requests in flight, then the mirror resyncs by itself`, async (t) => {
    const room = `drop-${format}`;
    await http.createRoom({ id: room });
    const proxy = await startProxy(server.port);
    const sent = [];
    const conn = await new Client(proxy.url).connect(room, {
      WebSocket: spyWebSocket(sent),
      format,
      backoff: { initialMs: 20, maxMs: 200 },
    });
    const editor = await http.connect(room, { WebSocket });
    t.after(() => Promise.all([conn.close(), editor.close(), proxy.close()]));
    await conn.subscribe();

    // A stream of edits, still running while the network drops.
    const gen = new RandomEditor(format === 'json' ? 3 : 5);
    let editing = true;
    const edits = (async () => {
      while (editing) await editor.edit(gen.batch(20));
    })();
    await until('some frames', () => conn.mirror.size > 30);

    // Requests whose answers cannot come back, then the cut.
    proxy.hold();
    const inFlight = [conn.ping(), conn.edit([{ op: 'add' }]), conn.queryRegion({ min: [0, 0, 0], max: [1, 1, 1] })];
    await until('the requests to reach the server', () => sent.length >= 4);
    const dropped = nextEvent(conn, 'disconnected');
    const resynced = nextEvent(conn, 'resynced');
    // The tick the mirror held when the drop was noticed (frames already on their way
    // through the proxy may still land before the cut).
    let heldTick;
    conn.on('disconnected', () => (heldTick ??= conn.mirror.tick));
    proxy.cut();
    for (const r of await Promise.allSettled(inFlight)) {
      assert.equal(r.status, 'rejected');
      assert.ok(r.reason instanceof DisconnectedError, String(r.reason));
    }
    await dropped;
    // While it reconnects, requests fail at once rather than queue.
    await assert.rejects(conn.ping(), DisconnectedError);

    const [info] = await resynced;
    assert.equal(conn.state, 'connected');
    // The resubscribe asked to resume from the tick the mirror held; the server answers
    // with a snapshot (it does not resume yet) or a resuming delta, and either is applied.
    const resub = sent.filter((m) => m.type === 'subscribe').at(-1);
    assert.equal(resub.since, heldTick);
    assert.equal(typeof info.resumed, 'boolean');

    editing = false;
    await edits;
    await converged(conn, () => serverNodes(http, room));
    await conn.ping();
  });
}

test('a resume never crosses room instances: a room deleted and created again while away gets a snapshot', async (t) => {
  const room = 'reborn';
  const place = (xs) => xs.map((x, i) => ({ op: 'add', id: i + 1, local: { t: [x, 0, 0] } }));
  await http.createRoom({ id: room });
  await http.edit(room, place([1, 2, 3, 4, 5]));
  const proxy = await startProxy(server.port);
  const sent = [];
  const urls = [];
  const conn = await new Client(proxy.url).connect(room, {
    WebSocket: spyWebSocket(sent, urls),
    backoff: { initialMs: 20, maxMs: 100 },
  });
  t.after(() => Promise.all([conn.close(), proxy.close()]));
  await conn.subscribe();
  await until('the nodes', () => conn.mirror.size === 5);
  const before = (await http.getRoom(room)).instance;
  assert.match(before, /^[0-9a-f]{16}$/);
  assert.equal(urls[0].searchParams.get('instance'), null, 'nothing to resume on the first socket');

  // While the client cannot hear the server (and cannot reconnect), its room is
  // deleted and created again with the same ids elsewhere, ticked past the held tick.
  proxy.block();
  proxy.hold();
  const resynced = nextEvent(conn, 'resynced');
  await http.deleteRoom(room);
  await http.createRoom({ id: room });
  await http.edit(room, place([10, 20, 30]));
  const heldTick = conn.mirror.tick;
  while ((await http.getRoom(room)).tick <= heldTick + 2) {
    await http.edit(room, [{ op: 'set_local', node: 1, t: [10, 1, 0] }]);
  }
  const after = (await http.getRoom(room)).instance;
  assert.notEqual(after, before);
  proxy.cut();
  proxy.unblock();

  const [info] = await resynced;
  // The client asked to resume from its tick on the old instance; the server saw the
  // instance had changed and sent a snapshot, so the mirror is the new room's.
  assert.equal(urls.at(-1).searchParams.get('instance'), before);
  assert.equal(sent.filter((m) => m.type === 'subscribe').at(-1).since, heldTick);
  assert.equal(info.resumed, false);
  await converged(conn, () => serverNodes(http, room));
  assert.equal(conn.mirror.size, 3);
});
