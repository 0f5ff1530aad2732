// The hierarchy panel: roots, and the children of expanded nodes, as a flat list of rows,
// of which only the ones in view exist in the DOM (a fixed row height and a spacer give
// the scroll bar its full length). A 20,000-node room with 20,000 roots is then still a
// few dozen elements, and 200 transform changes a tick touch none of them: the list is
// rebuilt only when the structure changes (nodes enter or leave, a parent changes) or a
// row is expanded, at most a few times a second.

import type { SceneModel } from '../model.js';

const ROW = 18;
const REBUILD_MS = 300;

interface Row {
  id: number;
  depth: number;
  kids: number;
}

export class TreePanel {
  #box: HTMLElement;
  #spacer: HTMLElement;
  #rows: HTMLElement;
  #model: SceneModel | null = null;
  #expanded = new Set<number>();
  #flat: Row[] = [];
  #builtFor = -1;
  #lastBuild = 0;
  #selected: number | null = null;
  #count: HTMLElement;
  /** Called when a row is clicked. */
  onSelect: (id: number) => void = () => {};

  constructor(box: HTMLElement, count: HTMLElement) {
    this.#box = box;
    this.#count = count;
    this.#spacer = box.querySelector('#tree-spacer')!;
    this.#rows = box.querySelector('#tree-rows')!;
    box.addEventListener('scroll', () => this.#paint());
    this.#rows.addEventListener('click', (ev) => {
      const el = (ev.target as HTMLElement).closest<HTMLElement>('[data-id]');
      if (!el) return;
      const id = Number(el.dataset.id);
      if ((ev.target as HTMLElement).classList.contains('twisty')) this.toggle(id);
      else this.onSelect(id);
    });
  }

  setModel(model: SceneModel | null): void {
    this.#model = model;
    this.#expanded.clear();
    this.#builtFor = -1;
    this.#box.scrollTop = 0;
    this.refresh(true);
  }

  /** Rebuilds the rows when the structure changed (throttled unless `now`), then paints. */
  refresh(now = false): void {
    const m = this.#model;
    const stale = !m || m.structure !== this.#builtFor;
    if (stale && (now || performance.now() - this.#lastBuild > REBUILD_MS)) this.#build();
  }

  toggle(id: number): void {
    if (this.#expanded.has(id)) this.#expanded.delete(id);
    else this.#expanded.add(id);
    this.#build();
  }

  /** Expands the path to `id`, scrolls it into view and marks it; false if not held. */
  reveal(id: number): boolean {
    const m = this.#model;
    if (!m || !m.slotOf.has(id)) return false;
    for (const a of m.ancestors(id)) this.#expanded.add(a);
    this.#selected = id;
    this.#build();
    const at = this.#flat.findIndex((r) => r.id === id);
    if (at >= 0) {
      const top = at * ROW;
      const view = this.#box.clientHeight;
      if (top < this.#box.scrollTop || top + ROW > this.#box.scrollTop + view) this.#box.scrollTop = Math.max(0, top - view / 2);
    }
    this.#paint();
    return true;
  }

  mark(id: number | null): void {
    this.#selected = id;
    this.#paint();
  }

  #build(): void {
    const m = this.#model;
    this.#lastBuild = performance.now();
    this.#flat = [];
    if (m) {
      this.#builtFor = m.structure;
      const byId = (a: number, b: number) => a - b;
      const walk = (ids: Iterable<number>, depth: number) => {
        for (const id of [...ids].sort(byId)) {
          const kids = m.children.get(id);
          this.#flat.push({ id, depth, kids: kids?.size ?? 0 });
          if (kids && this.#expanded.has(id)) walk(kids, depth + 1);
        }
      };
      walk(m.roots, 0);
      this.#count.textContent = `${m.size} nodes, ${m.roots.size} roots`;
    } else this.#count.textContent = '';
    this.#spacer.style.height = `${this.#flat.length * ROW}px`;
    this.#paint();
  }

  /** Creates only the rows in view (plus a margin). */
  #paint(): void {
    const first = Math.max(0, Math.floor(this.#box.scrollTop / ROW) - 5);
    const last = Math.min(this.#flat.length, first + Math.ceil(this.#box.clientHeight / ROW) + 10);
    const frag = document.createDocumentFragment();
    for (let i = first; i < last; i++) {
      const r = this.#flat[i]!;
      const el = document.createElement('div');
      el.className = r.id === this.#selected ? 'row selected' : 'row';
      el.dataset.id = String(r.id);
      el.style.top = `${i * ROW}px`;
      el.style.paddingLeft = `${4 + r.depth * 12}px`;
      const twisty = document.createElement('span');
      twisty.className = r.kids ? 'twisty' : 'twisty leaf';
      twisty.textContent = r.kids ? (this.#expanded.has(r.id) ? '▾' : '▸') : '·';
      el.append(twisty, ` ${r.id}`);
      if (r.kids) {
        const n = document.createElement('span');
        n.className = 'muted';
        n.textContent = ` (${r.kids})`;
        el.append(n);
      }
      frag.append(el);
    }
    this.#rows.replaceChildren(frag);
  }
}
