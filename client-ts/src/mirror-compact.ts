// Applying compact rows (v1.1 `encoding: "compact"`) to a Mirror. Each node whose last
// row was quantized keeps its integer baseline: the translation grid values, rotation
// index and values and scale bits exactly as the server sent them. An absolute part
// replaces that part, a delta part adds to it, an absent part keeps it, and the world
// transform is always re-derived from the integers, so rounding never accumulates
// across frames (the contract's "no drift").
//
// A row A (absolute) starts from the identity and an exact row replaces the value;
// any other row is relative to the node's last quantized value. After an exact row, an
// exact `update` or a fresh `upsert` the node has no baseline, and a relative row cannot
// apply (`no_baseline`); neither can a rotation difference under another dropped index
// (`index_changed`) or a difference that leaves the layout's ranges
// (`delta_out_of_range`). Each is counted as an inconsistency, which makes the
// connection resubscribe; `lastError` says which. So is a block that does not decode.

import type { Mirror, MirrorSink } from './mirror.js';
import type { Node } from './wire/types.js';
import { decodeCompact, F_A, F_EXACT, F_R, F_S, F_TA, F_TX, halfToNumber, INTS, R_MAX, ROT_DELTA, ROT_PRESENT, rotation, T_LIMIT } from './wire/compact.js';
import type { CompactBlock } from './wire/compact.js';

// This module and wire/compact.ts load only when a connection subscribes with
// `encoding: "compact"` (or a caller runs `Mirror.loadCompact()`): see mirror.ts.

type Failure = 'no_baseline' | 'index_changed' | 'delta_out_of_range' | null;

/** The identity's integers, which a row A starts from: t 0, w dropped, zeros, scale 1. */
const IDENTITY = Int32Array.of(0, 0, 0, 3, 16383, 16383, 16383, 0x3c00);
/** The row being applied, so that a row that fails leaves the baseline as it was. */
const scratch = new Int32Array(INTS);

/** Applies row `i` of `block` to `slot` (-1: a node the mirror lacks). */
function applyRow(m: Mirror, block: CompactBlock, i: number, slot: number): Failure {
  const flags = block.flags[i]!;
  const st = m.compact;
  const absolute = (flags & (F_A | F_EXACT)) !== 0;
  if (slot < 0 || (!absolute && !st.valid[slot])) return 'no_baseline';
  const world = m.world;
  const o = slot * 8;
  if (flags === F_EXACT) {
    for (let k = 0; k < 8; k++) world[o + k] = block.exact[i * 8 + k]!;
    st.valid[slot] = 0;
    return null;
  }
  const b = slot * INTS;
  const q = scratch;
  q.set(flags & F_A ? IDENTITY : st.ints.subarray(b, b + INTS));
  const src = block.ints;
  const a = i * INTS;
  for (let k = 0; k < 3; k++) {
    if (flags & (F_TX << k)) q[k] = (flags & F_TA ? 0 : q[k]!) + src[a + k]!;
  }
  if (flags & F_R) {
    const head = src[a + 3]!;
    const index = head & 3;
    const same = !(flags & F_A) && index === q[3];
    for (let k = 0; k < 3; k++) {
      const v = src[a + 4 + k]!;
      if (!(head & (ROT_PRESENT << k))) {
        if (!same) q[4 + k] = 16383;
      } else if (head & (ROT_DELTA << k)) {
        if (!same) return 'index_changed';
        q[4 + k] = q[4 + k]! + v;
      } else q[4 + k] = v;
    }
    q[3] = index;
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
