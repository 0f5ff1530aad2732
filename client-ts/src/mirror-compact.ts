// Applying compact rows (v1.1 `encoding: "compact"`) to a Mirror. Each node keeps an
// integer baseline: its last quantized translation, rotation and scale exactly as the
// server sent them. An absolute part replaces that part of the baseline, a delta part
// adds to it, and the node's world transform is always re-derived from the integers, so
// rounding never accumulates across frames (the contract's "no drift").
//
// A delta part is only valid on top of a quantized value of the same part; after an
// exact row (or an exact `update`, or a fresh `upsert`) the part has no baseline, and a
// delta for it is counted as an inconsistency, which makes the connection resync.

import type { Mirror, MirrorSink } from './mirror.js';
import type { Node } from './wire/types.js';
import {
  decodeCompact, F_EXACT, F_R, F_RD, F_S, F_T, F_TD, halfToNumber, INTS, R_MAX, rotation, T_LIMIT, T_SCALE,
} from './wire/compact.js';
import type { CompactBlock } from './wire/compact.js';

/** The per-slot integer baseline: INTS ints per slot and which parts are valid. */
export class CompactState {
  ints = new Int32Array(0);
  valid = new Uint8Array(0);

  grow(capacity: number): void {
    const ints = new Int32Array(capacity * INTS);
    ints.set(this.ints);
    const valid = new Uint8Array(capacity);
    valid.set(this.valid);
    this.ints = ints;
    this.valid = valid;
  }

  /** The slot's world transform is exact (or gone): it has no baseline any more. */
  forget(slot: number): void {
    if (slot < this.valid.length) this.valid[slot] = 0;
  }
}

/** Applies row `i` of `block` to `slot`; false when a delta part has no baseline. */
function applyRow(m: Mirror, block: CompactBlock, i: number, slot: number): boolean {
  const flags = block.flags[i]!;
  const world = m.world;
  const o = slot * 8;
  const st = m.compact;
  if (flags & F_EXACT) {
    for (let k = 0; k < 8; k++) world[o + k] = block.exact[i * 8 + k]!;
    st.valid[slot] = 0;
    return true;
  }
  const q = st.ints;
  const b = slot * INTS;
  const src = block.ints;
  const a = i * INTS;
  if (flags & F_T) {
    if (flags & F_TD) {
      if (!(st.valid[slot]! & F_T)) return false;
      for (let k = 0; k < 3; k++) q[b + k] = q[b + k]! + src[a + k]!;
    } else for (let k = 0; k < 3; k++) q[b + k] = src[a + k]!;
    for (let k = 0; k < 3; k++) {
      if (Math.abs(q[b + k]!) > T_LIMIT) return false;
      world[o + k] = q[b + k]! / T_SCALE;
    }
  }
  if (flags & F_R) {
    if (flags & F_RD) {
      if (!(st.valid[slot]! & F_R)) return false;
      for (let k = 4; k < 7; k++) q[b + k] = q[b + k]! + src[a + k]!;
    } else for (let k = 3; k < 7; k++) q[b + k] = src[a + k]!;
    for (let k = 4; k < 7; k++) if (q[b + k]! < 0 || q[b + k]! > R_MAX) return false;
    rotation(q[b + 3]!, q[b + 4]!, q[b + 5]!, q[b + 6]!, world, o + 3);
  }
  if (flags & F_S) {
    q[b + 7] = src[a + 7]!;
    world[o + 7] = halfToNumber(src[a + 7]!);
  }
  st.valid[slot] = st.valid[slot]! | (flags & (F_T | F_R | F_S));
  return true;
}

/**
 * Decodes a compact block and applies it: the first rows to `nodes` (the snapshot's
 * nodes or the delta's upserts, already written to the mirror), then, for a delta, the
 * id-keyed rows, each reported to the sink as `updated`.
 */
export function applyCompact(
  m: Mirror,
  bytes: Uint8Array,
  nodes: Node[],
  withUpdates: boolean,
  sink: MirrorSink | null,
): void {
  const block = decodeCompact(bytes, nodes.length, withUpdates);
  for (let i = 0; i < block.abs; i++) {
    const slot = m.slotOf(nodes[i]!.id);
    if (slot < 0 || !applyRow(m, block, i, slot)) m.countInconsistency();
  }
  for (let i = block.abs; i < block.count; i++) {
    const id = block.ids[i]!;
    const slot = m.slotOf(id);
    if (slot < 0 || !applyRow(m, block, i, slot)) m.countInconsistency();
    else if (sink) sink.updated(id, slot);
  }
}
