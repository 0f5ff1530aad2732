// A small web server for browser pages: it serves files of client-ts/ (the built SDK in
// dist/, the test pages, the examples) and passes `/api/...` through to the Canopy
// server, HTTP and WebSocket upgrades alike, so a page reaches the API from its own
// origin. Same-origin access needs nothing of the server; cross-origin access needs its
// CORS support (`--allowed-origins`), which the browser test uses when the server has it.

import { createServer, request } from 'node:http';
import { connect } from 'node:net';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { extname, join, normalize } from 'node:path';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.map': 'application/json', '.css': 'text/css' };

export async function startPageServer(apiPort, listenPort = 0) {
  const server = createServer(async (req, res) => {
    if (req.url.startsWith('/api/')) {
      const up = request({ host: '127.0.0.1', port: apiPort, method: req.method, path: req.url.slice(4), headers: req.headers }, (r) => {
        res.writeHead(r.statusCode, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.destroy());
      return req.pipe(up);
    }
    const path = normalize(join(ROOT, decodeURIComponent(new URL(req.url, 'http://x').pathname)));
    if (!path.startsWith(ROOT)) return res.writeHead(403).end();
    try {
      const body = await readFile(path);
      res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  // WebSocket upgrades under /api/ are passed through as raw bytes after the request head.
  server.on('upgrade', (req, socket, head) => {
    if (!req.url.startsWith('/api/')) return socket.destroy();
    const up = connect(apiPort, '127.0.0.1', () => {
      const lines = [`${req.method} ${req.url.slice(4)} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      up.write(`${lines.join('\r\n')}\r\n\r\n`);
      up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
    const end = () => {
      up.destroy();
      socket.destroy();
    };
    up.on('error', end);
    socket.on('error', end);
    up.on('close', end);
    socket.on('close', end);
  });
  await new Promise((r) => server.listen(listenPort, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { origin, close: () => new Promise((r) => server.close(r)) };
}
