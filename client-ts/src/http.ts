// Client: the HTTP side of the contract (rooms, edits, nodes, the four queries, health,
// metrics, octree) over `fetch`, with an optional bearer token, and the factory of
// WebSocket connections to the same server with the same token.
//
// Invariant: every non-success answer becomes a typed error: a contract error body
// `{"error":{...}}` becomes ApiError with its code, op index and status; anything else
// becomes UnexpectedStatusError; a failed or timed-out request is a TransportError.

import { ApiError, DecodeError, TransportError, UnexpectedStatusError } from './errors.js';
import { Endpoint } from './endpoint.js';
import { parseRetryAfter } from './backoff.js';
import type * as JsonClient from './wire/json-client.js';
import { ERROR_CODES } from './wire/types.js';
import type {
  EditsResult, ErrorCode, NearestQuery, NearestResult, NodeDetail, NodesResult, NodesSnapshot, OctreeCells, Op,
  Query, RayQuery, RayResult, RegionQuery, RoomCreated, RoomDetail, RoomSummary, SphereQuery,
} from './wire/types.js';
import { Connection } from './connection/connection.js';
import type { ConnectOptions } from './connection/connection.js';

export interface ClientOptions {
  /** Sent as `Authorization: Bearer <token>`, and as `token=` on WebSocket connections. */
  token?: string;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  /** Time limit of one HTTP request; edits wait for their tick (default 30 s). */
  timeoutMs?: number;
}

/** The answer to any spatial query, matched to the query's kind. */
export type QueryAnswer =
  | ({ kind: 'region' | 'sphere' } & NodesResult)
  | ({ kind: 'ray' } & RayResult)
  | ({ kind: 'nearest' } & NearestResult);

/**
 * Turns a failed answer into ApiError (a contract error body) or UnexpectedStatusError;
 * `retryAfter` is the answer's `Retry-After` header, if any.
 */
export function errorFromBody(status: number, body: string, retryAfter?: string | null): ApiError | UnexpectedStatusError {
  try {
    // Checked by hand rather than with wire/json-check.ts, which loads only when needed.
    const e = JSON.parse(body).error;
    const { code, message, op } = e;
    const opOk = op === undefined || op === null || (Number.isInteger(op) && op >= 0 && op <= 0xffff_ffff);
    if ((ERROR_CODES as readonly string[]).includes(code) && typeof message === 'string' && opOk) {
      return new ApiError(code as ErrorCode, message, op ?? undefined, status, parseRetryAfter(retryAfter));
    }
  } catch {
    // not a contract error body
  }
  return new UnexpectedStatusError(status, body);
}

// The JSON writers of batches and queries (with f32-exact number text) load with the
// first edit or query over HTTP: a page that only subscribes never downloads them.
let jsonClient: typeof JsonClient | null = null;
const json = async () => (jsonClient ??= await import('./wire/json-client.js'));

export class Client {
  readonly endpoint: Endpoint;
  readonly token: string | undefined;
  readonly #fetchFn: typeof fetch;
  readonly #timeoutMs: number;

  constructor(baseUrl: string | URL, options: ClientOptions = {}) {
    this.endpoint = new Endpoint(baseUrl);
    this.token = options.token;
    this.#fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** Opens a WebSocket connection to `room`, with this client's token unless given one. */
  connect(room: string, options: ConnectOptions = {}): Promise<Connection> {
    return Connection.open(this.endpoint.base, room, { token: this.token, fetch: this.#fetchFn, ...options });
  }

  /** Sends a request; answers the body text of a success or throws the typed error. */
  async send(method: string, segments: string[], body?: string): Promise<string> {
    const headers: Record<string, string> = {};
    if (this.token !== undefined) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    let text: string;
    try {
      res = await this.#fetchFn(this.endpoint.http(...segments), {
        method,
        headers,
        body,
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      text = await res.text();
    } catch (e) {
      throw new TransportError(`${method} /${segments.join('/')} failed: ${(e as Error).message}`, { cause: e });
    }
    if (!res.ok) throw errorFromBody(res.status, text, res.headers.get('retry-after'));
    return text;
  }

  async #call<T>(method: string, segments: string[], body?: string): Promise<T> {
    const text = await this.send(method, segments, body);
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new DecodeError(`the answer to ${method} /${segments.join('/')} is not JSON`);
    }
  }

  /** `GET /healthz`: the body (v1.1 servers: `{status, version, protocol}`; older: "ok"). */
  async health(): Promise<{ status: string; version?: string; protocol?: string }> {
    const text = await this.send('GET', ['healthz']);
    try {
      const v = JSON.parse(text);
      if (v && typeof v === 'object') return v;
    } catch {
      // an older server answers plain text
    }
    return { status: text.trim() };
  }

  /** `GET /metrics`: the Prometheus text. */
  metrics(): Promise<string> {
    return this.send('GET', ['metrics']);
  }

  /** `POST /rooms`. An existing id is ApiError `room_exists`. */
  createRoom(body: { id?: string; tick_hz?: number } = {}): Promise<RoomCreated> {
    return this.#call('POST', ['rooms'], JSON.stringify(body));
  }

  /** Creates `room` unless it exists; answers whether this call created it. */
  async ensureRoom(id: string, tickHz?: number): Promise<boolean> {
    try {
      await this.createRoom(tickHz === undefined ? { id } : { id, tick_hz: tickHz });
      return true;
    } catch (e) {
      if (e instanceof ApiError && e.code === 'room_exists') return false;
      throw e;
    }
  }

  async listRooms(): Promise<RoomSummary[]> {
    return (await this.#call<{ rooms: RoomSummary[] }>('GET', ['rooms'])).rooms;
  }

  getRoom(room: string): Promise<RoomDetail> {
    return this.#call('GET', ['rooms', room]);
  }

  /** `DELETE /rooms/{room}`; its subscribers get `closed`. */
  async deleteRoom(room: string): Promise<void> {
    await this.send('DELETE', ['rooms', room]);
  }

  /**
   * `POST /rooms/{room}/edits`: answers once the batch is applied, with its tick and the
   * id of every `add` in order. A refused batch is ApiError with `op`; none of it applied.
   */
  async edit(room: string, ops: Op[]): Promise<EditsResult> {
    return this.#call('POST', ['rooms', room, 'edits'], (await json()).encodeBatchJson(ops));
  }

  /** `GET /rooms/{room}/nodes`: every node at one tick (f32 values exactly as sent). */
  async nodes(room: string): Promise<NodesSnapshot> {
    const c = await import('./wire/json-check.js');
    const v = c.obj(await this.#call('GET', ['rooms', room, 'nodes']), 'answer');
    return { tick: c.u64(v.tick, 'tick'), nodes: c.arr(v.nodes, 'nodes').map((n) => c.node(n, 'node')) };
  }

  node(room: string, id: number): Promise<NodeDetail> {
    return this.#call('GET', ['rooms', room, 'nodes', String(id)]);
  }

  /** `GET /rooms/{room}/octree` (v1.1; servers without it answer `not_found`). */
  octree(room: string): Promise<OctreeCells> {
    return this.#call('GET', ['rooms', room, 'octree']);
  }

  async queryRegion(room: string, q: RegionQuery): Promise<NodesResult> {
    return this.#call('POST', ['rooms', room, 'query', 'region'], (await json()).encodeQueryJson({ kind: 'region', ...q }));
  }

  async querySphere(room: string, q: SphereQuery): Promise<NodesResult> {
    return this.#call('POST', ['rooms', room, 'query', 'sphere'], (await json()).encodeQueryJson({ kind: 'sphere', ...q }));
  }

  async queryRay(room: string, q: RayQuery): Promise<RayResult> {
    return this.#call('POST', ['rooms', room, 'query', 'ray'], (await json()).encodeQueryJson({ kind: 'ray', ...q }));
  }

  async queryNearest(room: string, q: NearestQuery): Promise<NearestResult> {
    return this.#call('POST', ['rooms', room, 'query', 'nearest'], (await json()).encodeQueryJson({ kind: 'nearest', ...q }));
  }

  /** Any query, routed to its endpoint; the same answer type as `Connection.query`. */
  async query(room: string, q: Query): Promise<QueryAnswer> {
    const r = await this.#call<object>('POST', ['rooms', room, 'query', q.kind], (await json()).encodeQueryJson(q));
    return { kind: q.kind, ...r } as QueryAnswer;
  }
}
