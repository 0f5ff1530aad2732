// Applying compact rows (v1.1 `encoding: "compact"`) to a Mirror. Each node whose last
// row was quantized keeps its integer baseline: the translation grid values, rotation
// index and values and scale bits exactly as the server sent them. An absolute part
// replaces that part, a delta part adds to it, an absent part keeps it, and the world
// transform is always re-derived from the integers, so rounding never accumulates
// across frames (the contract's "no drift").
//
// A row other than a full absolute (0x07) or exact (0x80) one is relative to the node's
// last quantized value. After an exact row, an exact `update` or a fresh `upsert` the
// node has no baseline, and such a row cannot apply (`no_baseline`); neither can a delta
// that leaves the layout's ranges (`delta_out_of_range`). Either is counted as an
// inconsistency, which makes the connection resubscribe; `lastError` says which. So is
// a block that does not decode.

import type { Mirror, MirrorSink } from './mirror.js';
import type { Node } from './wire/types.js';
import { ABSOLUTE, decodeCompact, F_EXACT, F_R, F_RD, F_S, F_T, F_TD, halfToNumber, INTS, R_MAX, rotation, T_LIMIT } from './wire/compact.js';
import type { CompactBlock } from './wire/compact.js';

// This module and wire/compact.ts load only when a connection subscribes with
// `encoding: "compact"` (or a caller runs `Mirror.loadCompact()`): see mirror.ts.

type Failure = 'no_baseline' | 'delta_out_of_range' | null;

/** Applies row `i` of `block` to `slot` (-1: a node the mirror lacks). */
function applyRow(m: Mirror, block: CompactBlock, i: number, slot: number): Failure {
  const flags = block.flags[i]!;
  const st = m.compact;
  if (slot < 0 || (flags !== ABSOLUTE && flags !== F_EXACT && !st.valid[slot])) return 'no_baseline';
  const world = m.world;
  const o = slot * 8;
  if (flags === F_EXACT) {
    for (let k = 0; k < 8; k++) world[o + k] = block.exact[i * 8 + k]!;
    st.valid[slot] = 0;
    return null;
  }
  // Work on a copy, so a row that fails leaves the baseline as it was.
  const b = slot * INTS;
  const q = st.ints.slice(b, b + INTS);
  const src = block.ints;
  const a = i * INTS;
  if (flags & F_T) for (let k = 0; k < 3; k++) q[k] = (flags & F_TD ? q[k]! : 0) + src[a + k]!;
  if (flags & F_R) {
    if (flags & F_RD) for (let k = 4; k < 7; k++) q[k] = q[k]! + src[a + k]!;
    else for (let k = 3; k < 7; k++) q[k] = src[a + k]!;
  }
  if (flags & F_S) q[7] = src[a + 7]!;
  for (let k = 0; k < 3; k++) if (Math.abs(q[k]!) > T_LIMIT) return 'delta_out_of_range';
  for (let k = 4; k < 7; k++) if (q[k]! < 0 || q[k]! > R_MAX) return 'delta_out_of_range';
  st.ints.set(q, b);
  st.valid[slot] = 1;
  for (let k = 0; k < 3; k++) world[o + k] = q[k]! / 1024;
  rotation(q[3]!, q[4]!, q[5]!, q[6]!, world, o + 3);
  world[o + 7] = halfToNumber(q[7]!);
  return null;
}

/**
 * Decodes a compact block and applies it: the first rows to `nodes` (the snapshot's
 * nodes or the delta's upserts, already written to the mirror), then, for a delta, the
 * id-keyed rows, each reported to the sink as `updated`.
 */
export function applyCompact(m: Mirror, bytes: Uint8Array, nodes: Node[], withUpdates: boolean, sink: MirrorSink | null): void {
  let block: CompactBlock;
  try {
    block = decodeCompact(bytes, nodes.length, withUpdates);
  } catch (e) {
    // A block that cannot be read leaves the frame's transforms unknown: count it, so
    // the connection resubscribes, rather than fail the whole frame.
    m.compact.lastError = { kind: (e as { kind?: string }).kind ?? 'malformed' };
    m.countInconsistency();
    return;
  }
  for (let i = 0; i < block.count; i++) {
    const id = i < block.abs ? nodes[i]!.id : block.ids[i]!;
    const slot = m.slotOf(id);
    const failed = applyRow(m, block, i, slot);
    if (failed) {
      m.compact.lastError = { id, kind: failed };
      m.countInconsistency();
    } else if (sink && i >= block.abs) sink.updated(id, slot);
  }
}
