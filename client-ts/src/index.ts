export * from './wire/types.js';
export * from './errors.js';
export { decodeServerBincode } from './wire/bincode-server.js';
export { encodeClientBincode } from './wire/bincode-client.js';
export { decodeServerJson } from './wire/json-server.js';
export { encodeClientJson } from './wire/json-client.js';
