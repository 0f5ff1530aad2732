// The octree overlay: every cell of `GET /rooms/{room}/octree` as the twelve edges of its
// loose bounds, in one line-segment geometry, coloured by depth (the root cool, deep
// cells warm) so a reader sees at a glance where the tree splits and how deep.
//
// The server answers the cells at one tick; the overlay says which, and the caller
// refreshes it while it is shown (the octree changes as nodes move).

import { BufferAttribute, BufferGeometry, Color, LineBasicMaterial, LineSegments, Scene } from 'three';
import type { OctreeCells } from '@canopy/client';

// The 12 edges of a box as pairs of corner indices; corner i has bit 0 = x max, 1 = y, 2 = z.
const EDGES = [0, 1, 2, 3, 4, 5, 6, 7, 0, 2, 1, 3, 4, 6, 5, 7, 0, 4, 1, 5, 2, 6, 3, 7];

export class OctreeOverlay {
  #scene: Scene;
  #lines: LineSegments | null = null;
  /** The last answer drawn: its tick, cell count and the objects it holds in all. */
  shown: { tick: number; cells: number; objects: number; maxDepth: number } | null = null;

  constructor(scene: Scene) {
    this.#scene = scene;
  }

  get visible(): boolean {
    return this.#lines !== null;
  }

  /** Replaces the overlay with these cells. */
  draw(answer: OctreeCells): void {
    this.clear();
    const cells = answer.cells;
    const pos = new Float32Array(cells.length * 24 * 3);
    const col = new Float32Array(cells.length * 24 * 3);
    const c = new Color();
    let maxDepth = 0;
    let objects = 0;
    for (const cell of cells) maxDepth = Math.max(maxDepth, cell.depth);
    let o = 0;
    for (const cell of cells) {
      objects += cell.objects;
      // Cells that hold objects are brighter than the empty ones around them.
      c.setHSL(0.55 - 0.5 * (cell.depth / Math.max(maxDepth, 1)), 0.85, cell.objects > 0 ? 0.6 : 0.32);
      for (const corner of EDGES) {
        pos[o] = corner & 1 ? cell.max[0] : cell.min[0];
        pos[o + 1] = corner & 2 ? cell.max[1] : cell.min[1];
        pos[o + 2] = corner & 4 ? cell.max[2] : cell.min[2];
        col[o] = c.r;
        col[o + 1] = c.g;
        col[o + 2] = c.b;
        o += 3;
      }
    }
    const geometry = new BufferGeometry();
    geometry.setAttribute('position', new BufferAttribute(pos, 3));
    geometry.setAttribute('color', new BufferAttribute(col, 3));
    const lines = new LineSegments(geometry, new LineBasicMaterial({ vertexColors: true, transparent: true, opacity: 0.75 }));
    lines.frustumCulled = false;
    this.#scene.add(lines);
    this.#lines = lines;
    this.shown = { tick: answer.tick, cells: cells.length, objects, maxDepth };
  }

  clear(): void {
    if (!this.#lines) return;
    this.#scene.remove(this.#lines);
    this.#lines.geometry.dispose();
    (this.#lines.material as LineBasicMaterial).dispose();
    this.#lines = null;
    this.shown = null;
  }
}
