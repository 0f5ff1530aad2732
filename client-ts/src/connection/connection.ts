// Connection: a live WebSocket to one room, with its mirror of the in-scope nodes, its
// events, and its requests (subscribe, edits, queries, ping), reconnecting by itself.
//
// What a caller can rely on:
// * Requests wait for their own answer, matched by seq, id, nonce or order, up to
//   `requestTimeoutMs` (TimeoutError). A server `error` for a request is ApiError.
// * On a drop every request in flight fails at once with DisconnectedError (for an edit
//   batch: outcome unknown), `disconnected` is emitted, and the connection reconnects
//   with capped exponential backoff and jitter. Requests made while it reconnects fail
//   at once rather than queue; a `subscribe` made then still sets the scope.
// * Resynchronisation: the new connection resubscribes with the last scope. When the
//   mirror held that scope at tick N it asks to resume (`since: N`); a `delta` with
//   `resumed: true` then applies on top of the copy, and a snapshot (the server's other
//   answer) replaces it, published as the difference. Either way `resynced` follows and
//   the mirror is right again without the caller's help. The same happens when a frame
//   cannot be decoded or names a node the mirror lacks (then without `since`).
// * Resuming never crosses room instances (a room deleted and created again, a server
//   restarted): a browser cannot read the upgrade's `canopy-room-instance` header, so
//   before each socket the connection asks `GET /rooms/{room}` for the instance, and a
//   resuming upgrade names the instance its copy came from (`instance=`); the server
//   honours `since` only on that instance and answers a snapshot otherwise. The GET
//   comes before the upgrade, so a mismatch can only cost a snapshot, never a wrong
//   delta. A server that does not name its instance is never resumed from.
// * `closed` "room deleted" stops the connection; any other end reconnects, `closed`
//   "moving" (close code 4002: the room is moving to another cluster node) included,
//   and resumes with `since` as after any drop. A reconnect refused with a 4xx (other
//   than 408 and 429: `unknown_room`, `unauthorized`, `forbidden`, ...) stops it too,
//   since retrying cannot change the answer: a browser cannot see the upgrade's status,
//   so the connection asks `GET /rooms/{room}` what the refusal was. That GET also
//   comes before each socket: a `503` there (a room between owners, a draining server)
//   skips the upgrade, and its `Retry-After` sets the earliest next attempt (see
//   backoff.ts); a `503` never stops the connection.

import { ApiError, CanopyError, DecodeError, DisconnectedError, InvalidArgumentError, StoppedError, UnexpectedReplyError } from '../errors.js';
import { VersionMismatchError } from '../errors.js';
import { Endpoint } from '../endpoint.js';
import type { Format } from '../endpoint.js';
import { Emitter } from '../events.js';
import type { ConnectionEvents, EventName } from '../events.js';
import { Mirror } from '../mirror.js';
import type { MirrorSink } from '../mirror.js';
import { backoffDelay, DEFAULT_BACKOFF, retryAfterDelay } from '../backoff.js';
import type { Backoff } from '../backoff.js';
import { validateScope, wholeRoom } from '../scope.js';
import type { Scope } from '../scope.js';
import { Client } from '../http.js';
import type { QueryAnswer } from '../http.js';
import { decodeServerBincode } from '../wire/bincode-server.js';
import { encodeClientBincode } from '../wire/bincode-client.js';
import type * as JsonServer from '../wire/json-server.js';
import type * as JsonClient from '../wire/json-client.js';
import type {
  ClientMsg, EditsResult, NearestQuery, NearestResult, NodesResult, Op, Query, RayQuery, RayResult, RegionQuery,
  ServerMsg, SphereQuery,
} from '../wire/types.js';
import { Pending } from './pending.js';
import { checkHealthVersion, checkSelected, openSocket, WS_SUBPROTOCOL } from './socket.js';
import type { WebSocketCtor, WebSocketLike } from './socket.js';

/** The JSON decoder of server messages, once a JSON connection has loaded it. */
let jsonServer: typeof JsonServer | null = null;
let jsonClient: typeof JsonClient | null = null;
/** Whether the compact decoder is loaded (see `Mirror.loadCompact`). */
let compactReady = false;

function noJson(): never {
  throw new DecodeError('a text frame on a bincode connection');
}

export interface ConnectOptions {
  /** `bincode` (the default, binary frames) or `json` (text frames). */
  format?: Format;
  /** Sent as the `token` query parameter. */
  token?: string;
  /** The WebSocket constructor: required in Node 20 (e.g. `ws`), the global one otherwise. */
  WebSocket?: WebSocketCtor;
  /** A fetch implementation for the connection's HTTP probes (default: the global one). */
  fetch?: typeof fetch;
  /** How long a request waits for its answer (default 10 s). */
  requestTimeoutMs?: number;
  /** How long opening a socket may take (default 10 s). */
  connectTimeoutMs?: number;
  /**
   * With nothing heard for this long the client sends a `ping`; with nothing heard for
   * three times this long the connection counts as dropped (default 5 s).
   */
  keepaliveMs?: number;
  /** Whether a dropped connection reconnects (default true). */
  reconnect?: boolean;
  /** Reconnect delays (see backoff.ts). */
  backoff?: Partial<Backoff>;
}

export type ConnState = 'connected' | 'reconnecting' | 'stopped';

const ROOM_DELETED = 'room deleted';

/** A refusal retrying cannot change: a 4xx other than 408 (timeout) and 429 (rate). */
const final = (e: ApiError): boolean => {
  const s = e.status ?? 0;
  return s >= 400 && s < 500 && s !== 408 && s !== 429;
};

type Resolver = { resolve(v: unknown): void; reject(e: CanopyError): void };

export class Connection {
  /** The copy of the in-scope nodes; read it any time (see mirror.ts). */
  readonly mirror = new Mirror();
  readonly room: string;
  readonly format: Format;

  readonly #endpoint: Endpoint;
  readonly #http: Client;
  readonly #opts: Required<Omit<ConnectOptions, 'token' | 'fetch' | 'backoff' | 'WebSocket'>> & {
    token: string | undefined;
    backoff: Backoff;
    WebSocket: WebSocketCtor;
  };
  readonly #events = new Emitter();
  readonly #pending: Pending;
  #ws: WebSocketLike | null = null;
  #stateNow: ConnState = 'connected';
  #stopReason: string | null = null;
  /** The scope the caller asked for last; null when unsubscribed. */
  #wanted: Scope | null = null;
  /** Whether a snapshot (or resume) was applied on this socket: deltas need a base. */
  #synced = false;
  /** The tick at which the mirror holds `wanted` from an earlier socket, to resume from. */
  #heldTick: number | null = null;
  /** Whether the subscribe in flight asked to resume. */
  #resuming = false;
  /** The room instance `GET /rooms/{room}` named just before this socket was opened. */
  #sockInstance: string | null = null;
  /** The instance of the socket whose copy `heldTick` describes. */
  #heldInstance: string | null = null;
  #closedReason: string | null = null;
  /** The room's tick rate, from `GET /rooms/{room}` (0: not known). */
  #tickHz = 0;
  #lastError = '';
  #lastHeard = 0;
  #attempt = 0;
  /** The server selected no subprotocol before: it predates them (see socket.ts). */
  #legacy = false;
  #closing = false;
  #keepalive: ReturnType<typeof setInterval> | undefined;
  #retry: ReturnType<typeof setTimeout> | undefined;
  readonly #sink: MirrorSink;

  private constructor(base: URL, room: string, options: ConnectOptions) {
    const Ctor = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketCtor }).WebSocket;
    if (!Ctor) throw new InvalidArgumentError('no WebSocket: pass options.WebSocket (Node: from ws)');
    this.room = room;
    this.format = options.format ?? 'bincode';
    if (this.format !== 'bincode' && this.format !== 'json') throw new InvalidArgumentError('format must be bincode or json');
    this.#opts = {
      format: this.format,
      token: options.token,
      WebSocket: Ctor,
      requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      keepaliveMs: options.keepaliveMs ?? 5_000,
      reconnect: options.reconnect ?? true,
      backoff: { ...DEFAULT_BACKOFF, ...options.backoff },
    };
    this.#endpoint = new Endpoint(base);
    const httpOptions = options.fetch ? { token: options.token, fetch: options.fetch } : { token: options.token };
    this.#http = new Client(base, httpOptions);
    this.#pending = new Pending(this.#opts.requestTimeoutMs);
    const ev = this.#events;
    this.#sink = {
      entered: (id, slot) => ev.emit('entered', id, slot),
      changed: (id, slot) => ev.emit('changed', id, slot),
      updated: (id, slot) => ev.emit('updated', id, slot),
      left: (id) => ev.emit('left', id),
    };
  }

  /**
   * Connects to `room` on the server at `baseUrl`. The first connection is not retried:
   * an unreachable server, an unknown room or a refused token fail here, at once.
   */
  static async open(baseUrl: string | URL, room: string, options: ConnectOptions = {}): Promise<Connection> {
    const conn = new Connection(new Endpoint(baseUrl).base, room, options);
    // The JSON decoder of server messages loads with the first JSON connection: a
    // bincode-only page never downloads it.
    if (conn.format === 'json') {
      jsonServer ??= await import('../wire/json-server.js');
      jsonClient ??= await import('../wire/json-client.js');
    }
    let ws: WebSocketLike;
    try {
      ws = await conn.#dial();
    } catch (e) {
      if (e instanceof VersionMismatchError) throw e;
      const answer = e instanceof ApiError ? e : await conn.#refusal();
      throw answer && (final(answer) || answer.status === 503) ? answer : e;
    }
    conn.#attach(ws, false);
    return conn;
  }

  // ---- public API ------------------------------------------------------------------

  on<K extends EventName>(name: K, fn: ConnectionEvents[K]): () => void {
    return this.#events.on(name, fn);
  }

  off<K extends EventName>(name: K, fn: ConnectionEvents[K]): void {
    this.#events.off(name, fn);
  }

  get state(): ConnState {
    return this.#stateNow;
  }

  /** Why the connection stopped, once it has. */
  get stoppedBecause(): string | null {
    return this.#stopReason;
  }

  /** The scope subscribed to (or to resubscribe with), null when unsubscribed. */
  get scope(): Scope | null {
    return this.#wanted;
  }

  /**
   * Subscribes to `scope` (default: the whole room), or changes the subscription, and
   * resolves with the tick of the snapshot once it has replaced the mirror. The scope is
   * kept for reconnects even when this fails with DisconnectedError.
   */
  subscribe(scope: Scope = wholeRoom()): Promise<number> {
    validateScope(scope);
    // Compact frames need their decoder, loaded on the first such subscription.
    if (scope.encoding === 'compact' && !compactReady) {
      return Mirror.loadCompact().then(() => {
        compactReady = true;
        return this.subscribe(scope);
      });
    }
    if (this.#stateNow === 'stopped') return Promise.reject(new StoppedError(this.#stopReason!));
    const { follow, frustum, sendHz, tiers } = scope;
    // Only the v1.2 fields given are kept, so a v1.1 scope compares (and is sent) as before.
    const next: Scope = {
      region: scope.region ?? null,
      mask: scope.mask ?? 0xffff_ffff,
      encoding: scope.encoding ?? 'exact',
      ...(follow && { follow }),
      ...(frustum && { frustum }),
      ...(sendHz !== undefined && { sendHz }),
      ...(tiers?.length ? { tiers } : {}),
    };
    if (JSON.stringify(next) !== JSON.stringify(this.#wanted)) this.#heldTick = null;
    this.#wanted = next;
    if (!this.#ws) return Promise.reject(new DisconnectedError('not connected (scope kept for the reconnect)'));
    const answer = this.#pending.addSubscribe();
    this.#resuming = false;
    this.#send(this.#subscribeMsg(next, undefined));
    return answer;
  }

  /** Ends the subscription: the mirror empties (a `left` per node, then `unsubscribed`). */
  async unsubscribe(): Promise<void> {
    if (this.#stateNow === 'stopped') throw new StoppedError(this.#stopReason!);
    this.#wanted = null;
    this.#heldTick = null;
    this.#synced = false;
    this.mirror.clear(this.#nodeSink());
    this.#events.emit('unsubscribed');
    if (this.#ws) this.#send({ type: 'unsubscribe' });
  }

  /** Sends an edit batch; resolves with its ack (tick and the ids of its adds). */
  edit(ops: Op[]): Promise<EditsResult> {
    return this.#request<EditsResult>('edits', (seq) => ({ type: 'edits', seq, ops }));
  }

  /** Runs any query over the WebSocket. */
  query(query: Query): Promise<QueryAnswer> {
    return this.#request<QueryAnswer>(`q:${query.kind}`, (id) => ({ type: 'query', id, query }));
  }

  async queryRegion(q: RegionQuery): Promise<NodesResult> {
    const { kind: _, ...r } = await this.query({ kind: 'region', ...q });
    return r as NodesResult;
  }

  async querySphere(q: SphereQuery): Promise<NodesResult> {
    const { kind: _, ...r } = await this.query({ kind: 'sphere', ...q });
    return r as NodesResult;
  }

  async queryRay(q: RayQuery): Promise<RayResult> {
    const { kind: _, ...r } = await this.query({ kind: 'ray', ...q });
    return r as RayResult;
  }

  async queryNearest(q: NearestQuery): Promise<NearestResult> {
    const { kind: _, ...r } = await this.query({ kind: 'nearest', ...q });
    return r as NearestResult;
  }

  /** Pings the server: the room's tick and the round-trip time. */
  async ping(): Promise<{ tick: number; rttMs: number }> {
    const sent = Date.now();
    const tick = await this.#request<number>('ping', (nonce) => ({ type: 'ping', nonce }));
    return { tick, rttMs: Date.now() - sent };
  }

  /** Closes the connection for good. Requests in flight fail with DisconnectedError. */
  async close(): Promise<void> {
    if (this.#stateNow === 'stopped') return;
    this.#closing = true;
    const ws = this.#ws;
    this.#detach(new DisconnectedError('closed by the client'));
    if (ws) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1000);
        ws.addEventListener('close', () => {
          clearTimeout(timer);
          resolve();
        });
        ws.close(1000, 'client closed');
      });
    }
    this.#stop('closed by the client');
  }

  // ---- sockets ---------------------------------------------------------------------

  /** Opens a socket and checks the protocol version (see socket.ts). */
  async #dial(): Promise<WebSocketLike> {
    this.#sockInstance = await this.#http.getRoom(this.room).then(
      (r) => {
        if (r.tick_hz > 0) this.#tickHz = r.tick_hz;
        return typeof r.instance === 'string' && /^[0-9a-f]{16}$/i.test(r.instance) ? r.instance : null;
      },
      (e) => {
        // Between owners the upgrade would be refused the same way: wait instead.
        if (e instanceof ApiError && e.status === 503) throw e;
        return null;
      },
    );
    const resumeFrom = this.#heldTick !== null ? this.#heldInstance ?? undefined : undefined;
    const url = this.#endpoint.ws(this.room, this.format, this.#opts.token, resumeFrom);
    const { WebSocket: Ctor, connectTimeoutMs: timeout } = this.#opts;
    if (!this.#legacy) {
      const ws = await openSocket(url, Ctor, [WS_SUBPROTOCOL], timeout).catch(() => null);
      if (ws) {
        checkSelected(ws);
        return ws;
      }
    }
    const ws = await openSocket(url, Ctor, [], timeout);
    checkSelected(ws);
    try {
      checkHealthVersion((await this.#http.health()).protocol);
    } catch (e) {
      if (e instanceof VersionMismatchError) {
        ws.close(1000, 'protocol version mismatch');
        throw e;
      }
    }
    this.#legacy = true;
    return ws;
  }

  /** After a failed open: the room's HTTP answer when it is an error (null: it answers). */
  async #refusal(): Promise<ApiError | null> {
    try {
      await this.#http.getRoom(this.room);
      return null;
    } catch (e) {
      return e instanceof ApiError ? e : null;
    }
  }

  #attach(ws: WebSocketLike, reconnected: boolean): void {
    this.#ws = ws;
    this.#stateNow = 'connected';
    this.#closedReason = null;
    this.#lastHeard = Date.now();
    ws.addEventListener('message', (ev: { data: unknown }) => {
      if (this.#ws === ws) this.#onFrame(ev.data);
    });
    ws.addEventListener('error', (ev: { message?: string }) => {
      if (this.#ws === ws) this.#lastError = ev?.message ?? 'WebSocket error';
    });
    ws.addEventListener('close', (ev: { code?: number; reason?: string }) => {
      if (this.#ws === ws) this.#lost(this.#lastError || `server closed (${ev?.code ?? '?'} ${ev?.reason ?? ''})`.trim());
    });
    const period = Math.max(10, this.#opts.keepaliveMs);
    this.#keepalive = setInterval(() => {
      const quiet = Date.now() - this.#lastHeard;
      if (quiet >= 3 * period) {
        ws.close(4000, 'nothing heard');
        this.#lost(`silent for ${quiet} ms`);
      } else if (quiet >= period) this.#send({ type: 'ping', nonce: 0 });
    }, period);
    if (reconnected) this.#events.emit('reconnected');
    if (this.#wanted) {
      this.#pending.addResync();
      // Resume only with an instance to name (see the header comment).
      const since = this.#heldInstance !== null ? this.#heldTick ?? undefined : undefined;
      this.#resuming = since !== undefined;
      this.#send(this.#subscribeMsg(this.#wanted, since));
    } else this.#attempt = 0;
  }

  /** Forgets the socket: timers stop and every waiting request fails with `error`. */
  #detach(error: CanopyError): void {
    this.#ws = null;
    clearInterval(this.#keepalive);
    this.#pending.failAll(error);
    if (this.#synced && this.#wanted) {
      this.#heldTick = this.mirror.tick;
      this.#heldInstance = this.#sockInstance;
    }
    this.#synced = false;
  }

  /** The socket dropped or the server closed it. */
  #lost(error: string): void {
    this.#detach(new DisconnectedError());
    this.#lastError = '';
    if (this.#closing) return;
    if (this.#closedReason === ROOM_DELETED) return this.#stop('the room was deleted');
    if (!this.#opts.reconnect) return this.#stop(`dropped (reconnect off): ${error}`);
    this.#events.emit('disconnected', { error });
    this.#scheduleReconnect(error);
  }

  /** Retries after the backoff, and no sooner than `retryAfterMs` (a 503's Retry-After). */
  #scheduleReconnect(lastError: string, retryAfterMs?: number): void {
    const b = this.#opts.backoff;
    if (this.#attempt >= b.maxAttempts) {
      return this.#stop(`gave up after ${this.#attempt} attempts: ${lastError}`);
    }
    let delay = backoffDelay(b, this.#attempt++, Math.random());
    if (retryAfterMs !== undefined) delay = Math.max(delay, retryAfterDelay(b, retryAfterMs, Math.random()));
    this.#stateNow = 'reconnecting';
    this.#retry = setTimeout(async () => {
      try {
        const ws = await this.#dial();
        if (this.#closing || this.#stateNow === 'stopped') ws.close(1000, 'client closed');
        else this.#attach(ws, true);
      } catch (e) {
        if (this.#closing || this.#stateNow === 'stopped') return;
        if (e instanceof VersionMismatchError) return this.#stop(e.message);
        const answer = e instanceof ApiError ? e : await this.#refusal();
        if (answer && final(answer)) return this.#stop(`reconnect refused: ${answer.message}`);
        this.#scheduleReconnect((e as Error).message, answer?.retryAfterMs);
      }
    }, delay);
  }

  #stop(reason: string): void {
    if (this.#stateNow === 'stopped') return;
    clearTimeout(this.#retry);
    clearInterval(this.#keepalive);
    this.#pending.failAll(new StoppedError(reason));
    this.#stateNow = 'stopped';
    this.#stopReason = reason;
    this.#events.emit('stopped', { reason });
  }

  #send(msg: ClientMsg): void {
    const ws = this.#ws;
    if (!ws) return;
    ws.send(this.format === 'json' ? jsonClient!.encodeClientJson(msg) : encodeClientBincode(msg));
  }

  #subscribeMsg(scope: Scope, since: number | undefined): ClientMsg {
    const { follow, frustum, sendHz, tiers } = scope;
    this.#pace(scope);
    return { type: 'subscribe', region: scope.region, mask: scope.mask!, since, encoding: scope.encoding, follow, frustum, send_hz: sendHz, tiers };
  }

  /**
   * Tells the mirror how often frames should come (from `sendHz`, else the room's tick
   * rate) and its slowest tier, for an Interpolator's defaults.
   */
  #pace(s: Scope): void {
    const hz = s.sendHz ?? this.#tickHz;
    this.mirror.frameIntervalMs = hz > 0 ? 1000 / hz : 0;
    this.mirror.tierEvery = Math.max(1, ...(s.tiers ?? []).map((t) => t.every));
  }

  #request<T>(kind: string, build: (n: number) => ClientMsg): Promise<T> {
    if (this.#stateNow === 'stopped') return Promise.reject(new StoppedError(this.#stopReason!));
    if (!this.#ws) return Promise.reject(new DisconnectedError('not connected (reconnecting)'));
    const [n, answer] = this.#pending.add<T>(kind);
    try {
      this.#send(build(n));
    } catch (e) {
      this.#pending.take(n, kind)?.reject(e instanceof CanopyError ? e : new InvalidArgumentError(String(e)));
    }
    return answer;
  }

  // ---- frames ----------------------------------------------------------------------

  #nodeSink(): MirrorSink | null {
    const e = this.#events;
    return e.has('entered') || e.has('changed') || e.has('updated') || e.has('left') ? this.#sink : null;
  }

  /** Resubscribes for a fresh snapshot (without resuming), unless one is on its way. */
  #resync(): void {
    if (!this.#wanted || !this.#ws || this.#pending.resyncPending()) return;
    this.#heldTick = null;
    this.#resuming = false;
    this.#pending.addResync();
    this.#send(this.#subscribeMsg(this.#wanted, undefined));
  }

  #onFrame(data: unknown): void {
    this.#lastHeard = Date.now();
    let msg: ServerMsg | null;
    try {
      if (typeof data === 'string') msg = (jsonServer ?? noJson()).decodeServerJson(data);
      else if (data instanceof ArrayBuffer) msg = decodeServerBincode(new Uint8Array(data));
      else if (ArrayBuffer.isView(data)) msg = decodeServerBincode(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      else return;
    } catch {
      // A frame that cannot be read may have been a delta: the copy can no longer be
      // trusted, so ask for a fresh snapshot.
      return this.#resync();
    }
    if (msg) this.#onMessage(msg);
  }

  #onMessage(msg: ServerMsg): void {
    switch (msg.type) {
      case 'snapshot': {
        const waiter = this.#pending.takeSnapshotWaiter();
        if (this.#wanted) {
          this.mirror.applySnapshot(msg, this.#nodeSink());
          this.#settled();
          const info = { tick: msg.tick, time: msg.time, size: this.mirror.size };
          if (waiter && 'caller' in waiter) this.#events.emit('snapshot', info);
          else this.#events.emit('resynced', { ...info, resumed: false });
        }
        // A snapshot answering a subscribe since withdrawn completes the call unapplied.
        if (waiter && 'caller' in waiter) waiter.caller.resolve(msg.tick);
        return;
      }
      case 'delta': {
        if (msg.resumed) {
          const waiter = this.#pending.takeSnapshotWaiter();
          if (!this.#wanted) return;
          if (!this.#resuming) return this.#resync();
          const ok = this.mirror.applyDelta(msg, this.#nodeSink());
          this.#settled();
          this.#events.emit('resynced', { tick: msg.tick, time: msg.time, size: this.mirror.size, resumed: true });
          if (waiter && 'caller' in waiter) waiter.caller.resolve(msg.tick);
          if (!ok) this.#resync();
          return;
        }
        if (!this.#wanted || !this.#synced) return;
        const ok = this.mirror.applyDelta(msg, this.#nodeSink());
        this.#events.emit('tick', { tick: msg.tick, time: msg.time });
        if (!ok) this.#resync();
        return;
      }
      case 'ack':
        this.#pending.take(msg.seq, 'edits')?.resolve({ tick: msg.tick, ids: msg.ids });
        return;
      case 'error': {
        const err = new ApiError(msg.code, msg.message, msg.op);
        if (msg.seq !== undefined) return void this.#pending.take(msg.seq, 'edits')?.reject(err);
        if (msg.id !== undefined) return void this.#pending.take(msg.id, 'q:')?.reject(err);
        this.#pending.takeCallerSubscribe()?.reject(err);
        this.#events.emit('serverError', err);
        return;
      }
      case 'query_result': {
        const w = this.#pending.take(msg.id, 'q:');
        if (w) answerQuery(w, w.kind.slice(2) as Query['kind'], msg);
        return;
      }
      case 'pong':
        this.#pending.take(msg.nonce, 'ping')?.resolve(msg.tick);
        return;
      case 'closed':
        this.#closedReason = msg.reason;
        return;
    }
  }

  /** The mirror is in step with the server again. */
  #settled(): void {
    this.#synced = true;
    this.#heldTick = null;
    this.#resuming = false;
    this.#attempt = 0;
  }
}

/** Resolves a query with its answer, or rejects an answer of the wrong shape. */
function answerQuery(w: Resolver, kind: Query['kind'], msg: Extract<ServerMsg, { type: 'query_result' }>): void {
  const { tick, nodes, hits } = msg;
  if ((kind === 'region' || kind === 'sphere') && nodes && !hits) return w.resolve({ kind, tick, nodes });
  // An empty hit list cannot say in JSON whether it was ray or nearest: accept either.
  if ((kind === 'ray' || kind === 'nearest') && !nodes && hits && (hits.kind === kind || hits.hits.length === 0)) {
    return w.resolve({ kind, tick, hits: hits.hits });
  }
  w.reject(new UnexpectedReplyError(`bad ${kind} answer`));
}
