// The Rust-written golden vectors (protocol/testdata/golden/, made by
// protocol/tests/it/golden.rs) against this SDK's codecs: every `.bin` decodes to the same
// message as its `.json` twin, re-encodes to the same bytes, and the JSON codec writes
// the same JSON value back. The Rust side is the independent reference here.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

import { decodeServerBincode, encodeServerBincode } from '../../dist/wire/bincode-server.js';
import { decodeClientBincode, encodeClientBincode } from '../../dist/wire/bincode-client.js';
import { decodeServerJson, encodeServerJson } from '../../dist/wire/json-server.js';
import { decodeClientJson, encodeClientJson } from '../../dist/wire/json-client.js';
import { DecodeError } from '../../dist/errors.js';

const dir = fileURLToPath(new URL('../../../protocol/testdata/golden/', import.meta.url));
const names = readdirSync(dir)
  .filter((f) => f.endsWith('.bin'))
  .map((f) => f.slice(0, -4))
  .sort();

const codecs = {
  client: { decBin: decodeClientBincode, encBin: encodeClientBincode, decJson: decodeClientJson, encJson: encodeClientJson },
  server: { decBin: decodeServerBincode, encBin: encodeServerBincode, decJson: decodeServerJson, encJson: encodeServerJson },
};

const U64_MAX = (1n << 64n) - 1n;
/**
 * The fixtures holding a u64 above 2^53 - 1, which a number cannot hold exactly: both
 * decoders refuse them with a DecodeError (never rounding), and the encoders, given the
 * value as a bigint, must still write the Rust bytes.
 */
const BIG = {
  client_subscribe_since_u64max: { type: 'subscribe', region: null, mask: 0xffffffff, since: U64_MAX },
  client_ping_18446744073709551615: { type: 'ping', nonce: U64_MAX },
  server_pong_u64max: { type: 'pong', nonce: U64_MAX, tick: U64_MAX },
};

/** JSON values equal, numbers compared as the f32 they stand for (or exactly). */
function sameJson(a, b, path = '$') {
  if (typeof a === 'number' && typeof b === 'number') {
    assert.ok(Object.is(a, b) || Object.is(Math.fround(a), Math.fround(b)), `${path}: ${a} != ${b}`);
    return;
  }
  if (Array.isArray(a)) {
    assert.ok(Array.isArray(b), `${path}: array expected`);
    assert.equal(a.length, b.length, `${path}: length`);
    a.forEach((x, i) => sameJson(x, b[i], `${path}[${i}]`));
    return;
  }
  if (a && typeof a === 'object') {
    assert.deepEqual(Object.keys(a).sort(), Object.keys(b).sort(), `${path}: keys`);
    for (const k of Object.keys(a)) sameJson(a[k], b[k], `${path}.${k}`);
    return;
  }
  assert.equal(a, b, path);
}

test('there are golden vectors of both directions', () => {
  assert.ok(names.filter((n) => n.startsWith('client_')).length >= 20);
  assert.ok(names.filter((n) => n.startsWith('server_')).length >= 30);
});

for (const name of names) {
  test(`golden ${name}`, () => {
    const side = codecs[name.startsWith('client_') ? 'client' : 'server'];
    const bin = new Uint8Array(readFileSync(join(dir, `${name}.bin`)));
    const json = readFileSync(join(dir, `${name}.json`), 'utf8');

    if (name in BIG) {
      assert.throws(() => side.decBin(bin), DecodeError);
      assert.throws(() => side.decJson(json), DecodeError);
      assert.deepEqual(side.encBin(BIG[name]), bin);
      sameJson(JSON.parse(side.encJson(BIG[name])), JSON.parse(json));
      return;
    }

    const fromBin = side.decBin(bin);
    const fromJson = side.decJson(json);
    if (name === 'server_query_result_nearest_empty') {
      // JSON cannot tell an empty nearest list from an empty ray list (see golden.rs).
      assert.deepEqual(fromBin.hits, { kind: 'nearest', hits: [] });
      assert.deepEqual(fromJson.hits, { kind: 'ray', hits: [] });
      fromJson.hits = fromBin.hits;
    }
    assert.deepEqual(fromBin, fromJson);
    assert.deepEqual(side.encBin(fromBin), bin, 'bincode re-encodes to the same bytes');
    sameJson(JSON.parse(side.encJson(fromJson)), JSON.parse(json));
  });
}
