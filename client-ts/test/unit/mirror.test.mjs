// Mirror semantics, as the contract states them: a snapshot replaces the copy and
// reports the difference; a delta upserts, updates and removes; entries naming unknown
// nodes are counted, never guessed at; storage grows and reuses slots.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Mirror } from '../../dist/index.js';

const node = (id, x, extra = {}) => ({
  id,
  parent: null,
  world: { t: [x, 0, 0], r: [0, 0, 0, 1], s: 1 },
  extent: [0, 0, 0],
  mask: 0xffffffff,
  ...extra,
});
const rows = (list) => ({
  ids: Uint32Array.from(list.map(([id]) => id)),
  world: Float32Array.from(list.flatMap(([, x]) => [x, 0, 0, 0, 0, 0, 1, 1])),
});
const delta = (tick, upsert, update, remove) => ({
  type: 'delta', tick, time: tick * 10, upsert, update: rows(update), remove: Uint32Array.from(remove), resumed: false,
});
const recorder = () => {
  const log = [];
  return {
    log,
    entered: (id) => log.push(['entered', id]),
    changed: (id) => log.push(['changed', id]),
    updated: (id) => log.push(['updated', id]),
    left: (id) => log.push(['left', id]),
  };
};

test('a snapshot replaces the copy and reports the difference', () => {
  const m = new Mirror();
  m.applySnapshot({ type: 'snapshot', tick: 1, time: 5, nodes: [node(1, 0), node(2, 0), node(3, 0)] });
  const sink = recorder();
  m.applySnapshot({ type: 'snapshot', tick: 4, time: 9, nodes: [node(2, 1), node(3, 0), node(4, 0)] }, sink);
  assert.deepEqual(sink.log, [['left', 1], ['changed', 2], ['entered', 4]]);
  assert.deepEqual(m.toSortedArray(), [node(2, 1), node(3, 0), node(4, 0)]);
  assert.equal(m.tick, 4);
  assert.equal(m.time, 9);
});

test('a delta upserts, updates and removes', () => {
  const m = new Mirror();
  m.applySnapshot({ type: 'snapshot', tick: 1, time: 0, nodes: [node(1, 0), node(2, 0)] });
  const sink = recorder();
  assert.equal(m.applyDelta(delta(2, [node(3, 1), node(2, 0, { mask: 2, parent: 1 })], [[1, 7]], [3]), sink), true);
  assert.deepEqual(sink.log, [['updated', 1], ['entered', 3], ['changed', 2], ['left', 3]]);
  assert.deepEqual(m.get(1).world.t, [7, 0, 0]);
  assert.deepEqual(m.get(2), node(2, 0, { mask: 2, parent: 1 }));
  assert.equal(m.has(3), false);
  assert.equal(m.size, 2);
});

test('update and remove of unknown nodes are inconsistencies', () => {
  const m = new Mirror();
  assert.equal(m.applyDelta(delta(1, [], [[9, 1]], [8])), false);
  assert.equal(m.inconsistencies, 2);
  assert.equal(m.size, 0);
});

test('storage grows past its first capacity and reuses freed slots', () => {
  const m = new Mirror();
  const many = Array.from({ length: 5000 }, (_, i) => node(i * 3 + 1, i));
  m.applySnapshot({ type: 'snapshot', tick: 1, time: 0, nodes: many });
  assert.equal(m.size, 5000);
  const slot = m.slotOf(3001);
  assert.equal(m.world[slot * 8], 1000);
  m.applyDelta(delta(2, [], [], [3001]));
  m.applyDelta(delta(3, [node(99999, 5)], [], []));
  assert.equal(m.slotOf(99999), slot, 'the freed slot is used again');
  assert.deepEqual(m.get(99999).world.t, [5, 0, 0]);
  let count = 0;
  m.forEach(() => count++);
  assert.equal(count, 5000);
  m.clear();
  assert.equal(m.size, 0);
});

test('parents of the whole u32 range survive', () => {
  const m = new Mirror();
  m.applySnapshot({ type: 'snapshot', tick: 1, time: 0, nodes: [node(0, 0, { parent: 0xffffffff }), node(0xffffffff, 0, { parent: 0 })] });
  assert.equal(m.get(0).parent, 0xffffffff);
  assert.equal(m.get(0xffffffff).parent, 0);
});
