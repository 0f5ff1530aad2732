// Bundle size of the built library: everything `dist/index.js` exports, bundled and
// minified by esbuild for browsers, then gzipped with zlib (level 9).
//
// The figure that counts is the initial download: every module the entry reaches by
// static imports, as one file, with the modules behind a dynamic import() left out as
// the separate files they are (the JSON codecs, loaded with the first JSON connection or
// HTTP edit or query; the compact decoder, with the first `encoding: "compact"`
// subscription). That is what a bundler that keeps always-loaded code together (Rollup,
// Vite) serves. esbuild's own code splitting also moves the few modules that the lazy
// parts share with the entry into small chunks of their own, each gzipped apart, which
// costs a few hundred bytes more; that figure is printed too. Exits non-zero above the
// 11.5 KB target, so CI catches growth. (The target was 10 KB until protocol 1.2: the
// v1.2 scopes with their checks and frustumPlanes, queries around a node, the moving-room
// reconnect policy and the mirror's watchers cost 1.5 KB.) The Interpolator is a
// separate entry (`@canopy/client/interpolate`), printed apart: pages that render the
// mirror as it is never download it.

import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const TARGET = 11.5 * 1024;
const lazyExternal = {
  name: 'lazy-external',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (a) => (a.kind === 'dynamic-import' ? { path: a.path, external: true } : undefined));
  },
};
const entry = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const outdir = mkdtempSync(join(tmpdir(), 'canopy-size-'));
const out = await build({
  entryPoints: [entry],
  bundle: true,
  minify: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  outdir,
  write: false,
  metafile: true,
});
rmSync(outdir, { recursive: true, force: true });
const one = await build({
  entryPoints: [entry],
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  write: false,
  plugins: [lazyExternal],
});
const initialMin = one.outputFiles[0].contents.length;
const initialGz = gzipSync(one.outputFiles[0].contents, { level: 9 }).length;

const kb = (n) => `${(n / 1024).toFixed(2)} KB`;
// The initial download is the entry chunk and every chunk it imports statically; the
// rest is reached only through a dynamic import().
const outputs = out.metafile.outputs;
const byPath = new Map(out.outputFiles.map((f) => [f.path, f]));
const files = new Map(Object.keys(outputs).map((k) => [k, byPath.get(resolve(k))]));
const gzOf = (k) => gzipSync(files.get(k).contents, { level: 9 }).length;
const entryKey = Object.keys(outputs).find((k) => outputs[k].entryPoint);
const staticSet = new Set();
const visit = (k) => {
  if (staticSet.has(k)) return;
  staticSet.add(k);
  for (const i of outputs[k].imports) if (i.kind === 'import-statement') visit(i.path);
};
visit(entryKey);
const inputsOf = (k) => Object.keys(outputs[k].inputs).map((p) => p.replace(/^.*dist\//, '')).join(', ');
const initial = [...staticSet].map((k) => ({ k, min: files.get(k).contents.length, gz: gzOf(k) }));
const lazy = Object.keys(outputs).filter((k) => !staticSet.has(k)).map((k) => ({ k, min: files.get(k).contents.length, gz: gzOf(k) }));
console.log('workload: the whole public API of dist/index.js, bundled + minified by esbuild (esm, es2022), gzip -9');
const sum = (xs, f) => xs.reduce((a, x) => a + f(x), 0);
console.log(`initial download, one file: minified ${kb(initialMin)}; minified + gzipped ${kb(initialGz)}`);
console.log(`  (esbuild code splitting: ${initial.length} chunks, ${kb(sum(initial, (x) => x.gz))} gzipped each apart)`);
for (const s of lazy) console.log(`  loaded on demand: ${kb(s.min)} minified, ${kb(s.gz)} gzipped (${inputsOf(s.k)})`);
const gz = initialGz;
console.log(`everything, initial and on demand: ${kb(gz + sum(lazy, (x) => x.gz))} gzipped`);
const interp = await build({
  entryPoints: [fileURLToPath(new URL('../dist/interpolate.js', import.meta.url))],
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  write: false,
});
const interpMin = interp.outputFiles[0].contents;
console.log(`separate entry @canopy/client/interpolate: ${kb(interpMin.length)} minified, ${kb(gzipSync(interpMin, { level: 9 }).length)} gzipped`);
console.log(`target ${kb(TARGET)} for the initial download: ${gz <= TARGET ? `met, ${kb(TARGET - gz)} to spare` : `missed by ${kb(gz - TARGET)}`}`);
if (gz > TARGET) {
  console.error(`the bundle is over the ${kb(TARGET)} target`);
  process.exit(1);
}
