// The bincode 2 form of client-to-server messages (`ClientMsg`, `Op` and `Query` in
// protocol/src/{message,ops,query}.rs): encoding, which the connection uses, and
// decoding, which tests and fake servers use.
//
// Variant indices: ClientMsg subscribe 0, unsubscribe 1, edits 2, query 3, ping 4;
// Op add 0, set_local 1, set_parent 2, set_shape 3, remove 4; Query region 0, sphere 1,
// ray 2, nearest 3; Encoding exact 0, compact 1. Bincode has no defaults, so every field
// a JSON client may omit is written here with the contract's default.

import type { ClientMsg, Op, Query, Transform, Vec3 } from './types.js';
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
  w.u8(KINDS.indexOf(q.kind));
  switch (q.kind) {
    case 'region':
      w.f32s(q.min, 3);
      w.f32s(q.max, 3);
      break;
    case 'sphere':
      w.f32s(q.center, 3);
      w.f32(q.radius);
      break;
    case 'ray':
      w.f32s(q.origin, 3);
      w.f32s(q.dir, 3);
      optF32(w, q.max_t);
      break;
    case 'nearest':
      w.f32s(q.point, 3);
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
    case 'subscribe':
      w.u8(0);
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
      break;
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
  switch (r.variant(KINDS.length)) {
    case 0: {
      const min = r.vec3();
      return { kind: 'region', min, max: r.vec3(), mask: r.u32() };
    }
    case 1: {
      const center = r.vec3();
      return { kind: 'sphere', center, radius: r.f32(), mask: r.u32() };
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
      const point = r.vec3();
      const k = r.u32();
      const maxDist = r.some() ? r.f32() : undefined;
      const q: Query = { kind: 'nearest', point, k, mask: r.u32() };
      if (maxDist !== undefined) q.max_dist = maxDist;
      return q;
    }
  }
}

/** Decodes a client message from one binary frame (the server's side). */
export function decodeClientBincode(bytes: Uint8Array): ClientMsg {
  const r = new Reader(bytes);
  let msg: ClientMsg;
  switch (r.variant(5)) {
    case 0: {
      const region = r.some() ? { min: r.vec3(), max: r.vec3() } : null;
      const mask = r.u32();
      const since = r.some() ? r.u64() : undefined;
      const compact = r.variant(2) === 1;
      msg = { type: 'subscribe', region, mask };
      if (since !== undefined) msg.since = since;
      if (compact) msg.encoding = 'compact';
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
