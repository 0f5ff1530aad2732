// The inspector in headless Chromium against a real `canopy --demo`: the page loads from
// `/`, mirrors the demo room, draws it (pixels), draws the octree overlay, selects by a
// click through the server's ray query, highlights exactly a region query's answer and a
// nearest-k answer, shows a follow scope's members as a subscriber of that scope holds
// them, and finds nodes in the hierarchy. Screenshots go to target/inspector/.
//
// The demo animates everything, so the test adds a few nodes of its own that never move
// (no update callbacks, roots): a marker above the scene for the click (with a node beside
// it and one farther off, for the follow scope), and a row below it for the region, whose answers are then the same for the page and for the test's own
// query at any tick.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { api, launch, shot, startServer } from './helpers.mjs';

const MARKER = 990000;
const ROW = [990001, 990002, 990003, 990004, 990005];
// Beside the marker: one within a follow scope of radius 30 around it, one beyond 30 + 5.
const NEAR = 990010;
const FAR = 990011;
const MARKER_WORLD_R = [0, 0.38268343, 0, 0.9238795];

let server;
let browser;
let page;

before(async () => {
  server = await startServer(['--demo']);
  const ops = [
    { op: 'add', id: MARKER, local: { t: [0, 60, 0], r: MARKER_WORLD_R }, extent: [4, 4, 4], mask: 8 },
    ...ROW.map((id, i) => ({ op: 'add', id, local: { t: [i * 10, -80, 0] }, extent: [1, 1, 1], mask: 16 })),
    { op: 'add', id: NEAR, local: { t: [20, 60, 0] }, extent: [1, 1, 1], mask: 8 },
    { op: 'add', id: FAR, local: { t: [0, 60, 45] }, extent: [1, 1, 1], mask: 8 },
  ];
  const added = await api(server.url, 'POST', '/rooms/demo/edits', { body: { ops } });
  assert.equal(added.status, 200, JSON.stringify(added.body));
  browser = await launch();
  page = await browser.context.newPage();
  page.on('pageerror', (e) => console.log(`page error: ${e.message}`));
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const hooks = (fn, arg) => page.evaluate(fn, arg);

/** Waits until the boxes drawn in the highlight colour are exactly `ids` (the next frame). */
async function drawnHighlight(ids) {
  const want = JSON.stringify([...ids].sort((a, b) => a - b));
  await page.waitForFunction((w) => JSON.stringify(window.canopyInspector.highlightedDrawn()) === w, want);
}

test('GET / leads to the inspector, which mirrors the demo room', async () => {
  await page.goto(`${server.url}/`);
  assert.match(page.url(), /\/inspector\/$/);
  const expected = (await api(server.url, 'GET', '/rooms/demo')).body.nodes;
  await page.waitForFunction((n) => window.canopyInspector?.state().room === 'demo' && window.canopyInspector.state().nodes === n, expected);
  const rows = await page.locator('#rooms tbody tr[data-room="demo"]').count();
  assert.equal(rows, 1, 'the rooms panel lists the demo room');
  await page.locator('#rooms tbody tr[data-room="demo"] td:nth-child(5)').filter({ hasText: /\d/ }).waitFor();
  console.log(`demo room: ${expected} nodes mirrored by the page`);
});

test('the canvas is not blank', async () => {
  await hooks(() => window.canopyInspector.fit());
  await page.locator('#pause').check();
  const px = await hooks(() => window.canopyInspector.pixels());
  console.log(`canvas ${px.width}x${px.height}: ${px.lit} pixels differ from the background`);
  assert.ok(px.lit > px.width * px.height * 0.005, `only ${px.lit} lit pixels`);
  await page.screenshot({ path: shot('demo.png') });
});

test('toggling the octree overlay changes the picture, and back', async () => {
  const before = await hooks(() => window.canopyInspector.pixels());
  await page.locator('#octree-toggle').check();
  await page.waitForFunction(() => window.canopyInspector.state().octree !== null);
  const octree = await hooks(() => window.canopyInspector.state().octree);
  const nodes = (await api(server.url, 'GET', '/rooms/demo')).body.nodes;
  // The server's cells hold every node once (docs/protocol.md: the objects sum to the node count).
  assert.equal(octree.objects, nodes);
  const on = await hooks(() => window.canopyInspector.pixels());
  assert.notEqual(on.hash, before.hash, 'the overlay changed nothing');
  await page.screenshot({ path: shot('octree.png') });
  await page.locator('#octree-toggle').uncheck();
  const off = await hooks(() => window.canopyInspector.pixels());
  assert.equal(off.hash, before.hash, 'without the overlay the picture is the one before');
  console.log(`octree: ${octree.cells} cells, depth ${octree.maxDepth}, at tick ${octree.tick}`);
});

test('a click where a known node projects selects it, with the server\'s world transform', async () => {
  const at = await hooks((id) => window.canopyInspector.project(id), MARKER);
  assert.ok(at, 'the marker is in front of the camera');
  const ray = page.waitForResponse((r) => r.url().endsWith('/rooms/demo/query/ray'));
  await page.mouse.click(at.x, at.y);
  assert.equal((await ray).status(), 200);
  const detail = page.locator(`#node-detail[data-id="${MARKER}"]`);
  await detail.waitFor();
  assert.equal((await detail.locator('dd.f-id').textContent()).trim(), String(MARKER));
  const shown = JSON.parse(await detail.getAttribute('data-world'));
  const server_ = (await api(server.url, 'GET', `/rooms/demo/nodes/${MARKER}`)).body;
  assert.deepEqual(shown, server_.world);
  assert.equal(await hooks(() => window.canopyInspector.state().selected), MARKER);
  await page.screenshot({ path: shot('selected.png') });
});

test('a typed region query highlights exactly the server\'s answer', async () => {
  await page.locator('#rmin').fill('-5 -85 -5');
  await page.locator('#rmax').fill('25 -75 5');
  const answered = page.waitForResponse((r) => r.url().endsWith('/rooms/demo/query/region'));
  await page.locator('#region-form button').click();
  const body = await (await answered).json();
  await page.waitForFunction((t) => document.querySelector('#query-head')?.dataset.tick === String(t), body.tick);
  assert.deepEqual(await hooks(() => window.canopyInspector.highlighted()), body.nodes);
  await drawnHighlight(body.nodes);
  // The row never moves, so the test's own query at a later tick has the same answer.
  const own = await api(server.url, 'POST', '/rooms/demo/query/region', { body: { min: [-5, -85, -5], max: [25, -75, 5] } });
  assert.deepEqual(own.body.nodes, ROW.slice(0, 3));
  assert.deepEqual(body.nodes, own.body.nodes);
  assert.match(await page.locator('#query-head').textContent(), new RegExp(`region at tick ${body.tick}`));
});

test('a drawn region query highlights exactly the server\'s answer', async () => {
  await page.locator('input[name=tool][value=region]').check();
  await page.locator('#rmin').fill('0 -20 0');
  await page.locator('#rmax').fill('0 40 0');
  const box = await page.locator('#viewport canvas').boundingBox();
  const answered = page.waitForResponse((r) => r.url().endsWith('/rooms/demo/query/region'));
  // A drag spans an axis-aligned rectangle on the ground plane; a long diagonal drag
  // covers much of the scene whatever the camera's heading.
  await page.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5, { steps: 5 });
  await page.mouse.move(box.x + box.width * 0.8, box.y + box.height * 0.8, { steps: 5 });
  await page.mouse.up();
  const body = await (await answered).json();
  await page.waitForFunction((t) => document.querySelector('#query-head')?.dataset.tick === String(t), body.tick);
  assert.ok(body.nodes.length > 0, 'the drawn region holds nodes');
  assert.deepEqual(await hooks(() => window.canopyInspector.highlighted()), body.nodes);
  await drawnHighlight(body.nodes);
  await page.screenshot({ path: shot('region.png') });
  console.log(`drawn region: ${body.nodes.length} nodes at tick ${body.tick}`);
  await page.locator('input[name=tool][value=select]').check();
});

test('nearest-k from a clicked point highlights the server\'s k nearest', async () => {
  await page.locator('input[name=tool][value=nearest]').check();
  await page.locator('#nearest-k').fill('4');
  const at = await hooks((id) => window.canopyInspector.project(id), MARKER);
  const answered = page.waitForResponse((r) => r.url().endsWith('/rooms/demo/query/nearest'));
  await page.mouse.click(at.x, at.y);
  const body = await (await answered).json();
  await page.waitForFunction((t) => document.querySelector('#query-head')?.dataset.tick === String(t), body.tick);
  assert.equal(body.hits.length, 4);
  // The point is where the click's ray enters the marker's box: the marker is at distance 0.
  assert.equal(body.hits[0].node, MARKER);
  assert.equal(body.hits[0].dist, 0);
  const nearest = body.hits.map((h) => h.node).sort((a, b) => a - b);
  assert.deepEqual(await hooks(() => window.canopyInspector.highlighted()), nearest);
  await drawnHighlight(nearest);
  await page.locator('input[name=tool][value=select]').check();
  await page.locator('#clear-marks').click();
});

test('a follow scope around the selected node highlights what a subscriber of that scope holds', async () => {
  await hooks((id) => window.canopyInspector.select(id), MARKER);
  await page.locator('#scope-radius').fill('30');
  await page.locator('#scope-margin').fill('5');
  await page.locator('#scope-follow').click();
  await page.waitForFunction(() => (window.canopyInspector.scope()?.tick ?? 0) > 0);
  const shown = await hooks(() => window.canopyInspector.scope());
  assert.equal(shown.kind, 'follow');
  assert.equal(shown.node, MARKER);
  // Nothing near the marker moves, so the server's sphere query around it at any tick
  // is the scope's reference.
  const own = await api(server.url, 'POST', '/rooms/demo/query/sphere', { body: { around: MARKER, radius: 30 } });
  assert.equal(own.status, 200, JSON.stringify(own.body));
  assert.deepEqual(shown.ids, own.body.nodes);
  assert.ok(shown.ids.includes(MARKER) && shown.ids.includes(NEAR) && !shown.ids.includes(FAR), JSON.stringify(shown.ids));
  await drawnHighlight(shown.ids);
  assert.match(await page.locator('#scope-info').textContent(), new RegExp(`follow ${MARKER} r 30 \\+ 5: ${shown.ids.length} nodes`));
  await page.screenshot({ path: shot('scope.png') });
  // The camera's frustum: a scope of its own, some nodes in it.
  await page.locator('#scope-frustum').click();
  await page.waitForFunction(() => window.canopyInspector.scope()?.kind === 'frustum' && window.canopyInspector.scope().tick > 0);
  const seen = await hooks(() => window.canopyInspector.scope());
  assert.ok(seen.ids.length > 0, 'the camera sees nodes');
  await page.locator('#scope-stop').click();
  assert.equal(await hooks(() => window.canopyInspector.scope()), null);
  await drawnHighlight([]);
  await hooks(() => window.canopyInspector.select(null));
});

test('the hierarchy finds a node by id, expands its ancestors and shows its parent and children', async () => {
  const id = 10005; // a segment of the first rig's first arm: parent 10004, child 10006
  await page.locator('#tree-search-id').fill(String(id));
  await page.locator('#tree-search button').click();
  const detail = page.locator(`#node-detail[data-id="${id}"]`);
  await detail.waitFor();
  assert.equal((await detail.locator('dd.f-parent').textContent()).trim(), '10004');
  assert.equal((await detail.locator('dd.f-children').textContent()).trim(), '10006');
  await page.locator(`#tree-rows .row.selected[data-id="${id}"]`).waitFor();
  // Virtualized: a few dozen rows exist, not one per node.
  const rows = await page.locator('#tree-rows .row').count();
  assert.ok(rows < 120, `${rows} rows in the DOM`);
  // A row click selects too.
  await page.locator('#tree-rows .row[data-id="10004"]').click();
  await page.locator('#node-detail[data-id="10004"]').waitFor();
  await page.locator('#pause').uncheck();
});

test('a viewer token reads a room but cannot delete it; the admin token can', async () => {
  const guarded = await startServer(['--admin-token', 'root-secret']);
  const page2 = await browser.context.newPage();
  try {
    const made = await api(guarded.url, 'POST', '/rooms', { body: { id: 'guarded' }, token: 'root-secret' });
    assert.equal(made.status, 201);
    await api(guarded.url, 'POST', '/rooms/guarded/edits', {
      body: { ops: [{ op: 'add', id: 1, extent: [1, 1, 1] }, { op: 'add', id: 2, parent: 1, local: { t: [3, 0, 0] } }] },
      token: 'root-secret',
    });
    await page2.goto(`${guarded.url}/`);
    await page2.waitForFunction(() => window.canopyInspector?.state().role === 'none');
    await page2.locator('#token').fill(made.body.viewer_token);
    await page2.locator('#token-form button[type=submit]').click();
    await page2.waitForFunction(() => window.canopyInspector.state().role === 'room');
    assert.equal(await page2.locator('#create-room').isVisible(), false, 'create is not offered');
    assert.equal(await page2.locator('#rooms').isVisible(), false, 'the admin-only room list is not offered');
    await page2.locator('#open-room-id').fill('guarded');
    await page2.locator('#open-room button').click();
    await page2.waitForFunction(() => window.canopyInspector.state().room === 'guarded' && window.canopyInspector.state().nodes === 2);
    assert.equal(await page2.locator('#delete-room').isVisible(), false, 'delete is not offered');
    // Asked anyway (the path the button takes), the server refuses and the page says so.
    assert.equal(await page2.evaluate(() => window.canopyInspector.deleteRoom('guarded')), false);
    await page2.locator('#status.error', { hasText: 'forbidden' }).waitFor();
    assert.equal((await api(guarded.url, 'GET', '/rooms/guarded', { token: 'root-secret' })).status, 200);
    // The token stays in this tab: sessionStorage, never localStorage or the URL.
    const kept = await page2.evaluate(() => ({ session: Object.values(sessionStorage), local: localStorage.length, url: location.href }));
    assert.deepEqual(kept.session, [made.body.viewer_token]);
    assert.equal(kept.local, 0);
    assert.ok(!kept.url.includes(made.body.viewer_token));
    await page2.screenshot({ path: shot('viewer.png') });

    await page2.locator('#token').fill('root-secret');
    await page2.locator('#token-form button[type=submit]').click();
    await page2.waitForFunction(() => window.canopyInspector.state().role === 'admin');
    const del = page2.locator('#rooms tbody tr[data-room="guarded"] button.delete');
    await del.click();
    await del.click();
    await page2.locator('#status', { hasText: 'room guarded deleted' }).waitFor();
    assert.equal((await api(guarded.url, 'GET', '/rooms/guarded', { token: 'root-secret' })).status, 404);
  } finally {
    await page2.close();
    await guarded.stop();
  }
});
