// The selected node, as the server answers `GET /rooms/{room}/nodes/{id}`: parent,
// children, local and world transforms, extent, mask, and the tick the answer is at.
// It is read again every second while shown, so a moving node's numbers stay current;
// the exact values are kept in `data-*` attributes (JSON) beside the rounded text, for
// a reader who copies them and for the browser test, which compares them with its own
// read of the same node.

import type { NodeDetail, Transform } from '@canopy/client';

const REFRESH_MS = 1000;
const CHILDREN_SHOWN = 40;

export class DetailsPanel {
  #box: HTMLElement;
  #id: number | null = null;
  #timer: ReturnType<typeof setInterval> | null = null;
  #load: ((id: number) => Promise<NodeDetail>) | null = null;
  /** Called when a parent or child link is clicked. */
  onSelect: (id: number) => void = () => {};

  constructor(box: HTMLElement) {
    this.#box = box;
    box.addEventListener('click', (ev) => {
      const a = (ev.target as HTMLElement).closest<HTMLElement>('[data-node]');
      if (a) {
        ev.preventDefault();
        this.onSelect(Number(a.dataset.node));
      }
    });
  }

  get id(): number | null {
    return this.#id;
  }

  /** Shows `id`, read with `load` now and every second; null clears. */
  show(id: number | null, load?: (id: number) => Promise<NodeDetail>): void {
    this.#id = id;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    if (id === null || !load) {
      this.#box.className = 'muted';
      this.#box.textContent = 'Click a box or a row of the hierarchy.';
      return;
    }
    this.#load = load;
    this.#box.className = '';
    this.#box.textContent = `node ${id}…`;
    void this.#read(id);
    this.#timer = setInterval(() => void this.#read(id), REFRESH_MS);
  }

  async #read(id: number): Promise<void> {
    try {
      const n = await this.#load!(id);
      if (this.#id === id) this.#render(n);
    } catch (e) {
      if (this.#id !== id) return;
      this.#box.className = 'error';
      this.#box.textContent = `node ${id}: ${(e as Error).message}`;
      if (this.#timer) clearInterval(this.#timer);
      this.#timer = null;
    }
  }

  #render(n: NodeDetail): void {
    const dl = document.createElement('dl');
    dl.id = 'node-detail';
    dl.dataset.id = String(n.id);
    dl.dataset.world = JSON.stringify(n.world);
    dl.dataset.local = JSON.stringify(n.local);
    const row = (name: string, value: Node | string) => {
      const dt = document.createElement('dt');
      dt.textContent = name;
      const dd = document.createElement('dd');
      dd.className = `f-${name}`;
      dd.append(value);
      dl.append(dt, dd);
    };
    row('id', String(n.id));
    row('tick', String(n.tick));
    row('parent', n.parent === null ? 'none (a root)' : link(n.parent));
    const kids = document.createElement('span');
    if (n.children.length === 0) kids.textContent = 'none';
    for (const c of n.children.slice(0, CHILDREN_SHOWN)) kids.append(link(c), ' ');
    if (n.children.length > CHILDREN_SHOWN) kids.append(`… ${n.children.length - CHILDREN_SHOWN} more`);
    row('children', kids);
    row('local', transform(n.local));
    row('world', transform(n.world));
    row('extent', vec(n.extent));
    row('mask', `0x${n.mask.toString(16).padStart(8, '0')} (${n.mask})`);
    this.#box.replaceChildren(dl);
  }
}

function link(id: number): HTMLElement {
  const a = document.createElement('a');
  a.href = '#';
  a.dataset.node = String(id);
  a.textContent = String(id);
  return a;
}

const num = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(3));
const vec = (v: readonly number[]) => `[${v.map(num).join(', ')}]`;

function transform(t: Transform): string {
  return `t ${vec(t.t)}  r ${vec(t.r)}  s ${num(t.s)}`;
}
