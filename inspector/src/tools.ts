// The click tools, every answer from the server's own queries (so what the inspector
// shows is what a game asking the same question gets, at the tick the answer names):
//
// * Select: a click casts `POST .../query/ray` from the camera through the pixel; the
//   first hit is selected.
// * Nearest: a click finds a point (where the ray first hits a box, else where it meets
//   the horizontal plane through the orbit target) and asks `query/nearest` for k nodes.
// * Region: a drag spans a rectangle on that horizontal plane (the height range comes from
//   the typed fields), or a region is typed; `query/region` answers, and its hits are
//   highlighted.
//
// A drag in Select or Nearest orbits the camera as usual; in Region it draws.

import { Plane, Vector3 } from 'three';
import type { Access } from './access.js';
import { describe } from './access.js';
import type { View } from './scene/view.js';

export type Tool = 'select' | 'nearest' | 'region';

/** The last answer, for the panel and the test hooks. */
export interface Answer {
  kind: 'ray' | 'nearest' | 'region';
  tick: number;
  ids: number[];
}

const CLICK_SLOP = 4;
const HITS_LISTED = 60;

export class Tools {
  tool: Tool = 'select';
  last: Answer | null = null;
  room: string | null = null;
  /** Called with the node a Select click hit (null for a miss). */
  onPick: (id: number | null) => void = () => {};
  onMessage: (text: string, error?: boolean) => void = () => {};
  #access: Access;
  #view: View;
  #out: HTMLElement;
  #down: { x: number; y: number } | null = null;
  #dragFrom: Vector3 | null = null;

  constructor(access: Access, view: View) {
    this.#access = access;
    this.#view = view;
    this.#out = document.getElementById('query-result')!;
    const canvas = view.renderer.domElement;
    canvas.addEventListener('pointerdown', (ev) => this.#pointerDown(ev), { capture: true });
    canvas.addEventListener('pointermove', (ev) => this.#pointerMove(ev));
    canvas.addEventListener('pointerup', (ev) => void this.#pointerUp(ev));
    document.getElementById('region-form')!.addEventListener('submit', (ev) => {
      ev.preventDefault();
      void this.regionFromFields();
    });
  }

  set current(tool: Tool) {
    this.tool = tool;
    // Region drags draw; the other tools leave dragging to the orbit controls.
    this.#view.controls.enabled = tool !== 'region';
  }

  clear(): void {
    this.last = null;
    this.#view.boxes.setHighlight(null);
    this.#view.marks.region(null);
    this.#view.marks.point(null);
    this.#out.className = 'muted';
    this.#out.textContent = 'Click, drag a region or type one.';
    this.#view.requestRender();
  }

  /** Runs the region query typed in the fields. */
  async regionFromFields(): Promise<void> {
    const min = vec3(field('rmin'));
    const max = vec3(field('rmax'));
    if (!min || !max) {
      this.onMessage('a region needs min and max as three numbers each', true);
      return;
    }
    await this.#region(min, max);
  }

  #pointerDown(ev: PointerEvent): void {
    this.#down = { x: ev.clientX, y: ev.clientY };
    if (this.tool === 'region' && ev.button === 0) {
      this.#dragFrom = this.#onPlane(ev.clientX, ev.clientY);
      this.#view.renderer.domElement.setPointerCapture(ev.pointerId);
    }
  }

  #pointerMove(ev: PointerEvent): void {
    if (!this.#dragFrom) return;
    const to = this.#onPlane(ev.clientX, ev.clientY);
    if (!to) return;
    const [min, max] = this.#span(this.#dragFrom, to);
    this.#view.marks.region(min, max);
    this.#view.requestRender();
  }

  async #pointerUp(ev: PointerEvent): Promise<void> {
    const down = this.#down;
    this.#down = null;
    if (this.#dragFrom) {
      const from = this.#dragFrom;
      this.#dragFrom = null;
      const to = this.#onPlane(ev.clientX, ev.clientY);
      if (to && down && Math.hypot(ev.clientX - down.x, ev.clientY - down.y) > CLICK_SLOP) {
        const [min, max] = this.#span(from, to);
        setField('rmin', min);
        setField('rmax', max);
        await this.#region(min, max);
      }
      return;
    }
    if (!down || ev.button !== 0 || Math.hypot(ev.clientX - down.x, ev.clientY - down.y) > CLICK_SLOP) return;
    if (this.tool === 'select') await this.#pick(ev.clientX, ev.clientY);
    else if (this.tool === 'nearest') await this.#nearest(ev.clientX, ev.clientY);
  }

  /** Select: the server's ray query from the camera through the pixel. */
  async #pick(x: number, y: number): Promise<void> {
    const room = this.room;
    if (!room) return;
    const { origin, dir } = this.#view.rayAt(x, y);
    try {
      const r = await this.#access.client.queryRay(room, { origin: origin.toArray(), dir: dir.toArray() });
      const hit = r.hits[0];
      this.#show({ kind: 'ray', tick: r.tick, ids: hit ? [hit.node] : [] }, hit ? `first hit ${hit.node} at t = ${hit.t.toFixed(3)}` : 'no hit');
      this.onPick(hit ? hit.node : null);
    } catch (e) {
      this.onMessage(`ray query: ${describe(e)}`, true);
    }
  }

  /** Nearest: the point under the click, then the server's k nearest nodes to it. */
  async #nearest(x: number, y: number): Promise<void> {
    const room = this.room;
    if (!room) return;
    const { origin, dir } = this.#view.rayAt(x, y);
    const k = Math.max(1, Math.floor(Number(field('nearest-k')) || 8));
    try {
      const ray = await this.#access.client.queryRay(room, { origin: origin.toArray(), dir: dir.toArray() });
      const hit = ray.hits[0];
      const point = hit ? origin.clone().addScaledVector(dir, hit.t) : this.#onPlane(x, y);
      if (!point) {
        this.onMessage('the click is on no box and not on the ground plane', true);
        return;
      }
      const r = await this.#access.client.queryNearest(room, { point: point.toArray(), k });
      this.#view.marks.point(point, Math.max(0.3, this.#view.camera.position.distanceTo(point) / 150));
      const p = point.toArray().map((v) => v.toFixed(2)).join(', ');
      const detail = r.hits.slice(0, HITS_LISTED).map((h) => `${h.node} (${h.dist.toFixed(2)})`).join(', ');
      this.#show({ kind: 'nearest', tick: r.tick, ids: r.hits.map((h) => h.node) }, `${r.hits.length} nearest to [${p}]: ${detail}`);
    } catch (e) {
      this.onMessage(`nearest query: ${describe(e)}`, true);
    }
  }

  async #region(min: Vector3, max: Vector3): Promise<void> {
    const room = this.room;
    if (!room) return;
    const maskText = field('rmask').trim();
    const mask = maskText === '' ? undefined : Number(maskText);
    try {
      const q = { min: min.toArray(), max: max.toArray(), ...(mask === undefined ? {} : { mask }) };
      const r = await this.#access.client.queryRegion(room, q);
      this.#view.marks.region(min, max);
      const listed = r.nodes.slice(0, HITS_LISTED).join(', ');
      this.#show({ kind: 'region', tick: r.tick, ids: r.nodes }, `${r.nodes.length} in region: ${listed}${r.nodes.length > HITS_LISTED ? ', …' : ''}`);
    } catch (e) {
      this.onMessage(`region query: ${describe(e)}`, true);
    }
  }

  #show(answer: Answer, text: string): void {
    this.last = answer;
    // A Select highlights nothing: the selection outline shows the hit.
    this.#view.boxes.setHighlight(answer.kind === 'ray' ? null : answer.ids);
    if (answer.kind === 'ray') this.#view.marks.point(null);
    this.#out.className = '';
    this.#out.replaceChildren();
    const head = document.createElement('div');
    head.id = 'query-head';
    head.dataset.kind = answer.kind;
    head.dataset.tick = String(answer.tick);
    head.dataset.ids = JSON.stringify(answer.ids);
    head.textContent = `${answer.kind} at tick ${answer.tick}`;
    const body = document.createElement('div');
    body.className = 'hits';
    body.textContent = text;
    this.#out.append(head, body);
    this.#view.requestRender();
  }

  /** Where the pixel's camera ray meets the horizontal plane through the orbit target. */
  #onPlane(x: number, y: number): Vector3 | null {
    const { origin, dir } = this.#view.rayAt(x, y);
    const plane = new Plane(new Vector3(0, 1, 0), -this.#view.controls.target.y);
    const denom = plane.normal.dot(dir);
    if (Math.abs(denom) < 1e-9) return null;
    const t = -(plane.normal.dot(origin) + plane.constant) / denom;
    return t < 0 ? null : origin.clone().addScaledVector(dir, t);
  }

  /** The box spanned by two plane points, its height from the typed fields. */
  #span(a: Vector3, b: Vector3): [Vector3, Vector3] {
    const typedMin = vec3(field('rmin')) ?? new Vector3(0, -10, 0);
    const typedMax = vec3(field('rmax')) ?? new Vector3(0, 10, 0);
    return [
      new Vector3(Math.min(a.x, b.x), Math.min(typedMin.y, typedMax.y), Math.min(a.z, b.z)),
      new Vector3(Math.max(a.x, b.x), Math.max(typedMin.y, typedMax.y), Math.max(a.z, b.z)),
    ];
  }
}

function field(id: string): string {
  return (document.getElementById(id) as HTMLInputElement).value;
}

function setField(id: string, v: Vector3): void {
  (document.getElementById(id) as HTMLInputElement).value = v.toArray().map((x) => +x.toFixed(2)).join(' ');
}

/** "x y z" (spaces or commas) as a vector, or null. */
function vec3(text: string): Vector3 | null {
  const parts = text.trim().split(/[\s,]+/).map(Number);
  if (parts.length !== 3 || !parts.every(Number.isFinite)) return null;
  return new Vector3(parts[0], parts[1], parts[2]);
}
