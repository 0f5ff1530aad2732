// Charts of the last five minutes, sampled once a second:
//
// * tick duration: the selected room's last tick (`tick_ms` of `GET /rooms/{room}`), and
//   the server-wide mean tick over the second (from `/metrics`'
//   `canopy_tick_duration_seconds` sum and count), with the room's period as a guide;
// * delta bytes per second: the growth of `/metrics`' `canopy_delta_bytes_sent_total`,
//   every subscriber of the server (the metric has no room label).
//
// `/metrics` is admin-only: with a room token only the room's own statistics are drawn.
// Plain canvas 2D: two line charts do not need a charting library.

import type { RoomDetail } from '@canopy/client';
import type { Access } from '../access.js';

const SAMPLES = 300;
const PERIOD_MS = 1000;

interface Sample {
  at: number;
  tickMs: number;
  meanTickMs: number;
  bytesPerS: number;
}

/** The values of the named counters and sums in a Prometheus text exposition. */
export function readMetrics(text: string, names: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    const name = line.slice(0, space);
    if (names.includes(name)) out.set(name, Number(line.slice(space + 1)));
  }
  return out;
}

const BYTES = 'canopy_delta_bytes_sent_total';
const TICK_SUM = 'canopy_tick_duration_seconds_sum';
const TICK_COUNT = 'canopy_tick_duration_seconds_count';

export class Charts {
  #access: Access;
  #room: string | null = null;
  #hz = 30;
  #samples: Sample[] = [];
  #prev: { at: number; bytes: number; sum: number; count: number } | null = null;
  #note: HTMLElement;
  /** The latest room statistics, for the toolbar readout. */
  onRoom: (d: RoomDetail) => void = () => {};

  constructor(access: Access) {
    this.#access = access;
    this.#note = document.getElementById('charts-note')!;
    setInterval(() => void this.#sample(), PERIOD_MS);
  }

  set room(room: string | null) {
    this.#room = room;
    this.#samples = [];
    this.#draw();
  }

  async #sample(): Promise<void> {
    const room = this.#room;
    if (!room) return;
    const a = this.#access;
    const at = Date.now();
    const [detail, metrics] = await Promise.all([
      a.client.getRoom(room).catch(() => null),
      a.isAdmin ? a.client.metrics().catch(() => null) : Promise.resolve(null),
    ]);
    if (room !== this.#room || !detail) return;
    this.#hz = detail.tick_hz;
    this.onRoom(detail);
    let bytesPerS = NaN;
    let meanTickMs = NaN;
    if (metrics) {
      const m = readMetrics(metrics, [BYTES, TICK_SUM, TICK_COUNT]);
      const now = { at, bytes: m.get(BYTES) ?? 0, sum: m.get(TICK_SUM) ?? 0, count: m.get(TICK_COUNT) ?? 0 };
      const p = this.#prev;
      if (p && now.at > p.at) {
        bytesPerS = ((now.bytes - p.bytes) * 1000) / (now.at - p.at);
        if (now.count > p.count) meanTickMs = ((now.sum - p.sum) * 1000) / (now.count - p.count);
      }
      this.#prev = now;
    }
    this.#note.textContent = metrics
      ? 'Delta bytes: every subscriber of the server (/metrics).'
      : 'Delta bytes need /metrics, which needs an admin token.';
    this.#samples.push({ at, tickMs: detail.tick_ms, meanTickMs, bytesPerS });
    if (this.#samples.length > SAMPLES) this.#samples.shift();
    this.#draw();
  }

  #draw(): void {
    const s = this.#samples;
    chart(document.getElementById('chart-tick') as HTMLCanvasElement, 'tick ms', [
      { values: s.map((x) => x.tickMs), colour: '#7fd4ff', label: 'room' },
      { values: s.map((x) => x.meanTickMs), colour: '#c792ea', label: 'server mean' },
    ], 1000 / this.#hz);
    chart(document.getElementById('chart-bytes') as HTMLCanvasElement, 'delta bytes/s', [
      { values: s.map((x) => x.bytesPerS), colour: '#ffcb6b', label: 'sent' },
    ]);
  }
}

interface Line {
  values: number[];
  colour: string;
  label: string;
}

/** A line chart of the last SAMPLES values, newest at the right; `guide` draws a dashed level. */
function chart(canvas: HTMLCanvasElement, title: string, lines: Line[], guide?: number): void {
  const g = canvas.getContext('2d');
  if (!g) return;
  const { width: w, height: h } = canvas;
  g.clearRect(0, 0, w, h);
  g.fillStyle = '#1b1f26';
  g.fillRect(0, 0, w, h);
  const finite = lines.flatMap((l) => l.values.filter(Number.isFinite));
  const top = Math.max(...finite, guide !== undefined ? Math.min(guide, Math.max(...finite, 0) * 1.2) : 0, 1e-9) * 1.15;
  const y = (v: number) => h - 14 - (v / top) * (h - 30);
  const x = (i: number) => w - (SAMPLES - 1 - i) * (w / SAMPLES);
  if (guide !== undefined && guide <= top) {
    g.strokeStyle = '#444c58';
    g.setLineDash([4, 4]);
    g.beginPath();
    g.moveTo(0, y(guide));
    g.lineTo(w, y(guide));
    g.stroke();
    g.setLineDash([]);
  }
  let legend = 6;
  g.font = '11px system-ui, sans-serif';
  for (const line of lines) {
    const offset = SAMPLES - line.values.length;
    g.strokeStyle = line.colour;
    g.beginPath();
    let pen = false;
    line.values.forEach((v, i) => {
      if (!Number.isFinite(v)) {
        pen = false;
        return;
      }
      if (pen) g.lineTo(x(i + offset), y(v));
      else g.moveTo(x(i + offset), y(v));
      pen = true;
    });
    g.stroke();
    const last = line.values.filter(Number.isFinite).at(-1);
    g.fillStyle = line.colour;
    const text = `${line.label} ${last === undefined ? '–' : fmt(last)}`;
    g.fillText(text, legend, h - 2);
    legend += g.measureText(text).width + 12;
  }
  g.fillStyle = '#9aa4b2';
  g.fillText(`${title} (max ${fmt(top / 1.15)})`, 6, 12);
}

function fmt(v: number): string {
  if (v >= 1e6) return `${(v / 1e6).toFixed(2)}M`;
  if (v >= 1e3) return `${(v / 1e3).toFixed(1)}k`;
  return v >= 10 ? v.toFixed(0) : v.toFixed(2);
}
