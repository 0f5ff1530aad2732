// Random but valid edit batches for convergence tests. A model of the room's hierarchy
// (live ids and their parents) makes every op valid against the state the ops before it
// leave: no unknown nodes, no cycles, no reused ids. The server's `GET /nodes`, not this
// model, is what mirrors are compared with.

export function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

export class RandomEditor {
  constructor(seed, { spread = 100 } = {}) {
    this.r = rng(seed);
    this.spread = spread;
    this.parent = new Map();
    this.nextId = 1;
  }

  pick(list) {
    return list[Math.floor(this.r() * list.length)];
  }

  vec(scale = this.spread) {
    return [0, 0, 0].map(() => (this.r() * 2 - 1) * scale);
  }

  quat() {
    const q = [0, 0, 0, 0].map(() => this.r() * 2 - 1);
    return q.every((v) => Math.abs(v) < 0.1) ? [0, 0, 0, 1] : q;
  }

  /** The node and everything under it. */
  subtree(id) {
    const out = new Set([id]);
    let grew = true;
    while (grew) {
      grew = false;
      for (const [n, p] of this.parent) {
        if (p !== null && out.has(p) && !out.has(n)) {
          out.add(n);
          grew = true;
        }
      }
    }
    return out;
  }

  op() {
    const live = [...this.parent.keys()];
    const roll = this.r();
    if (live.length < 8 || roll < 0.35) {
      const id = this.nextId++;
      const parent = live.length && this.r() < 0.5 ? this.pick(live) : null;
      this.parent.set(id, parent);
      const op = { op: 'add', id, parent, local: { t: this.vec(parent === null ? this.spread : 3) }, extent: [this.r(), this.r(), this.r()] };
      if (this.r() < 0.3) op.mask = 1 + Math.floor(this.r() * 7);
      return op;
    }
    const node = this.pick(live);
    if (roll < 0.65) {
      const op = { op: 'set_local', node };
      if (this.r() < 0.8) op.t = this.vec(this.parent.get(node) === null ? this.spread : 3);
      if (this.r() < 0.4) op.r = this.quat();
      if (this.r() < 0.2) op.s = 0.5 + this.r();
      return op;
    }
    if (roll < 0.77) {
      const banned = this.subtree(node);
      const choices = live.filter((n) => !banned.has(n));
      const parent = choices.length && this.r() < 0.7 ? this.pick(choices) : null;
      this.parent.set(node, parent);
      return { op: 'set_parent', node, parent };
    }
    if (roll < 0.93) return { op: 'set_shape', node, extent: [this.r() * 2, this.r() * 2, this.r() * 2], mask: 1 + Math.floor(this.r() * 7) };
    for (const n of this.subtree(node)) this.parent.delete(n);
    return { op: 'remove', node };
  }

  batch(n) {
    return Array.from({ length: n }, () => this.op());
  }
}

/** The server's whole room, sorted by id, f32 values as sent. */
export async function serverNodes(client, room) {
  return (await client.nodes(room)).nodes.sort((a, b) => a.id - b.id);
}

/**
 * What a region subscription should hold, by the server's own definition: the nodes of
 * `GET /nodes` that its region query (the same box and mask) names. Only meaningful
 * while the room is still, since the two reads may answer at different ticks.
 */
export async function serverScope(client, room, scope) {
  const nodes = await serverNodes(client, room);
  if (!scope.region) return nodes.filter((n) => (n.mask & (scope.mask ?? 0xffffffff)) !== 0);
  const hit = new Set((await client.queryRegion(room, { ...scope.region, mask: scope.mask })).nodes);
  return nodes.filter((n) => hit.has(n.id));
}
