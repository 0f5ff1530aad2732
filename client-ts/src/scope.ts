// What a subscription covers: the whole room or a region, and a layer mask. A node is
// in scope when `node.mask & mask != 0` and, with a region, its world AABB intersects
// the closed box [min, max]. A scope is checked before it is sent, so the scope a
// connection resubscribes with after a reconnect is always one the server accepts.

import { InvalidArgumentError } from './errors.js';
import type { Encoding, Region, Vec3 } from './wire/types.js';

export interface Scope {
  /** null: the whole room. */
  region: Region | null;
  /** Layer bits (default: every layer). */
  mask?: number;
  /** (v1.1) `compact` asks a bincode connection for quantized world transforms. */
  encoding?: Encoding;
}

/** Every node of the room. */
export const wholeRoom = (mask = 0xffff_ffff): Scope => ({ region: null, mask });

/** The nodes whose world AABB meets the closed box [min, max]. */
export const region = (min: Vec3, max: Vec3, mask = 0xffff_ffff): Scope => ({ region: { min, max }, mask });

/** Throws InvalidArgumentError for what the server would refuse with `invalid_value`. */
export function validateScope(s: Scope): void {
  const m = s.mask ?? 0xffff_ffff;
  if (!Number.isInteger(m) || m < 0 || m > 0xffff_ffff) throw new InvalidArgumentError('mask must be a u32');
  if (s.encoding !== undefined && s.encoding !== 'exact' && s.encoding !== 'compact') {
    throw new InvalidArgumentError('encoding must be exact or compact');
  }
  const r = s.region;
  if (r === null) return;
  const all = [...r.min, ...r.max];
  if (r.min.length !== 3 || r.max.length !== 3 || !all.every(Number.isFinite)) {
    throw new InvalidArgumentError('region bounds: three finite numbers each');
  }
  for (let a = 0; a < 3; a++) {
    if (r.min[a]! > r.max[a]!) throw new InvalidArgumentError(`region min > max on axis ${a}`);
  }
}
