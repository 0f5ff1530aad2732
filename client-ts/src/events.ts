// The change events of a Connection, for a game loop or a UI. Node events carry the
// node's id and its slot in the mirror, so a listener reads the values in place
// (`conn.mirror.world[slot * 8]`) instead of receiving a copy; listeners run
// synchronously while the frame is applied, in the order the mirror applied it, and
// each frame ends with a `tick` (delta) or `snapshot`/`resynced` marker.
//
// A connection only builds node events for kinds that have listeners, so a caller that
// just reads the mirror once per rendered frame pays nothing for them.

import type { ApiError } from './errors.js';

export interface FrameInfo {
  tick: number;
  /** Server time, ms since the Unix epoch, when the tick finished. */
  time: number;
}

export interface ConnectionEvents {
  /** A node came into the mirror (entered scope, or a new snapshot holds it). */
  entered: (id: number, slot: number) => void;
  /** A held node was sent in full again: its parent, extent or mask changed. */
  changed: (id: number, slot: number) => void;
  /** A held node's world transform changed. */
  updated: (id: number, slot: number) => void;
  /** A node left the mirror (removed, moved out of the region, or not in a new snapshot). */
  left: (id: number) => void;
  /** A delta was applied; the node events since the last marker are its changes. */
  tick: (frame: FrameInfo) => void;
  /** The snapshot answering the caller's `subscribe` replaced the mirror. */
  snapshot: (frame: FrameInfo & { size: number }) => void;
  /**
   * The connection brought the mirror up to date by itself, after a reconnect or after
   * a frame it could not apply: by a snapshot (the events before were the difference)
   * or, when `resumed`, by a delta on top of the copy it held.
   */
  resynced: (frame: FrameInfo & { size: number; resumed: boolean }) => void;
  /** `unsubscribe` emptied the mirror; a `left` for every node came before. */
  unsubscribed: () => void;
  /** The connection dropped; it reconnects by itself, and the mirror keeps its state. */
  disconnected: (info: { error: string }) => void;
  /** A new connection is open; when subscribed, a `resynced` follows. */
  reconnected: () => void;
  /** The connection stopped for good (its last event). */
  stopped: (info: { reason: string }) => void;
  /** The server sent an `error` that answers no pending request (a refused subscribe). */
  serverError: (error: ApiError) => void;
}

export type EventName = keyof ConnectionEvents;

export class Emitter {
  #listeners = new Map<EventName, Set<(...args: never[]) => void>>();

  on<K extends EventName>(name: K, fn: ConnectionEvents[K]): () => void {
    let set = this.#listeners.get(name);
    if (!set) this.#listeners.set(name, (set = new Set()));
    set.add(fn);
    return () => this.off(name, fn);
  }

  off<K extends EventName>(name: K, fn: ConnectionEvents[K]): void {
    this.#listeners.get(name)?.delete(fn);
  }

  has(name: EventName): boolean {
    return (this.#listeners.get(name)?.size ?? 0) > 0;
  }

  emit<K extends EventName>(name: K, ...args: Parameters<ConnectionEvents[K]>): void {
    const set = this.#listeners.get(name);
    if (!set) return;
    for (const fn of set) {
      try {
        (fn as (...a: Parameters<ConnectionEvents[K]>) => void)(...args);
      } catch (e) {
        // A throwing listener must not break the frame being applied or the others.
        queueMicrotask(() => {
          throw e;
        });
      }
    }
  }
}
