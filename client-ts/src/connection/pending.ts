// The requests of one WebSocket connection that wait for their answer: edit batches by
// `seq`, queries by `id`, pings by `nonce`, and subscribes in the order they were sent
// (the server answers them in that order).
//
// Invariant: a request is in exactly one table from just before its message is sent
// until its answer, its timeout, or `failAll`, which the connection calls the moment the
// socket drops, so no request outlives its connection or hangs.

import { DisconnectedError, TimeoutError } from '../errors.js';
import type { CanopyError } from '../errors.js';

interface Waiter<T> {
  resolve(v: T): void;
  reject(e: CanopyError): void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** Who waits for a snapshot: the caller of `subscribe`, or the connection itself. */
export type SnapshotWaiter = { caller: Waiter<number> } | { resync: true };

export class Pending {
  /** One counter for seq, id and nonce: never reused, so a late answer never matches. */
  #next = 0;
  #table = new Map<number, Waiter<unknown> & { kind: string }>();
  #snapshots: SnapshotWaiter[] = [];

  constructor(private readonly timeoutMs: number) {}

  #waiter<T>(resolve: (v: T) => void, reject: (e: CanopyError) => void, onTimeout: () => void): Waiter<T> {
    const w: Waiter<T> = { resolve, reject, timer: undefined };
    if (Number.isFinite(this.timeoutMs)) {
      w.timer = setTimeout(() => {
        onTimeout();
        reject(new TimeoutError(this.timeoutMs));
      }, this.timeoutMs);
    }
    return w;
  }

  /** Registers a request of `kind`; returns its number and the promise of its answer. */
  add<T>(kind: string): [number, Promise<T>] {
    const n = ++this.#next;
    const p = new Promise<T>((resolve, reject) => {
      const w = this.#waiter<T>(resolve, reject, () => this.#table.delete(n));
      this.#table.set(n, { ...(w as Waiter<unknown>), kind });
    });
    return [n, p];
  }

  /**
   * Takes request `n` if its kind starts with `prefix` (null when none waits: a late
   * answer after a timeout, or one naming another kind of request).
   */
  take(n: number, prefix: string): (Waiter<unknown> & { kind: string }) | null {
    const w = this.#table.get(n);
    if (!w || !w.kind.startsWith(prefix)) return null;
    this.#table.delete(n);
    clearTimeout(w.timer);
    return w;
  }

  /** Registers a subscribe the caller waits on; resolves with the snapshot's tick. */
  addSubscribe(): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      const entry: SnapshotWaiter = {
        caller: this.#waiter<number>(resolve, reject, () => {
          // A timed-out subscribe keeps its place: the server still answers it in order.
          (entry as { caller: Waiter<number> }).caller = { resolve() {}, reject() {}, timer: undefined };
        }),
      };
      this.#snapshots.push(entry);
    });
  }

  addResync(): void {
    this.#snapshots.push({ resync: true });
  }

  resyncPending(): boolean {
    return this.#snapshots.some((w) => 'resync' in w);
  }

  /** The waiter the next snapshot (or resuming delta) answers: the oldest subscribe. */
  takeSnapshotWaiter(): SnapshotWaiter | undefined {
    const w = this.#snapshots.shift();
    if (w && 'caller' in w) clearTimeout(w.caller.timer);
    return w;
  }

  /** The oldest subscribe, if the caller made it: an unattributed error refuses it. */
  takeCallerSubscribe(): Waiter<number> | null {
    const w = this.#snapshots[0];
    if (!w || !('caller' in w)) return null;
    this.#snapshots.shift();
    clearTimeout(w.caller.timer);
    return w.caller;
  }

  /** Fails every waiting request with DisconnectedError (the socket dropped). */
  failAll(error: CanopyError = new DisconnectedError()): void {
    const table = [...this.#table.values()];
    const snaps = this.#snapshots;
    this.#table.clear();
    this.#snapshots = [];
    for (const w of table) {
      clearTimeout(w.timer);
      w.reject(error);
    }
    for (const s of snaps) {
      if ('caller' in s) {
        clearTimeout(s.caller.timer);
        s.caller.reject(error);
      }
    }
  }
}
