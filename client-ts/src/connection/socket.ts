// Opening one WebSocket, in a browser (the global WebSocket) or in Node (a constructor
// the caller passes, e.g. from the `ws` package), and the protocol version check.
//
// Version negotiation: the client offers the subprotocol `canopy.1`. A server of this
// major selects it; a server that selects another protocol speaks another major and is
// refused with VersionMismatchError naming both. An older server selects none, and
// browsers (and `ws`) then fail the handshake, since they offered one: so after a failed
// offer the client tries once without a subprotocol, and if that opens, asks
// `GET /healthz` which version the server speaks (v1.1 servers name it; older ones
// answer plain text and are accepted as major 1).

import { TransportError, VersionMismatchError } from '../errors.js';

/** The part of the WebSocket API the SDK uses (browsers' and `ws`'s both have it). */
export interface WebSocketLike {
  binaryType: string;
  readonly readyState: number;
  readonly protocol: string;
  readonly bufferedAmount: number;
  send(data: string | ArrayBufferLike | ArrayBufferView): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: string, listener: (event: any) => void): void;
  removeEventListener(type: string, listener: (event: any) => void): void;
}

export type WebSocketCtor = new (url: string, protocols?: string | string[]) => WebSocketLike;

/** The version of the wire contract this SDK speaks, `major.minor`. */
export const PROTOCOL_VERSION = '1.2';
/** The WebSocket subprotocol of this major version. */
export const WS_SUBPROTOCOL = 'canopy.1';

const OPEN = 1;

function describe(event: unknown): string {
  const e = event as { message?: string; error?: { message?: string }; code?: number; reason?: string };
  return e?.message ?? e?.error?.message ?? (e?.code ? `closed with ${e.code} ${e.reason ?? ''}`.trim() : 'WebSocket error');
}

/** Opens a socket; rejects with TransportError if it does not open within `timeoutMs`. */
export function openSocket(
  url: string,
  Ctor: WebSocketCtor,
  protocols: string[],
  timeoutMs: number,
): Promise<WebSocketLike> {
  return new Promise((resolve, reject) => {
    let ws: WebSocketLike;
    try {
      ws = protocols.length ? new Ctor(url, protocols) : new Ctor(url);
    } catch (e) {
      reject(new TransportError(`cannot open ${url.replace(/token=[^&]*/, 'token=…')}: ${(e as Error).message}`));
      return;
    }
    ws.binaryType = 'arraybuffer';
    const done = (err: TransportError | null) => {
      clearTimeout(timer);
      ws.removeEventListener('open', onOpen);
      ws.removeEventListener('error', onFail);
      ws.removeEventListener('close', onFail);
      if (err) {
        try {
          ws.close();
        } catch {
          // already closed
        }
        reject(err);
      } else resolve(ws);
    };
    const onOpen = () => done(ws.readyState === OPEN ? null : new TransportError('the WebSocket closed while opening'));
    const onFail = (ev: unknown) => done(new TransportError(`the WebSocket did not open: ${describe(ev)}`));
    const timer = setTimeout(() => done(new TransportError(`the WebSocket did not open within ${timeoutMs} ms`)), timeoutMs);
    ws.addEventListener('open', onOpen);
    ws.addEventListener('error', onFail);
    ws.addEventListener('close', onFail);
  });
}

/** Refuses a socket whose server selected another subprotocol than ours. */
export function checkSelected(ws: WebSocketLike): void {
  const selected = ws.protocol;
  if (selected === '' || selected === WS_SUBPROTOCOL) return;
  ws.close(1000, 'protocol version mismatch');
  throw new VersionMismatchError(`${PROTOCOL_VERSION} (${WS_SUBPROTOCOL})`, selected);
}

/** Refuses a server whose `/healthz` names another major version. */
export function checkHealthVersion(protocol: string | undefined): void {
  if (protocol === undefined) return;
  if (protocol.split('.')[0] !== PROTOCOL_VERSION.split('.')[0]) {
    throw new VersionMismatchError(PROTOCOL_VERSION, protocol);
  }
}
