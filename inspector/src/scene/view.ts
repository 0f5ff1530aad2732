// The 3D view: renderer, camera and orbit controls, the instanced boxes, and the
// overlays (octree cells, selection, query marks), with one update and at most one
// render per animation frame.
//
// It renders on demand: only when the boxes changed, an overlay changed or the camera
// moved. A tool that stays open all day beside a game should not burn a core redrawing
// a still picture.

import { Box3, Color, DirectionalLight, HemisphereLight, PerspectiveCamera, Raycaster, Scene, Vector2, Vector3, WebGLRenderer } from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';

import type { SceneModel } from '../model.js';
import { Boxes } from './boxes.js';
import { Marks } from './marks.js';
import { OctreeOverlay } from './octree.js';

const BACKGROUND = 0x15181d;

export interface FrameStats {
  /** Per-frame cost of bringing the instances up to date (ms), the last frames. */
  updateMs: number[];
  /** Slots written per frame, same frames. */
  updated: number[];
  renders: number;
  frames: number;
}

export class View {
  readonly renderer: WebGLRenderer;
  readonly camera = new PerspectiveCamera(50, 1, 0.1, 20000);
  readonly scene = new Scene();
  readonly controls: OrbitControls;
  readonly boxes: Boxes;
  readonly octree: OctreeOverlay;
  readonly marks: Marks;
  model: SceneModel | null = null;
  /** While paused the instances keep the picture they had (the mirror keeps applying). */
  paused = false;
  readonly stats: FrameStats = { updateMs: [], updated: [], renders: 0, frames: 0 };
  /** Called each animation frame after the update (selection follow, readouts). */
  onFrame: (() => void) | null = null;
  /** Whether WebGL runs on a CPU rasterizer (no antialiasing then). */
  readonly software: boolean;
  #container: HTMLElement;
  #wantRender = true;

  constructor(container: HTMLElement) {
    this.#container = container;
    // preserveDrawingBuffer: the test hook and screenshots read the canvas after a frame.
    // A software rasterizer (SwiftShader in headless browsers, llvmpipe on GPU-less
    // desktops) pays for multisampling and high-DPI pixels on the CPU: skip both there.
    const soft = softwareRenderer();
    this.software = soft;
    this.renderer = new WebGLRenderer({ antialias: !soft, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(soft ? 1 : Math.min(window.devicePixelRatio, 2));
    this.renderer.setClearColor(BACKGROUND);
    container.prepend(this.renderer.domElement);
    this.scene.background = new Color(BACKGROUND);
    this.scene.add(new HemisphereLight(0xdde6ff, 0x30281e, 1.6));
    const sun = new DirectionalLight(0xffffff, 1.4);
    sun.position.set(0.5, 1, 0.3);
    this.scene.add(sun);
    this.camera.position.set(120, 120, 120);
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.enableDamping = false;
    this.controls.screenSpacePanning = true;
    this.controls.addEventListener('change', () => this.requestRender());
    this.boxes = new Boxes(this.scene);
    this.octree = new OctreeOverlay(this.scene);
    this.marks = new Marks(this.scene);
    new ResizeObserver(() => this.#resize()).observe(container);
    this.#resize();
    const loop = () => {
      this.#frame();
      requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
  }

  requestRender(): void {
    this.#wantRender = true;
  }

  /** Shows `model` (or nothing), with fresh buffers. */
  setModel(model: SceneModel | null): void {
    this.model = model;
    this.boxes.mesh.count = 0;
    this.octree.clear();
    this.marks.clearAll();
    model?.touchAll();
    this.requestRender();
  }

  /** Frames the camera on every node (or on `ids` when given). */
  fit(ids?: Iterable<number>): void {
    const m = this.model;
    if (!m) return;
    const box = new Box3();
    const mirror = m.conn.mirror;
    const p = new Vector3();
    const take = (slot: number) => {
      const o = slot * 8;
      const e = slot * 3;
      const r = mirror.world[o + 7]! * Math.hypot(mirror.extent[e]!, mirror.extent[e + 1]!, mirror.extent[e + 2]!);
      p.set(mirror.world[o]!, mirror.world[o + 1]!, mirror.world[o + 2]!);
      box.expandByPoint(p.clone().addScalar(r));
      box.expandByPoint(p.subScalar(r));
    };
    if (ids) {
      for (const id of ids) {
        const slot = m.slotOf.get(id);
        if (slot !== undefined) take(slot);
      }
    } else for (const slot of m.slotOf.values()) take(slot);
    if (box.isEmpty()) return;
    const centre = box.getCenter(new Vector3());
    // The box's bounding sphere in view, a little tighter than the sphere's own fit
    // (boxes rarely fill their sphere), on the narrower of the two field-of-view axes.
    const radius = Math.max(box.getSize(new Vector3()).length() / 2, 1);
    const half = Math.min(this.camera.fov, this.camera.fov * this.camera.aspect) * (Math.PI / 360);
    const dist = (radius * 0.8) / Math.sin(half);
    const dir = this.camera.position.clone().sub(this.controls.target).normalize();
    if (dir.lengthSq() === 0 || !Number.isFinite(dir.x)) dir.set(1, 1, 1).normalize();
    this.controls.target.copy(centre);
    this.camera.position.copy(centre).addScaledVector(dir, dist);
    this.camera.near = Math.max(dist / 1000, 0.01);
    this.camera.far = dist * 20;
    this.camera.updateProjectionMatrix();
    this.controls.update();
    this.requestRender();
  }

  /** The camera ray through a point of the canvas (client pixels). */
  rayAt(clientX: number, clientY: number): { origin: Vector3; dir: Vector3 } {
    const rect = this.renderer.domElement.getBoundingClientRect();
    const ndc = new Vector2(((clientX - rect.left) / rect.width) * 2 - 1, -((clientY - rect.top) / rect.height) * 2 + 1);
    const ray = new Raycaster();
    ray.setFromCamera(ndc, this.camera);
    return { origin: ray.ray.origin.clone(), dir: ray.ray.direction.clone() };
  }

  /** Where a world point lands on the canvas, in client pixels (null when behind the camera). */
  project(p: Vector3): { x: number; y: number } | null {
    const rect = this.renderer.domElement.getBoundingClientRect();
    const v = p.clone().project(this.camera);
    if (v.z > 1 || v.z < -1) return null;
    return { x: rect.left + ((v.x + 1) / 2) * rect.width, y: rect.top + ((1 - v.y) / 2) * rect.height };
  }

  /** Renders now and answers the canvas's pixels (RGBA rows, bottom row first). */
  readPixels(): { width: number; height: number; data: Uint8Array } {
    this.#render();
    const gl = this.renderer.getContext();
    const width = gl.drawingBufferWidth;
    const height = gl.drawingBufferHeight;
    const data = new Uint8Array(width * height * 4);
    gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, data);
    return { width, height, data };
  }

  #frame(): void {
    this.stats.frames++;
    const m = this.model;
    if (m && !this.paused) {
      if (this.boxes.update(m)) this.#wantRender = true;
      this.#record(this.boxes.lastUpdateMs, this.boxes.lastUpdated);
      this.boxes.mesh.count = m.conn.mirror.ids.length;
    } else if (m && this.boxes.update(m, false)) this.#wantRender = true;
    this.onFrame?.();
    if (!this.paused && this.marks.follow(m)) this.#wantRender = true;
    if (this.#wantRender) this.#render();
  }

  #record(ms: number, updated: number): void {
    const s = this.stats;
    if (updated === 0 && ms < 0.05) return;
    s.updateMs.push(ms);
    s.updated.push(updated);
    if (s.updateMs.length > 4000) {
      s.updateMs.splice(0, 2000);
      s.updated.splice(0, 2000);
    }
  }

  #render(): void {
    this.#wantRender = false;
    this.stats.renders++;
    this.renderer.render(this.scene, this.camera);
  }

  #resize(): void {
    const w = Math.max(this.#container.clientWidth, 1);
    const h = Math.max(this.#container.clientHeight, 1);
    this.renderer.setSize(w, h);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.requestRender();
  }
}

/** Whether the browser's WebGL is a CPU rasterizer, from the unmasked renderer string. */
function softwareRenderer(): boolean {
  const gl = document.createElement('canvas').getContext('webgl2');
  if (!gl) return false;
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  const name = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
  gl.getExtension('WEBGL_lose_context')?.loseContext();
  return /swiftshader|llvmpipe|softpipe|software/i.test(name);
}
