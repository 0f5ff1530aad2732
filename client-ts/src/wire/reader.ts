// A bounds-checked cursor over one binary frame: the primitives of bincode 2's standard
// configuration (varints, little-endian f32, length prefixes, option and enum tags).
//
// Every read checks the bytes left first and throws a DecodeError naming the offset,
// so a truncated frame, a bad tag or a hostile length prefix is a typed error and never
// a RangeError from DataView or an allocation the frame could not fill.

import { DecodeError } from '../errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Varint markers: a value below 251 is its own byte; these announce u16, u32, u64. */
export const U16_MARKER = 251;
export const U32_MARKER = 252;
export const U64_MARKER = 253;

export class Reader {
  readonly bytes: Uint8Array;
  readonly #view: DataView;
  pos = 0;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  fail(what: string): never {
    throw new DecodeError(what, this.pos);
  }

  get left(): number {
    return this.bytes.length - this.pos;
  }

  need(n: number): void {
    if (this.bytes.length - this.pos < n) this.fail(`truncated: ${n} more bytes needed`);
  }

  u8(): number {
    if (this.pos >= this.bytes.length) this.fail('truncated');
    return this.bytes[this.pos++]!;
  }

  /** A varint that must fit a u32 (ids, masks, lengths, enum indices). */
  u32(): number {
    const b = this.u8();
    if (b < U16_MARKER) return b;
    if (b === U16_MARKER) {
      this.need(2);
      const v = this.#view.getUint16(this.pos, true);
      this.pos += 2;
      return v;
    }
    if (b === U32_MARKER) {
      this.need(4);
      const v = this.#view.getUint32(this.pos, true);
      this.pos += 4;
      return v;
    }
    this.pos--;
    return this.fail(`varint marker ${b} in a u32`);
  }

  /**
   * A varint u64 as a number. Values above 2^53 - 1 are refused (see types.ts): a
   * number cannot hold them exactly, and a rounded seq or tick would be wrong silently.
   */
  u64(): number {
    const b = this.bytes[this.pos];
    if (b !== U64_MARKER) return this.u32();
    this.pos++;
    this.need(8);
    const lo = this.#view.getUint32(this.pos, true);
    const hi = this.#view.getUint32(this.pos + 4, true);
    if (hi > 0x1f_ffff) {
      this.pos--;
      this.fail('u64 above 2^53 - 1');
    }
    this.pos += 8;
    return hi * 0x1_0000_0000 + lo;
  }

  f32(): number {
    this.need(4);
    const v = this.#view.getFloat32(this.pos, true);
    this.pos += 4;
    return v;
  }

  /** `n` f32s into `out` from `at`, one bounds check for all of them. */
  f32s(out: Float32Array, at: number, n: number): void {
    this.need(4 * n);
    const view = this.#view;
    let p = this.pos;
    for (let i = 0; i < n; i++, p += 4) out[at + i] = view.getFloat32(p, true);
    this.pos = p;
  }

  vec3(): [number, number, number] {
    this.need(12);
    const v = this.#view;
    const p = this.pos;
    this.pos += 12;
    return [v.getFloat32(p, true), v.getFloat32(p + 4, true), v.getFloat32(p + 8, true)];
  }

  quat(): [number, number, number, number] {
    this.need(16);
    const v = this.#view;
    const p = this.pos;
    this.pos += 16;
    return [
      v.getFloat32(p, true),
      v.getFloat32(p + 4, true),
      v.getFloat32(p + 8, true),
      v.getFloat32(p + 12, true),
    ];
  }

  bool(): boolean {
    const b = this.u8();
    if (b > 1) {
      this.pos--;
      this.fail(`bool byte ${b}`);
    }
    return b === 1;
  }

  /** An `Option` tag: true when a value follows. */
  some(): boolean {
    const b = this.u8();
    if (b > 1) {
      this.pos--;
      this.fail(`option tag ${b}`);
    }
    return b === 1;
  }

  /** An enum variant index below `count`. */
  variant(count: number): number {
    const at = this.pos;
    const v = this.u32();
    if (v >= count) {
      this.pos = at;
      this.fail(`unknown variant ${v}`);
    }
    return v;
  }

  /**
   * A length prefix of a list whose elements take at least `minBytes` each: a length
   * the rest of the frame cannot hold is refused before anything is allocated for it.
   */
  len(minBytes: number): number {
    const at = this.pos;
    const n = this.u64();
    if (n * minBytes > this.left) {
      this.pos = at;
      this.fail(`length ${n} does not fit`);
    }
    return n;
  }

  string(): string {
    const n = this.len(1);
    const at = this.pos;
    this.pos += n;
    try {
      return utf8.decode(this.bytes.subarray(at, at + n));
    } catch {
      this.pos = at;
      return this.fail(`invalid UTF-8`);
    }
  }

  /** A `Vec<u8>`, copied so that it outlives the frame's buffer. */
  byteVec(): Uint8Array {
    const n = this.len(1);
    const out = this.bytes.slice(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** The frame must end here: bincode values are never followed by trailing bytes. */
  end(): void {
    if (this.pos !== this.bytes.length) this.fail(`${this.left} trailing bytes`);
  }
}
