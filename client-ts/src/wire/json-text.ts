// Writing JSON text with the contract's number forms: an f32 as the shortest decimal
// that reads back as the same f32 (as the server writes it), an integer as an integer,
// a bigint in full, negative zero with its sign. JSON.stringify cannot: it knows no
// f32, writes every number as the shortest f64, and drops the sign of -0.
//
// Which numbers are f32 follows from the field they sit in: the contract's geometry
// fields are all f32 and nothing else is, and an `update` row is an id then 8 f32s.

const F32_KEYS = new Set(['t', 'r', 's', 'extent', 'min', 'max', 'center', 'radius', 'origin', 'dir', 'max_t', 'point', 'max_dist', 'dist', 'margin', 'within', 'frustum']);

/** The shortest decimal that reads back (through f32 rounding) as `Math.fround(v)`. */
export function formatF32(v: number): string {
  const x = Math.fround(v);
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  if (!Number.isFinite(x)) return 'null';
  for (let p = 1; p < 9; p++) {
    const s = x.toPrecision(p);
    if (Math.fround(Number(s)) === x) return String(Number(s));
  }
  return String(x);
}

/** JSON text of `value`; `f32` says whether the numbers here are geometry. */
export function stringify(value: unknown, f32 = false): string {
  switch (typeof value) {
    case 'number':
      return f32 ? formatF32(value) : Object.is(value, -0) ? '-0' : Number.isFinite(value) ? String(value) : 'null';
    case 'bigint':
      return value.toString();
    case 'boolean':
    case 'string':
      return JSON.stringify(value);
  }
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value) || ArrayBuffer.isView(value)) {
    return `[${Array.from(value as ArrayLike<unknown>, (v) => stringify(v, f32)).join(',')}]`;
  }
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === undefined) continue;
    const inner = k === 'update' ? `[${(v as number[][]).map((row) => `[${row.map((x, i) => stringify(x, i > 0)).join(',')}]`).join(',')}]` : stringify(v, F32_KEYS.has(k));
    parts.push(`${JSON.stringify(k)}:${inner}`);
  }
  return `{${parts.join(',')}}`;
}
