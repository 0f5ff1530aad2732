// Mirror: the client's copy of the in-scope nodes (world transform, parent, extent,
// mask), kept by applying the server's snapshots and deltas as the contract says:
// a snapshot replaces the copy; a delta's `upsert` inserts or overwrites whole nodes,
// its `update` replaces world transforms, its `remove` deletes nodes.
//
// Storage is struct-of-arrays in typed arrays indexed by a slot per node, so a game
// loop reads positions without copying (`mirror.world[slot * 8 + k]`) and applying a
// delta of a thousand rows touches a Map lookup and eight floats per row, allocating
// nothing. The arrays are replaced when the mirror grows, so re-read the properties
// after each frame instead of keeping them.
//
// Invariant: after the snapshot and every later frame of a connection are applied in
// order, the copy equals the server's in-scope state at the last frame's tick. An
// `update` or `remove` naming a node the copy lacks would break that; it is counted
// (`inconsistencies`) and the apply call returns false, so the connection asks for a
// fresh snapshot rather than guessing.

import type { DeltaMsg, Node, SnapshotMsg } from './wire/types.js';
import { CompactState } from './compact-state.js';
import type * as CompactApplier from './mirror-compact.js';

// The compact decoder and applier (about a sixth of the library) load only when asked:
// a connection subscribing with `encoding: "compact"` awaits `Mirror.loadCompact()`
// first, so a page that never asks for compact frames never downloads that code.
let compactApplier: typeof CompactApplier | null = null;

function applyCompact(m: Mirror, bytes: Uint8Array, nodes: Node[], withUpdates: boolean, sink: MirrorSink | null): void {
  if (compactApplier) return compactApplier.applyCompact(m, bytes, nodes, withUpdates, sink);
  // Without the decoder the block cannot be read: as for a malformed one, count it, so
  // a connection resubscribes rather than trusts transforms it could not apply.
  m.compact.lastError = { kind: 'not_loaded' };
  m.countInconsistency();
}

/** What a mirror reports while it applies a frame (a connection turns these into events). */
export interface MirrorSink {
  /** A node came into the copy; read it from the mirror at `slot`. */
  entered(id: number, slot: number): void;
  /** A node already held was sent in full again (parent, extent or mask changed). */
  changed(id: number, slot: number): void;
  /** A held node's world transform changed. */
  updated(id: number, slot: number): void;
  /** A node left the copy; `slot` is free from now on (and may be reused). */
  left(id: number, slot: number): void;
}

/**
 * Hears every frame a mirror applies, whoever applies it and whatever sink they pass
 * (an Interpolator keeps its history of node states this way): `frame` before the
 * frame's changes, with its server time and whether it replaces the copy (a
 * snapshot), then the node changes as a sink hears them.
 */
export interface MirrorWatcher extends MirrorSink {
  frame(time: number, snapshot: boolean): void;
}

const NO_PARENT = -1;

export class Mirror {
  /**
   * Loads the compact-block decoder, needed before applying frames with compact rows
   * (v1.1 `encoding: "compact"`). Connections call it themselves when they subscribe
   * with that encoding; a Mirror used alone calls it once first.
   */
  static async loadCompact(): Promise<void> {
    compactApplier ??= await import('./mirror-compact.js');
  }

  /** Node id of each slot. */
  ids = new Uint32Array(0);
  /** World transform of each slot: tx, ty, tz, rx, ry, rz, rw, s at `slot * 8`. */
  world = new Float32Array(0);
  /** Half-extents of each slot at `slot * 3`. */
  extent = new Float32Array(0);
  /** Layer mask of each slot. */
  mask = new Uint32Array(0);
  /** Parent id of each slot, or -1 for a root (a Float64Array holds every u32). */
  parent = new Float64Array(0);
  /** The compact encoding's integer baseline per slot (see mirror-compact.ts). */
  readonly compact = new CompactState();

  /** Tick of the last applied frame (0 before the first). */
  tick = 0;
  /** Server time (ms since the Unix epoch) of the last applied frame. */
  time = 0;
  /** `update`/`remove` entries that named a node the copy lacks; 0 against a correct server. */
  inconsistencies = 0;
  /**
   * The expected time between frames in ms (0: unknown): a Connection sets it from the
   * subscription's `sendHz`, else the room's tick rate. An Interpolator's defaults
   * follow it.
   */
  frameIntervalMs = 0;
  /** The largest `every` of the subscription's distance tiers (1: none). */
  tierEvery = 1;

  #watchers: MirrorWatcher[] = [];
  /** The caller's sink for the frame being applied, when watchers hear it too. */
  #outer: MirrorSink | null = null;
  readonly #fan: MirrorSink = {
    entered: (id, slot) => {
      this.#outer?.entered(id, slot);
      for (const w of this.#watchers) w.entered(id, slot);
    },
    changed: (id, slot) => {
      this.#outer?.changed(id, slot);
      for (const w of this.#watchers) w.changed(id, slot);
    },
    updated: (id, slot) => {
      this.#outer?.updated(id, slot);
      for (const w of this.#watchers) w.updated(id, slot);
    },
    left: (id, slot) => {
      this.#outer?.left(id, slot);
      for (const w of this.#watchers) w.left(id, slot);
    },
  };

  #slots = new Map<number, number>();
  #free: number[] = [];
  #capacity = 0;

  /** The number of nodes in scope. */
  get size(): number {
    return this.#slots.size;
  }

  has(id: number): boolean {
    return this.#slots.has(id);
  }

  /** The slot of a node (index into the typed arrays), or -1 when it is not held. */
  slotOf(id: number): number {
    return this.#slots.get(id) ?? -1;
  }

  /** A copy of one node, or undefined. */
  get(id: number): Node | undefined {
    const slot = this.#slots.get(id);
    return slot === undefined ? undefined : this.nodeAt(slot);
  }

  /** A copy of the node in `slot`. */
  nodeAt(slot: number): Node {
    const w = this.world;
    const o = slot * 8;
    const e = slot * 3;
    const p = this.parent[slot]!;
    return {
      id: this.ids[slot]!,
      parent: p === NO_PARENT ? null : p,
      world: { t: [w[o]!, w[o + 1]!, w[o + 2]!], r: [w[o + 3]!, w[o + 4]!, w[o + 5]!, w[o + 6]!], s: w[o + 7]! },
      extent: [this.extent[e]!, this.extent[e + 1]!, this.extent[e + 2]!],
      mask: this.mask[slot]!,
    };
  }

  /** Calls `fn(id, slot)` for every node, in no particular order, without copying. */
  forEach(fn: (id: number, slot: number) => void): void {
    for (const [id, slot] of this.#slots) fn(id, slot);
  }

  /** Every node id with its slot, in no particular order. */
  entries(): IterableIterator<[number, number]> {
    return this.#slots.entries();
  }

  /** Every node, copied and sorted by id (to compare with `GET /rooms/{room}/nodes`). */
  toSortedArray(): Node[] {
    return [...this.#slots.values()].map((s) => this.nodeAt(s)).sort((a, b) => a.id - b.id);
  }

  /** Adds a watcher of every frame applied from now on; returns its removal. */
  watch(w: MirrorWatcher): () => void {
    this.#watchers.push(w);
    return () => {
      this.#watchers = this.#watchers.filter((x) => x !== w);
    };
  }

  /** The sink a frame is applied with: the caller's, plus the watchers' when there are any. */
  #sink(sink: MirrorSink | null | undefined, time: number, snapshot: boolean): MirrorSink | null {
    if (!this.#watchers.length) return sink ?? null;
    for (const w of this.#watchers) w.frame(time, snapshot);
    this.#outer = sink ?? null;
    return this.#fan;
  }

  // ---- applying frames -------------------------------------------------------------

  /**
   * Replaces the copy with a snapshot. The sink hears the difference from the old copy:
   * `left` for nodes gone, then `entered` or `changed` (only when values differ).
   */
  applySnapshot(msg: SnapshotMsg, sink?: MirrorSink | null): void {
    sink = this.#sink(sink, msg.time, true);
    const fresh = new Set<number>();
    for (const n of msg.nodes) fresh.add(n.id);
    for (const [id, slot] of this.#slots) {
      if (!fresh.has(id)) this.#release(id, slot, sink);
    }
    const changes: number[] = [];
    for (const n of msg.nodes) {
      const old = this.#slots.get(n.id);
      const before = old === undefined || !sink ? null : this.nodeAt(old);
      const slot = this.#write(n);
      changes.push(slot, old === undefined ? 1 : before && !sameNode(before, n) ? 2 : 0);
    }
    if (msg.compact) applyCompact(this, msg.compact, msg.nodes, false, null);
    this.tick = msg.tick;
    this.time = msg.time;
    if (sink) {
      for (let i = 0; i < changes.length; i += 2) {
        const slot = changes[i]!;
        if (changes[i + 1] === 1) sink.entered(this.ids[slot]!, slot);
        else if (changes[i + 1] === 2) sink.changed(this.ids[slot]!, slot);
      }
    }
  }

  /**
   * Applies a delta (upsert, compact rows, update, then remove; the contract puts a
   * node in at most one list per frame). Returns false when it named nodes the copy
   * lacks (they are skipped and counted); the copy then needs a fresh snapshot.
   */
  applyDelta(msg: DeltaMsg, sink?: MirrorSink | null): boolean {
    sink = this.#sink(sink, msg.time, false);
    const before = this.inconsistencies;
    const upserted: number[] = [];
    for (const n of msg.upsert) {
      const known = this.#slots.has(n.id);
      upserted.push(this.#write(n), known ? 2 : 1);
    }
    if (msg.compact) applyCompact(this, msg.compact, msg.upsert, true, sink ?? null);
    const ids = msg.update.ids;
    const rows = msg.update.world;
    const world = this.world;
    const slots = this.#slots;
    const exact = this.compact;
    for (let i = 0; i < ids.length; i++) {
      const slot = slots.get(ids[i]!);
      if (slot === undefined) {
        this.inconsistencies++;
        continue;
      }
      const o = slot * 8;
      const r = i * 8;
      world[o] = rows[r]!;
      world[o + 1] = rows[r + 1]!;
      world[o + 2] = rows[r + 2]!;
      world[o + 3] = rows[r + 3]!;
      world[o + 4] = rows[r + 4]!;
      world[o + 5] = rows[r + 5]!;
      world[o + 6] = rows[r + 6]!;
      world[o + 7] = rows[r + 7]!;
      exact.forget(slot);
      if (sink) sink.updated(ids[i]!, slot);
    }
    if (sink) {
      for (let i = 0; i < upserted.length; i += 2) {
        const slot = upserted[i]!;
        if (upserted[i + 1] === 1) sink.entered(this.ids[slot]!, slot);
        else sink.changed(this.ids[slot]!, slot);
      }
    }
    const remove = msg.remove;
    for (let i = 0; i < remove.length; i++) {
      const slot = slots.get(remove[i]!);
      if (slot === undefined) this.inconsistencies++;
      else this.#release(remove[i]!, slot, sink);
    }
    this.tick = msg.tick;
    this.time = msg.time;
    return this.inconsistencies === before;
  }

  /** Empties the copy (after `unsubscribe`), reporting every node as left. */
  clear(sink?: MirrorSink | null): void {
    sink = this.#sink(sink, this.time, true);
    for (const [id, slot] of this.#slots) this.#release(id, slot, sink);
  }

  /** Counts an entry that named an unknown node (used by the compact rows). */
  countInconsistency(): void {
    this.inconsistencies++;
  }

  // ---- storage -----------------------------------------------------------------------

  /** Writes a whole node, into its slot or a new one; returns the slot. */
  #write(n: Node): number {
    let slot = this.#slots.get(n.id);
    if (slot === undefined) {
      slot = this.#free.pop() ?? this.#grow();
      this.#slots.set(n.id, slot);
      this.ids[slot] = n.id;
    }
    const o = slot * 8;
    const w = this.world;
    const t = n.world.t;
    const r = n.world.r;
    w[o] = t[0];
    w[o + 1] = t[1];
    w[o + 2] = t[2];
    w[o + 3] = r[0];
    w[o + 4] = r[1];
    w[o + 5] = r[2];
    w[o + 6] = r[3];
    w[o + 7] = n.world.s;
    this.extent[slot * 3] = n.extent[0];
    this.extent[slot * 3 + 1] = n.extent[1];
    this.extent[slot * 3 + 2] = n.extent[2];
    this.mask[slot] = n.mask;
    this.parent[slot] = n.parent ?? NO_PARENT;
    this.compact.forget(slot);
    return slot;
  }

  #release(id: number, slot: number, sink: MirrorSink | null | undefined): void {
    this.#slots.delete(id);
    this.#free.push(slot);
    this.compact.forget(slot);
    if (sink) sink.left(id, slot);
  }

  /** Doubles the arrays; returns the first new slot and puts the rest on the free list. */
  #grow(): number {
    const old = this.#capacity;
    const cap = Math.max(64, old * 2);
    const copy = <T extends Float32Array | Float64Array | Uint32Array>(a: T, per: number): T => {
      const next = new (a.constructor as new (n: number) => T)(cap * per);
      next.set(a);
      return next;
    };
    this.ids = copy(this.ids, 1);
    this.world = copy(this.world, 8);
    this.extent = copy(this.extent, 3);
    this.mask = copy(this.mask, 1);
    this.parent = copy(this.parent, 1);
    this.compact.grow(cap);
    this.#capacity = cap;
    for (let s = cap - 1; s > old; s--) this.#free.push(s);
    return old;
  }
}

function sameNode(a: Node, b: Node): boolean {
  const eq = (x: readonly number[], y: readonly number[]) =>
    x.length === y.length && x.every((v, i) => Object.is(v, Math.fround(y[i]!)));
  return (
    a.parent === b.parent &&
    a.mask === b.mask &&
    eq(a.extent, b.extent) &&
    eq(a.world.t, b.world.t) &&
    eq(a.world.r, b.world.r) &&
    Object.is(a.world.s, Math.fround(b.world.s))
  );
}
