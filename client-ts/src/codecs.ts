// @canopy/client/codecs: the wire codecs as plain functions, for tools, tests, fake
// servers and ports to other languages. The main entry (index.ts) leaves out the two
// that a bincode-only page never needs (the JSON server-message decoder and the compact
// block decoder), so that its bundle stays small; connections load them on demand.

export { decodeServerBincode } from './wire/bincode-server.js';
export { encodeClientBincode } from './wire/bincode-client.js';
export { decodeServerJson } from './wire/json-server.js';
export { encodeClientJson } from './wire/json-client.js';
export { decodeCompact } from './wire/compact.js';
export type { CompactBlock } from './wire/compact.js';
