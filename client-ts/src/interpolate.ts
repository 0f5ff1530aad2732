// @canopy/client/interpolate: a smooth view of a Mirror for rendering. Frames arrive
// at the send rate with network jitter; drawing the mirror as it is makes motion step
// and stutter. An Interpolator keeps the last few states of each node with the server
// time of the frame that brought them, and `sample(now)` gives every node's world
// transform at `renderTime = now - offset - delay` (server time): translation and scale
// interpolated linearly, rotation by slerp along the shorter arc, normalized.
//
// * Clock: `offset` maps local time to server time. Each frame gives a sample
//   `localReceive - frame.time` (clock difference plus that frame's delay); the
//   estimate is the smallest over a sliding window, i.e. the fastest frame's, so a late
//   frame never moves the view and a frame on time is never treated as early.
// * Delay: with the default of two expected frame intervals, a frame may arrive up to
//   one interval later than the fastest and still be there when it is needed.
// * Past the newest state (frames late), a node that was moving keeps moving along its
//   last segment for at most `maxExtrapolationMs` (one interval), then comes back to
//   its newest state over as long and holds it: a scope that went still sends nothing
//   more, which looks the same as late frames, and a node must not stay past where it
//   stopped. A node absent from later frames did not change in them: it holds.
// * A node that entered the scope, was upserted (sent whole) or came in a snapshot
//   starts from its exact state: it never slides from the origin or from the node that
//   held its slot before. A node that left is dropped at once.
// * Deltas carry only changes: a node that starts moving after a pause was still at
//   its old place one interval before its new state (else the server would have sent
//   it), so that state is added to its history and the move takes one interval, not
//   the whole pause. With distance tiers a far node's frames come every `every` sends,
//   so there the assumption is `every` intervals.
//
// Cost: per frame, O(changed nodes) (a few stores per node) and O(1) for the clock;
// per `sample`, O(slots) with no allocation. Storage: `history` states per slot.
//
// Tested bound (test/shared/interpolation-scenarios.mjs, in Node and in Chromium):
// with frames at a steady rate, jitter within one interval and the default delay, the
// error against the true motion is that of interpolating between exact states: zero for
// rotation about a fixed axis at constant speed and for a linear scale ramp (bar f32
// rounding), and for an orbit of radius R at angular speed w sent every dt, at most the
// chord's sagitta R(1 - cos(w dt / 2)).

import type { Mirror, MirrorWatcher } from './mirror.js';

export interface InterpolatorOptions {
  /** How far behind the newest server time to render (default: two frame intervals). */
  delayMs?: number;
  /**
   * The expected time between frames (default: the mirror's `frameIntervalMs`, which a
   * Connection sets from `sendHz` or the room's tick rate; else the shortest gap
   * between recent frames; else 1000/30).
   */
  intervalMs?: number;
  /** The longest a node moves on past its newest state (default: one interval). */
  maxExtrapolationMs?: number;
  /**
   * The clock offset is the smallest sample of the frames of this long (default 5000 ms;
   * at most 256 frames, at least the last 16).
   */
  offsetWindowMs?: number;
  /** States kept per node, 3 to 32 (default 6); a delay past about history - 2 intervals holds the oldest. */
  history?: number;
  /** The local clock frames are timed with, and `sample`'s default (default `performance.now()`). */
  now?: () => number;
}

const OFFSETS = 256;
/** Clock samples that always count, however old. */
const RECENT = 16;
const GAPS = 32;

export class Interpolator {
  readonly mirror: Mirror;
  /** World transforms at the last `sample()`: tx ty tz rx ry rz rw s at `slot * 8`, the mirror's slots. */
  world = new Float32Array(0);
  /** The server time (ms since the epoch) the last `sample()` showed. */
  renderTime = 0;

  readonly #opts: InterpolatorOptions;
  readonly #now: () => number;
  readonly #k: number;
  readonly #unwatch: () => void;
  /** Per slot: number of states held (0: no node), index of the newest. */
  #n = new Uint8Array(0);
  #head = new Uint8Array(0);
  /** States: server time at `slot * k + i`, the 8 values at `(slot * k + i) * 8`. */
  #t = new Float64Array(0);
  #v = new Float32Array(0);
  #cap = 0;
  /** A snapshot replaced the mirror: every slot is read again from it. */
  #stale = true;
  #lastFrame = 0;
  #prevFrame = 0;
  /** Clock samples (local receive time, offset) in a ring. */
  #recv = new Float64Array(OFFSETS);
  #off = new Float64Array(OFFSETS);
  #offN = 0;
  #offset = 0;
  /** Recent gaps between frame times, for the interval when nothing else says it. */
  #gaps = new Float64Array(GAPS);
  #gapN = 0;
  #gap = 0;

  constructor(mirror: Mirror, options: InterpolatorOptions = {}) {
    this.mirror = mirror;
    this.#opts = options;
    this.#now = options.now ?? (() => performance.now());
    this.#k = Math.min(32, Math.max(3, Math.floor(options.history ?? 6)));
    const watcher: MirrorWatcher = {
      frame: (time, snapshot) => this.#frame(time, snapshot),
      entered: (_id, slot) => this.#seed(slot, this.#lastFrame),
      changed: (_id, slot) => this.#seed(slot, this.#lastFrame),
      updated: (_id, slot) => this.#update(slot),
      left: (_id, slot) => {
        if (slot < this.#cap) this.#n[slot] = 0;
      },
    };
    this.#unwatch = mirror.watch(watcher);
    // A mirror that already holds a frame: its time, as if it arrived now, is a first
    // estimate (too late, if anything) until frames arrive.
    if (mirror.time) this.#addOffset(this.#now(), mirror.time);
  }

  /** Stops following the mirror. */
  dispose(): void {
    this.#unwatch();
  }

  /** Local time minus server time, as estimated (ms). */
  get offsetMs(): number {
    return this.#offset;
  }

  /** The expected time between frames in use (ms). */
  get intervalMs(): number {
    return this.#opts.intervalMs || this.mirror.frameIntervalMs || this.#gap || 1000 / 30;
  }

  /** The render delay in use (ms). */
  get delayMs(): number {
    return this.#opts.delayMs ?? 2 * this.intervalMs;
  }

  /**
   * Every node's world transform at local time `nowMs` (same clock as `now`), into
   * `world` (returned): read a node at `mirror.slotOf(id) * 8`, or in `mirror.forEach`.
   */
  sample(nowMs: number = this.#now()): Float32Array {
    if (this.#stale) this.#reseed();
    const need = this.mirror.world.length;
    if (this.world.length < need) this.world = new Float32Array(need);
    const r = nowMs - this.#offset - this.delayMs;
    this.renderTime = r;
    const n = this.#n;
    for (let slot = 0; slot < this.#cap; slot++) if (n[slot]) this.#at(slot, r);
    return this.world;
  }

  // ---- frames ------------------------------------------------------------------------

  #frame(time: number, snapshot: boolean): void {
    // The mirror still holds the frame before this one: a pending reseed reads it now.
    if (this.#stale) this.#reseed();
    if (this.#lastFrame && time > this.#lastFrame) this.#addGap(time - this.#lastFrame);
    this.#prevFrame = this.#lastFrame;
    this.#lastFrame = time;
    this.#addOffset(this.#now(), time);
    // A snapshot may change any node without saying so (compact rows): read them all.
    if (snapshot) this.#stale = true;
  }

  #addOffset(local: number, server: number): void {
    const count = Math.min(++this.#offN, OFFSETS);
    const newest = (this.#offN - 1) % OFFSETS;
    this.#recv[newest] = local;
    this.#off[newest] = local - server;
    // The window lets the estimate follow a path that got slower; the last few frames
    // always count, however old, so a scope that was still for a while does not leave
    // one (jittered) frame to set the clock.
    const from = local - (this.#opts.offsetWindowMs ?? 5000);
    let min = Infinity;
    for (let j = 0; j < count; j++) {
      const i = (newest - j + OFFSETS) % OFFSETS;
      if ((j < RECENT || this.#recv[i]! >= from) && this.#off[i]! < min) min = this.#off[i]!;
    }
    this.#offset = min;
  }

  #addGap(gap: number): void {
    this.#gaps[this.#gapN++ % GAPS] = gap;
    let min = Infinity;
    for (let j = Math.min(this.#gapN, GAPS) - 1; j >= 0; j--) min = Math.min(min, this.#gaps[j]!);
    this.#gap = min;
  }

  /** Forgets every history and starts each node held from its state in the mirror. */
  #reseed(): void {
    this.#stale = false;
    this.#n.fill(0);
    const time = this.mirror.time;
    this.mirror.forEach((_id, slot) => this.#seed(slot, time));
  }

  #grow(slots: number): void {
    const k = this.#k;
    const cap = Math.max(slots, this.#cap * 2, 64);
    const n = new Uint8Array(cap);
    const head = new Uint8Array(cap);
    const t = new Float64Array(cap * k);
    const v = new Float32Array(cap * k * 8);
    n.set(this.#n);
    head.set(this.#head);
    t.set(this.#t);
    v.set(this.#v);
    [this.#n, this.#head, this.#t, this.#v, this.#cap] = [n, head, t, v, cap];
  }

  /** The node in `slot` starts over from its state in the mirror: it snaps there. */
  #seed(slot: number, time: number): void {
    if (this.#stale) return;
    if (slot >= this.#cap) this.#grow(slot + 1);
    this.#n[slot] = 0;
    this.#push(slot, time);
  }

  /** Appends the mirror's state of `slot` at `time` (replacing a newest state as new). */
  #push(slot: number, time: number, from?: number): void {
    const k = this.#k;
    const n = this.#n[slot]!;
    let h = this.#head[slot]!;
    if (!n || time > this.#t[slot * k + h]!) {
      h = n ? (h + 1) % k : 0;
      this.#head[slot] = h;
      this.#n[slot] = Math.min(n + 1, k);
    }
    const i = slot * k + h;
    this.#t[i] = time;
    // `from`: a state already held (a copy); otherwise the mirror's current one.
    const src = from === undefined ? this.mirror.world : this.#v;
    const at = from === undefined ? slot * 8 : from * 8;
    for (let c = 0; c < 8; c++) this.#v[i * 8 + c] = src[at + c]!;
  }

  #update(slot: number): void {
    if (this.#stale) return;
    if (slot >= this.#cap || !this.#n[slot]) return this.#seed(slot, this.#lastFrame);
    const k = this.#k;
    const t = this.#lastFrame;
    const newest = slot * k + this.#head[slot]!;
    const last = this.#t[newest]!;
    // Where was the node one frame before this? Without tiers a frame follows every
    // send that changed something in scope, so a node left out of the frames since
    // `last` was still at its newest state at the previous frame and one interval ago.
    const step = this.intervalMs;
    const every = this.mirror.tierEvery;
    const held = every > 1 ? t - every * step : Math.max(this.#prevFrame, t - step);
    if (held > last + step / 4 && held < t) this.#push(slot, held, newest);
    this.#push(slot, t);
  }

  // ---- sampling ----------------------------------------------------------------------

  #at(slot: number, r: number): void {
    const k = this.#k;
    const base = slot * k;
    const n = this.#n[slot]!;
    const h = this.#head[slot]!;
    const times = this.#t;
    const newest = times[base + h]!;
    if (r >= newest) {
      // Past the newest state: frames are late, or the node (or the whole scope) is
      // still, which sends nothing at all. A node in the newest frame was moving: it
      // carries on along its last segment for up to maxExtrapolationMs, then comes
      // back to its newest state over as long and holds it, since a scope that went
      // still must not leave nodes past where they stopped.
      const step = this.intervalMs;
      const moving = newest + (this.mirror.tierEvery - 1) * step + step / 4 >= this.#lastFrame;
      const prev = (h + k - 1) % k;
      const cap = this.#opts.maxExtrapolationMs ?? step;
      const past = r - newest;
      const ahead = past <= cap ? past : 2 * cap - past;
      if (n < 2 || !moving || ahead <= 0) return this.#copy(slot, base + h);
      return this.#blend(slot, base + prev, base + h, 1 + ahead / (newest - times[base + prev]!));
    }
    let b = h;
    for (let j = 1; j < n; j++) {
      const a = (h + k - j) % k;
      const ta = times[base + a]!;
      if (ta <= r) return this.#blend(slot, base + a, base + b, (r - ta) / (times[base + b]! - ta));
      b = a;
    }
    this.#copy(slot, base + b);
  }

  #copy(slot: number, i: number): void {
    // By hand: a subarray() per node would allocate on every sample.
    for (let c = 0; c < 8; c++) this.world[slot * 8 + c] = this.#v[i * 8 + c]!;
  }

  /** Writes state `a` carried towards state `b` by `u` (0: a, 1: b, above 1: beyond b). */
  #blend(slot: number, a: number, b: number, u: number): void {
    const v = this.#v;
    const out = this.world;
    const o = slot * 8;
    const pa = a * 8;
    const pb = b * 8;
    for (let c = 0; c < 3; c++) out[o + c] = v[pa + c]! + (v[pb + c]! - v[pa + c]!) * u;
    // Slerp on the shorter arc (q and -q are the same rotation).
    let dot = v[pa + 3]! * v[pb + 3]! + v[pa + 4]! * v[pb + 4]! + v[pa + 5]! * v[pb + 5]! + v[pa + 6]! * v[pb + 6]!;
    const sign = dot < 0 ? -1 : 1;
    dot *= sign;
    let wa = 1 - u;
    let wb = u;
    if (dot < 0.9995) {
      // Far enough apart for sin(angle) to divide by; closer ones lerp, then normalize.
      const angle = Math.acos(dot);
      const sin = Math.sin(angle);
      wa = Math.sin((1 - u) * angle) / sin;
      wb = Math.sin(u * angle) / sin;
    }
    wb *= sign;
    const x = wa * v[pa + 3]! + wb * v[pb + 3]!;
    const y = wa * v[pa + 4]! + wb * v[pb + 4]!;
    const z = wa * v[pa + 5]! + wb * v[pb + 5]!;
    const w = wa * v[pa + 6]! + wb * v[pb + 6]!;
    const len = Math.sqrt(x * x + y * y + z * z + w * w);
    out[o + 3] = x / len;
    out[o + 4] = y / len;
    out[o + 5] = z / len;
    out[o + 6] = w / len;
    // A scale carried past b could reach 0 or below: hold b's then.
    const s = v[pa + 7]! + (v[pb + 7]! - v[pa + 7]!) * u;
    out[o + 7] = s > 0 ? s : v[pb + 7]!;
  }
}
