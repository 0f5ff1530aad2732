// The JSON form of server-to-client messages: decoding (every text frame the connection
// receives, checked field by field) and encoding (tests, fake servers). Fields the
// server omits when they hold their default (`resumed: false`, absent `compact`, `seq`,
// `id`, `op`, `nodes`, `hits`) decode to the same values as their bincode twins.

import { DecodeError } from '../errors.js';
import type { ErrorCode, Hits, ServerMsg, UpdateRows } from './types.js';
import { ERROR_CODES } from './types.js';
import * as c from './json-check.js';
import { stringify } from './json-text.js';

function rows(v: unknown): UpdateRows {
  const list = c.arr(v, 'update');
  const ids = new Uint32Array(list.length);
  const world = new Float32Array(list.length * 8);
  for (let i = 0; i < list.length; i++) {
    const row = list[i];
    if (!Array.isArray(row) || row.length !== 9) {
      throw new DecodeError('update rows must be [id,tx,ty,tz,rx,ry,rz,rw,s]');
    }
    ids[i] = c.u32(row[0], 'update id');
    for (let k = 0; k < 8; k++) {
      const x = row[k + 1];
      if (typeof x !== 'number') throw new DecodeError('update rows hold numbers');
      world[i * 8 + k] = x;
    }
  }
  return { ids, world };
}

function compact(v: unknown): Uint8Array | undefined {
  if (v === undefined || v === null) return undefined;
  const list = c.arr(v, 'compact');
  const out = new Uint8Array(list.length);
  list.forEach((b, i) => {
    if (typeof b !== 'number' || !Number.isInteger(b) || b < 0 || b > 255) {
      throw new DecodeError('compact must be an array of bytes');
    }
    out[i] = b;
  });
  return out;
}

/** Ray hits have `t`, nearest hits `dist`; an empty list reads as ray hits, as in Rust. */
function hits(v: unknown): Hits {
  const list = c.arr(v, 'hits').map((h) => c.obj(h, 'hit'));
  if (list.every((h) => h.t !== undefined)) {
    return { kind: 'ray', hits: list.map((h) => ({ node: c.u32(h.node, 'hit node'), t: c.f32(h.t, 'hit t') })) };
  }
  return {
    kind: 'nearest',
    hits: list.map((h) => ({ node: c.u32(h.node, 'hit node'), dist: c.f32(h.dist, 'hit dist') })),
  };
}

function code(v: unknown): ErrorCode {
  const s = c.str(v, 'code');
  if (!(ERROR_CODES as readonly string[]).includes(s)) throw new DecodeError(`unknown error code ${s}`);
  return s as ErrorCode;
}

/** Parses one text frame. Answers null for a message `type` this SDK does not know. */
export function decodeServerJson(text: string): ServerMsg | null {
  const o = c.parse(text);
  switch (o.type) {
    case 'snapshot': {
      const msg: ServerMsg = {
        type: 'snapshot',
        tick: c.u64(o.tick, 'tick'),
        time: c.u64(o.time, 'time'),
        nodes: c.arr(o.nodes, 'nodes').map((n) => c.node(n, 'node')),
      };
      const bytes = compact(o.compact);
      if (bytes) msg.compact = bytes;
      return msg;
    }
    case 'delta': {
      const msg: ServerMsg = {
        type: 'delta',
        tick: c.u64(o.tick, 'tick'),
        time: c.u64(o.time, 'time'),
        upsert: c.arr(o.upsert, 'upsert').map((n) => c.node(n, 'node')),
        update: rows(o.update),
        remove: Uint32Array.from(c.ids(o.remove, 'remove')),
        resumed: o.resumed === undefined ? false : c.bool(o.resumed, 'resumed'),
      };
      const bytes = compact(o.compact);
      if (bytes) msg.compact = bytes;
      return msg;
    }
    case 'ack':
      return { type: 'ack', seq: c.u64(o.seq, 'seq'), tick: c.u64(o.tick, 'tick'), ids: c.ids(o.ids, 'ids') };
    case 'error': {
      const msg: ServerMsg = { type: 'error', code: code(o.code), message: c.str(o.message, 'message') };
      const seq = c.opt(o.seq, c.u64, 'seq');
      const id = c.opt(o.id, c.u64, 'id');
      const op = c.opt(o.op, c.u32, 'op');
      if (seq !== undefined) msg.seq = seq;
      if (id !== undefined) msg.id = id;
      if (op !== undefined) msg.op = op;
      return msg;
    }
    case 'query_result': {
      const msg: ServerMsg = { type: 'query_result', id: c.u64(o.id, 'id'), tick: c.u64(o.tick, 'tick') };
      if (o.nodes !== undefined && o.nodes !== null) msg.nodes = c.ids(o.nodes, 'nodes');
      if (o.hits !== undefined && o.hits !== null) msg.hits = hits(o.hits);
      return msg;
    }
    case 'pong':
      return { type: 'pong', nonce: c.u64(o.nonce, 'nonce'), tick: c.u64(o.tick, 'tick') };
    case 'closed':
      return { type: 'closed', reason: c.str(o.reason, 'reason') };
    default:
      if (typeof o.type !== 'string') throw new DecodeError('a message needs a string `type`');
      return null;
  }
}

// ---- encoding (tests, fake servers) ----------------------------------------------

/** Encodes a server message as JSON text, as the server writes it. */
export function encodeServerJson(msg: ServerMsg): string {
  switch (msg.type) {
    case 'snapshot':
      return stringify({ ...msg, compact: msg.compact && Array.from(msg.compact) });
    case 'delta': {
      const { ids, world } = msg.update;
      const update = Array.from(ids, (id, i) => [id, ...world.subarray(i * 8, i * 8 + 8)]);
      return stringify({ ...msg, update, resumed: msg.resumed || undefined, compact: msg.compact && Array.from(msg.compact) });
    }
    case 'query_result':
      return stringify({ ...msg, hits: msg.hits?.hits });
    default:
      return stringify(msg);
  }
}
