// Access control with `--admin-token`: the admin token may do everything and gets room
// tokens from `POST /rooms`; an editor token edits, subscribes and queries in its room;
// a viewer token only subscribes and queries; missing tokens are 401, wrong ones 403,
// over HTTP and for WebSocket connections alike.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';

import { ApiError, Client, Connection } from '../../dist/index.js';
import { startServer } from '../helpers/server.mjs';
import { until } from '../helpers/wait.mjs';

const ADMIN = 'admin-secret-for-tests';
let server;
before(async () => {
  server = await startServer(['--admin-token', ADMIN]);
});
after(() => server.stop());

const refused = (code, status) => (e) => e instanceof ApiError && e.code === code && (status === undefined || e.status === status);

test('tokens over HTTP', async () => {
  const admin = new Client(server.url, { token: ADMIN });
  const created = await admin.createRoom({ id: 'auth-http' });
  assert.equal(typeof created.editor_token, 'string');
  assert.equal(typeof created.viewer_token, 'string');
  await assert.rejects(new Client(server.url).listRooms(), refused('unauthorized', 401));
  await assert.rejects(new Client(server.url, { token: 'wrong' }).listRooms(), refused('forbidden', 403));
  // /healthz stays open.
  assert.ok((await new Client(server.url).health()).status);

  const editor = new Client(server.url, { token: created.editor_token });
  const viewer = new Client(server.url, { token: created.viewer_token });
  const ack = await editor.edit('auth-http', [{ op: 'add', id: 1 }]);
  assert.deepEqual(ack.ids, [1]);
  await assert.rejects(viewer.edit('auth-http', [{ op: 'add', id: 2 }]), refused('forbidden', 403));
  assert.deepEqual((await viewer.queryRegion('auth-http', { min: [-1, -1, -1], max: [1, 1, 1] })).nodes, [1]);
  await assert.rejects(editor.createRoom({ id: 'not-yours' }), refused('forbidden', 403));

  const other = await admin.createRoom({ id: 'auth-other' });
  await assert.rejects(new Client(server.url, { token: other.editor_token }).nodes('auth-http'), refused('forbidden', 403));
});

test('tokens over WebSocket', async (t) => {
  const admin = new Client(server.url, { token: ADMIN });
  const { editor_token: ed, viewer_token: vw } = await admin.createRoom({ id: 'auth-ws' });
  await assert.rejects(Connection.open(server.url, 'auth-ws', { WebSocket }), refused('unauthorized', 401));
  await assert.rejects(Connection.open(server.url, 'auth-ws', { WebSocket, token: 'nope' }), refused('forbidden', 403));

  const editor = await new Client(server.url, { token: ed }).connect('auth-ws', { WebSocket });
  const viewer = await Connection.open(server.url, 'auth-ws', { WebSocket, token: vw, format: 'json' });
  t.after(() => Promise.all([editor.close(), viewer.close()]));
  await viewer.subscribe();
  const ack = await editor.edit([{ op: 'add', id: 5, local: { t: [1, 2, 3] } }]);
  await until('the viewer to see the node', () => viewer.mirror.tick >= ack.tick && viewer.mirror.has(5));
  await assert.rejects(viewer.edit([{ op: 'remove', node: 5 }]), refused('forbidden'));
  assert.deepEqual((await viewer.queryNearest({ point: [1, 2, 3], k: 1 })).hits.map((h) => h.node), [5]);
});
