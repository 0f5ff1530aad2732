// What the tools draw over the boxes: the selected node's oriented box outline (it follows
// the node every frame), the region being dragged or queried, and the point a nearest-k
// query was cast from.

import {
  Box3, Box3Helper, BoxGeometry, Color, EdgesGeometry, LineBasicMaterial, LineSegments, Mesh,
  MeshBasicMaterial, Scene, SphereGeometry, Vector3,
} from 'three';
import type { SceneModel } from '../model.js';
import { compose } from './boxes.js';

export class Marks {
  #scene: Scene;
  #selection: LineSegments;
  #selected: number | null = null;
  #region: Box3Helper | null = null;
  #point: Mesh | null = null;
  #matrix = new Float32Array(16);
  #last = new Float32Array(16);

  constructor(scene: Scene) {
    this.#scene = scene;
    this.#selection = new LineSegments(
      new EdgesGeometry(new BoxGeometry(2.08, 2.08, 2.08)),
      new LineBasicMaterial({ color: 0xffffff, depthTest: false, transparent: true }),
    );
    this.#selection.matrixAutoUpdate = false;
    this.#selection.renderOrder = 10;
    this.#selection.visible = false;
    scene.add(this.#selection);
  }

  get selected(): number | null {
    return this.#selected;
  }

  select(id: number | null): void {
    this.#selected = id;
    this.#selection.visible = false;
    this.#last.fill(NaN);
  }

  /** Moves the selection outline to the node's current box; answers whether it moved. */
  follow(model: SceneModel | null): boolean {
    const id = this.#selected;
    const slot = id === null || !model ? undefined : model.slotOf.get(id);
    if (slot === undefined) {
      const was = this.#selection.visible;
      this.#selection.visible = false;
      return was;
    }
    const m = model!.conn.mirror;
    compose(this.#matrix, 0, m.world, slot * 8, m.extent, slot * 3);
    if (this.#selection.visible && this.#matrix.every((v, i) => v === this.#last[i])) return false;
    this.#last.set(this.#matrix);
    this.#selection.matrix.fromArray(this.#matrix as unknown as number[]);
    this.#selection.matrixWorldNeedsUpdate = true;
    this.#selection.visible = true;
    return true;
  }

  /** Shows the region box (or removes it with null). */
  region(min: Vector3 | null, max?: Vector3): void {
    if (this.#region) {
      this.#scene.remove(this.#region);
      this.#region.dispose();
      this.#region = null;
    }
    if (!min || !max) return;
    this.#region = new Box3Helper(new Box3(min.clone(), max.clone()), new Color(0x4fd1ff));
    this.#region.renderOrder = 9;
    (this.#region.material as LineBasicMaterial).depthTest = false;
    this.#scene.add(this.#region);
  }

  /** Shows the point a nearest-k query was cast from (null removes it). */
  point(p: Vector3 | null, size = 0.5): void {
    if (this.#point) {
      this.#scene.remove(this.#point);
      this.#point.geometry.dispose();
      this.#point = null;
    }
    if (!p) return;
    this.#point = new Mesh(new SphereGeometry(size, 16, 12), new MeshBasicMaterial({ color: 0xff5fd2, depthTest: false }));
    this.#point.renderOrder = 11;
    this.#point.position.copy(p);
    this.#scene.add(this.#point);
  }

  clearAll(): void {
    this.select(null);
    this.region(null);
    this.point(null);
  }
}
