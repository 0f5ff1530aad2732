// The compact block of v1.1 (`subscribe` with `encoding: "compact"` on a bincode
// connection), decoded from the layout in protocol/src/compact.rs (and docs/protocol.md):
//
//   snapshot block := row_abs x nodes.length            (same order as `nodes`)
//   delta block    := row_abs x upsert.length           (same order as `upsert`)
//                     uleb n, n x (uleb id_gap, row)    (ids ascending, gaps from the
//                                                        previous id, the first = id)
//   row := u8 flags, then the parts the flags name:
//     bit 0 T, bit 1 R, bit 2 S present; bit 3 TD, bit 4 RD: that part is a delta;
//     bit 7 X: exact, 8 x f32 follow and no other bit is set.
//     T absolute 3 x i24 | T delta 3 x sleb;  R absolute u48 | R delta 3 x sleb;  S u16.
//
// Decoding only parses (every read bounds-checked, every flag combination checked); the
// mirror applies the rows to its per-node integer baseline (mirror-compact.ts), because
// a delta part means nothing without the value it is relative to.

import { DecodeError } from '../errors.js';

export const F_T = 0x01;
export const F_R = 0x02;
export const F_S = 0x04;
export const F_TD = 0x08;
export const F_RD = 0x10;
export const F_EXACT = 0x80;
const ABSOLUTE = F_T | F_R | F_S;

/** Ints per row in CompactBlock.ints: tx, ty, tz, rotation index, r0, r1, r2, scale bits. */
export const INTS = 8;

/**
 * A decoded block, struct-of-arrays. Rows `0 .. abs` are the absolute rows of the
 * snapshot's nodes or the delta's upserts (matched by position); rows `abs .. count`
 * carry their node id in `ids`.
 */
export interface CompactBlock {
  count: number;
  abs: number;
  ids: Uint32Array;
  flags: Uint8Array;
  ints: Int32Array;
  exact: Float32Array;
}

class Cursor {
  pos = 0;
  private readonly view: DataView;
  constructor(readonly b: Uint8Array) {
    this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  fail(what: string): never {
    throw new DecodeError(`compact block: ${what}`, this.pos);
  }
  need(n: number, what: string): void {
    if (this.b.length - this.pos < n) this.fail(`truncated ${what}`);
  }
  u8(what: string): number {
    this.need(1, what);
    return this.b[this.pos++]!;
  }
  /** Unsigned LEB128, at most 8 bytes (56 bits: far beyond any id, gap or step). */
  uleb(what: string): number {
    let v = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      const byte = this.u8(what);
      v += (byte & 0x7f) * scale;
      if (byte < 0x80) return v;
      scale *= 128;
    }
    return this.fail(`${what}: LEB128 longer than 8 bytes`);
  }
  /** Zigzag: 0, -1, 1, -2, ... from 0, 1, 2, 3, ... */
  sleb(what: string): number {
    const u = this.uleb(what);
    return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
  }
  i24(): number {
    this.need(3, 'translation');
    const b = this.b;
    const p = this.pos;
    this.pos += 3;
    return ((b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16)) << 8) >> 8;
  }
  f32(): number {
    this.need(4, 'exact row');
    const v = this.view.getFloat32(this.pos, true);
    this.pos += 4;
    return v;
  }
  u16(what: string): number {
    this.need(2, what);
    const v = this.view.getUint16(this.pos, true);
    this.pos += 2;
    return v;
  }
  u48rot(out: Int32Array, at: number): void {
    this.need(6, 'rotation');
    const lo = this.view.getUint32(this.pos, true);
    const hi = this.view.getUint16(this.pos + 4, true);
    this.pos += 6;
    out[at] = lo & 3;
    out[at + 1] = (lo >>> 2) & 0x7fff;
    out[at + 2] = (lo >>> 17) & 0x7fff;
    out[at + 3] = hi & 0x7fff;
  }
}

function row(c: Cursor, block: CompactBlock, i: number, absOnly: boolean): void {
  const flags = c.u8('flags');
  block.flags[i] = flags;
  const ints = block.ints;
  const at = i * INTS;
  if (flags & F_EXACT) {
    if (flags !== F_EXACT) c.fail(`exact row with other flags (0x${flags.toString(16)})`);
    for (let k = 0; k < 8; k++) block.exact[i * 8 + k] = c.f32();
    return;
  }
  if (flags & ~(ABSOLUTE | F_TD | F_RD)) c.fail(`unknown flags 0x${flags.toString(16)}`);
  if ((flags & F_TD && !(flags & F_T)) || (flags & F_RD && !(flags & F_R))) {
    c.fail(`a delta flag without its part (0x${flags.toString(16)})`);
  }
  if (absOnly && flags !== ABSOLUTE) c.fail(`an absolute row must have flags 0x07 or 0x80, not 0x${flags.toString(16)}`);
  if (flags & F_T) {
    for (let k = 0; k < 3; k++) ints[at + k] = flags & F_TD ? c.sleb('translation step') : c.i24();
  }
  if (flags & F_R) {
    if (flags & F_RD) {
      ints[at + 3] = -1;
      for (let k = 0; k < 3; k++) ints[at + 4 + k] = c.sleb('rotation step');
    } else c.u48rot(ints, at + 3);
  }
  if (flags & F_S) ints[at + 7] = c.u16('scale');
}

function allocate(count: number, abs: number): CompactBlock {
  return {
    count,
    abs,
    ids: new Uint32Array(count),
    flags: new Uint8Array(count),
    ints: new Int32Array(count * INTS),
    exact: new Float32Array(count * 8),
  };
}

/**
 * Decodes a compact block: `abs` absolute rows (the snapshot's nodes or the delta's
 * upserts), then, for a delta block (`withUpdates`), the counted id-keyed rows.
 */
export function decodeCompact(bytes: Uint8Array, abs: number, withUpdates: boolean): CompactBlock {
  const c = new Cursor(bytes);
  // Each row is at least its flags byte: a block shorter than its promised rows is
  // refused before any array is sized by the promise.
  if (abs > bytes.length) c.fail(`${abs} absolute rows cannot fit ${bytes.length} bytes`);
  const head = allocate(abs, abs);
  for (let i = 0; i < abs; i++) row(c, head, i, true);
  if (!withUpdates) {
    if (c.pos !== bytes.length) c.fail(`${bytes.length - c.pos} trailing bytes`);
    return head;
  }
  const n = c.uleb('row count');
  if (n * 2 > bytes.length - c.pos) c.fail(`${n} rows cannot fit the bytes left`);
  const block = allocate(abs + n, abs);
  block.flags.set(head.flags);
  block.ints.set(head.ints);
  block.exact.set(head.exact);
  let id = -1;
  for (let i = abs; i < abs + n; i++) {
    const gap = c.uleb('id gap');
    if (id >= 0 && gap === 0) c.fail('ids must ascend');
    id = id < 0 ? gap : id + gap;
    if (id > 0xffff_ffff) c.fail('id above 2^32 - 1');
    block.ids[i] = id;
    row(c, block, i, false);
  }
  if (c.pos !== bytes.length) c.fail(`${bytes.length - c.pos} trailing bytes`);
  return block;
}

// ---- dequantization ----------------------------------------------------------------

/** Grid units per world unit of a compact translation. */
export const T_SCALE = 1024;
/** The largest |grid value| of a compact translation (2^23 - 1). */
export const T_LIMIT = 0x7f_ffff;
/** The largest 15-bit rotation component value. */
export const R_MAX = 32767;

const HALF_RANGE = Math.SQRT1_2;

/**
 * The unit quaternion of a smallest-three rotation: `index` is the dropped (largest,
 * non-negative) component, `a, b, c` the kept ones in index order.
 */
export function rotation(index: number, a: number, b: number, c: number, out: Float32Array, at: number): void {
  const x = (a / R_MAX) * Math.SQRT2 - HALF_RANGE;
  const y = (b / R_MAX) * Math.SQRT2 - HALF_RANGE;
  const z = (c / R_MAX) * Math.SQRT2 - HALF_RANGE;
  const w = Math.sqrt(Math.max(0, 1 - x * x - y * y - z * z));
  let k = 0;
  const kept = [x, y, z];
  for (let i = 0; i < 4; i++) out[at + i] = i === index ? w : kept[k++]!;
}

/** An IEEE 754 binary16 value (its 16 bits) as a number; Node 20 has no getFloat16. */
export function halfToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >>> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}
