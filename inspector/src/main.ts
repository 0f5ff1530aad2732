// The inspector page: wires the token, the rooms panel, the 3D view, the hierarchy and
// details panels, the tools and the charts around one open room (a SceneModel over a
// client-ts Connection). Everything goes through @canopy/client's public API, as a
// game's code would.

import './style.css';
import { Access, describe } from './access.js';
import { installHooks } from './hooks.js';
import { SceneModel } from './model.js';
import { Charts } from './panels/charts.js';
import { DetailsPanel } from './panels/details.js';
import { RoomsPanel } from './panels/rooms.js';
import { TreePanel } from './panels/tree.js';
import type { ColourMode } from './scene/boxes.js';
import { View } from './scene/view.js';
import { ScopeProbe } from './scope_probe.js';
import { type Tool, Tools } from './tools.js';

const OCTREE_REFRESH_MS = 2000;

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

const access = new Access();
const view = new View($('viewport'));
const tools = new Tools(access, view);
const rooms = new RoomsPanel(access);
const tree = new TreePanel($('tree'), $('tree-count'));
const details = new DetailsPanel($('details'));
const charts = new Charts(access);
const probe = new ScopeProbe(view.scene);
let model: SceneModel | null = null;
let opening = 0;
let statusTimer: ReturnType<typeof setTimeout> | null = null;

function message(text: string, error = false): void {
  const s = $('status');
  s.textContent = text;
  s.className = error ? 'error show' : 'show';
  if (statusTimer) clearTimeout(statusTimer);
  statusTimer = setTimeout(() => (s.className = ''), error ? 8000 : 3000);
}

/** Opens `room`: a fresh connection and mirror, the camera fitted once the snapshot is in. */
async function open(room: string): Promise<void> {
  const mine = ++opening;
  stopScope();
  model?.close();
  model = null;
  view.setModel(null);
  tree.setModel(null);
  select(null);
  tools.clear();
  tools.room = null;
  charts.room = null;
  rooms.current = room;
  $('room-title').textContent = `${room}: connecting…`;
  $('delete-room').hidden = true;
  try {
    const m = await SceneModel.open(access.client, room);
    if (mine !== opening) {
      m.close();
      return;
    }
    model = m;
    m.conn.on('stopped', ({ reason }) => {
      if (model === m) $('room-title').textContent = `${room}: stopped (${reason})`;
    });
    view.setModel(m);
    tree.setModel(m);
    tools.room = room;
    charts.room = room;
    $('room-title').textContent = room;
    $('delete-room').hidden = !access.isAdmin;
    view.fit();
    if (view.octree.visible || ($('octree-toggle') as HTMLInputElement).checked) await refreshOctree();
  } catch (e) {
    if (mine === opening) {
      $('room-title').textContent = `${room}: ${describe(e)}`;
      message(`cannot open ${room}: ${describe(e)}`, true);
    }
  }
}

function select(id: number | null): void {
  view.marks.select(id);
  tree.mark(id);
  const m = model;
  if (id === null || !m) details.show(null);
  else {
    tree.reveal(id);
    details.show(id, (n) => access.client.node(m.room, n));
  }
  view.requestRender();
}

async function refreshOctree(): Promise<void> {
  const m = model;
  const on = ($('octree-toggle') as HTMLInputElement).checked;
  if (!m || !on) {
    view.octree.clear();
    view.requestRender();
    return;
  }
  try {
    const cells = await access.client.octree(m.room);
    if (model === m && ($('octree-toggle') as HTMLInputElement).checked) {
      view.octree.draw(cells);
      view.requestRender();
    }
  } catch (e) {
    message(`octree: ${describe(e)}`, true);
  }
}

async function useToken(token: string): Promise<void> {
  access.setToken(token);
  ($('token') as HTMLInputElement).value = '';
  ($('token') as HTMLInputElement).placeholder = access.token === undefined ? 'none (open server)' : 'a token is in use (this tab only)';
  let role;
  try {
    role = await access.probe();
  } catch (e) {
    message(`server unreachable: ${describe(e)}`, true);
    return;
  }
  $('role').textContent = { open: 'open server', admin: 'admin', room: 'room token', none: 'no token' }[role];
  $('role').dataset.role = role;
  await rooms.applyRole();
  if (model) $('delete-room').hidden = !access.isAdmin;
  // Reopen with the new token (the connection carries the token it was opened with).
  const current = model?.room;
  if (current) await open(current);
  else if (access.isAdmin) {
    const list = await access.client.listRooms().catch(() => []);
    const first = list.find((r) => r.id === 'demo') ?? list[0];
    if (first) await open(first.id);
  }
}

// ---- wiring ---------------------------------------------------------------------------

rooms.onOpen = (room) => void open(room);
rooms.onMessage = message;
rooms.onDeleted = (room) => {
  if (model?.room === room) {
    model.close();
    model = null;
    view.setModel(null);
    tree.setModel(null);
    select(null);
    $('room-title').textContent = `${room} was deleted`;
    $('delete-room').hidden = true;
  }
};
tree.onSelect = (id) => select(id);
details.onSelect = (id) => select(id);
tools.onPick = (id) => select(id);
tools.onMessage = message;
charts.onRoom = (d) => {
  $('frame-info').dataset.tickMs = String(d.tick_ms);
};

$('token-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  void useToken(($('token') as HTMLInputElement).value.trim());
});
$('token-forget').addEventListener('click', () => void useToken(''));
$('colour').addEventListener('change', (ev) => {
  view.boxes.colourMode = (ev.target as HTMLSelectElement).value as ColourMode;
  view.requestRender();
});
$('octree-toggle').addEventListener('change', () => void refreshOctree());
setInterval(() => {
  if (view.octree.visible && !view.paused) void refreshOctree();
}, OCTREE_REFRESH_MS);
$('fit').addEventListener('click', () => view.fit());
$('pause').addEventListener('change', (ev) => {
  view.paused = (ev.target as HTMLInputElement).checked;
});
for (const radio of document.querySelectorAll<HTMLInputElement>('input[name=tool]')) {
  radio.addEventListener('change', () => {
    if (radio.checked) tools.current = radio.value as Tool;
  });
}
$('clear-marks').addEventListener('click', () => tools.clear());
$('tree-search').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const id = Number(($('tree-search-id') as HTMLInputElement).value.trim());
  if (!Number.isInteger(id) || !model?.slotOf.has(id)) {
    message(`no node ${($('tree-search-id') as HTMLInputElement).value} in this room`, true);
    return;
  }
  select(id);
});
let armed = false;
$('delete-room').addEventListener('click', () => {
  const room = model?.room;
  if (!room) return;
  if (!armed) {
    armed = true;
    $('delete-room').textContent = 'Confirm delete';
    setTimeout(() => {
      armed = false;
      $('delete-room').textContent = 'Delete room';
    }, 5000);
    return;
  }
  armed = false;
  $('delete-room').textContent = 'Delete room';
  void rooms.delete(room);
});

/** Shows the probe's scope: its members highlighted, a line of what it is. */
probe.onChange = () => {
  const s = probe.shown;
  if (!s) return;
  view.boxes.setHighlight(s.ids);
  const what = s.kind === 'follow' ? `follow ${s.node} r ${s.radius} + ${s.margin}` : 'camera frustum';
  $('scope-info').textContent = `${what}: ${s.ids.length} nodes in scope at tick ${s.tick}`;
  $('scope-info').dataset.tick = String(s.tick);
  view.requestRender();
};

function stopScope(): void {
  probe.stop();
  view.boxes.setHighlight(null);
  $('scope-info').textContent = '';
  view.requestRender();
}

/** Subscribes the probe: around the selected node, or with the camera's view volume. */
async function showScope(kind: 'follow' | 'frustum'): Promise<void> {
  const m = model;
  if (!m) return;
  tools.clear();
  try {
    if (kind === 'frustum') {
      await probe.frustum(access.client, m.room, view.camera);
    } else {
      const node = view.marks.selected;
      const radius = Number(($('scope-radius') as HTMLInputElement).value);
      const margin = Number(($('scope-margin') as HTMLInputElement).value);
      if (node === null) {
        message('select the node the scope follows first', true);
        return;
      }
      await probe.follow(access.client, m.room, node, radius, margin);
    }
  } catch (e) {
    stopScope();
    message(`scope: ${describe(e)}`, true);
  }
  view.requestRender();
}

$('scope-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  void showScope('follow');
});
$('scope-frustum').addEventListener('click', () => void showScope('frustum'));
$('scope-stop').addEventListener('click', () => stopScope());

// A readout of what the view is doing, once a frame: nodes, tick, and how far behind the
// server's clock this tab applied the last frame.
view.onFrame = () => {
  tree.refresh();
  if (!view.paused && probe.frame(model)) view.requestRender();
  const m = model;
  if (!m || view.stats.frames % 10 !== 0) return;
  if (view.stats.frames % 60 === 0) legend();
  const upd = view.boxes.lastUpdateMs.toFixed(2);
  $('frame-info').textContent = `${m.size} nodes · tick ${m.frame.tick} · lag ${Math.max(0, m.appliedAt - m.frame.time)} ms · update ${upd} ms${view.paused ? ' · paused' : ''}`;
};

/** The colour key: each mask's colour, or the depth ramp. */
function legend(): void {
  const box = $('legend');
  box.replaceChildren();
  if (view.boxes.colourMode === 'depth') {
    box.textContent = 'depth: 0 blue … 16+ red';
    return;
  }
  const masks = [...view.boxes.masks].sort((a, b) => a[0] - b[0]).slice(0, 12);
  for (const [mask, colour] of masks) {
    const chip = document.createElement('span');
    chip.className = 'chip';
    chip.style.background = `#${colour.getHexString()}`;
    box.append(chip, `0x${mask.toString(16)} `);
  }
}

installHooks({ access, view, tools, rooms, details, tree, probe, model: () => model, open, select, showScope });
void access
  .client.health()
  .then((h) => ($('server-info').textContent = h.version ? `server ${h.version}, protocol ${h.protocol}` : ''))
  .catch(() => undefined);
void useToken(access.token ?? '');
