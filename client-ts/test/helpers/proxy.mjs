// A TCP proxy between a client and the server that a test can cut: `cut()` destroys
// every connection through it at once (both directions, mid-stream, without a WebSocket
// close frame: what a dropped network looks like), while the proxy keeps accepting new
// connections, so the client's reconnect goes through it again.

import { createServer, connect } from 'node:net';

export async function startProxy(targetPort) {
  const sockets = new Set();
  const pairs = new Set();
  let blocked = false;
  const server = createServer((client) => {
    if (blocked) return void client.destroy();
    const upstream = connect(targetPort, '127.0.0.1');
    const pair = { client, upstream };
    pairs.add(pair);
    client.on('close', () => pairs.delete(pair));
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    /** Connections open through the proxy right now (each counts its two sockets). */
    get connections() {
      return sockets.size / 2;
    },
    /**
     * Stops passing the server's bytes to the clients (the connections stay open), so
     * that answers to requests sent now cannot arrive: they are in flight for sure.
     */
    hold() {
      for (const { client, upstream } of pairs) {
        upstream.unpipe(client);
        upstream.pause();
      }
    },
    /** New connections are dropped at once (the server unreachable) until `unblock()`. */
    block() {
      blocked = true;
    },
    unblock() {
      blocked = false;
    },
    cut() {
      for (const s of sockets) s.destroy();
    },
    close() {
      this.cut();
      return new Promise((r) => server.close(r));
    },
  };
}
