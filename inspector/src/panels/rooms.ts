// The rooms panel: every room with live statistics (tick, nodes, subscribers, the last
// tick's duration, slow ticks), read every two seconds, and create and delete for an
// admin token (or an open server).
//
// The room list is admin-only in the contract, so a room's editor or viewer token sees
// instead a field to open its room by id; create and delete are not offered to it, and
// if one is attempted anyway (the `deleteRoom` hook) the server's refusal is shown as it
// came, nothing is assumed.

import type { RoomDetail, RoomSummary } from '@canopy/client';
import { type Access, describe } from '../access.js';

const POLL_MS = 2000;
/** Rooms whose details (tick time, slow ticks) are read each poll; the rest show the summary. */
const DETAILED = 24;

export class RoomsPanel {
  #access: Access;
  #body: HTMLElement;
  #status: HTMLElement;
  #current: string | null = null;
  #armed: string | null = null;
  /** Called with a room id when a room is chosen (row click, open form, creation). */
  onOpen: (room: string) => void = () => {};
  /** Called after a room was deleted. */
  onDeleted: (room: string) => void = () => {};
  /** Messages for the page's status line. */
  onMessage: (text: string, error?: boolean) => void = () => {};

  constructor(access: Access) {
    this.#access = access;
    this.#body = document.querySelector('#rooms tbody')!;
    this.#status = document.getElementById('rooms-status')!;
    this.#body.addEventListener('click', (ev) => {
      const t = ev.target as HTMLElement;
      const tr = t.closest<HTMLElement>('tr[data-room]');
      if (!tr) return;
      const room = tr.dataset.room!;
      if (t.classList.contains('delete')) void this.#deleteClicked(room, t as HTMLButtonElement);
      else this.onOpen(room);
    });
    document.getElementById('open-room')!.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const id = (document.getElementById('open-room-id') as HTMLInputElement).value.trim();
      if (id) this.onOpen(id);
    });
    document.getElementById('create-room')!.addEventListener('submit', (ev) => {
      ev.preventDefault();
      void this.#create();
    });
    setInterval(() => void this.refresh(), POLL_MS);
  }

  set current(room: string | null) {
    this.#current = room;
    for (const tr of this.#body.querySelectorAll<HTMLElement>('tr[data-room]')) tr.classList.toggle('current', tr.dataset.room === room);
  }

  /** Shows what the role allows, then reads the list. */
  async applyRole(): Promise<void> {
    const admin = this.#access.isAdmin;
    document.getElementById('create-room')!.hidden = !admin;
    document.getElementById('open-room')!.hidden = admin;
    document.getElementById('rooms')!.hidden = !admin;
    this.#body.replaceChildren();
    await this.refresh();
  }

  async refresh(): Promise<void> {
    const a = this.#access;
    if (!a.isAdmin) {
      this.#status.textContent =
        a.role === 'none' ? 'This server needs a token.' : 'The room list needs an admin token; open a room by id.';
      return;
    }
    let rooms: RoomSummary[];
    try {
      rooms = await a.client.listRooms();
    } catch (e) {
      this.#status.textContent = describe(e);
      return;
    }
    const details = await Promise.all(
      rooms.slice(0, DETAILED).map((r) => a.client.getRoom(r.id).catch(() => null as RoomDetail | null)),
    );
    this.#status.textContent = rooms.length === 0 ? 'No rooms yet.' : '';
    this.#render(rooms, details);
  }

  /** Deletes a room through the API (the button's path, and the test hook's). */
  async delete(room: string): Promise<boolean> {
    try {
      await this.#access.client.deleteRoom(room);
    } catch (e) {
      this.onMessage(`delete ${room} refused: ${describe(e)}`, true);
      return false;
    }
    this.onMessage(`room ${room} deleted`);
    this.onDeleted(room);
    await this.refresh();
    return true;
  }

  #render(rooms: RoomSummary[], details: (RoomDetail | null)[]): void {
    const rows = rooms.map((r, i) => {
      const d = details[i] ?? null;
      const tr = document.createElement('tr');
      tr.dataset.room = r.id;
      if (r.id === this.#current) tr.className = 'current';
      const cells = [
        r.id,
        String(r.tick),
        String(r.nodes),
        String(r.subscribers),
        d ? d.tick_ms.toFixed(2) : '',
        d && typeof d.slow_ticks === 'number' ? String(d.slow_ticks) : '',
      ];
      for (const text of cells) {
        const td = document.createElement('td');
        td.textContent = text;
        tr.append(td);
      }
      const td = document.createElement('td');
      const del = document.createElement('button');
      del.type = 'button';
      del.className = 'delete';
      del.textContent = this.#armed === r.id ? 'confirm' : 'delete';
      del.title = 'delete this room (click twice)';
      td.append(del);
      tr.append(td);
      return tr;
    });
    this.#body.replaceChildren(...rows);
  }

  /** A first click arms the button, a second one within a few seconds deletes. */
  async #deleteClicked(room: string, button: HTMLButtonElement): Promise<void> {
    if (this.#armed !== room) {
      this.#armed = room;
      button.textContent = 'confirm';
      setTimeout(() => {
        if (this.#armed === room) this.#armed = null;
      }, 5000);
      return;
    }
    this.#armed = null;
    await this.delete(room);
  }

  async #create(): Promise<void> {
    const id = (document.getElementById('create-id') as HTMLInputElement).value.trim();
    const hz = (document.getElementById('create-hz') as HTMLInputElement).value.trim();
    const body: { id?: string; tick_hz?: number } = {};
    if (id) body.id = id;
    if (hz) body.tick_hz = Number(hz);
    const out = document.getElementById('created')!;
    try {
      const made = await this.#access.client.createRoom(body);
      // The room's own tokens are shown once, here, for the user to copy; never stored.
      out.textContent = made.viewer_token
        ? `created ${made.id}; editor token ${made.editor_token}, viewer token ${made.viewer_token}`
        : `created ${made.id} at ${made.tick_hz} Hz`;
      await this.refresh();
      this.onOpen(made.id);
    } catch (e) {
      out.textContent = '';
      this.onMessage(`create refused: ${describe(e)}`, true);
    }
  }
}
