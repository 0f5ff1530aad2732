// @canopy/client: a TypeScript client for the Canopy scene-state server, for browsers and
// Node >= 20, with no runtime dependencies. docs/protocol.md in the repository describes
// the wire contract it implements.
//
// * Client (http.ts): rooms, edits, nodes and the four queries over fetch.
// * Connection (connection/): a WebSocket to one room (bincode or JSON) with a Mirror
//   of the in-scope nodes, change events, matched requests, reconnect and resync.
// * Mirror (mirror.ts): the copy of the in-scope nodes in typed arrays, usable alone.
// * The codecs (wire/): bincode 2 and JSON by hand, and the compact block decoder. The
//   JSON server-message decoder and the compact decoder load only when a connection
//   needs them; to call them directly, import them from '@canopy/client/codecs'
//   (codecs.ts), which keeps them out of this entry's bundle.
// * Interpolator (interpolate.ts): a smooth, delayed view of a mirror for rendering,
//   imported from '@canopy/client/interpolate' for the same reason.

export * from './wire/types.js';
export * from './errors.js';
export { Client, errorFromBody } from './http.js';
export type { ClientOptions, QueryAnswer } from './http.js';
export { Connection } from './connection/connection.js';
export type { ConnectOptions, ConnState } from './connection/connection.js';
export { PROTOCOL_VERSION, WS_SUBPROTOCOL } from './connection/socket.js';
export type { WebSocketCtor, WebSocketLike } from './connection/socket.js';
export { Mirror } from './mirror.js';
export type { MirrorSink, MirrorWatcher } from './mirror.js';
export type { ConnectionEvents, EventName, FrameInfo } from './events.js';
export { backoffDelay, DEFAULT_BACKOFF, parseRetryAfter, retryAfterDelay } from './backoff.js';
export type { Backoff } from './backoff.js';
export { follow, frustum, frustumPlanes, MAX_TIERS, region, validateScope, wholeRoom } from './scope.js';
export type { Scope } from './scope.js';
export { Endpoint } from './endpoint.js';
export type { Format } from './endpoint.js';
export { decodeServerBincode } from './wire/bincode-server.js';
export { encodeClientBincode } from './wire/bincode-client.js';
