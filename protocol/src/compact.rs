//! Compact world transforms (v1.1, `subscribe` with `"encoding":"compact"` on bincode
//! connections): quantized rows, delta-coded in integer space against what the same
//! connection last received, so that a client's value is always the quantization of the
//! server's current value and never a sum of rounded steps (no drift).
//!
//! # Quantization
//!
//! World transforms are quantized, never local ones, so the error does not compound down
//! the hierarchy.
//!
//! * **Translation**: each axis on a fixed grid of 2⁻¹⁰ units around the origin,
//!   `q = round_half_away_from_zero(t · 1024)` computed in `f64`, kept when
//!   `|q| <= 2²³ − 1` on every axis (about ±8,192 units); decoded as `q / 1024` (exact in
//!   `f32`). Error at most 2⁻¹¹ units (0.49 mm for a metre unit).
//! * **Rotation**: smallest three. The largest-magnitude component of the unit
//!   quaternion (the first one on a tie) is dropped after the quaternion is negated if
//!   that component is negative; the other three, each in `[-1/√2, 1/√2]`, are stored
//!   as 15-bit integers `q = round((c + 1/√2) / (2/√2) · 32767)`; decoded as
//!   `c = q / 32767 · (2/√2) − 1/√2`, the dropped component as `√max(0, 1 − Σc²)`.
//!   Error below 0.01°.
//! * **Scale**: IEEE 754 half precision (`binary16`, round to nearest even), used when
//!   the scale is a normal half (from 2⁻¹⁴ to 65,504). Relative error at most 2⁻¹¹.
//!
//! A transform whose translation or scale is outside those ranges is sent **exactly**.
//!
//! # Layout
//!
//! [`CompactRows`] travels as a bincode byte vector (varint length, then the bytes).
//! Inside, integers are little-endian and `uleb` is unsigned LEB128 (7 bits per byte,
//! high bit set on every byte but the last); `sleb` is a zigzag-mapped value in `uleb`
//! (`(v << 1) ^ (v >> 63)`).
//!
//! ```text
//! snapshot block := row_abs × snapshot.nodes.len()          (same order as `nodes`)
//! delta block    := row_abs × delta.upsert.len()            (same order as `upsert`)
//!                   uleb n, then n × (uleb id_gap, row)     (ids ascending; the gap is
//!                                                            from the previous id, the
//!                                                            first gap is the id itself)
//! row     := u8 flags, then the parts the flags name, in this order:
//!   flags bit 0 (T)  translation present     bit 3 (TD) translation is a delta
//!   flags bit 1 (R)  rotation present        bit 4 (RD) rotation is a delta
//!   flags bit 2 (S)  scale present           bit 7 (X)  exact: 8 × f32 (t, r, s) follow,
//!                                                       and no other bit is set
//!   T absolute: 3 × i24 (two's complement)   T delta: 3 × sleb (difference in grid units)
//!   R absolute: u48: bits 0-1 the dropped component's index, then the three kept
//!               components' 15-bit values from bit 2, in index order
//!   R delta:    3 × sleb (difference of each kept 15-bit value; same dropped index)
//!   S:          u16 (binary16 bits)
//! ```
//!
//! A `row_abs` carries T, R and S absolute (flags `0x07`) or is exact (`0x80`). A delta
//! row carries only the parts that changed; a part absent from a row keeps its previous
//! value. A delta part is relative to the client's last value of that node, so it is
//! only sent to a client whose last row for that node was quantized (not exact) and
//! whose copy is in step with the server's.
//!
//! The codec itself (quantize, encode, decode) lands with issue 15; until then this
//! module defines the wire type so that the message layout is fixed.

use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};

/// The bytes of a compact block, laid out as the module docs describe.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct CompactRows(pub Vec<u8>);
