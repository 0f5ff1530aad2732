// The compact block of v1.1 (`subscribe` with `encoding: "compact"` on a bincode
// connection), decoded from the layout the Rust codec documents (protocol/src/compact;
// docs/protocol.md section 10):
//
//   snapshot block := row_abs x nodes.length            (same order as `nodes`)
//   delta block    := row_abs x upsert.length           (same order as `upsert`)
//                     uleb n, n x (uleb id_gap, row)    (ids strictly ascending, gaps
//                                                        from the previous id, the first
//                                                        gap is the id itself)
//   row := u8 flags, then the parts the flags name (T, R, S):
//     bits 0-2 TX TY TZ: that axis is present; bit 3 TA: the axes are absolute i24
//     (else sleb differences); bit 4 R: a rotation part follows; bit 5 S: a u16 scale
//     follows; bit 6 A: absolute row, what it leaves out is the identity's; bit 7 X:
//     exact, 8 x f32 follow and no other bit is set.
//   rotation part := u8 head (bits 0-1 the dropped index, bits 2-4 kept component
//     a b c present, bits 5-7 that component is an sleb difference, else a 15-bit u16),
//     then the present components.
//
// Decoding only parses, checking every read and every rule of the layout (canonical
// 32-bit LEB128, flag combinations, value ranges, ascending ids), and refuses anything
// else with a DecodeError whose `kind` is the layout's name for the problem. The mirror
// applies the rows to its per-node integer baseline (mirror-compact.ts): a delta part
// means nothing without the value it is relative to.

import { DecodeError } from '../errors.js';

/** Flag TX; axis k is F_TX << k. */
export const F_TX = 0x01;
export const F_TA = 0x08;
export const F_R = 0x10;
export const F_S = 0x20;
export const F_A = 0x40;
export const F_EXACT = 0x80;
/** Rotation head: component k present is ROT_PRESENT << k, a difference ROT_DELTA << k. */
export const ROT_PRESENT = 0x04;
export const ROT_DELTA = 0x20;

/** Ints per row in CompactBlock.ints (compact-state.ts has the same constant, kept apart
 * so that this lazily loaded module shares no chunk with the main bundle). */
export const INTS = 8;
/** The largest |grid value| of a compact translation (2^23 - 1). */
export const T_LIMIT = 0x7f_ffff;
/** The largest 15-bit rotation component value. */
export const R_MAX = 32767;

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
  readonly #view: DataView;
  constructor(readonly b: Uint8Array) {
    this.#view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  fail(kind: string, what: string, at = this.pos): never {
    throw new DecodeError(`compact block: ${what}`, at, kind);
  }
  need(n: number): void {
    if (this.b.length - this.pos < n) this.fail('truncated', 'truncated');
  }
  u8(): number {
    this.need(1);
    return this.b[this.pos++]!;
  }
  /** Unsigned LEB128 of a 32-bit value, in its shortest form only. */
  uleb(): number {
    const at = this.pos;
    let v = 0;
    for (let i = 0; i < 5; i++) {
      const byte = this.u8();
      if (i === 4 && byte > 0x0f) this.fail('overlong_leb128', 'LEB128 over 32 bits', at);
      v += (byte & 0x7f) * 2 ** (7 * i);
      if (byte < 0x80) {
        if (i > 0 && byte === 0) this.fail('overlong_leb128', 'LEB128 longer than needed', at);
        return v;
      }
    }
    return this.fail('overlong_leb128', 'LEB128 over 32 bits', at);
  }
  /** Zigzag: 0, -1, 1, -2, ... from 0, 1, 2, 3, ... */
  sleb(): number {
    const u = this.uleb();
    return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
  }
  i24(): number {
    this.need(3);
    const b = this.b;
    const p = this.pos;
    const v = ((b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16)) << 8) >> 8;
    if (v < -T_LIMIT) this.fail('out_of_range', 'translation of -2^23');
    this.pos += 3;
    return v;
  }
  f32(): number {
    this.need(4);
    const v = this.#view.getFloat32(this.pos, true);
    this.pos += 4;
    return v;
  }
  /** binary16 bits of a normal half (exponent field 1 to 30). */
  scale(): number {
    this.need(2);
    const v = this.#view.getUint16(this.pos, true);
    const exp = (v >>> 10) & 0x1f;
    if (exp === 0 || exp === 0x1f) this.fail('out_of_range', 'scale not a normal binary16');
    this.pos += 2;
    return v;
  }
  /** A 15-bit rotation component value in a u16. */
  component(): number {
    this.need(2);
    const v = this.#view.getUint16(this.pos, true);
    if (v & 0x8000) this.fail('out_of_range', 'rotation component with bit 15 set');
    this.pos += 2;
    return v;
  }
}

/**
 * One row into `block` at `i`: the flags in `flags`, and in `ints` the three axes
 * (values or differences), the rotation head, the three rotation components (values or
 * differences) and the scale bits; what the row leaves out is 0 there.
 */
function row(c: Cursor, block: CompactBlock, i: number, absOnly: boolean): void {
  const at0 = c.pos;
  const flags = c.u8();
  const bad = (why: string, byte = flags, at = at0) => c.fail('bad_flags', `${why} (0x${byte.toString(16)})`, at);
  block.flags[i] = flags;
  const ints = block.ints;
  const at = i * INTS;
  if (flags & F_EXACT) {
    if (flags !== F_EXACT) bad('an exact row with other flags');
    for (let k = 0; k < 8; k++) block.exact[i * 8 + k] = c.f32();
    return;
  }
  const axes = flags & 7;
  const absolute = (flags & F_A) !== 0;
  if (absOnly && !absolute) bad('a snapshot or upsert row must be A or X');
  if (flags & F_TA && !axes) bad('TA without an axis');
  if (absolute && axes && !(flags & F_TA)) bad('a row A with axis differences');
  if (!flags) bad('a row with no part');
  // The block's arrays are fresh (zero) and each row is written once: what a row leaves
  // out stays 0 without being written.
  for (let k = 0; k < 3; k++) if (axes & (F_TX << k)) ints[at + k] = flags & F_TA ? c.i24() : c.sleb();
  if (flags & F_R) {
    const hat = c.pos;
    const head = c.u8();
    const present = (head >>> 2) & 7;
    const delta = head >>> 5;
    if (delta & ~present) bad('a rotation difference without its component', head, hat);
    if (absolute && delta) bad('a rotation difference in a row A', head, hat);
    ints[at + 3] = head;
    for (let k = 0; k < 3; k++) {
      if (head & (ROT_PRESENT << k)) ints[at + 4 + k] = head & (ROT_DELTA << k) ? c.sleb() : c.component();
    }
  }
  if (flags & F_S) ints[at + 7] = c.scale();
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
  if (abs > bytes.length) c.fail('truncated', `${abs} absolute rows in ${bytes.length} bytes`);
  const head = allocate(abs, abs);
  for (let i = 0; i < abs; i++) row(c, head, i, true);
  let block = head;
  if (withUpdates) {
    const n = c.uleb();
    if (n * 2 > bytes.length - c.pos) c.fail('truncated', `${n} rows in ${bytes.length - c.pos} bytes`);
    block = allocate(abs + n, abs);
    block.flags.set(head.flags);
    block.ints.set(head.ints);
    block.exact.set(head.exact);
    let id = -1;
    for (let i = abs; i < abs + n; i++) {
      const at = c.pos;
      const gap = c.uleb();
      if (id >= 0 && gap === 0) c.fail('id_order', 'ids must ascend', at);
      id = id < 0 ? gap : id + gap;
      if (id > 0xffff_ffff) c.fail('id_order', 'id above 2^32 - 1', at);
      block.ids[i] = id;
      row(c, block, i, false);
    }
  }
  if (c.pos !== bytes.length) c.fail('trailing_bytes', `${bytes.length - c.pos} trailing bytes`);
  return block;
}

// ---- dequantization: the exact f64 arithmetic the layout prescribes, then f32 -------

/**
 * The unit quaternion of a smallest-three rotation into `out[at..at+4]` (a Float32Array
 * rounds each component once): `index` is the dropped component, `a, b, c` the kept
 * ones' 15-bit values in index order, each decoded as (q - 16383) / 16383 / sqrt(2).
 */
export function rotation(index: number, a: number, b: number, c: number, out: Float32Array, at: number): void {
  const x = ((a - 16383) / 16383) * Math.SQRT1_2;
  const y = ((b - 16383) / 16383) * Math.SQRT1_2;
  const z = ((c - 16383) / 16383) * Math.SQRT1_2;
  const w = Math.sqrt(Math.max(0, 1 - (x * x + y * y + z * z)));
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
