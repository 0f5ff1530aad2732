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
  private readonly view: DataView;
  pos = 0;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  fail(what: string): never {
    throw new DecodeError(what, this.pos);
  }

  get left(): number {
    return this.bytes.length - this.pos;
  }

  need(n: number, what: string): void {
    if (this.bytes.length - this.pos < n) this.fail(`truncated: ${what} needs ${n} bytes`);
  }

  u8(what: string): number {
    if (this.pos >= this.bytes.length) this.fail(`truncated: ${what}`);
    return this.bytes[this.pos++]!;
  }

  /** A varint that must fit a u32 (ids, masks, lengths, enum indices). */
  u32(what: string): number {
    const b = this.u8(what);
    if (b < U16_MARKER) return b;
    if (b === U16_MARKER) {
      this.need(2, what);
      const v = this.view.getUint16(this.pos, true);
      this.pos += 2;
      return v;
    }
    if (b === U32_MARKER) {
      this.need(4, what);
      const v = this.view.getUint32(this.pos, true);
      this.pos += 4;
      return v;
    }
    this.pos--;
    return this.fail(`${what}: varint marker ${b} is not valid for a u32`);
  }

  /**
   * A varint u64 as a number. Values above 2^53 - 1 are refused (see types.ts): a
   * number cannot hold them exactly, and a rounded seq or tick would be wrong silently.
   */
  u64(what: string): number {
    const b = this.bytes[this.pos];
    if (b !== U64_MARKER) return this.u32(what);
    this.pos++;
    this.need(8, what);
    const lo = this.view.getUint32(this.pos, true);
    const hi = this.view.getUint32(this.pos + 4, true);
    if (hi > 0x1f_ffff) {
      this.pos--;
      this.fail(`${what}: u64 above 2^53 - 1 cannot be held exactly as a number`);
    }
    this.pos += 8;
    return hi * 0x1_0000_0000 + lo;
  }

  f32(what: string): number {
    this.need(4, what);
    const v = this.view.getFloat32(this.pos, true);
    this.pos += 4;
    return v;
  }

  /** `n` f32s into `out` from `at`, one bounds check for all of them. */
  f32s(out: Float32Array, at: number, n: number, what: string): void {
    this.need(4 * n, what);
    const view = this.view;
    let p = this.pos;
    for (let i = 0; i < n; i++, p += 4) out[at + i] = view.getFloat32(p, true);
    this.pos = p;
  }

  vec3(what: string): [number, number, number] {
    this.need(12, what);
    const v = this.view;
    const p = this.pos;
    this.pos += 12;
    return [v.getFloat32(p, true), v.getFloat32(p + 4, true), v.getFloat32(p + 8, true)];
  }

  quat(what: string): [number, number, number, number] {
    this.need(16, what);
    const v = this.view;
    const p = this.pos;
    this.pos += 16;
    return [
      v.getFloat32(p, true),
      v.getFloat32(p + 4, true),
      v.getFloat32(p + 8, true),
      v.getFloat32(p + 12, true),
    ];
  }

  bool(what: string): boolean {
    const b = this.u8(what);
    if (b > 1) {
      this.pos--;
      this.fail(`${what}: bool byte ${b}`);
    }
    return b === 1;
  }

  /** An `Option` tag: true when a value follows. */
  some(what: string): boolean {
    const b = this.u8(what);
    if (b > 1) {
      this.pos--;
      this.fail(`${what}: option tag ${b}`);
    }
    return b === 1;
  }

  /** An enum variant index below `count`. */
  variant(count: number, what: string): number {
    const at = this.pos;
    const v = this.u32(what);
    if (v >= count) {
      this.pos = at;
      this.fail(`${what}: unknown variant ${v}`);
    }
    return v;
  }

  /**
   * A length prefix of a list whose elements take at least `minBytes` each: a length
   * the rest of the frame cannot hold is refused before anything is allocated for it.
   */
  len(minBytes: number, what: string): number {
    const at = this.pos;
    const n = this.u64(what);
    if (n * minBytes > this.left) {
      this.pos = at;
      this.fail(`${what}: length ${n} does not fit the ${this.left} bytes left`);
    }
    return n;
  }

  string(what: string): string {
    const n = this.len(1, what);
    const at = this.pos;
    this.pos += n;
    try {
      return utf8.decode(this.bytes.subarray(at, at + n));
    } catch {
      this.pos = at;
      return this.fail(`${what}: invalid UTF-8`);
    }
  }

  /** A `Vec<u8>`, copied so that it outlives the frame's buffer. */
  byteVec(what: string): Uint8Array {
    const n = this.len(1, what);
    const out = this.bytes.slice(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** The frame must end here: bincode values are never followed by trailing bytes. */
  end(): void {
    if (this.pos !== this.bytes.length) this.fail(`${this.left} trailing bytes after the message`);
  }
}
