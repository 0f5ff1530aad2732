// Benchmark: decode a delta frame of 1,000 `update` rows and apply it to a 20,000-node
// mirror, in bincode and in JSON, with the split between decoding and applying; then
// the Rust SDK's figure for the same workload (benches/mirror_apply.rs), read
// from criterion's output when `cargo bench -p canopy-benches --bench mirror_apply` has
// run. Prints numbers; asserts nothing (the target, <= 0.15 ms for bincode, is compared
// by the reader). Run: `npm run bench` (after `npm run build`).

import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { Mirror, decodeServerBincode, decodeServerJson } from '../dist/index.js';
import { encodeServerBincode } from '../dist/wire/bincode-server.js';
import { encodeServerJson } from '../dist/wire/json-server.js';

const NODES = 20_000;
const UPDATES = 1_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3000);

// The same workload as the Rust bench: 20k nodes in groups of ten under a root, and
// every 20th node moved and turned.
const nodes = Array.from({ length: NODES }, (_, id) => ({
  id,
  parent: id % 10 !== 0 ? id - (id % 10) : null,
  world: { t: [id * 0.5, id % 100, -id], r: [0, 0, 0, 1], s: 1 },
  extent: [0.5, 0.5, 0.5],
  mask: 0xffffffff,
}));
const ids = Uint32Array.from({ length: UPDATES }, (_, i) => i * (NODES / UPDATES));
const world = new Float32Array(UPDATES * 8);
for (let i = 0; i < UPDATES; i++) world.set([i + 0.25, 1.5, -2.75, 0, 0.3826834, 0, 0.9238795, 1], i * 8);
const delta = { type: 'delta', tick: 2, time: 1767225600000, upsert: [], update: { ids, world }, remove: new Uint32Array(0), resumed: false };

const mirror = new Mirror();
mirror.applySnapshot({ type: 'snapshot', tick: 1, time: 0, nodes });

/** Median, p99 and mean of `fn` in ms, after a warm-up. */
function time(fn) {
  for (let i = 0; i < 500; i++) fn();
  const samples = new Float64Array(ROUNDS);
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    fn();
    samples[i] = performance.now() - t0;
  }
  const sorted = Array.from(samples).sort((a, b) => a - b);
  const mean = sorted.reduce((s, v) => s + v, 0) / ROUNDS;
  return { median: sorted[ROUNDS >> 1], p99: sorted[Math.floor(ROUNDS * 0.99)], mean };
}

/** The same, timing a batch of `per` calls at once (below the timer's resolution). */
function timeBatched(fn, per = 20) {
  const r = time(() => {
    for (let i = 0; i < per; i++) fn();
  });
  return { median: r.median / per, p99: r.p99 / per, mean: r.mean / per };
}

const fmt = (r) => `median ${r.median.toFixed(4)} ms, mean ${r.mean.toFixed(4)} ms, p99 (of ${20}-call batches) ${r.p99.toFixed(4)} ms`;

const bin = encodeServerBincode(delta);
const json = encodeServerJson(delta);
console.log(`Node ${process.version}; ${ROUNDS} rounds of 20 calls each after a warm-up`);
console.log(`workload: a delta of ${UPDATES} update rows (every 20th node, moved and turned) applied to a ${NODES}-node mirror`);
console.log(`  bincode frame ${bin.length} bytes; JSON frame ${json.length} bytes`);

let sink = 0;
const rows = {
  'bincode decode + apply': () => (sink += mirror.applyDelta(decodeServerBincode(bin)) ? 1 : 0),
  '  bincode decode only': () => (sink += decodeServerBincode(bin).update.ids.length),
  '  apply only': () => (sink += mirror.applyDelta(delta) ? 1 : 0),
  'JSON decode + apply': () => (sink += mirror.applyDelta(decodeServerJson(json)) ? 1 : 0),
};
for (const [name, fn] of Object.entries(rows)) {
  const per = name.startsWith('JSON') ? 2 : 20;
  const r = timeBatched(fn, per);
  console.log(`${name.padEnd(24)} ${fmt(r).replace('20-call', `${per}-call`)}`);
}
if (mirror.inconsistencies !== 0 || sink === 0) throw new Error('the benchmark did not apply what it timed');

// The Rust SDK's figure, from criterion's last run of the same workload.
const criterion = fileURLToPath(new URL('../../target/criterion/', import.meta.url));
for (const format of ['bincode', 'json']) {
  const file = `${criterion}mirror_apply_${format}/new/estimates.json`;
  const alt = `${criterion}mirror_apply/${format}/new/estimates.json`;
  const path = existsSync(file) ? file : existsSync(alt) ? alt : null;
  if (!path) {
    console.log(`Rust SDK (${format}): not measured yet; run cargo bench -p canopy-benches --bench mirror_apply`);
    continue;
  }
  const e = JSON.parse(readFileSync(path, 'utf8'));
  const ms = (ns) => (ns / 1e6).toFixed(4);
  console.log(`Rust SDK ${format} decode + apply (criterion): mean ${ms(e.mean.point_estimate)} ms, median ${ms(e.median.point_estimate)} ms`);
}
