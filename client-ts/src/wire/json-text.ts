// Writing JSON text with the contract's number forms: an f32 is written as the shortest
// decimal that reads back as the same f32 (as the server writes it), integers as
// integers, bigints in full, and negative zero keeps its sign. JSON.stringify cannot do
// this: it knows no f32, prints every number as the shortest f64, and drops the sign of
// -0. Message builders wrap f32 values in F32 to say which numbers are geometry.

/** An f32 value inside a value handed to `stringify`. */
export class F32 {
  constructor(readonly v: number) {}
}

export const f32 = (v: number): F32 => new F32(v);
export const f32s = (v: readonly number[]): F32[] => v.map(f32);

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

export function stringify(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'number':
      return Object.is(value, -0) ? '-0' : Number.isFinite(value) ? String(value) : 'null';
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      return JSON.stringify(value);
  }
  if (value instanceof F32) return formatF32(value.v);
  if (Array.isArray(value)) return `[${value.map(stringify).join(',')}]`;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (v !== undefined) parts.push(`${JSON.stringify(k)}:${stringify(v)}`);
  }
  return `{${parts.join(',')}}`;
}
