// One subscriber's scope over the 3D view. The inspector opens a second connection to
// the room (the probe) and subscribes it as a game client would: with a follow scope
// around the selected node (protocol 1.2: a node enters within `radius`, leaves beyond
// `radius + margin`) or with the camera's frustum as it is now. The nodes the server
// keeps in the probe's mirror are the highlighted ones, and the follow spheres (radius,
// and radius + margin) move with the followed node every frame, or the frozen frustum is
// drawn. So what the view shows is the server's own scope rule at work, tick by tick.
//
// Invariant: at most one probe is open; a new scope or another room closes the old one
// first, and its overlays go with it.

import {
  CameraHelper, Color, LineBasicMaterial, LineSegments, Matrix4, PerspectiveCamera, Scene,
  SphereGeometry, WireframeGeometry,
} from 'three';
import { follow, frustum, frustumPlanes } from '@canopy/client';
import type { Client, Connection, Scope } from '@canopy/client';
import type { SceneModel } from './model.js';

/** What the probe shows, for the panel and the test hooks. */
export interface ScopeShown {
  kind: 'follow' | 'frustum';
  node: number | null;
  radius: number | null;
  margin: number | null;
  /** The ids the server holds in the probe's scope, ascending. */
  ids: number[];
  /** The tick of the last frame the probe applied. */
  tick: number;
}

const INNER = 0x7dff9a;
const OUTER = 0x3c8a4f;

export class ScopeProbe {
  /** Called when the scope's members change (each frame the probe applied). */
  onChange: () => void = () => {};
  #scene: Scene;
  #conn: Connection | null = null;
  #shown: ScopeShown | null = null;
  #spheres: LineSegments[] = [];
  #frustum: CameraHelper | null = null;
  #last = [NaN, NaN, NaN];
  #opening = 0;

  constructor(scene: Scene) {
    this.#scene = scene;
  }

  get shown(): ScopeShown | null {
    return this.#shown;
  }

  /** Subscribes the probe with the sphere of `radius` around `node`, following it. */
  async follow(client: Client, room: string, node: number, radius: number, margin: number): Promise<void> {
    const scope = follow(node, radius, margin);
    await this.#open(client, room, scope, { kind: 'follow', node, radius, margin });
    for (const [r, colour] of [[radius, INNER], [radius + margin, OUTER]] as const) {
      const sphere = new LineSegments(
        new WireframeGeometry(new SphereGeometry(r, 24, 12)),
        new LineBasicMaterial({ color: new Color(colour), transparent: true, opacity: 0.6, depthTest: false }),
      );
      sphere.renderOrder = 8;
      sphere.visible = false;
      this.#spheres.push(sphere);
      this.#scene.add(sphere);
    }
    this.#last.fill(NaN);
  }

  /** Subscribes the probe with the view volume of `camera` as it is now. */
  async frustum(client: Client, room: string, camera: PerspectiveCamera): Promise<void> {
    const frozen = camera.clone();
    frozen.far = Math.min(camera.far, 2000);
    frozen.updateProjectionMatrix();
    frozen.updateMatrixWorld(true);
    const vp = new Matrix4().multiplyMatrices(frozen.projectionMatrix, frozen.matrixWorldInverse);
    await this.#open(client, room, frustum(frustumPlanes(vp.elements)), {
      kind: 'frustum',
      node: null,
      radius: null,
      margin: null,
    });
    this.#frustum = new CameraHelper(frozen);
    this.#frustum.renderOrder = 8;
    this.#scene.add(this.#frustum);
  }

  /** Closes the probe and removes its overlays. */
  stop(): void {
    this.#opening++;
    void this.#conn?.close();
    this.#conn = null;
    this.#shown = null;
    for (const s of this.#spheres) {
      this.#scene.remove(s);
      s.geometry.dispose();
    }
    this.#spheres = [];
    if (this.#frustum) {
      this.#scene.remove(this.#frustum);
      this.#frustum.dispose();
      this.#frustum = null;
    }
  }

  /**
   * Moves the follow spheres to the followed node's world position in `model` (the
   * whole-room mirror); answers whether anything moved.
   */
  frame(model: SceneModel | null): boolean {
    const node = this.#shown?.node;
    if (node == null || this.#spheres.length === 0) return false;
    const slot = model?.slotOf.get(node);
    const visible = slot !== undefined;
    if (!visible) {
      const was = this.#spheres[0]!.visible;
      for (const s of this.#spheres) s.visible = false;
      return was;
    }
    const w = model!.conn.mirror.world;
    const at = [w[slot * 8]!, w[slot * 8 + 1]!, w[slot * 8 + 2]!];
    if (this.#spheres[0]!.visible && at.every((v, i) => v === this.#last[i])) return false;
    this.#last = at;
    for (const s of this.#spheres) {
      s.position.set(at[0]!, at[1]!, at[2]!);
      s.visible = true;
    }
    return true;
  }

  async #open(client: Client, room: string, scope: Scope, shown: Omit<ScopeShown, 'ids' | 'tick'>): Promise<void> {
    this.stop();
    const mine = ++this.#opening;
    const conn = await client.connect(room);
    if (mine !== this.#opening) {
      void conn.close();
      return;
    }
    this.#conn = conn;
    this.#shown = { ...shown, ids: [], tick: 0 };
    const applied = (f: { tick: number }) => {
      if (this.#conn !== conn || !this.#shown) return;
      const ids: number[] = [];
      conn.mirror.forEach((id) => ids.push(id));
      this.#shown = { ...this.#shown, ids: ids.sort((a, b) => a - b), tick: f.tick };
      this.onChange();
    };
    conn.on('snapshot', applied);
    conn.on('tick', applied);
    conn.on('resynced', applied);
    await conn.subscribe(scope);
  }
}
