// A Connection against a real server, in both formats: subscribe and the snapshot,
// deltas and their events, edits matched to acks or typed errors, queries matched by id,
// ping, changing and ending the subscription.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';

import { ApiError, Client, Connection, follow, region, wholeRoom } from '../../dist/index.js';
import { startServer } from '../helpers/server.mjs';
import { nextEvent, until } from '../helpers/wait.mjs';

let server;
let http;
before(async () => {
  server = await startServer();
  http = new Client(server.url);
});
after(() => server.stop());

for (const format of ['bincode', 'json']) {
  test(`${format}: subscribe, edit, events, queries, ping`, async (t) => {
    const room = `ws-${format}`;
    await http.createRoom({ id: room });
    await http.edit(room, [{ op: 'add', id: 1, local: { t: [1, 0, 0] }, extent: [0.5, 0.5, 0.5] }]);
    const conn = await http.connect(room, { WebSocket, format });
    t.after(() => conn.close());
    assert.equal(conn.format, format);
    const seen = [];
    conn.on('entered', (id) => seen.push(['entered', id]));
    conn.on('updated', (id, slot) => seen.push(['updated', id, conn.mirror.world[slot * 8]]));
    conn.on('left', (id) => seen.push(['left', id]));
    conn.on('changed', (id) => seen.push(['changed', id]));

    const tick = await conn.subscribe(wholeRoom());
    assert.ok(tick >= 1);
    assert.deepEqual(seen, [['entered', 1]]);
    assert.equal(conn.mirror.size, 1);
    assert.deepEqual(conn.mirror.get(1).world.t, [1, 0, 0]);

    seen.length = 0;
    const ack = await conn.edit([
      { op: 'add', id: 2, parent: 1, local: { t: [0, 1, 0] } },
      { op: 'set_local', node: 1, t: [5, 0, 0] },
    ]);
    assert.deepEqual(ack.ids, [2]);
    await until('the delta of the edit', () => conn.mirror.tick >= ack.tick);
    assert.deepEqual(conn.mirror.get(2).world.t, [5, 1, 0]);
    assert.deepEqual(seen.filter((e) => e[0] === 'entered'), [['entered', 2]]);
    assert.deepEqual(seen.filter((e) => e[0] === 'updated'), [['updated', 1, 5]]);

    // Errors are typed, with the op index, and matched to their own request.
    const [bad, good] = await Promise.allSettled([
      conn.edit([{ op: 'add', id: 3 }, { op: 'remove', node: 404 }]),
      conn.edit([{ op: 'set_shape', node: 2, mask: 4 }]),
    ]);
    assert.ok(bad.reason instanceof ApiError);
    assert.equal(bad.reason.code, 'unknown_node');
    assert.equal(bad.reason.op, 1);
    assert.equal(good.status, 'fulfilled');
    await until('the mask change', () => conn.mirror.get(2)?.mask === 4);
    assert.ok(seen.some((e) => e[0] === 'changed' && e[1] === 2));
    assert.equal(conn.mirror.has(3), false);

    // Queries are matched by id, even when answered out of order with errors between.
    const answers = await Promise.allSettled([
      conn.queryRegion({ min: [4, -1, -1], max: [6, 2, 1] }),
      conn.queryNearest({ point: [0, 0, 0], k: 0 }),
      conn.queryRay({ origin: [5, -10, 0], dir: [0, 1, 0], all: true }),
      conn.querySphere({ center: [5, 1, 0], radius: 0.01, mask: 4 }),
      conn.query({ kind: 'nearest', point: [5, 1, 0], k: 1 }),
    ]);
    assert.deepEqual(answers[0].value.nodes, [1, 2]);
    assert.equal(answers[1].reason.code, 'invalid_value');
    assert.deepEqual(answers[2].value.hits.map((h) => h.node), [1, 2]);
    assert.deepEqual(answers[3].value.nodes, [2]);
    assert.equal(answers[4].value.kind, 'nearest');
    assert.deepEqual(answers[4].value.hits.map((h) => h.node), [2]);

    const pong = await conn.ping();
    assert.ok(pong.tick >= ack.tick);

    // Narrowing the scope: the new snapshot replaces the copy, reporting the difference.
    seen.length = 0;
    await conn.subscribe(region([4, -1, -1], [6, 0.6, 1]));
    assert.deepEqual([...conn.mirror.entries()].map(([id]) => id), [1]);
    assert.deepEqual(seen, [['left', 2]]);
    await conn.unsubscribe();
    assert.equal(conn.mirror.size, 0);
    assert.equal(conn.scope, null);
    await conn.close();
    assert.equal(conn.state, 'stopped');
    await assert.rejects(conn.ping(), /stopped/);
  });
}

test('a deleted room stops the connection', async () => {
  await http.createRoom({ id: 'ws-deleted' });
  const conn = await http.connect('ws-deleted', { WebSocket });
  await conn.subscribe();
  const stopped = nextEvent(conn, 'stopped');
  await http.deleteRoom('ws-deleted');
  const [{ reason }] = await stopped;
  assert.match(reason, /deleted/);
  assert.equal(conn.state, 'stopped');
});

test('opening a connection to an unknown room fails at once with its code', async () => {
  await assert.rejects(Connection.open(server.url, 'no-such-room', { WebSocket }), (e) => e instanceof ApiError && e.code === 'unknown_room');
});

test('the mirror can be read without copying', async () => {
  await http.createRoom({ id: 'ws-views' });
  await http.edit('ws-views', [{ op: 'add', id: 7, local: { t: [1, 2, 3], s: 2 }, extent: [1, 1, 1], mask: 3 }]);
  const conn = await http.connect('ws-views', { WebSocket });
  await conn.subscribe();
  const slot = conn.mirror.slotOf(7);
  assert.deepEqual(Array.from(conn.mirror.world.subarray(slot * 8, slot * 8 + 8)), [1, 2, 3, 0, 0, 0, 1, 2]);
  assert.equal(conn.mirror.mask[slot], 3);
  assert.equal(conn.mirror.parent[slot], -1);
  await conn.close();
});

for (const format of ['bincode', 'json']) {
  test(`${format}: v1.2 queries around a node, and a v1.2 subscribe the server reads`, async (t) => {
    const room = `ws-v12-${format}`;
    await http.createRoom({ id: room });
    await http.edit(room, [
      { op: 'add', id: 1, local: { t: [0, 0, 0] } },
      { op: 'add', id: 2, local: { t: [3, 0, 0] } },
      { op: 'add', id: 3, local: { t: [30, 0, 0] } },
    ]);
    const conn = await http.connect(room, { WebSocket, format });
    t.after(() => conn.close());
    assert.deepEqual((await conn.querySphere({ around: 2, radius: 4 })).nodes, [1, 2]);
    assert.deepEqual((await conn.queryNearest({ around: 3, k: 2 })).hits.map((h) => h.node), [3, 2]);
    await assert.rejects(conn.queryNearest({ around: 99, k: 1 }), (e) => e instanceof ApiError && e.code === 'unknown_node');

    // A server that serves v1.2 scopes answers with a snapshot; one that does not yet
    // refuses them by name, which shows it read the message (a frame it could not
    // decode would be a bad_request about the bytes).
    const scope = { ...follow(1, 5), sendHz: 10, tiers: [{ within: 2, every: 1 }, { every: 4 }] };
    try {
      await conn.subscribe(scope);
      assert.deepEqual([...conn.mirror.entries()].map(([id]) => id).sort(), [1, 2]);
    } catch (e) {
      assert.ok(e instanceof ApiError && e.code === 'bad_request' && /follow|not supported/.test(e.message), String(e));
    }
    assert.deepEqual(conn.scope, { region: null, mask: 0xffffffff, encoding: 'exact', follow: { node: 1, radius: 5 }, sendHz: 10, tiers: scope.tiers });
    assert.equal(conn.state, 'connected');
  });
}
