// The Rust compact codec's golden vectors (protocol/testdata/compact/, written by
// protocol/tests/it/compact_golden.rs; see the README there): every block decodes, or is
// refused with the same error kind; applied to the same baseline, every row gives the
// same world transform bit for bit, or the same apply error. Skipped while the fixtures
// are not in this checkout (they land on main with the compact codec);
// CANOPY_COMPACT_FIXTURES=DIR points the test at another copy of them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

import { DecodeError, Mirror } from '../../dist/index.js';
import { decodeCompact } from '../../dist/codecs.js';

// The compact decoder loads on demand (connections load it when they subscribe with
// `encoding: "compact"`); a Mirror used alone loads it first.
await Mirror.loadCompact();

const dir = process.env.CANOPY_COMPACT_FIXTURES ?? fileURLToPath(new URL('../../../protocol/testdata/compact/', import.meta.url));
const present = existsSync(dir) && readdirSync(dir).some((f) => f.endsWith('.bin'));
const cases = present ? readdirSync(dir).filter((f) => f.endsWith('.json')).sort() : [];

const bitsOf = (floats) => Array.from(new Uint32Array(Float32Array.from(floats).buffer));
const floatsOf = (bits) => Array.from(new Float32Array(Uint32Array.from(bits).buffer));
const node = (id) => ({ id, parent: null, world: { t: [0, 0, 0], r: [0, 0, 0, 1], s: 1 }, extent: [0, 0, 0], mask: 0xffffffff });
const noRows = () => ({ ids: new Uint32Array(0), world: new Float32Array(0) });

/** An absolute compact row holding `value` (a fixture value), written by the layout. */
function absoluteRow(value) {
  if (value.kind === 'exact') return [0x80, ...new Uint8Array(Float32Array.from(floatsOf(value.world_bits)).buffer)];
  const i24 = (v) => [v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff];
  const u16 = (v) => [v & 0xff, v >> 8];
  // A row A carrying every axis and component (more than a writer would, still valid).
  return [0x7f, ...value.t.flatMap(i24), value.r.index | 0x1c, ...value.r.values.flatMap(u16), ...u16(value.s)];
}

const worldBits = (m, id) => bitsOf(m.world.subarray(m.slotOf(id) * 8, m.slotOf(id) * 8 + 8));
const ABS_ID = 0x8000_0000;

test('compact fixtures are present', { skip: !present && `no fixtures in ${dir} yet (they land on main with the compact codec)` }, () => {
  assert.ok(cases.length > 10);
});

for (const file of cases) {
  test(`compact fixture ${file.slice(0, -5)}`, () => {
    const fx = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    const bin = new Uint8Array(readFileSync(join(dir, file.replace(/\.json$/, '.bin'))));
    const isDelta = fx.block === 'delta';
    if (fx.error?.stage === 'decode') {
      assert.throws(() => decodeCompact(bin, fx.absolute_rows, isDelta), (e) => e instanceof DecodeError && e.kind === fx.error.kind, `expected ${fx.error.kind}`);
      return;
    }
    decodeCompact(bin, fx.absolute_rows, isDelta);

    const m = new Mirror();
    const upsert = Array.from({ length: fx.absolute_rows }, (_, i) => node(ABS_ID + i));
    if (!isDelta) {
      m.applySnapshot({ type: 'snapshot', tick: 1, time: 0, nodes: upsert, compact: bin });
    } else {
      // The client holds every node an id-coded row names; those without a baseline
      // entry hold an exact value (nothing to delta against).
      const held = new Map(fx.baseline.map((b) => [b.id, b.value]));
      for (const r of fx.rows) if (r.id !== undefined && !held.has(r.id)) held.set(r.id, { kind: 'exact', world_bits: bitsOf([0, 0, 0, 0, 0, 0, 1, 1]) });
      const base = [...held.keys()].map(node);
      const rows = [...held.values()].flatMap(absoluteRow);
      m.applySnapshot({ type: 'snapshot', tick: 1, time: 0, nodes: base, compact: Uint8Array.from(rows) });
      for (const b of fx.baseline) assert.deepEqual(worldBits(m, b.id), b.value.world_bits, `baseline of ${b.id}`);
      m.applyDelta({ type: 'delta', tick: 2, time: 0, upsert, update: noRows(), remove: new Uint32Array(0), resumed: false, compact: bin });
    }
    for (const row of fx.rows) {
      if (!row.result) continue;
      const id = row.index !== undefined ? ABS_ID + row.index : row.id;
      assert.deepEqual(worldBits(m, id), row.result.world_bits, `row for ${row.id ?? `#${row.index}`}`);
    }
    if (fx.error?.stage === 'apply') {
      assert.ok(m.inconsistencies > 0);
      assert.equal(m.compact.lastError?.kind, fx.error.kind);
    } else {
      assert.equal(m.inconsistencies, 0, JSON.stringify(m.compact.lastError));
    }
  });
}
