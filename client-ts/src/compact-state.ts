// The compact encoding's per-slot integer baseline, which every Mirror carries (its
// slots are forgotten as exact values arrive) whether or not the compact decoder itself
// was ever loaded; mirror-compact.ts fills it.

/** Ints per row in CompactBlock.ints: tx, ty, tz, rotation index, r0, r1, r2, scale bits. */
export const INTS = 8;

/** The per-slot integer baseline: INTS ints per slot and whether the slot has one. */
export class CompactState {
  ints = new Int32Array(0);
  valid = new Uint8Array(0);
  /**
   * The last block or row that could not be applied, and why: the layout's name for it
   * (a decode kind such as `bad_flags`, or `no_baseline`, `delta_out_of_range`), with
   * the row's node when a row was at fault.
   */
  lastError: { kind: string; id?: number } | null = null;

  grow(capacity: number): void {
    const ints = new Int32Array(capacity * INTS);
    ints.set(this.ints);
    const valid = new Uint8Array(capacity);
    valid.set(this.valid);
    this.ints = ints;
    this.valid = valid;
  }

  /** The slot's world transform is exact (or gone): it has no baseline any more. */
  forget(slot: number): void {
    if (slot < this.valid.length) this.valid[slot] = 0;
  }
}
