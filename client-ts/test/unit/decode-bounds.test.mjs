// Hostile and broken input: every decoder answers a typed DecodeError (or, for a message
// type it does not know, null), never a RangeError from DataView, a TypeError, or an
// allocation sized by a length prefix the frame cannot back.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

import { decodeServerBincode } from '../../dist/wire/bincode-server.js';
import { decodeServerJson } from '../../dist/wire/json-server.js';
import { decodeCompact } from '../../dist/wire/compact.js';
import { DecodeError } from '../../dist/errors.js';

const dir = fileURLToPath(new URL('../../../protocol/testdata/golden/', import.meta.url));
const serverBins = readdirSync(dir)
  .filter((f) => f.startsWith('server_') && f.endsWith('.bin'))
  .map((f) => [f, new Uint8Array(readFileSync(join(dir, f)))]);

function typedOrNull(fn) {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
  }
}

test('every strict prefix of every server frame is a DecodeError', () => {
  for (const [name, bytes] of serverBins) {
    for (let n = 0; n < bytes.length; n++) {
      assert.throws(() => decodeServerBincode(bytes.subarray(0, n)), DecodeError, `${name}[..${n}]`);
    }
  }
});

test('a trailing byte is a DecodeError', () => {
  for (const [name, bytes] of serverBins) {
    const longer = new Uint8Array(bytes.length + 1);
    longer.set(bytes);
    assert.throws(() => decodeServerBincode(longer), DecodeError, name);
  }
});

test('huge length prefixes are refused before allocating', () => {
  // snapshot, tick 0, time 0, then a u64 length of 2^53 - 1 nodes.
  const huge = Uint8Array.of(0, 0, 0, 253, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f, 0);
  assert.throws(() => decodeServerBincode(huge), /does not fit/);
  // delta with 4 billion update rows promised by a 6-byte frame.
  const rows = Uint8Array.of(1, 0, 0, 0, 252, 0xff, 0xff, 0xff, 0xff);
  assert.throws(() => decodeServerBincode(rows), DecodeError);
  // closed with a string of 2^32 - 1 bytes.
  assert.throws(() => decodeServerBincode(Uint8Array.of(6, 252, 0xff, 0xff, 0xff, 0xff)), DecodeError);
});

test('bad tags are DecodeErrors; an unknown message type is skipped', () => {
  assert.equal(decodeServerBincode(Uint8Array.of(7)), null);
  assert.equal(decodeServerBincode(Uint8Array.of(200, 1, 2, 3)), null);
  // error with an option tag of 2.
  assert.throws(() => decodeServerBincode(Uint8Array.of(3, 2)), /option tag/);
  // error code 14 (there are 14 codes, 0 to 13).
  assert.throws(() => decodeServerBincode(Uint8Array.of(3, 0, 0, 14, 0, 0)), /unknown variant/);
  // delta whose `resumed` byte is 5.
  assert.throws(() => decodeServerBincode(Uint8Array.of(1, 0, 0, 0, 0, 0, 5, 0)), /bool/);
  // pong whose u32 varint uses the reserved marker 254.
  assert.throws(() => decodeServerBincode(Uint8Array.of(5, 254)), /marker/);
  // closed with invalid UTF-8.
  assert.throws(() => decodeServerBincode(Uint8Array.of(6, 2, 0xc3, 0x28)), /UTF-8/);
});

test('random bytes never throw anything but DecodeError', () => {
  let seed = 12345;
  const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) & 0xff;
  for (let i = 0; i < 20000; i++) {
    const len = rnd() % 64;
    const b = new Uint8Array(len);
    for (let k = 0; k < len; k++) b[k] = rnd();
    if (len > 0) b[0] = b[0] % 8;
    typedOrNull(() => decodeServerBincode(b));
    typedOrNull(() => decodeCompact(b, rnd() % 4, rnd() % 2 === 0));
  }
});

test('mutated fixtures never throw anything but DecodeError', () => {
  for (const [, bytes] of serverBins) {
    for (let i = 0; i < bytes.length; i++) {
      for (const v of [0, 1, 0xfb, 0xfc, 0xfd, 0xff]) {
        const b = bytes.slice();
        b[i] = v;
        typedOrNull(() => decodeServerBincode(b));
      }
    }
  }
});

test('malformed JSON is a DecodeError', () => {
  for (const text of [
    '',
    '{',
    '[]',
    '7',
    '{"type":1}',
    '{"type":"delta","tick":1,"time":1,"upsert":[],"update":[[1,2]],"remove":[]}',
    '{"type":"delta","tick":1,"time":1,"upsert":[],"update":[],"remove":[-1]}',
    '{"type":"snapshot","tick":-1,"time":0,"nodes":[]}',
    '{"type":"snapshot","tick":1.5,"time":0,"nodes":[]}',
    '{"type":"snapshot","tick":1,"time":0,"nodes":[{"id":1}]}',
    '{"type":"error","code":"exploded","message":"x"}',
    '{"type":"ack","seq":1,"tick":2,"ids":[4294967296]}',
    '{"type":"pong","nonce":18446744073709551615,"tick":1}',
  ]) {
    assert.throws(() => decodeServerJson(text), DecodeError, text);
  }
  assert.equal(decodeServerJson('{"type":"hello_from_the_future","x":1}'), null);
});
