// `window.canopyInspector`: a small read-mostly automation surface, for the browser
// tests and for anyone scripting the page from the devtools console. It answers what
// the page shows (the selection, the highlighted ids, where a node is on screen, the
// per-frame update cost, the canvas's pixels) and runs the same actions the buttons do.
// It holds no data the page does not already show, and never the token.

import { Vector3 } from 'three';
import type { Access } from './access.js';
import type { SceneModel } from './model.js';
import type { DetailsPanel } from './panels/details.js';
import type { RoomsPanel } from './panels/rooms.js';
import type { TreePanel } from './panels/tree.js';
import type { View } from './scene/view.js';
import type { ScopeProbe } from './scope_probe.js';
import type { Tools } from './tools.js';

export interface Parts {
  access: Access;
  view: View;
  tools: Tools;
  rooms: RoomsPanel;
  details: DetailsPanel;
  tree: TreePanel;
  probe: ScopeProbe;
  model: () => SceneModel | null;
  open: (room: string) => Promise<void>;
  select: (id: number | null) => void;
  showScope: (kind: 'follow' | 'frustum') => Promise<void>;
}

function quantile(sorted: number[], q: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export function installHooks(p: Parts): void {
  const api = {
    /** The open room, its node count, last tick applied, and the role of the token. */
    state() {
      const m = p.model();
      return {
        room: m?.room ?? null,
        nodes: m?.size ?? 0,
        tick: m?.frame.tick ?? 0,
        role: p.access.role,
        pending: m?.pending ?? 0,
        octree: p.view.octree.shown,
        selected: p.view.marks.selected,
        /** How long after the server finished the last tick this tab applied it (ms). */
        lagMs: m ? m.appliedAt - m.frame.time : NaN,
      };
    },
    /** Where a node's centre is on screen (client pixels), from the mirror and the camera. */
    project(id: number) {
      const m = p.model();
      const slot = m?.slotOf.get(id);
      if (!m || slot === undefined) return null;
      const w = m.conn.mirror.world;
      return p.view.project(new Vector3(w[slot * 8], w[slot * 8 + 1], w[slot * 8 + 2]));
    },
    /** The ids drawn highlighted, ascending. */
    highlighted() {
      return [...p.view.boxes.highlighted].sort((a, b) => a - b);
    },
    /** The ids whose drawn colour is the highlight (what the picture shows), ascending. */
    highlightedDrawn() {
      const m = p.model();
      if (!m) return [];
      const c = p.view.boxes.mesh.instanceColor!.array as Float32Array;
      const out: number[] = [];
      for (const [id, slot] of m.slotOf) if (c[slot * 3] === 1 && c[slot * 3 + 1] === 1 && c[slot * 3 + 2] === 1) out.push(id);
      return out.sort((a, b) => a - b);
    },
    lastAnswer() {
      return p.tools.last;
    },
    /** The scope the probe subscriber shows (its kind, what it follows, its members). */
    scope() {
      return p.probe.shown;
    },
    showScope: p.showScope,
    /** Per-frame update cost over the frames that had something to update. */
    frameStats() {
      const s = p.view.stats;
      const ms = [...s.updateMs].sort((a, b) => a - b);
      const upd = [...s.updated].sort((a, b) => a - b);
      return {
        frames: s.frames,
        renders: s.renders,
        updateFrames: ms.length,
        updateMsMedian: quantile(ms, 0.5),
        updateMsP95: quantile(ms, 0.95),
        updateMsMax: ms.at(-1) ?? NaN,
        updatedMedian: quantile(upd, 0.5),
        updatedMax: upd.at(-1) ?? 0,
      };
    },
    resetFrameStats() {
      p.view.stats.updateMs.length = 0;
      p.view.stats.updated.length = 0;
    },
    /**
     * A summary of the canvas after a fresh render: pixels that are not the background,
     * and a hash of all of them (equal pictures, equal hashes).
     */
    pixels() {
      const { width, height, data } = p.view.readPixels();
      let lit = 0;
      let hash = 0x811c9dc5;
      const bg = [data[0], data[1], data[2]];
      for (let i = 0; i < data.length; i += 4) {
        if (Math.abs(data[i]! - bg[0]!) + Math.abs(data[i + 1]! - bg[1]!) + Math.abs(data[i + 2]! - bg[2]!) > 24) lit++;
        hash = Math.imul(hash ^ data[i]! ^ (data[i + 1]! << 8) ^ (data[i + 2]! << 16), 0x01000193) >>> 0;
      }
      return { width, height, lit, hash, background: bg };
    },
    /** Whether the drawn instance of `id` equals its mirror transform (the view caught up). */
    drawnMatchesMirror(id: number) {
      const m = p.model();
      const slot = m?.slotOf.get(id);
      if (!m || slot === undefined) return false;
      const arr = p.view.boxes.mesh.instanceMatrix.array as Float32Array;
      const w = m.conn.mirror.world;
      return Math.abs(arr[slot * 16 + 12]! - w[slot * 8]!) < 1e-6 && Math.abs(arr[slot * 16 + 14]! - w[slot * 8 + 2]!) < 1e-6;
    },
    open: p.open,
    select: p.select,
    fit: () => p.view.fit(),
    deleteRoom: (room: string) => p.rooms.delete(room),
  };
  (window as unknown as { canopyInspector: typeof api }).canopyInspector = api;
}
