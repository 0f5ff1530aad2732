// The JSON form of client-to-server messages and HTTP request bodies: encoding (every
// message and body the SDK sends) and decoding (tests, fake servers). Encoding writes
// what the Rust codec writes: every field that bincode always carries, except those the
// server skips when they hold their default (`since`, `encoding: "exact"`, the absent
// parts of `set_local`/`set_shape`, `max_t`, `max_dist`), so a message has one JSON form.

import { DecodeError } from '../errors.js';
import type { ClientMsg, Frustum, Op, Query, Vec3 } from './types.js';
import * as c from './json-check.js';
import { stringify } from './json-text.js';
import { ALL_LAYERS, canonicalMsg, canonicalOp, canonicalQuery, fullTransform } from './canonical.js';

/** The JSON text of an edit batch, `{"ops":[...]}` (the body of `POST .../edits`). */
export function encodeBatchJson(ops: Op[]): string {
  return stringify({ ops: ops.map(canonicalOp) });
}

/** A query's HTTP body: its fields without `kind` (the route names it). */
export function encodeQueryJson(q: Query): string {
  const { kind: _, ...body } = canonicalQuery(q);
  return stringify(body);
}

/** Encodes a client message as one text frame. */
export function encodeClientJson(msg: ClientMsg): string {
  return stringify(canonicalMsg(msg));
}

// ---- decoding (tests, fake servers) ----------------------------------------------

function mask(v: unknown): number {
  return v === undefined ? ALL_LAYERS : c.u32(v, 'mask');
}

function op(v: unknown): Op {
  const o = c.obj(v, 'op');
  switch (o.op) {
    case 'add':
      return {
        op: 'add',
        id: c.opt(o.id, c.u32, 'id') ?? null,
        parent: c.opt(o.parent, c.u32, 'parent') ?? null,
        local: o.local === undefined ? fullTransform(undefined) : c.transform(o.local, 'local'),
        extent: o.extent === undefined ? [0, 0, 0] : c.vec3(o.extent, 'extent'),
        mask: mask(o.mask),
      };
    case 'set_local': {
      const out: Op = { op: 'set_local', node: c.u32(o.node, 'node') };
      const t = c.opt(o.t, c.vec3, 't');
      const r = c.opt(o.r, c.quat, 'r');
      const s = c.opt(o.s, c.f32, 's');
      if (t) out.t = t;
      if (r) out.r = r;
      if (s !== undefined) out.s = s;
      return out;
    }
    case 'set_parent':
      if (!('parent' in o)) throw new DecodeError('set_parent needs `parent` (null for a root)');
      return { op: 'set_parent', node: c.u32(o.node, 'node'), parent: c.opt(o.parent, c.u32, 'parent') ?? null };
    case 'set_shape': {
      const out: Op = { op: 'set_shape', node: c.u32(o.node, 'node') };
      const extent = c.opt(o.extent, c.vec3, 'extent');
      const m = c.opt(o.mask, c.u32, 'mask');
      if (extent) out.extent = extent;
      if (m !== undefined) out.mask = m;
      return out;
    }
    case 'remove':
      return { op: 'remove', node: c.u32(o.node, 'node') };
    default:
      throw new DecodeError(`unknown op ${String(o.op)}`);
  }
}

/** (v1.2) A sphere's `center` or a nearest query's `point`, or `around` a node: one of them. */
function origin(o: c.Obj, name: 'center' | 'point'): Record<string, Vec3 | number> {
  const at = c.opt(o[name], c.vec3, name);
  const around = c.opt(o.around, c.u32, 'around');
  if ((at === undefined) === (around === undefined)) throw new DecodeError(`give \`${name}\` or \`around\`, exactly one`);
  return around !== undefined ? { around } : { [name]: at! };
}

function query(v: unknown): Query {
  const o = c.obj(v, 'query');
  switch (o.kind) {
    case 'region':
      return { kind: 'region', min: c.vec3(o.min, 'min'), max: c.vec3(o.max, 'max'), mask: mask(o.mask) };
    case 'sphere':
      return { kind: 'sphere', ...origin(o, 'center'), radius: c.f32(o.radius, 'radius'), mask: mask(o.mask) } as Query;
    case 'ray': {
      const q: Query = {
        kind: 'ray',
        origin: c.vec3(o.origin, 'origin'),
        dir: c.vec3(o.dir, 'dir'),
        mask: mask(o.mask),
        all: o.all === undefined ? false : c.bool(o.all, 'all'),
      };
      const maxT = c.opt(o.max_t, c.f32, 'max_t');
      if (maxT !== undefined) q.max_t = maxT;
      return q;
    }
    case 'nearest': {
      const q = { kind: 'nearest', ...origin(o, 'point'), k: c.u32(o.k, 'k'), mask: mask(o.mask) } as Query & { kind: 'nearest' };
      const maxDist = c.opt(o.max_dist, c.f32, 'max_dist');
      if (maxDist !== undefined) q.max_dist = maxDist;
      return q;
    }
    default:
      throw new DecodeError(`unknown query kind ${String(o.kind)}`);
  }
}

/** Parses a client message from one text frame (the server's side). */
export function decodeClientJson(text: string): ClientMsg {
  const o = c.parse(text);
  switch (o.type) {
    case 'subscribe': {
      const r = o.region === undefined || o.region === null ? null : c.obj(o.region, 'region');
      const msg: ClientMsg = {
        type: 'subscribe',
        region: r === null ? null : { min: c.vec3(r.min, 'region min'), max: c.vec3(r.max, 'region max') },
        mask: mask(o.mask),
      };
      const since = c.opt(o.since, c.u64, 'since');
      if (since !== undefined) msg.since = since;
      if (o.encoding !== undefined && o.encoding !== 'exact') {
        if (o.encoding !== 'compact') throw new DecodeError('encoding must be exact or compact');
        msg.encoding = 'compact';
      }
      const f = c.opt(o.follow, c.obj, 'follow');
      if (f) {
        msg.follow = { node: c.u32(f.node, 'follow.node'), radius: c.f32(f.radius, 'follow.radius') };
        const margin = c.opt(f.margin, c.f32, 'follow.margin');
        if (margin !== undefined) msg.follow.margin = margin;
      }
      const planes = c.opt(o.frustum, c.arr, 'frustum');
      if (planes) {
        if (planes.length !== 6) throw new DecodeError('frustum must have 6 planes');
        msg.frustum = planes.map((p, i) => c.fixed(p, 4, `frustum[${i}]`)) as Frustum;
      }
      const hz = c.opt(o.send_hz, c.u32, 'send_hz');
      if (hz !== undefined) msg.send_hz = hz;
      const tiers = c.opt(o.tiers, c.arr, 'tiers') ?? [];
      if (tiers.length) {
        msg.tiers = tiers.map((t, i) => {
          const to = c.obj(t, `tiers[${i}]`);
          const every = c.u32(to.every, `tiers[${i}].every`);
          const within = c.opt(to.within, c.f32, `tiers[${i}].within`);
          return within === undefined ? { every } : { within, every };
        });
      }
      return msg;
    }
    case 'unsubscribe':
      return { type: 'unsubscribe' };
    case 'edits':
      return { type: 'edits', seq: c.u64(o.seq, 'seq'), ops: c.arr(o.ops, 'ops').map(op) };
    case 'query':
      return { type: 'query', id: c.u64(o.id, 'id'), query: query(o.query) };
    case 'ping':
      return { type: 'ping', nonce: c.u64(o.nonce, 'nonce') };
    default:
      throw new DecodeError(`unknown message type ${String(o.type)}`);
  }
}
