// The wire types of the Canopy contract, as the TypeScript SDK holds them. They mirror
// the Rust protocol crate (`protocol/src/{message,model,ops,query,error,http}.rs`) field
// for field; docs/protocol.md describes each one.
//
// Numbers: geometry is f32 (held in JS numbers or Float32Arrays), ids and masks are u32
// (0 to 4294967295, plain numbers), ticks, times, seqs, query ids and nonces are u64 and
// are held as numbers. A u64 above Number.MAX_SAFE_INTEGER (2^53 - 1) cannot be a number
// exactly, so decoding one fails with a DecodeError rather than rounding it; the encoder
// also takes a bigint for any u64 field. Ticks (one per tick at up to 240 Hz) and
// millisecond times reach 2^53 only after hundreds of thousands of years, and seqs,
// query ids and nonces are chosen by this client, so this never happens in practice.

/** A u64 on its way out: a safe-integer number, or a bigint for the full range. */
export type U64 = number | bigint;

export type Vec3 = [number, number, number];
export type Quat = [number, number, number, number];

/** Translation, unit quaternion (x, y, z, w) and uniform scale. */
export interface Transform {
  t: Vec3;
  r: Quat;
  s: number;
}

/** A node as snapshots, `upsert` lists and `GET /rooms/{room}/nodes` carry it. */
export interface Node {
  id: number;
  parent: number | null;
  world: Transform;
  extent: Vec3;
  mask: number;
}

/**
 * A delta's `update` list, struct-of-arrays so that decoding a frame allocates two
 * typed arrays rather than an object per row: row `i` is node `ids[i]` with world
 * transform `world[8i .. 8i+8]` = tx, ty, tz, rx, ry, rz, rw, s.
 */
export interface UpdateRows {
  ids: Uint32Array;
  world: Float32Array;
}

export interface Region {
  min: Vec3;
  max: Vec3;
}

export type Encoding = 'exact' | 'compact';

/**
 * (v1.2) A scope that follows a node: the sphere of `radius` around its world position,
 * re-evaluated every tick. A node enters within `radius` and leaves beyond
 * `radius + margin` (`margin` absent: a tenth of `radius`).
 */
export interface Follow {
  node: number;
  radius: number;
  margin?: number;
}

/**
 * (v1.2) A camera's view volume: six planes `[nx, ny, nz, d]` with inward unit normals;
 * a point `p` is inside when `n·p + d >= 0` for all six.
 */
export type Frustum = [Plane, Plane, Plane, Plane, Plane, Plane];
export type Plane = [number, number, number, number];

/**
 * (v1.2) A distance tier: nodes within `within` of the scope's centre (beyond the tier
 * before) have their changes sent on every `every`-th send. The last tier has no
 * `within` and takes every node past the others.
 */
export interface Tier {
  within?: number;
  every: number;
}

// ---- edit ops ---------------------------------------------------------------------

/** A new node; without `id` the server assigns one. Omitted fields take their defaults. */
export interface AddOp {
  op: 'add';
  id?: number | null;
  parent?: number | null;
  local?: Partial<Transform>;
  extent?: Vec3;
  mask?: number;
}
/** Replaces the given parts of the local transform. */
export interface SetLocalOp {
  op: 'set_local';
  node: number;
  t?: Vec3;
  r?: Quat;
  s?: number;
}
/** Moves the node with its subtree under `parent` (null: a root), keeping its local. */
export interface SetParentOp {
  op: 'set_parent';
  node: number;
  parent: number | null;
}
/** Changes the box or the layers. */
export interface SetShapeOp {
  op: 'set_shape';
  node: number;
  extent?: Vec3;
  mask?: number;
}
/** Removes the node and its whole subtree. */
export interface RemoveOp {
  op: 'remove';
  node: number;
}
export type Op = AddOp | SetLocalOp | SetParentOp | SetShapeOp | RemoveOp;

// ---- queries ----------------------------------------------------------------------

export interface RegionQuery {
  min: Vec3;
  max: Vec3;
  mask?: number;
}
/** Measured from `center`, or (v1.2) from the world position of the node `around`. */
export type SphereQuery = ({ center: Vec3; around?: undefined } | { around: number; center?: undefined }) & {
  radius: number;
  mask?: number;
};
export interface RayQuery {
  origin: Vec3;
  dir: Vec3;
  max_t?: number;
  mask?: number;
  all?: boolean;
}
/** Measured from `point`, or (v1.2) from the world position of the node `around`. */
export type NearestQuery = ({ point: Vec3; around?: undefined } | { around: number; point?: undefined }) & {
  k: number;
  max_dist?: number;
  mask?: number;
};
export type Query =
  | ({ kind: 'region' } & RegionQuery)
  | ({ kind: 'sphere' } & SphereQuery)
  | ({ kind: 'ray' } & RayQuery)
  | ({ kind: 'nearest' } & NearestQuery);

export interface RayHit {
  node: number;
  t: number;
}
export interface NearestHit {
  node: number;
  dist: number;
}
/** The `hits` of a ray or nearest answer (JSON tells them apart by `t` or `dist`). */
export type Hits = { kind: 'ray'; hits: RayHit[] } | { kind: 'nearest'; hits: NearestHit[] };

// ---- errors -----------------------------------------------------------------------

/** Every error code of the contract, in the order of their bincode variant index. */
export const ERROR_CODES = [
  'bad_request',
  'invalid_value',
  'unauthorized',
  'forbidden',
  'unknown_room',
  'unknown_node',
  'room_exists',
  'duplicate_id',
  'cycle',
  'too_large',
  'rate_limited',
  'overloaded',
  'not_found',
  'method_not_allowed',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

// ---- WebSocket messages -----------------------------------------------------------

export type ClientMsg =
  | {
      type: 'subscribe';
      region: Region | null;
      mask: number;
      since?: U64;
      encoding?: Encoding;
      /** (v1.2) Any of these four makes the bincode form variant 5 (see bincode-client.ts). */
      follow?: Follow;
      frustum?: Frustum;
      send_hz?: number;
      /** (v1.2) Absent or empty: no tiers. */
      tiers?: Tier[];
    }
  | { type: 'unsubscribe' }
  | { type: 'edits'; seq: U64; ops: Op[] }
  | { type: 'query'; id: U64; query: Query }
  | { type: 'ping'; nonce: U64 };

export interface SnapshotMsg {
  type: 'snapshot';
  tick: number;
  time: number;
  nodes: Node[];
  /** (v1.1) Compact rows, one absolute row per node, for a compact subscriber. */
  compact?: Uint8Array;
}
export interface DeltaMsg {
  type: 'delta';
  tick: number;
  time: number;
  upsert: Node[];
  update: UpdateRows;
  remove: Uint32Array;
  /** (v1.1) True when this delta answers a `subscribe` with `since`. */
  resumed: boolean;
  /** (v1.1) Compact rows of this frame, for a compact subscriber. */
  compact?: Uint8Array;
}
export type ServerMsg =
  | SnapshotMsg
  | DeltaMsg
  | { type: 'ack'; seq: number; tick: number; ids: number[] }
  | {
      type: 'error';
      seq?: number;
      id?: number;
      code: ErrorCode;
      message: string;
      op?: number;
    }
  | { type: 'query_result'; id: number; tick: number; nodes?: number[]; hits?: Hits }
  | { type: 'pong'; nonce: number; tick: number }
  | { type: 'closed'; reason: string };

/** The message `type`s this SDK knows; a server message of another type is ignored. */
export type ServerMsgType = ServerMsg['type'];

// ---- HTTP bodies ------------------------------------------------------------------

export interface RoomCreated {
  id: string;
  tick_hz: number;
  editor_token?: string;
  viewer_token?: string;
}
export interface RoomSummary {
  id: string;
  tick: number;
  nodes: number;
  subscribers: number;
  tick_hz: number;
}
/** `GET /rooms/{room}`: the summary, `tick_ms` and the server's further statistics. */
export interface RoomDetail extends RoomSummary {
  tick_ms: number;
  /** The room's instance (16 hex digits); a resume names it (see connection.ts). */
  instance?: string;
  [stat: string]: unknown;
}
export interface EditsResult {
  tick: number;
  ids: number[];
}
export interface NodeDetail {
  id: number;
  parent: number | null;
  children: number[];
  local: Transform;
  world: Transform;
  extent: Vec3;
  mask: number;
  tick: number;
}
export interface NodesSnapshot {
  tick: number;
  nodes: Node[];
}
export interface NodesResult {
  tick: number;
  nodes: number[];
}
export interface RayResult {
  tick: number;
  hits: RayHit[];
}
export interface NearestResult {
  tick: number;
  hits: NearestHit[];
}
export interface OctreeCell {
  min: Vec3;
  max: Vec3;
  depth: number;
  objects: number;
}
export interface OctreeCells {
  tick: number;
  cells: OctreeCell[];
}
