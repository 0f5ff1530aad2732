// The Interpolator's known-motion scenarios (test/helpers/interpolation-scenarios.mjs,
// also run in Node by test/unit/interpolate.test.mjs) in headless Chromium: the same
// frames, the same samples, the same bounds, in a browser's JavaScript engine. No
// Canopy server is needed; the page server only serves the built SDK and the page.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { startPageServer } from '../helpers/page-server.mjs';
import { launchChromium } from '../helpers/browser.mjs';
import { failures, SCENARIOS } from '../helpers/interpolation-scenarios.mjs';

let pages;
let browser;
before(async () => {
  // No API behind /api/ (the port is never used).
  pages = await startPageServer(9);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await pages?.close();
});

test('chromium: known motions interpolate within the bounds', async (t) => {
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${pages.origin}/test/browser/interpolate.html`);
  await page.waitForFunction(() => window.ready === true);
  const { results, failure, agent } = await page.evaluate(() => ({ results: window.results, failure: window.failure, agent: navigator.userAgent }));
  await page.close();
  assert.deepEqual(errors, []);
  assert.equal(failure, undefined);
  assert.match(agent, /Chrome/);
  assert.equal(results.length, SCENARIOS.length);
  for (const res of results) {
    t.diagnostic(JSON.stringify({ hz: res.hz, hint: res.hint, samples: res.samples, worst: res.worst, bound: res.bound }));
    assert.deepEqual(failures(res), []);
  }
});
