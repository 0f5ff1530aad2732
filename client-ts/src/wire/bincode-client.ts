// The bincode 2 form of client-to-server messages (`ClientMsg`, `Op` and `Query` in
// protocol/src/{message,ops,query}.rs): encoding, which the connection uses, and
// decoding, which tests and fake servers use.
//
// Variant indices: ClientMsg subscribe 0, unsubscribe 1, edits 2, query 3, ping 4, and
// (v1.2) subscribe 5, the v1.1 fields then follow, frustum, send_hz and tiers, used only
// when one of those is set; Op add 0, set_local 1, set_parent 2, set_shape 3, remove 4;
// Query region 0, sphere 1, ray 2, nearest 3, and (v1.2) sphere_around 4 and
// nearest_around 5, a node id in place of the point; Encoding exact 0, compact 1. Bincode has no defaults, so every field
// a JSON client may omit is written here with the contract's default.

import type { ClientMsg, Frustum, Op, Query, Transform, Vec3 } from './types.js';
import { InvalidArgumentError } from '../errors.js';
import { Reader } from './reader.js';
import { Writer } from './writer.js';
import { readTransform, writeTransform } from './bincode-server.js';
import { canonicalMsg } from './canonical.js';

const OPS = ['add', 'set_local', 'set_parent', 'set_shape', 'remove'] as const;
const KINDS = ['region', 'sphere', 'ray', 'nearest'] as const;

function optU32(w: Writer, v: number | null | undefined): void {
  if (v === null || v === undefined) return w.u8(0);
  w.u8(1);
  w.u32(v);
}

function optF32s(w: Writer, v: readonly number[] | undefined, n: number): void {
  if (v === undefined) return w.u8(0);
  w.u8(1);
  w.f32s(v, n);
}

function optF32(w: Writer, v: number | undefined): void {
  if (v === undefined) return w.u8(0);
  w.u8(1);
  w.f32(v);
}

function writeOp(w: Writer, op: Op): void {
  w.u8(OPS.indexOf(op.op));
  switch (op.op) {
    case 'add':
      optU32(w, op.id);
      optU32(w, op.parent);
      writeTransform(w, op.local as Transform);
      w.f32s(op.extent!, 3);
      w.u32(op.mask!);
      break;
    case 'set_local':
      w.u32(op.node);
      optF32s(w, op.t, 3);
      optF32s(w, op.r, 4);
      optF32(w, op.s);
      break;
    case 'set_parent':
      w.u32(op.node);
      optU32(w, op.parent);
      break;
    case 'set_shape':
      w.u32(op.node);
      optF32s(w, op.extent, 3);
      optU32(w, op.mask);
      break;
    case 'remove':
      w.u32(op.node);
      break;
  }
}

export function writeQuery(w: Writer, q: Query): void {
  // (v1.2) A sphere or nearest query around a node takes variant 4 or 5, so one with a
  // point keeps its v1.1 bytes.
  const around = q.kind === 'sphere' || q.kind === 'nearest' ? q.around : undefined;
  w.u8(around === undefined ? KINDS.indexOf(q.kind) : q.kind === 'sphere' ? 4 : 5);
  if (around !== undefined) w.u32(around);
  switch (q.kind) {
    case 'region':
      w.f32s(q.min, 3);
      w.f32s(q.max, 3);
      break;
    case 'sphere':
      if (around === undefined) w.f32s(q.center!, 3);
      w.f32(q.radius);
      break;
    case 'ray':
      w.f32s(q.origin, 3);
      w.f32s(q.dir, 3);
      optF32(w, q.max_t);
      break;
    case 'nearest':
      if (around === undefined) w.f32s(q.point!, 3);
      w.u32(q.k);
      optF32(w, q.max_dist);
      break;
  }
  w.u32(q.mask!);
  if (q.kind === 'ray') w.bool(q.all!);
}

/** Encodes a client message as one binary frame. */
export function encodeClientBincode(message: ClientMsg): Uint8Array {
  const msg = canonicalMsg(message);
  const w = new Writer(64);
  switch (msg.type) {
    case 'subscribe': {
      // (v1.2) Only a subscribe using a v1.2 field is variant 5: every 1.x server reads
      // variant 0, so a plain subscribe keeps working against a v1.1 server.
      const v12 = msg.follow !== undefined || msg.frustum !== undefined || msg.send_hz !== undefined || msg.tiers !== undefined;
      w.u8(v12 ? 5 : 0);
      if (msg.region === null) w.u8(0);
      else {
        w.u8(1);
        w.f32s(msg.region.min, 3);
        w.f32s(msg.region.max, 3);
      }
      w.u32(msg.mask);
      if (msg.since === undefined) w.u8(0);
      else {
        w.u8(1);
        w.u64(msg.since);
      }
      w.u8(msg.encoding === 'compact' ? 1 : 0);
      if (!v12) break;
      if (msg.follow === undefined) w.u8(0);
      else {
        w.u8(1);
        w.u32(msg.follow.node);
        w.f32(msg.follow.radius);
        optF32(w, msg.follow.margin);
      }
      if (msg.frustum === undefined) w.u8(0);
      else {
        w.u8(1);
        if (!Array.isArray(msg.frustum) || msg.frustum.length !== 6) throw new InvalidArgumentError('frustum: 6 planes');
        for (const plane of msg.frustum) w.f32s(plane, 4);
      }
      optU32(w, msg.send_hz);
      const tiers = msg.tiers ?? [];
      w.len(tiers.length);
      for (const t of tiers) {
        optF32(w, t.within);
        w.u32(t.every);
      }
      break;
    }
    case 'unsubscribe':
      w.u8(1);
      break;
    case 'edits':
      w.u8(2);
      w.u64(msg.seq);
      w.len(msg.ops.length);
      for (const op of msg.ops) writeOp(w, op);
      break;
    case 'query':
      w.u8(3);
      w.u64(msg.id);
      writeQuery(w, msg.query);
      break;
    case 'ping':
      w.u8(4);
      w.u64(msg.nonce);
      break;
  }
  return w.finish().slice();
}

// ---- decoding (tests, fake servers) ----------------------------------------------

function readOptVec3(r: Reader): Vec3 | undefined {
  return r.some() ? r.vec3() : undefined;
}

function readOp(r: Reader): Op {
  switch (r.variant(OPS.length)) {
    case 0: {
      const id = r.some() ? r.u32() : null;
      const parent = r.some() ? r.u32() : null;
      const local = readTransform(r);
      return { op: 'add', id, parent, local, extent: r.vec3(), mask: r.u32() };
    }
    case 1: {
      const op: Op = { op: 'set_local', node: r.u32() };
      if (r.some()) op.t = r.vec3();
      if (r.some()) op.r = r.quat();
      if (r.some()) op.s = r.f32();
      return op;
    }
    case 2: {
      const node = r.u32();
      return { op: 'set_parent', node, parent: r.some() ? r.u32() : null };
    }
    case 3: {
      const op: Op = { op: 'set_shape', node: r.u32() };
      const extent = readOptVec3(r);
      if (extent) op.extent = extent;
      if (r.some()) op.mask = r.u32();
      return op;
    }
    default:
      return { op: 'remove', node: r.u32() };
  }
}

function readQuery(r: Reader): Query {
  const v = r.variant(6);
  switch (v) {
    case 0: {
      const min = r.vec3();
      return { kind: 'region', min, max: r.vec3(), mask: r.u32() };
    }
    case 1: {
      const center = r.vec3();
      return { kind: 'sphere', center, radius: r.f32(), mask: r.u32() };
    }
    case 4: {
      const around = r.u32();
      return { kind: 'sphere', around, radius: r.f32(), mask: r.u32() };
    }
    case 2: {
      const origin = r.vec3();
      const dir = r.vec3();
      const maxT = r.some() ? r.f32() : undefined;
      const q: Query = { kind: 'ray', origin, dir, mask: r.u32(), all: r.bool() };
      if (maxT !== undefined) q.max_t = maxT;
      return q;
    }
    default: {
      const origin = v === 3 ? { point: r.vec3() } : { around: r.u32() };
      const k = r.u32();
      const maxDist = r.some() ? r.f32() : undefined;
      const q: Query = { kind: 'nearest', ...origin, k, mask: r.u32() };
      if (maxDist !== undefined) q.max_dist = maxDist;
      return q;
    }
  }
}

/** Decodes a client message from one binary frame (the server's side). */
export function decodeClientBincode(bytes: Uint8Array): ClientMsg {
  const r = new Reader(bytes);
  let msg: ClientMsg;
  const v = r.variant(6);
  switch (v) {
    case 0:
    case 5: {
      const region = r.some() ? { min: r.vec3(), max: r.vec3() } : null;
      const mask = r.u32();
      const since = r.some() ? r.u64() : undefined;
      const compact = r.variant(2) === 1;
      msg = { type: 'subscribe', region, mask };
      if (since !== undefined) msg.since = since;
      if (compact) msg.encoding = 'compact';
      if (v === 0) break;
      if (r.some()) {
        const node = r.u32();
        msg.follow = { node, radius: r.f32() };
        if (r.some()) msg.follow.margin = r.f32();
      }
      if (r.some()) msg.frustum = Array.from({ length: 6 }, () => r.quat()) as Frustum;
      if (r.some()) msg.send_hz = r.u32();
      const n = r.len(2);
      if (n) msg.tiers = [];
      for (let i = 0; i < n; i++) {
        const within = r.some() ? r.f32() : undefined;
        msg.tiers!.push(within === undefined ? { every: r.u32() } : { within, every: r.u32() });
      }
      break;
    }
    case 1:
      msg = { type: 'unsubscribe' };
      break;
    case 2: {
      const seq = r.u64();
      const n = r.len(2);
      const ops = new Array<Op>(n);
      for (let i = 0; i < n; i++) ops[i] = readOp(r);
      msg = { type: 'edits', seq, ops };
      break;
    }
    case 3: {
      const id = r.u64();
      msg = { type: 'query', id, query: readQuery(r) };
      break;
    }
    default:
      msg = { type: 'ping', nonce: r.u64() };
  }
  r.end();
  return msg;
}
