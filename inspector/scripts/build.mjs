// Builds the inspector into server/inspector-dist/, the files the server embeds
// (server/src/http/inspector.rs): index.html, app.js (the page's code with three.js and
// @canopy/client bundled and minified, their licence comments kept at the end) and
// app.css.
//
// `--verify` builds into a temporary directory instead and compares every file byte for
// byte with the committed ones: CI runs it, so what the binary serves is exactly what
// this repository's sources and lock file produce. The build is deterministic because
// esbuild is pinned by the lock file, runs with a fixed working directory (no absolute
// paths reach the output), and there are no timestamps, hashes of the machine or
// source maps in what it writes.
//
// `--out DIR` writes elsewhere (for experiments).

import { build } from 'esbuild';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('..', import.meta.url));
const committed = fileURLToPath(new URL('../../server/inspector-dist/', import.meta.url));
const args = process.argv.slice(2);
const verify = args.includes('--verify');
const outArg = args.indexOf('--out');
const out = verify ? mkdtempSync(join(tmpdir(), 'canopy-inspector-')) : outArg >= 0 ? args[outArg + 1] : committed;

/** Builds into `dir`; answers the names written. */
export async function buildInto(dir) {
  mkdirSync(dir, { recursive: true });
  await build({
    absWorkingDir: here,
    entryPoints: { app: 'src/main.ts' },
    outdir: dir,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    // The page imports the client by its package name, as a game would; it resolves to
    // the sources of client-ts/ in this repository (its public entry point).
    alias: { '@canopy/client': '../client-ts/src/index.ts' },
    legalComments: 'eof',
    sourcemap: false,
    charset: 'utf8',
    logLevel: 'warning',
  });
  copyFileSync(join(here, 'index.html'), join(dir, 'index.html'));
  return readdirSync(dir).sort();
}

const names = await buildInto(out);
if (!verify) {
  for (const n of names) console.log(`${join(out, n)}: ${readFileSync(join(out, n)).length} bytes`);
  process.exit(0);
}

// --verify: the fresh build must equal the committed files, no more, no fewer.
const shipped = existsSync(committed) ? readdirSync(committed).sort() : [];
let bad = 0;
for (const n of new Set([...names, ...shipped])) {
  const a = names.includes(n) ? readFileSync(join(out, n)) : null;
  const b = shipped.includes(n) ? readFileSync(join(committed, n)) : null;
  if (!a || !b || !a.equals(b)) {
    bad++;
    console.error(`differs: server/inspector-dist/${n} (${b ? b.length : 'missing'} committed, ${a ? a.length : 'missing'} built)`);
  } else console.log(`same: server/inspector-dist/${n} (${a.length} bytes)`);
}
rmSync(out, { recursive: true, force: true });
if (bad) {
  console.error('the committed inspector assets are not what the sources build: run `npm run build` in inspector/ and commit');
  process.exit(1);
}
console.log('the committed inspector assets are byte-identical to a fresh build');
