// Where the server is, and every HTTP and WebSocket URL of the contract built from that
// base. Room ids are percent-encoded path segments appended to the base's own path, so
// a server mounted under a prefix (`https://host/canopy/`) works and no room id can
// change the route.

import { InvalidArgumentError } from './errors.js';

export type Format = 'bincode' | 'json';

export class Endpoint {
  readonly base: URL;

  constructor(baseUrl: string | URL) {
    let url: URL;
    try {
      url = new URL(String(baseUrl));
    } catch {
      throw new InvalidArgumentError(`invalid base URL ${JSON.stringify(String(baseUrl))}`);
    }
    const scheme = { 'http:': 'http:', 'ws:': 'http:', 'https:': 'https:', 'wss:': 'https:' }[url.protocol];
    if (!scheme) throw new InvalidArgumentError('base URL: http, https, ws or wss');
    // `URL.protocol` cannot switch between special and other schemes, so rebuild it.
    url = new URL(`${scheme}//${url.host}${url.pathname}`);
    if (!url.pathname.endsWith('/')) url.pathname += '/';
    this.base = url;
  }

  /** The HTTP URL of `segments` under the base, each one percent-encoded. */
  http(...segments: string[]): URL {
    return new URL(segments.map(encodeURIComponent).join('/'), this.base);
  }

  /** `ws(s)://.../rooms/{room}/ws?format=..&token=..&instance=..`. */
  ws(room: string, format: Format, token?: string, instance?: string): string {
    const url = this.http('rooms', room, 'ws');
    url.searchParams.set('format', format);
    if (token !== undefined) url.searchParams.set('token', token);
    if (instance !== undefined) url.searchParams.set('instance', instance);
    return url.href.replace(/^http/, 'ws');
  }
}
