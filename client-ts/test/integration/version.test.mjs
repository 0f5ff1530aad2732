// Version negotiation against fake servers (the real one selects the subprotocol once
// the lead's change lands; these pin the client's side of every case): a server that
// selects `canopy.1` is accepted; one that selects none (older) is accepted; one that
// selects another protocol, or names another major in /healthz, is refused with a
// VersionMismatchError that names both versions.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import WebSocket, { WebSocketServer } from 'ws';

import { Connection, VersionMismatchError, WS_SUBPROTOCOL, PROTOCOL_VERSION } from '../../dist/index.js';

/** A fake server: `select(offered)` picks the subprotocol; `health` is the /healthz body. */
async function fakeServer(select, health) {
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (offered) => select([...offered]) });
  const offers = [];
  const http = createServer((req, res) => {
    if (req.url === '/healthz') return res.end(health);
    res.statusCode = 404;
    res.end('{"error":{"code":"not_found","message":"no"}}');
  });
  http.on('upgrade', (req, socket, head) => {
    offers.push(req.headers['sec-websocket-protocol'] ?? '');
    wss.handleUpgrade(req, socket, head, (ws) => ws.on('message', () => {}));
  });
  await new Promise((r) => http.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${http.address().port}`,
    offers,
    close: () => {
      for (const c of wss.clients) c.terminate();
      return new Promise((r) => http.close(r));
    },
  };
}

test('a server that selects canopy.1 is accepted', async () => {
  const s = await fakeServer((o) => (o.includes(WS_SUBPROTOCOL) ? WS_SUBPROTOCOL : false), 'ok');
  const conn = await Connection.open(s.url, 'r', { WebSocket, reconnect: false });
  assert.deepEqual(s.offers, [WS_SUBPROTOCOL]);
  await conn.close();
  await s.close();
});

test('an older server that selects no subprotocol is accepted', async () => {
  const s = await fakeServer(() => false, 'ok');
  const conn = await Connection.open(s.url, 'r', { WebSocket, reconnect: false });
  assert.equal(conn.state, 'connected');
  // The offer was refused by the WebSocket client; the second attempt offered nothing.
  assert.deepEqual(s.offers, [WS_SUBPROTOCOL, '']);
  await conn.close();
  await s.close();
});

test('a server of another major is refused, naming both versions', async () => {
  const s = await fakeServer((o) => (o.length ? 'canopy.2' : false), JSON.stringify({ status: 'ok', version: '9.0.0', protocol: '2.0' }));
  await assert.rejects(Connection.open(s.url, 'r', { WebSocket, reconnect: false }), (e) => {
    assert.ok(e instanceof VersionMismatchError, String(e));
    assert.match(e.message, new RegExp(PROTOCOL_VERSION.replace('.', '\\.')));
    assert.match(e.message, /2\.0/);
    return true;
  });
  await s.close();
});

test('a lenient WebSocket that reports another selected protocol is refused', async () => {
  const s = await fakeServer(() => false, 'ok');
  class Lenient extends WebSocket {
    get protocol() {
      return 'canopy.7';
    }
  }
  await assert.rejects(Connection.open(s.url, 'r', { WebSocket: Lenient, reconnect: false }), (e) =>
    e instanceof VersionMismatchError && /canopy\.7/.test(e.message) && /canopy\.1/.test(e.message));
  await s.close();
});
