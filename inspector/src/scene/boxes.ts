// Every node's world box as one instanced mesh: instance i is mirror slot i, its matrix
// the node's world transform with the scale multiplied by the half-extents (the unit
// geometry spans -1..1), so the box is oriented as the server's OBB is.
//
// Why this shape: 20,000 nodes with 200 changes a tick must cost one draw call and, per
// frame, one matrix write per changed slot, not a scene-graph object per node. The
// matrices are uploaded once per frame, as a few ranges around the changed slots (one
// range over the whole buffer when changes are spread everywhere; a 20k-node buffer is
// 1.3 MB, cheaper to send whole than as hundreds of small uploads).
//
// Colours: by layer mask (one hue per distinct mask) or by depth in the hierarchy; when a
// query answer or a selection is highlighted, the hits are bright and the rest dimmed.

import {
  BoxGeometry, Color, DynamicDrawUsage, InstancedBufferAttribute, InstancedMesh, MeshLambertMaterial, Scene,
} from 'three';
import type { SceneModel } from '../model.js';

export type ColourMode = 'mask' | 'depth';

/** Boxes of zero extent (points) are drawn at this half-size, times the node's scale. */
const POINT_HALF = 0.05;
/** Up to this many separate upload ranges per frame; beyond, one range over them all. */
const MAX_RANGES = 24;
/** Changed slots closer than this share an upload range. */
const MERGE_GAP = 256;

const HIGHLIGHT = new Color(0xffffff);
const scratch = new Color();

export class Boxes {
  mesh: InstancedMesh;
  #scene: Scene;
  #capacity = 0;
  #colourMode: ColourMode = 'mask';
  #highlight: Set<number> | null = null;
  #coloursStale = true;
  #structureSeen = -1;
  #depthOf = new Map<number, number>();
  readonly masks = new Map<number, Color>();
  /** The last frame's cost, for the test hooks and the frame readout. */
  lastUpdateMs = 0;
  lastUpdated = 0;

  constructor(scene: Scene) {
    this.#scene = scene;
    this.mesh = this.#makeMesh(64);
  }

  set colourMode(mode: ColourMode) {
    this.#colourMode = mode;
    this.#coloursStale = true;
  }

  get colourMode(): ColourMode {
    return this.#colourMode;
  }

  /** Highlights these ids (a query's hits) and dims the rest; null clears. */
  setHighlight(ids: Iterable<number> | null): void {
    this.#highlight = ids === null ? null : new Set(ids);
    this.#coloursStale = true;
  }

  get highlighted(): ReadonlySet<number> {
    return this.#highlight ?? new Set();
  }

  /**
   * Brings the instances up to date with the model: the one per-frame update. Returns
   * whether anything was written (the view renders only then, or when the camera moved).
   */
  update(model: SceneModel, live = true): boolean {
    const t0 = performance.now();
    if (!live) {
      // Paused: the boxes stay where they were, but highlights and colours still apply.
      const recoloured = this.#coloursStale;
      if (recoloured) this.#recolour(model);
      return recoloured;
    }
    const m = model.conn.mirror;
    if (m.ids.length > this.#capacity) {
      this.#scene.remove(this.mesh);
      this.mesh.dispose();
      this.mesh = this.#makeMesh(m.ids.length);
      model.touchAll();
      this.#coloursStale = true;
    }
    const { dirty, freed } = model.takeDirty();
    const out = this.mesh.instanceMatrix.array as Float32Array;
    for (let i = 0; i < freed.length; i++) out.fill(0, freed[i]! * 16, freed[i]! * 16 + 16);
    let written = 0;
    for (let i = 0; i < dirty.length; i++) {
      const slot = dirty[i]!;
      // A slot freed after it was marked (or reused by another node) is drawn only if held.
      if (model.slotOf.get(m.ids[slot]!) !== slot) continue;
      compose(out, slot * 16, m.world, slot * 8, m.extent, slot * 3);
      written++;
    }
    this.#upload(dirty.concat(freed));
    if (this.#structureSeen !== model.structure) {
      this.#structureSeen = model.structure;
      this.#coloursStale = true;
    }
    const recoloured = this.#coloursStale;
    if (recoloured) this.#recolour(model);
    this.lastUpdated = written;
    this.lastUpdateMs = performance.now() - t0;
    return written > 0 || freed.length > 0 || recoloured;
  }

  #upload(slots: number[]): void {
    const attr = this.mesh.instanceMatrix;
    if (slots.length === 0) return;
    slots.sort((a, b) => a - b);
    const ranges: [number, number][] = [];
    let start = slots[0]!;
    let end = start;
    for (let i = 1; i < slots.length; i++) {
      const s = slots[i]!;
      if (s - end > MERGE_GAP) {
        ranges.push([start, end]);
        start = s;
      }
      end = s;
    }
    ranges.push([start, end]);
    attr.clearUpdateRanges();
    if (ranges.length > MAX_RANGES) ranges.splice(0, ranges.length, [slots[0]!, slots.at(-1)!]);
    for (const [a, b] of ranges) attr.addUpdateRange(a * 16, (b - a + 1) * 16);
    attr.needsUpdate = true;
  }

  #recolour(model: SceneModel): void {
    this.#coloursStale = false;
    const colours = this.mesh.instanceColor!;
    const arr = colours.array as Float32Array;
    const m = model.conn.mirror;
    if (this.#colourMode === 'depth') this.#depthOf.clear();
    this.masks.clear();
    const hi = this.#highlight;
    for (const [id, slot] of model.slotOf) {
      const mask = m.mask[slot]!;
      let c = this.masks.get(mask);
      if (!c) this.masks.set(mask, (c = maskColour(mask)));
      if (this.#colourMode === 'depth') depthColour(this.#depth(model, id), scratch);
      else scratch.copy(c);
      if (hi) {
        if (hi.has(id)) scratch.copy(HIGHLIGHT);
        else scratch.multiplyScalar(0.2);
      }
      arr[slot * 3] = scratch.r;
      arr[slot * 3 + 1] = scratch.g;
      arr[slot * 3 + 2] = scratch.b;
    }
    colours.clearUpdateRanges();
    colours.needsUpdate = true;
  }

  /** Depths memoized per recolouring, so a deep forest costs one walk per node. */
  #depth(model: SceneModel, id: number): number {
    const known = this.#depthOf.get(id);
    if (known !== undefined) return known;
    const p = model.parentOf.get(id) ?? -1;
    const d = p === -1 || !model.parentOf.has(p) ? 0 : this.#depth(model, p) + 1;
    this.#depthOf.set(id, d);
    return d;
  }

  #makeMesh(capacity: number): InstancedMesh {
    const mesh = new InstancedMesh(new BoxGeometry(2, 2, 2), new MeshLambertMaterial(), capacity);
    mesh.instanceMatrix.setUsage(DynamicDrawUsage);
    (mesh.instanceMatrix.array as Float32Array).fill(0);
    mesh.instanceColor = new InstancedBufferAttribute(new Float32Array(capacity * 3), 3);
    // The instances move every frame: a bounding sphere would be stale at once.
    mesh.frustumCulled = false;
    this.#capacity = capacity;
    this.#scene.add(mesh);
    return mesh;
  }
}

/**
 * Matrix4.compose (column-major) from a mirror row: translation t, unit quaternion r,
 * scale s times the half-extents e (points get a small visible size).
 */
export function compose(out: Float32Array, o: number, w: Float32Array, wo: number, e: Float32Array, eo: number): void {
  const x = w[wo + 3]!, y = w[wo + 4]!, z = w[wo + 5]!, q = w[wo + 6]!, s = w[wo + 7]!;
  const sx = s * Math.max(e[eo]!, POINT_HALF), sy = s * Math.max(e[eo + 1]!, POINT_HALF), sz = s * Math.max(e[eo + 2]!, POINT_HALF);
  const x2 = x + x, y2 = y + y, z2 = z + z;
  const xx = x * x2, xy = x * y2, xz = x * z2, yy = y * y2, yz = y * z2, zz = z * z2;
  const wx = q * x2, wy = q * y2, wz = q * z2;
  out[o] = (1 - (yy + zz)) * sx;
  out[o + 1] = (xy + wz) * sx;
  out[o + 2] = (xz - wy) * sx;
  out[o + 3] = 0;
  out[o + 4] = (xy - wz) * sy;
  out[o + 5] = (1 - (xx + zz)) * sy;
  out[o + 6] = (yz + wx) * sy;
  out[o + 7] = 0;
  out[o + 8] = (xz + wy) * sz;
  out[o + 9] = (yz - wx) * sz;
  out[o + 10] = (1 - (xx + yy)) * sz;
  out[o + 11] = 0;
  out[o + 12] = w[wo]!;
  out[o + 13] = w[wo + 1]!;
  out[o + 14] = w[wo + 2]!;
  out[o + 15] = 1;
}

// Twelve hues far apart, for single-layer masks by bit index (the common case, and the
// one a legend must tell apart); other masks are spread over the same palette by a hash.
const PALETTE = [0xff6b6b, 0x4fd1ff, 0xffd166, 0x7bd88f, 0xc792ea, 0xff9f43, 0x2ec4b6, 0xf78fb3, 0xa0c4ff, 0xd4e157, 0x9a8cff, 0x5ad1a0];

/** A layer mask's colour: a fixed hue per single bit, light grey for all layers. */
export function maskColour(mask: number): Color {
  if (mask === 0xffffffff) return new Color(0xc8ced6);
  const single = mask !== 0 && (mask & (mask - 1)) === 0;
  const index = single ? 31 - Math.clz32(mask) : (Math.imul(mask ^ (mask >>> 16), 0x45d9f3b) >>> 0) % PALETTE.length;
  return new Color(PALETTE[index % PALETTE.length]);
}

/** Depth 0 (roots) blue through green and yellow to red at depth 16 and below. */
function depthColour(depth: number, out: Color): Color {
  const f = Math.min(depth, 16) / 16;
  return out.setHSL(0.62 - 0.62 * f, 0.7, 0.52);
}
