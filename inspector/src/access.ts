// Who the inspector talks to and with which token: the API base (the page is served at
// `<base>/inspector/`, so the base is one level up, which keeps a server mounted under a
// path prefix working), the token the user typed, and what that token may do.
//
// The token lives in this tab only: in memory and in sessionStorage (so a reload of the
// tab keeps it, a new tab or a closed browser does not). Never in localStorage, never in
// the page URL; the client library puts it in the Authorization header, and in the
// WebSocket URL's `token` parameter as the contract asks (the server never logs it).

import { ApiError, Client } from '@canopy/client';

const KEY = 'canopy-inspector-token';

/** What the token allows, found by asking: the room list is admin-only. */
export type Role = 'open' | 'admin' | 'room' | 'none';

export class Access {
  readonly base = new URL('..', location.href);
  client: Client;
  role: Role = 'none';
  #token: string | undefined;

  constructor() {
    this.#token = sessionStorage.getItem(KEY) ?? undefined;
    this.client = this.#make();
  }

  get token(): string | undefined {
    return this.#token;
  }

  /** Uses `token` (empty: none) for every request from now on. */
  setToken(token: string): void {
    this.#token = token === '' ? undefined : token;
    if (this.#token === undefined) sessionStorage.removeItem(KEY);
    else sessionStorage.setItem(KEY, this.#token);
    this.client = this.#make();
  }

  /**
   * Finds the role: `GET /rooms` answers an admin token (or anyone on an open server);
   * 401/403 there means a token for one room at most (or none), which may still read it.
   */
  async probe(): Promise<Role> {
    try {
      await this.client.listRooms();
      this.role = this.#token === undefined ? 'open' : 'admin';
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      this.role = this.#token === undefined ? 'none' : 'room';
    }
    return this.role;
  }

  /** Whether create, delete and the server-wide metrics are available. */
  get isAdmin(): boolean {
    return this.role === 'open' || this.role === 'admin';
  }

  #make(): Client {
    return new Client(this.base, this.#token === undefined ? {} : { token: this.#token });
  }
}

/** A short message for an error from the client library, for the status line. */
export function describe(e: unknown): string {
  if (e instanceof ApiError) return `${e.code} (${e.status}): ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}
