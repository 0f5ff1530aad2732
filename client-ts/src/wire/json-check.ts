// Checked reads of parsed JSON values: each one either returns a value of the contract's
// type or throws a DecodeError naming the field, so a JSON message from the server is
// validated as strictly as a binary one. f32 fields are rounded to f32 (Math.fround), so
// the same message gives the same numbers whichever format it came in.

import { DecodeError } from '../errors.js';
import type { Node, Quat, Transform, Vec3 } from './types.js';

export type Obj = Record<string, unknown>;

export function obj(v: unknown, what: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new DecodeError(`${what} must be an object`);
  }
  return v as Obj;
}

export function arr(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw new DecodeError(`${what} must be an array`);
  return v;
}

export function str(v: unknown, what: string): string {
  if (typeof v !== 'string') throw new DecodeError(`${what} must be a string`);
  return v;
}

export function bool(v: unknown, what: string): boolean {
  if (typeof v !== 'boolean') throw new DecodeError(`${what} must be a boolean`);
  return v;
}

export function f32(v: unknown, what: string): number {
  if (typeof v !== 'number') throw new DecodeError(`${what} must be a number`);
  return Math.fround(v);
}

export function u32(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0xffff_ffff) {
    throw new DecodeError(`${what} must be a u32`);
  }
  return v;
}

/** A u64 that a number holds exactly; larger values are refused (see types.ts). */
export function u64(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw new DecodeError(`${what} must be a u64 no larger than 2^53 - 1`);
  }
  return v;
}

export function fixed(v: unknown, n: number, what: string): number[] {
  const a = arr(v, what);
  if (a.length !== n) throw new DecodeError(`${what} must have ${n} numbers`);
  return a.map((x, i) => f32(x, `${what}[${i}]`));
}

export const vec3 = (v: unknown, what: string): Vec3 => fixed(v, 3, what) as Vec3;
export const quat = (v: unknown, what: string): Quat => fixed(v, 4, what) as Quat;

/** A present-or-absent field: undefined and null both mean absent. */
export function opt<T>(v: unknown, read: (v: unknown, what: string) => T, what: string): T | undefined {
  return v === undefined || v === null ? undefined : read(v, what);
}

/** A transform whose omitted fields take the identity's values. */
export function transform(v: unknown, what: string): Transform {
  const o = obj(v, what);
  return {
    t: o.t === undefined ? [0, 0, 0] : vec3(o.t, `${what}.t`),
    r: o.r === undefined ? [0, 0, 0, 1] : quat(o.r, `${what}.r`),
    s: o.s === undefined ? 1 : f32(o.s, `${what}.s`),
  };
}

export function node(v: unknown, what: string): Node {
  const o = obj(v, what);
  return {
    id: u32(o.id, `${what}.id`),
    parent: opt(o.parent, u32, `${what}.parent`) ?? null,
    world: transform(o.world, `${what}.world`),
    extent: vec3(o.extent, `${what}.extent`),
    mask: u32(o.mask, `${what}.mask`),
  };
}

export function ids(v: unknown, what: string): number[] {
  return arr(v, what).map((x) => u32(x, what));
}

export function parse(text: string): Obj {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new DecodeError(`malformed JSON: ${(e as Error).message}`);
  }
  return obj(v, 'message');
}
