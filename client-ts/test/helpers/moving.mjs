// A stand-in for the cluster node a client talks to, in front of a real `canopy`
// server, that can play a room moving to another node: `move()` sends each WebSocket
// client `closed` "moving" (in its connection's format) and closes it with 4002, and
// for `forMs` afterwards answers the room's HTTP requests and upgrades as a node does
// while a room is between owners: `503` `overloaded`, with `Retry-After`. Outside a
// move it passes HTTP through and relays WebSocket messages both ways, one message at a
// time, so it can speak for the server at any message boundary.
//
// `log` records every request with its local time and the status given, so a test can
// check how long the client waited after a 503.

import { createServer, request } from 'node:http';
import WebSocket, { WebSocketServer } from 'ws';

import { encodeServerBincode } from '../../dist/wire/bincode-server.js';

export const MOVING_CLOSE_CODE = 4002;

export async function startMovingRelay(targetPort, { retryAfter = '1' } = {}) {
  const log = [];
  const pairs = new Set();
  let movingUntil = 0;
  const moving = () => Date.now() < movingUntil;
  const body = JSON.stringify({ error: { code: 'overloaded', message: 'the room is moving to another node: try again' } });
  const refusal = { 'content-type': 'application/json', 'retry-after': retryAfter, 'content-length': Buffer.byteLength(body) };

  const http = createServer((req, res) => {
    if (moving() && req.url.startsWith('/rooms/')) {
      log.push({ at: Date.now(), kind: 'http', url: req.url, status: 503 });
      res.writeHead(503, refusal).end(body);
      return;
    }
    const up = request({ host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.headers }, (r) => {
      log.push({ at: Date.now(), kind: 'http', url: req.url, status: r.statusCode });
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });

  const wss = new WebSocketServer({ noServer: true, handleProtocols: (offered) => [...offered][0] ?? false });
  http.on('upgrade', (req, socket, head) => {
    if (moving()) {
      log.push({ at: Date.now(), kind: 'upgrade', url: req.url, status: 503 });
      const lines = Object.entries(refusal).map(([k, v]) => `${k}: ${v}`);
      socket.end(`HTTP/1.1 503 Service Unavailable\r\n${lines.join('\r\n')}\r\nconnection: close\r\n\r\n${body}`);
      return;
    }
    const offered = req.headers['sec-websocket-protocol']?.split(',').map((p) => p.trim()) ?? [];
    const upstream = new WebSocket(`ws://127.0.0.1:${targetPort}${req.url}`, offered);
    upstream.on('error', () => socket.destroy());
    upstream.once('open', () => {
      log.push({ at: Date.now(), kind: 'upgrade', url: req.url, status: 101 });
      wss.handleUpgrade(req, socket, head, (client) => {
        const json = new URL(req.url, 'http://x').searchParams.get('format') === 'json';
        const pair = { client, upstream, json };
        pairs.add(pair);
        client.on('message', (data, binary) => upstream.readyState === WebSocket.OPEN && upstream.send(data, { binary }));
        upstream.on('message', (data, binary) => client.readyState === WebSocket.OPEN && client.send(data, { binary }));
        const end = () => {
          pairs.delete(pair);
          client.terminate();
          upstream.terminate();
        };
        client.on('close', end);
        upstream.on('close', end);
        client.on('error', end);
      });
    });
  });

  await new Promise((r) => http.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${http.address().port}`,
    log,
    /** WebSocket connections relayed right now. */
    get sockets() {
      return pairs.size;
    },
    /** The room moves: every socket gets `closed` "moving" and 4002; then 503s for `forMs`. */
    move(forMs) {
      movingUntil = Date.now() + forMs;
      for (const { client, upstream, json } of [...pairs]) {
        const closed = { type: 'closed', reason: 'moving' };
        client.send(json ? JSON.stringify(closed) : encodeServerBincode(closed));
        client.close(MOVING_CLOSE_CODE, 'moving');
        upstream.close(1000);
      }
    },
    close() {
      for (const { client, upstream } of pairs) {
        client.terminate();
        upstream.terminate();
      }
      return new Promise((r) => {
        http.close(r);
        http.closeAllConnections();
      });
    },
  };
}
