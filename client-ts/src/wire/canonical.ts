// The canonical form of what a client sends: every op and query with the fields the
// Rust codec writes, defaults filled in (an identity `local`, all-layers masks,
// `all: false`) and absent optional parts left out. Both encoders start from it, so a
// message has exactly one bincode form and one JSON form, and an op the contract does
// not know is refused here, before anything is sent.

import { InvalidArgumentError } from '../errors.js';
import type { ClientMsg, Op, Query, Transform, Vec3 } from './types.js';

export const ALL_LAYERS = 0xffff_ffff;

/** A local transform with the identity's values where the caller gave none. */
export function fullTransform(t: Partial<Transform> | undefined): Transform {
  return { t: t?.t ?? [0, 0, 0], r: t?.r ?? [0, 0, 0, 1], s: t?.s ?? 1 };
}

/** Copies the keys of `o` that are not undefined (JSON leaves them out, bincode writes none). */
const defined = <T extends object>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

export function canonicalOp(op: Op): Op {
  switch (op.op) {
    case 'add':
      return {
        op: 'add',
        id: op.id ?? null,
        parent: op.parent ?? null,
        local: fullTransform(op.local),
        extent: op.extent ?? [0, 0, 0],
        mask: op.mask ?? ALL_LAYERS,
      };
    case 'set_local':
      return defined({ op: op.op, node: op.node, t: op.t, r: op.r, s: op.s });
    case 'set_parent':
      return { op: op.op, node: op.node, parent: op.parent ?? null };
    case 'set_shape':
      return defined({ op: op.op, node: op.node, extent: op.extent, mask: op.mask });
    case 'remove':
      return { op: op.op, node: op.node };
  }
  throw new InvalidArgumentError(`unknown op ${JSON.stringify((op as { op: unknown }).op)}`);
}

/**
 * (v1.2) A sphere or nearest query measures from a point or `around` a node: exactly
 * one, or it has no wire form (the Rust codec refuses to encode it too).
 */
function origin(point: Vec3 | undefined, around: number | undefined, name: string): Record<string, Vec3 | number> {
  if ((point === undefined) === (around === undefined)) {
    throw new InvalidArgumentError(`give \`${name}\` or \`around\`, exactly one`);
  }
  return point === undefined ? { around: around! } : { [name]: point };
}

export function canonicalQuery(q: Query): Query {
  const mask = q.mask ?? ALL_LAYERS;
  switch (q.kind) {
    case 'region':
      return { kind: q.kind, min: q.min, max: q.max, mask };
    case 'sphere':
      return defined({ kind: q.kind, ...origin(q.center, q.around, 'center'), radius: q.radius, mask }) as Query;
    case 'ray':
      return defined({ kind: q.kind, origin: q.origin, dir: q.dir, max_t: q.max_t, mask, all: q.all ?? false });
    case 'nearest':
      return defined({ kind: q.kind, ...origin(q.point, q.around, 'point'), k: q.k, max_dist: q.max_dist, mask }) as Query;
  }
  throw new InvalidArgumentError(`unknown query kind ${JSON.stringify((q as { kind: unknown }).kind)}`);
}

export function canonicalMsg(msg: ClientMsg): ClientMsg {
  switch (msg.type) {
    case 'subscribe':
      return defined({
        type: msg.type,
        region: msg.region,
        mask: msg.mask,
        since: msg.since,
        encoding: msg.encoding === 'compact' ? msg.encoding : undefined,
        follow: msg.follow && defined({ node: msg.follow.node, radius: msg.follow.radius, margin: msg.follow.margin }),
        frustum: msg.frustum,
        send_hz: msg.send_hz,
        tiers: msg.tiers?.length ? msg.tiers.map((t) => defined({ within: t.within, every: t.every })) : undefined,
      });
    case 'edits':
      return { type: msg.type, seq: msg.seq, ops: msg.ops.map(canonicalOp) };
    case 'query':
      return { type: msg.type, id: msg.id, query: canonicalQuery(msg.query) };
    case 'unsubscribe':
    case 'ping':
      return msg;
  }
  throw new InvalidArgumentError(`unknown message type ${JSON.stringify((msg as { type: unknown }).type)}`);
}
