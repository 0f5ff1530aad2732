// The open room as the inspector sees it: one client-ts Connection subscribed to the
// whole room, its Mirror (the nodes' world transforms, extents, masks and parents in
// typed arrays, indexed by slot), and what the views need on top of it:
//
// * the slots whose drawing is stale (a list plus a flag per slot, so 200 changes a tick
//   cost 200 pushes, and a frame redraws each slot once however many ticks touched it);
// * the hierarchy (parent and children by id), kept from the node events, since the
//   mirror stores only each node's parent;
// * a structure version, bumped when nodes enter, leave or change parent, extent or
//   mask, so the tree panel and the colours rebuild only then.
//
// The mirror's slots are stable while a node is held and reused after it leaves; the
// `left` event names only the id, so the slot of every id is kept here as well.

import type { Client, Connection, FrameInfo } from '@canopy/client';

export class SceneModel {
  readonly conn: Connection;
  readonly room: string;
  /** Slot of each held node (the mirror's, kept so `left` can find it). */
  readonly slotOf = new Map<number, number>();
  /** Parent id of each held node, -1 for a root. */
  readonly parentOf = new Map<number, number>();
  /** Children of each node that has any (ids; order is the tree panel's to choose). */
  readonly children = new Map<number, Set<number>>();
  readonly roots = new Set<number>();
  /** Bumped on every change of the set of nodes or of a parent, extent or mask. */
  structure = 0;
  /** Last frame applied: the server's tick and time, and when this tab applied it. */
  frame: FrameInfo = { tick: 0, time: 0 };
  appliedAt = 0;
  frames = 0;
  /** Slots to redraw, each once (see `takeDirty`). */
  #dirty: number[] = [];
  #isDirty = new Uint8Array(0);
  /** Slots that were released since the last frame: the view hides them. */
  #freed: number[] = [];
  #stopped = false;

  private constructor(conn: Connection, room: string) {
    this.conn = conn;
    this.room = room;
    conn.on('entered', (id, slot) => this.#enter(id, slot));
    conn.on('changed', (id, slot) => this.#change(id, slot));
    conn.on('updated', (_id, slot) => this.#touch(slot));
    conn.on('left', (id) => this.#leave(id));
    const framed = (f: FrameInfo) => {
      this.frame = { tick: f.tick, time: f.time };
      this.appliedAt = Date.now();
      this.frames++;
    };
    conn.on('tick', framed);
    conn.on('snapshot', framed);
    conn.on('resynced', framed);
    conn.on('stopped', () => {
      this.#stopped = true;
    });
  }

  /** Connects to `room` (bincode, the compact-free exact encoding) and subscribes to all of it. */
  static async open(client: Client, room: string): Promise<SceneModel> {
    const conn = await client.connect(room);
    const model = new SceneModel(conn, room);
    await conn.subscribe();
    return model;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  get size(): number {
    return this.conn.mirror.size;
  }

  close(): void {
    this.#stopped = true;
    void this.conn.close();
  }

  /** The stale slots since the last call, each once, and the slots freed since then. */
  takeDirty(): { dirty: number[]; freed: number[] } {
    const dirty = this.#dirty;
    const freed = this.#freed;
    for (let i = 0; i < dirty.length; i++) this.#isDirty[dirty[i]!] = 0;
    this.#dirty = [];
    this.#freed = [];
    return { dirty, freed };
  }

  /** How many slots wait to be redrawn (0 once the view has caught up with the mirror). */
  get pending(): number {
    return this.#dirty.length + this.#freed.length;
  }

  /** Marks every held slot stale (after the view rebuilt its buffers). */
  touchAll(): void {
    for (const slot of this.slotOf.values()) this.#touch(slot);
  }

  /** Depth of a node in the hierarchy (0 for a root), walking parents up. */
  depth(id: number): number {
    let d = 0;
    let p = this.parentOf.get(id) ?? -1;
    while (p !== -1 && d < 1024) {
      d++;
      p = this.parentOf.get(p) ?? -1;
    }
    return d;
  }

  /** The ancestors of `id`, nearest first. */
  ancestors(id: number): number[] {
    const out: number[] = [];
    let p = this.parentOf.get(id) ?? -1;
    while (p !== -1 && out.length < 1024) {
      out.push(p);
      p = this.parentOf.get(p) ?? -1;
    }
    return out;
  }

  #touch(slot: number): void {
    if (slot >= this.#isDirty.length) {
      const grown = new Uint8Array(Math.max(64, this.#isDirty.length * 2, slot + 1));
      grown.set(this.#isDirty);
      this.#isDirty = grown;
    }
    if (this.#isDirty[slot]) return;
    this.#isDirty[slot] = 1;
    this.#dirty.push(slot);
  }

  #enter(id: number, slot: number): void {
    this.slotOf.set(id, slot);
    this.#link(id, this.#parentAt(slot));
    this.#touch(slot);
    this.structure++;
  }

  #change(id: number, slot: number): void {
    const parent = this.#parentAt(slot);
    if (this.parentOf.get(id) !== parent) {
      this.#unlink(id);
      this.#link(id, parent);
    }
    this.#touch(slot);
    this.structure++;
  }

  #leave(id: number): void {
    const slot = this.slotOf.get(id);
    if (slot !== undefined) this.#freed.push(slot);
    this.slotOf.delete(id);
    this.#unlink(id);
    this.parentOf.delete(id);
    this.structure++;
  }

  #parentAt(slot: number): number {
    return this.conn.mirror.parent[slot]!;
  }

  #link(id: number, parent: number): void {
    this.parentOf.set(id, parent);
    if (parent === -1) {
      this.roots.add(id);
      return;
    }
    let set = this.children.get(parent);
    if (!set) this.children.set(parent, (set = new Set()));
    set.add(id);
  }

  #unlink(id: number): void {
    const parent = this.parentOf.get(id);
    if (parent === undefined) return;
    if (parent === -1) this.roots.delete(id);
    else {
      const set = this.children.get(parent);
      set?.delete(id);
      if (set && set.size === 0) this.children.delete(parent);
    }
  }
}
