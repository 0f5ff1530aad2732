// What a subscription covers: the whole room, a region, (v1.2) the sphere around a node
// it follows, or a camera's frustum, and a layer mask. A node is in scope when
// `node.mask & mask != 0` and, with a region, its world AABB intersects the closed box
// [min, max]. v1.2 also lets a scope cap its send rate and update far nodes less often
// (distance tiers). A scope is checked before it is sent, so the scope a connection
// resubscribes with after a reconnect is always one the server accepts.

import { InvalidArgumentError } from './errors.js';
import type { Encoding, Follow, Frustum, Region, Tier, Vec3 } from './wire/types.js';

export interface Scope {
  /** null: no box (the whole room, unless `follow` or `frustum` is given). */
  region: Region | null;
  /** Layer bits (default: every layer). */
  mask?: number;
  /** (v1.1) `compact` asks a bincode connection for quantized world transforms. */
  encoding?: Encoding;
  /** (v1.2) The sphere around a node, following it (then `region` is null). */
  follow?: Follow;
  /** (v1.2) A camera's view volume, six inward unit-normal planes (then `region` is null). */
  frustum?: Frustum;
  /** (v1.2) At most this many frames a second, 1 to the room's tick rate (`send_hz`). */
  sendHz?: number;
  /** (v1.2) Distance tiers: `[{within: d1, every: k1}, ..., {every: kn}]`. */
  tiers?: Tier[];
}

/** Every node of the room. */
/** The most distance tiers one subscription may have (the contract's). */
export const MAX_TIERS = 8;

export const wholeRoom = (mask = 0xffff_ffff): Scope => ({ region: null, mask });

/** The nodes whose world AABB meets the closed box [min, max]. */
export const region = (min: Vec3, max: Vec3, mask = 0xffff_ffff): Scope => ({ region: { min, max }, mask });

/**
 * (v1.2) The nodes within `radius` of node `node`'s world position, following it; a node
 * leaves beyond `radius + margin` (default margin: a tenth of the radius).
 */
export const follow = (node: number, radius: number, margin?: number, mask = 0xffff_ffff): Scope => ({
  region: null,
  follow: margin === undefined ? { node, radius } : { node, radius, margin },
  mask,
});

/** (v1.2) The nodes inside a camera's frustum (see `frustumPlanes` to make one). */
export const frustum = (planes: Frustum, mask = 0xffff_ffff): Scope => ({ region: null, frustum: planes, mask });

/**
 * (v1.2) The six planes of the frustum of a view-projection matrix (column-major, as
 * WebGL, three.js and gl-matrix hold it), inward and normalized, as `frustum` wants.
 * `zeroToOne`: clip depth 0..1 (WebGPU, Direct3D) rather than -1..1 (WebGL).
 */
export function frustumPlanes(m: ArrayLike<number>, zeroToOne = false): Frustum {
  // Row i of the matrix is m[i], m[i + 4], m[i + 8], m[i + 12]; the planes are the
  // last row plus or minus each other row (Gribb and Hartmann).
  const row = (i: number, k: number) => [m[i]! * k, m[i + 4]! * k, m[i + 8]! * k, m[i + 12]! * k];
  const plane = (a: number[], b: number[]) => {
    const p = a.map((v, i) => v + b[i]!);
    const n = Math.hypot(p[0]!, p[1]!, p[2]!);
    return p.map((v) => v / n) as Frustum[0];
  };
  const w = row(3, 1);
  const zero = [0, 0, 0, 0];
  return [
    plane(w, row(0, 1)),
    plane(w, row(0, -1)),
    plane(w, row(1, 1)),
    plane(w, row(1, -1)),
    zeroToOne ? plane(zero, row(2, 1)) : plane(w, row(2, 1)),
    plane(w, row(2, -1)),
  ];
}

const fail = (why: string): never => {
  throw new InvalidArgumentError(why);
};
const u32 = (v: unknown) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 0xffff_ffff;
/** A finite number at least 0 (what a radius, margin or tier distance must be). */
const size = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** Throws InvalidArgumentError for what the server would refuse. */
export function validateScope(s: Scope): void {
  const m = s.mask ?? 0xffff_ffff;
  if (!u32(m)) fail('mask must be a u32');
  if (s.encoding !== undefined && s.encoding !== 'exact' && s.encoding !== 'compact') {
    fail('encoding must be exact or compact');
  }
  const r = s.region;
  if (r) {
    const all = [...r.min, ...r.max];
    if (r.min.length !== 3 || r.max.length !== 3 || !all.every(Number.isFinite)) {
      fail('region bounds: three finite numbers each');
    }
    for (let a = 0; a < 3; a++) {
      if (r.min[a]! > r.max[a]!) fail(`region min > max on axis ${a}`);
    }
  }
  if ([r, s.follow, s.frustum].filter((x) => x != null).length > 1) fail('give at most one of region, follow and frustum');
  const f = s.follow;
  if (f) {
    if (!u32(f.node)) fail('follow.node must be a u32');
    if (!size(f.radius)) fail('follow.radius must be finite and at least 0');
    if (f.margin !== undefined && !size(f.margin)) fail('follow.margin must be finite and at least 0');
  }
  if (s.frustum) {
    const planes = s.frustum;
    if (!Array.isArray(planes) || planes.length !== 6) fail('frustum: six planes [nx, ny, nz, d]');
    for (const p of planes) {
      if (!Array.isArray(p) || p.length !== 4 || !p.every(Number.isFinite)) fail('frustum: six planes of four finite numbers');
      // Inward unit normals (the contract's form); frustumPlanes() normalizes them.
      if (Math.abs(Math.hypot(p[0], p[1], p[2]) - 1) > 1e-3) fail('frustum plane normals must be unit length');
    }
  }
  const hz = s.sendHz;
  if (hz !== undefined && !(Number.isInteger(hz) && hz >= 1 && hz <= 240)) fail('sendHz must be an integer from 1 to 240');
  const tiers = s.tiers ?? [];
  if (!Array.isArray(tiers)) fail('tiers must be an array');
  if (tiers.length > MAX_TIERS) fail(`at most ${MAX_TIERS} tiers, not ${tiers.length}`);
  let last = -1;
  tiers.forEach((t, i) => {
    if (!u32(t.every) || t.every < 1) fail(`tiers[${i}].every must be an integer of at least 1`);
    if (i === tiers.length - 1) {
      if (t.within !== undefined) fail('the last tier has no `within`: it takes every node past the others');
    } else if (!size(t.within) || t.within! <= last) {
      fail(`tiers[${i}].within must be finite and greater than the tier before`);
    } else last = t.within!;
  });
}
