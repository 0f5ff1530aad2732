#!/usr/bin/env node
// Serves client-ts/ (the built SDK and the examples) on one origin and passes /api/ to a
// Canopy server, so examples/live.html works without the server's CORS support:
//
//   node examples/serve.mjs [canopy-port=7878] [listen-port=8088]
//   open http://127.0.0.1:8088/examples/live.html?room=demo

import { startPageServer } from '../test/helpers/page-server.mjs';

const apiPort = Number(process.argv[2] ?? 7878);
const port = Number(process.argv[3] ?? 8088);
const { origin } = await startPageServer(apiPort, port);
console.log(`serving ${origin}/examples/live.html?room=demo (API on 127.0.0.1:${apiPort} under /api/)`);
