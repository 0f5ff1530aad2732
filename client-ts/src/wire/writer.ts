// A growable byte buffer with the primitives of bincode 2's standard configuration, the
// mirror image of reader.ts. Values the layout cannot hold (a negative or fractional id,
// a u32 above 2^32 - 1, a u64 number above 2^53 - 1) throw InvalidArgumentError before a
// byte is written for them, so a message is either right or not sent.

import { InvalidArgumentError } from '../errors.js';
import type { U64 } from './types.js';
import { U16_MARKER, U32_MARKER, U64_MARKER } from './reader.js';

const utf8 = new TextEncoder();
const U32_MAX = 0xffff_ffff;
const U64_MAX = (1n << 64n) - 1n;

export class Writer {
  #buf: Uint8Array;
  #view: DataView;
  pos = 0;

  constructor(capacity = 64) {
    this.#buf = new Uint8Array(capacity);
    this.#view = new DataView(this.#buf.buffer);
  }

  #room(n: number): void {
    if (this.pos + n <= this.#buf.length) return;
    let size = this.#buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.#buf.subarray(0, this.pos));
    this.#buf = next;
    this.#view = new DataView(next.buffer);
  }

  /** The bytes written so far (a view; copy it to keep it past further writes). */
  finish(): Uint8Array {
    return this.#buf.subarray(0, this.pos);
  }

  u8(v: number): void {
    this.#room(1);
    this.#buf[this.pos++] = v;
  }

  u32(v: number): void {
    if (!Number.isInteger(v) || v < 0 || v > U32_MAX) {
      throw new InvalidArgumentError(`not a u32: ${v}`);
    }
    this.#varint(v);
  }

  u64(v: U64): void {
    if (typeof v === 'bigint') {
      if (v < 0n || v > U64_MAX) throw new InvalidArgumentError(`not a u64: ${v}`);
      if (v <= BigInt(U32_MAX)) return this.#varint(Number(v));
      this.#room(9);
      this.#buf[this.pos++] = U64_MARKER;
      this.#view.setBigUint64(this.pos, v, true);
      this.pos += 8;
      return;
    }
    if (!Number.isSafeInteger(v) || v < 0) {
      throw new InvalidArgumentError(`u64 over 2^53 - 1 (use a bigint): ${v}`);
    }
    if (v <= U32_MAX) return this.#varint(v);
    this.#room(9);
    this.#buf[this.pos++] = U64_MARKER;
    this.#view.setUint32(this.pos, v % 0x1_0000_0000, true);
    this.#view.setUint32(this.pos + 4, Math.floor(v / 0x1_0000_0000), true);
    this.pos += 8;
  }

  /** The varint of a value already checked to be a u32. */
  #varint(v: number): void {
    this.#room(5);
    if (v < U16_MARKER) {
      this.#buf[this.pos++] = v;
    } else if (v <= 0xffff) {
      this.#buf[this.pos++] = U16_MARKER;
      this.#view.setUint16(this.pos, v, true);
      this.pos += 2;
    } else {
      this.#buf[this.pos++] = U32_MARKER;
      this.#view.setUint32(this.pos, v, true);
      this.pos += 4;
    }
  }

  f32(v: number): void {
    if (typeof v !== 'number') throw new InvalidArgumentError(`not a number: ${v}`);
    this.#room(4);
    this.#view.setFloat32(this.pos, v, true);
    this.pos += 4;
  }

  /** A fixed array of f32 (no length prefix); its length is checked. */
  f32s(v: readonly number[], n: number): void {
    if (!Array.isArray(v) || v.length !== n) throw new InvalidArgumentError(`not ${n} numbers: ${v}`);
    for (let i = 0; i < n; i++) this.f32(v[i]!);
  }

  bool(v: boolean): void {
    this.u8(v ? 1 : 0);
  }

  len(n: number): void {
    this.#varint(n);
  }

  string(s: string): void {
    const bytes = utf8.encode(s);
    this.len(bytes.length);
    this.bytes(bytes);
  }

  bytes(b: Uint8Array): void {
    this.#room(b.length);
    this.#buf.set(b, this.pos);
    this.pos += b.length;
  }
}
