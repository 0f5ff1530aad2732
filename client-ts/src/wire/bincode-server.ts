// The bincode 2 form of server-to-client messages (`ServerMsg` in
// protocol/src/message.rs): decoding, which the connection uses on every binary frame,
// and encoding, which tests and fake servers use. docs/protocol.md lays the bytes out.
//
// Variant indices: snapshot 0, delta 1, ack 2, error 3, query_result 4, pong 5,
// closed 6. A frame holds exactly one message, so a top-level variant this SDK does not
// know (a later protocol's extension) can be skipped whole: decoding answers null for it,
// as the contract asks clients to ignore messages it does not name.

import type { ErrorCode, Hits, Node, ServerMsg, Transform, UpdateRows } from './types.js';
import { ERROR_CODES } from './types.js';
import { Reader } from './reader.js';
import { Writer } from './writer.js';

/** Bytes of the smallest possible node: id, parent tag, 8 f32, 3 f32, mask. */
const NODE_MIN_BYTES = 1 + 1 + 32 + 12 + 1;
/** Bytes of the smallest update row: id varint and 8 f32. */
const ROW_MIN_BYTES = 1 + 32;

const SERVER_TYPES = ['snapshot', 'delta', 'ack', 'error', 'query_result', 'pong', 'closed'];

export function readTransform(r: Reader): Transform {
  const t = r.vec3();
  const q = r.quat();
  return { t, r: q, s: r.f32() };
}

export function readNode(r: Reader): Node {
  const id = r.u32();
  const parent = r.some() ? r.u32() : null;
  const world = readTransform(r);
  const extent = r.vec3();
  const mask = r.u32();
  return { id, parent, world, extent, mask };
}

function readNodes(r: Reader): Node[] {
  const n = r.len(NODE_MIN_BYTES);
  const out = new Array<Node>(n);
  for (let i = 0; i < n; i++) out[i] = readNode(r);
  return out;
}

function readIds(r: Reader): number[] {
  const n = r.len(1);
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = r.u32();
  return out;
}

/** The `update` list straight into typed arrays: the hot path of every delta. */
function readRows(r: Reader): UpdateRows {
  const n = r.len(ROW_MIN_BYTES);
  const ids = new Uint32Array(n);
  const world = new Float32Array(n * 8);
  for (let i = 0; i < n; i++) {
    ids[i] = r.u32();
    r.f32s(world, i * 8, 8);
  }
  return { ids, world };
}

function readCompact(r: Reader): Uint8Array | undefined {
  return r.some() ? r.byteVec() : undefined;
}

function readHits(r: Reader): Hits {
  const kind = r.variant(2);
  const n = r.len(5);
  if (kind === 0) {
    const hits = new Array<{ node: number; t: number }>(n);
    for (let i = 0; i < n; i++) hits[i] = { node: r.u32(), t: r.f32() };
    return { kind: 'ray', hits };
  }
  const hits = new Array<{ node: number; dist: number }>(n);
  for (let i = 0; i < n; i++) hits[i] = { node: r.u32(), dist: r.f32() };
  return { kind: 'nearest', hits };
}

/**
 * Decodes one binary frame from the server. Answers null for a message type this SDK
 * does not know; throws DecodeError for anything malformed.
 */
export function decodeServerBincode(bytes: Uint8Array): ServerMsg | null {
  const r = new Reader(bytes);
  const variant = r.u32();
  let msg: ServerMsg;
  switch (variant) {
    case 0: {
      const tick = r.u64();
      const time = r.u64();
      const nodes = readNodes(r);
      const compact = readCompact(r);
      msg = { type: 'snapshot', tick, time, nodes };
      if (compact) msg.compact = compact;
      break;
    }
    case 1: {
      const tick = r.u64();
      const time = r.u64();
      const upsert = readNodes(r);
      const update = readRows(r);
      const remove = Uint32Array.from(readIds(r));
      const resumed = r.bool();
      const compact = readCompact(r);
      msg = { type: 'delta', tick, time, upsert, update, remove, resumed };
      if (compact) msg.compact = compact;
      break;
    }
    case 2:
      msg = { type: 'ack', seq: r.u64(), tick: r.u64(), ids: readIds(r) };
      break;
    case 3: {
      const seq = r.some() ? r.u64() : undefined;
      const id = r.some() ? r.u64() : undefined;
      const code = ERROR_CODES[r.variant(ERROR_CODES.length)]!;
      const message = r.string();
      const op = r.some() ? r.u32() : undefined;
      msg = { type: 'error', code, message };
      if (seq !== undefined) msg.seq = seq;
      if (id !== undefined) msg.id = id;
      if (op !== undefined) msg.op = op;
      break;
    }
    case 4: {
      const id = r.u64();
      const tick = r.u64();
      const nodes = r.some() ? readIds(r) : undefined;
      const hits = r.some() ? readHits(r) : undefined;
      msg = { type: 'query_result', id, tick };
      if (nodes) msg.nodes = nodes;
      if (hits) msg.hits = hits;
      break;
    }
    case 5:
      msg = { type: 'pong', nonce: r.u64(), tick: r.u64() };
      break;
    case 6:
      msg = { type: 'closed', reason: r.string() };
      break;
    default:
      return null;
  }
  r.end();
  return msg;
}

// ---- encoding (tests, fake servers) ----------------------------------------------

export function writeTransform(w: Writer, t: Transform): void {
  w.f32s(t.t, 3);
  w.f32s(t.r, 4);
  w.f32(t.s);
}

export function writeNode(w: Writer, n: Node): void {
  w.u32(n.id);
  if (n.parent === null) w.u8(0);
  else {
    w.u8(1);
    w.u32(n.parent);
  }
  writeTransform(w, n.world);
  w.f32s(n.extent, 3);
  w.u32(n.mask);
}

function writeIds(w: Writer, ids: ArrayLike<number>): void {
  w.len(ids.length);
  for (let i = 0; i < ids.length; i++) w.u32(ids[i]!);
}

function writeCompact(w: Writer, compact: Uint8Array | undefined): void {
  if (!compact) return w.u8(0);
  w.u8(1);
  w.len(compact.length);
  w.bytes(compact);
}

function writeOptU64(w: Writer, v: number | undefined): void {
  if (v === undefined) return w.u8(0);
  w.u8(1);
  w.u64(v);
}

/** Encodes a server message in bincode (the inverse of decodeServerBincode). */
export function encodeServerBincode(msg: ServerMsg): Uint8Array {
  const w = new Writer(256);
  w.u8(SERVER_TYPES.indexOf(msg.type));
  switch (msg.type) {
    case 'snapshot':
      w.u64(msg.tick);
      w.u64(msg.time);
      w.len(msg.nodes.length);
      for (const n of msg.nodes) writeNode(w, n);
      writeCompact(w, msg.compact);
      break;
    case 'delta': {
      w.u64(msg.tick);
      w.u64(msg.time);
      w.len(msg.upsert.length);
      for (const n of msg.upsert) writeNode(w, n);
      const { ids, world } = msg.update;
      w.len(ids.length);
      for (let i = 0; i < ids.length; i++) {
        w.u32(ids[i]!);
        for (let k = 0; k < 8; k++) w.f32(world[i * 8 + k]!);
      }
      writeIds(w, msg.remove);
      w.bool(msg.resumed);
      writeCompact(w, msg.compact);
      break;
    }
    case 'ack':
      w.u64(msg.seq);
      w.u64(msg.tick);
      writeIds(w, msg.ids);
      break;
    case 'error':
      writeOptU64(w, msg.seq);
      writeOptU64(w, msg.id);
      w.u8(ERROR_CODES.indexOf(msg.code as ErrorCode));
      w.string(msg.message);
      if (msg.op === undefined) w.u8(0);
      else {
        w.u8(1);
        w.u32(msg.op);
      }
      break;
    case 'query_result':
      w.u64(msg.id);
      w.u64(msg.tick);
      if (!msg.nodes) w.u8(0);
      else {
        w.u8(1);
        writeIds(w, msg.nodes);
      }
      if (!msg.hits) w.u8(0);
      else {
        w.u8(1);
        const h = msg.hits;
        w.u8(h.kind === 'ray' ? 0 : 1);
        w.len(h.hits.length);
        for (const hit of h.hits) {
          w.u32(hit.node);
          w.f32('t' in hit ? hit.t : hit.dist);
        }
      }
      break;
    case 'pong':
      w.u64(msg.nonce);
      w.u64(msg.tick);
      break;
    case 'closed':
      w.string(msg.reason);
      break;
  }
  return w.finish().slice();
}
