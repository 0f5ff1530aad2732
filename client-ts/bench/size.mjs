// Bundle size of the built library: everything `dist/index.js` exports, bundled and
// minified by esbuild for browsers, then gzipped with zlib (level 9). It prints the size
// against the 10 KB target, and exits non-zero above a ceiling of 13 KB, so that CI
// catches growth. (The library is at about 12.5 KB today: over the target; README
// "Bundle size" says where the bytes go and what would bring it under.)

import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const TARGET = 10 * 1024;
const CEILING = 13 * 1024;
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
const kb = (n) => `${(n / 1024).toFixed(2)} KB`;
console.log(`minified: ${kb(min.length)}; minified + gzipped: ${kb(gz.length)}`);
console.log(`target ${kb(TARGET)}: ${gz.length <= TARGET ? 'met' : `missed by ${kb(gz.length - TARGET)}`}; CI ceiling ${kb(CEILING)}`);
if (gz.length > CEILING) {
  console.error('the bundle grew over the CI ceiling');
  process.exit(1);
}
