// The HTTP client against a real server: every route, and errors arriving as typed
// ApiErrors with the contract's codes, statuses and op indices.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { ApiError, Client, UnexpectedStatusError } from '../../dist/index.js';
import { startServer } from '../helpers/server.mjs';

let server;
let client;
before(async () => {
  server = await startServer();
  client = new Client(server.url);
});
after(() => server.stop());

test('health, metrics and rooms', async () => {
  const health = await client.health();
  assert.ok(health.status === 'ok' || health.status === 'ready', JSON.stringify(health));
  assert.match(await client.metrics(), /canopy_/);
  const created = await client.createRoom({ id: 'http-rooms', tick_hz: 20 });
  assert.deepEqual(created, { id: 'http-rooms', tick_hz: 20 });
  assert.equal(await client.ensureRoom('http-rooms'), false);
  assert.equal(await client.ensureRoom('http-rooms-2'), true);
  const ids = (await client.listRooms()).map((r) => r.id);
  assert.ok(ids.includes('http-rooms') && ids.includes('http-rooms-2'));
  const detail = await client.getRoom('http-rooms');
  assert.equal(detail.tick_hz, 20);
  assert.equal(typeof detail.tick_ms, 'number');
  await client.deleteRoom('http-rooms-2');
  await assert.rejects(client.getRoom('http-rooms-2'), (e) => e instanceof ApiError && e.code === 'unknown_room' && e.status === 404);
});

test('edits, nodes and the four queries', async () => {
  await client.createRoom({ id: 'http-edits' });
  const ack = await client.edit('http-edits', [
    { op: 'add', id: 1, local: { t: [10, 0, 0], r: [0, 0, 0.7071068, 0.7071068] }, extent: [1, 1, 1] },
    { op: 'add', id: 2, parent: 1, local: { t: [2, 0, 0], s: 0.5 }, extent: [1, 1, 1], mask: 2 },
    { op: 'add' },
  ]);
  assert.equal(ack.ids.length, 3);
  assert.deepEqual(ack.ids.slice(0, 2), [1, 2]);
  assert.ok(ack.tick >= 1);

  const two = await client.node('http-edits', 2);
  assert.equal(two.parent, 1);
  assert.deepEqual(two.children, []);
  assert.ok(Math.abs(two.world.t[0] - 10) < 1e-5 && Math.abs(two.world.t[1] - 2) < 1e-5);
  const all = await client.nodes('http-edits');
  assert.deepEqual(all.nodes.map((n) => n.id).sort((a, b) => a - b), [...ack.ids].sort((a, b) => a - b));

  const region = await client.queryRegion('http-edits', { min: [9, -1, -1], max: [11, 1, 1] });
  assert.deepEqual(region.nodes, [1]);
  const sphere = await client.querySphere('http-edits', { center: [10, 2, 0], radius: 0.1, mask: 2 });
  assert.deepEqual(sphere.nodes, [2]);
  const ray = await client.queryRay('http-edits', { origin: [10, -10, 0], dir: [0, 1, 0], all: true });
  assert.deepEqual(ray.hits.map((h) => h.node), [1, 2]);
  assert.ok(Math.abs(ray.hits[0].t - 9) < 1e-4);
  const nearest = await client.queryNearest('http-edits', { point: [10, 20, 0], k: 1 });
  assert.deepEqual(nearest.hits.map((h) => h.node), [2]);
  const any = await client.query('http-edits', { kind: 'nearest', point: [0, 0, 0], k: 3, max_dist: 1e6 });
  assert.equal(any.kind, 'nearest');
  assert.equal(any.hits.length, 3);
  // (v1.2) Sphere and nearest queries measured from a node's world position.
  // Node 2's box is 1.5 from node 1's origin.
  assert.deepEqual((await client.querySphere('http-edits', { around: 1, radius: 1.4, mask: 2 })).nodes, [1]);
  assert.deepEqual((await client.querySphere('http-edits', { around: 1, radius: 1.6, mask: 2 })).nodes, [1, 2]);
  const aroundNearest = await client.queryNearest('http-edits', { around: 2, k: 2 });
  assert.deepEqual(aroundNearest.hits.map((h) => h.node), [2, 1]);
  await assert.rejects(client.querySphere('http-edits', { around: 404, radius: 1 }), (e) => e instanceof ApiError && e.code === 'unknown_node');
});

test('errors carry the contract codes, statuses and op index', async () => {
  await client.createRoom({ id: 'http-errors' });
  const is = (code, status, op) => (e) => {
    assert.ok(e instanceof ApiError, String(e));
    assert.equal(e.code, code);
    assert.equal(e.status, status);
    if (op !== undefined) assert.equal(e.op, op);
    return true;
  };
  await assert.rejects(client.createRoom({ id: 'http-errors' }), is('room_exists', 409));
  await assert.rejects(client.createRoom({ id: 'bad id!' }), is('bad_request', 400));
  await assert.rejects(client.createRoom({ tick_hz: 0 }), is('invalid_value', 400));
  await assert.rejects(client.nodes('nope'), is('unknown_room', 404));
  await assert.rejects(client.node('http-errors', 99), is('unknown_node', 404));
  await client.edit('http-errors', [{ op: 'add', id: 1 }, { op: 'add', id: 2, parent: 1 }]);
  await assert.rejects(
    client.edit('http-errors', [{ op: 'set_local', node: 1, t: [1, 1, 1] }, { op: 'set_parent', node: 1, parent: 2 }]),
    is('cycle', 409, 1),
  );
  await assert.rejects(client.edit('http-errors', [{ op: 'remove', node: 7 }]), is('unknown_node', 400, 0));
  await assert.rejects(client.edit('http-errors', [{ op: 'add', id: 1 }]), is('duplicate_id', 409, 0));
  await assert.rejects(client.edit('http-errors', [{ op: 'set_local', node: 1, s: -1 }]), is('invalid_value', 400, 0));
  await assert.rejects(client.queryNearest('http-errors', { point: [0, 0, 0], k: 0 }), is('invalid_value', 400));
  // The batch with the cycle was not applied in part: node 1 kept its translation.
  assert.deepEqual((await client.node('http-errors', 1)).local.t, [0, 0, 0]);
  // v1.1 codes for routing failures, when the server has them; older servers answer
  // with a bare status, which is an UnexpectedStatusError, never a silent success.
  await assert.rejects(client.send('GET', ['no', 'such', 'route']), (e) =>
    (e instanceof ApiError && e.code === 'not_found' && e.status === 404) || (e instanceof UnexpectedStatusError && e.status === 404));
  await assert.rejects(client.send('PUT', ['rooms']), (e) =>
    (e instanceof ApiError && e.code === 'method_not_allowed' && e.status === 405) || (e instanceof UnexpectedStatusError && e.status === 405));
});
