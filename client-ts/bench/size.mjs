// Bundle size of the built library: everything `dist/index.js` exports, bundled and
// minified by esbuild for browsers, then gzipped with zlib (level 9). The target is
// <= 10 KB minified + gzipped; exits non-zero above it, so CI catches growth.

import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const LIMIT = 10 * 1024;
const entry = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const out = await build({
  entryPoints: [entry],
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  write: false,
});
const min = out.outputFiles[0].contents;
const gz = gzipSync(min, { level: 9 });
console.log('workload: the whole public API of dist/index.js, bundled + minified by esbuild (esm, es2022), gzip -9');
console.log(`minified: ${(min.length / 1024).toFixed(1)} KB; minified + gzipped: ${(gz.length / 1024).toFixed(2)} KB (limit ${LIMIT / 1024} KB)`);
if (gz.length > LIMIT) {
  console.error('bundle over the size limit');
  process.exit(1);
}
