#!/usr/bin/env node
// Prints a room's changes as they arrive: nodes entering, leaving and moving, one line
// per frame with its counts, the way a game loop would consume the events.
//
//   npm run build
//   node examples/watch.mjs http://127.0.0.1:7878 demo [--json] [--token T]
//
// Start a server with a live room first: cargo run -p canopy-server -- --demo

import WebSocket from 'ws';
import { Client } from '../dist/index.js';

const args = process.argv.slice(2);
const [url = 'http://127.0.0.1:7878', room = 'demo'] = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--token');
const token = args.includes('--token') ? args[args.indexOf('--token') + 1] : undefined;
const format = args.includes('--json') ? 'json' : 'bincode';

const client = new Client(url, { token });
const conn = await client.connect(room, { WebSocket, format });

let entered = 0;
let updated = 0;
let left = 0;
let shown = 0;
conn.on('entered', (id, slot) => {
  entered++;
  if (shown++ < 5) console.log(`  + ${id} at ${Array.from(conn.mirror.world.subarray(slot * 8, slot * 8 + 3), (v) => v.toFixed(2)).join(', ')}`);
});
conn.on('updated', () => updated++);
conn.on('left', (id) => {
  left++;
  console.log(`  - ${id}`);
});
conn.on('tick', ({ tick, time }) => {
  console.log(`tick ${tick} (${Date.now() - time} ms after the server): ${conn.mirror.size} nodes, ${entered} entered, ${updated} moved, ${left} left`);
  entered = updated = left = 0;
});
conn.on('snapshot', ({ tick, size }) => {
  console.log(`snapshot at tick ${tick}: ${size} nodes`);
  entered = updated = left = 0;
});
conn.on('disconnected', ({ error }) => console.log(`disconnected (${error}); reconnecting`));
conn.on('resynced', ({ tick, size, resumed }) => console.log(`resynced at tick ${tick}: ${size} nodes${resumed ? ' (resumed)' : ''}`));
conn.on('stopped', ({ reason }) => {
  console.log(`stopped: ${reason}`);
  process.exit(0);
});
process.on('SIGINT', () => conn.close().then(() => process.exit(0)));

await conn.subscribe();
