//! Compact world transforms (v1.1, `subscribe` with `"encoding":"compact"` on bincode
//! connections): quantized rows, delta-coded in integer space against what the same
//! connection last received, so that a client's value is always the quantization of the
//! server's current value and never a sum of rounded steps (no drift).
//!
//! This module owns the quantization ([`quantize`], [`dequantize`]), the block layout
//! below, its writer ([`BlockWriter`]) and its reader ([`BlockReader`],
//! [`decode_snapshot`], [`decode_delta`], [`Row::apply`]). Invariant: a block the writer
//! emits from the server's values decodes, against the client's baselines, to exactly
//! `quantize` of those values; anything else a reader is given is a typed error, never a
//! panic. Golden vectors for other decoders are in `protocol/testdata/compact/`.
//!
//! # Quantization
//!
//! World transforms are quantized, never local ones, so the error does not compound down
//! the hierarchy. Only the server quantizes; decoders only dequantize, with the exact
//! arithmetic given here, so that every decoder yields the same `f32` bits.
//!
//! * **Translation**: each axis on a fixed grid of 2⁻¹⁰ units around the origin,
//!   `q = round_half_away_from_zero(t · 1024)` computed in `f64`, kept when
//!   `|q| <= 2²³ − 1` on every axis (about ±8,192 units); decoded as `q / 1024` (exact in
//!   `f32`). Error at most 2⁻¹¹ units (0.49 mm for a metre unit).
//! * **Rotation**: smallest three. The quaternion is normalized in `f64` (one of length 0
//!   or not finite is sent exactly). Its largest-magnitude component (the first one on a
//!   tie) is dropped after the quaternion is negated if that component is negative; each
//!   other component `c`, in `[-1/√2, 1/√2]`, is stored as the 15-bit
//!   `q = clamp(⌊c · 16383 · √2 + 16383.5⌋, 0, 32766)`, so 0 is exactly 16383 and the
//!   identity and quarter turns decode exactly. Decoding, in `f64` with IEEE operations
//!   in this order (no fused multiply-add; JavaScript numbers do exactly this):
//!   `c = (q − 16383) / 16383 · 0.7071067811865476` (`Math.SQRT1_2`) for the three kept
//!   components in index order `a, b, c`, the dropped one `d = √max(0, 1 − ((a·a + b·b)
//!   + c·c))`, then each rounded to `f32` (nearest even, `Math.fround`). Any 15-bit value
//!   decodes (32767 is never written). Each kept component is within `2⁻¹·(1/√2)/16383`
//!   of the true one and the dropped one is at least ½, so the angle between the
//!   rotations is at most `2 · 2 · √3 · 2.16·10⁻⁵` rad = 0.0086° (the contract: 0.01°).
//! * **Scale**: IEEE 754 half precision (`binary16`, round to nearest even from the
//!   `f32`), used when the rounded value is a normal half (exponent field 1 to 30: `|s|`
//!   from just under 2⁻¹⁴ to 65,504); decoded exactly. Relative error at most 2⁻¹¹ (a
//!   hair more just under 2⁻¹⁴), within the contract's 0.1%.
//!
//! A transform whose translation, rotation or scale is outside those ranges is sent
//! **exactly**, all eight `f32`s bit for bit.
//!
//! # Layout
//!
//! [`CompactRows`] travels as a bincode byte vector (varint length, then the bytes).
//! Inside, fixed-width integers are little-endian. `uleb` is unsigned LEB128 of a 32-bit
//! value (7 bits per byte, least significant first, high bit set on every byte but the
//! last), written in the fewest bytes: a reader refuses a longer form (a last byte of 0
//! after the first) and a value over 32 bits (more than 5 bytes, or a fifth byte over
//! `0x0f`). `sleb` is a 32-bit zigzag-mapped value in `uleb` (`(v << 1) ^ (v >> 31)`:
//! 0, −1, 1, −2 … as 0, 1, 2, 3 …).
//!
//! ```text
//! snapshot block := row_abs × snapshot.nodes.len()          (same order as `nodes`)
//! delta block    := row_abs × delta.upsert.len()            (same order as `upsert`)
//!                   uleb n, then n × (uleb id_gap, row)     (ids strictly ascending;
//!                                                            the gap is from the previous
//!                                                            id, the first gap is the id
//!                                                            itself, so only it may be 0;
//!                                                            ids fit in u32)
//! row     := u8 flags, then the parts the flags name, in this order:
//!   flags bit 0 (T)  translation present     bit 3 (TD) translation is a delta
//!   flags bit 1 (R)  rotation present        bit 4 (RD) rotation is a delta
//!   flags bit 2 (S)  scale present           bit 7 (X)  exact: 8 × f32 (t, r, s) follow,
//!                                                       and no other bit is set
//!   bits 5 and 6 are 0; TD needs T, RD needs R; a row has at least one part.
//!   T absolute: 3 × i24 (two's complement, x y z), each within ±(2²³ − 1)
//!   T delta:    3 × sleb (difference in grid steps, x y z)
//!   R absolute: u48: bits 0-1 the dropped component's index (0-3: x y z w), then the
//!               three kept components' 15-bit values from bits 2, 17 and 32, in index
//!               order; bit 47 is 0
//!   R delta:    3 × sleb (difference of each kept 15-bit value; same dropped index)
//!   S:          u16 (binary16 bits of a normal half)
//! ```
//!
//! A `row_abs` carries T, R and S absolute (flags `0x07`, 18 bytes) or is exact (`0x80`,
//! 33 bytes); for its node the client takes the world transform from this row, whatever
//! the node's `world` field holds. An id-coded row carries only the parts that changed;
//! a part absent from it keeps the node's previous value, and a delta's result must stay
//! in range (translation within ±(2²³ − 1), rotation values within 15 bits). A row that
//! is not `0x07` or `0x80` is relative to the client's last value of that node, so it is
//! only sent to a client whose last row for that node was quantized (not exact) and
//! whose copy is in step with the server's: rows of a snapshot, of a resumed delta or of
//! a frame merged for a slow reader are absolute. A writer picks, for each changed
//! part, the shorter of delta and absolute (a delta of a rotation only when the dropped
//! index is the same).
//!
//! # Use
//!
//! The server quantizes each changed node once per tick, keeps the value it last sent
//! (per connection, or per group of connections in step), and writes a block per frame;
//! a client decodes it and applies each row to its own last value:
//!
//! ```
//! use canopy_protocol::Transform;
//! use canopy_protocol::compact::{BlockWriter, DeltaRows, decode_delta, quantize};
//!
//! let sent = quantize(&Transform::IDENTITY);
//! let now = quantize(&Transform { t: [0.01, 0.0, 0.0], ..Transform::IDENTITY });
//! let mut writer = BlockWriter::new(); // kept across frames: `clear()` reuses it
//! writer.update(7, Some(&sent), &now); // ids ascending; `None`: an absolute row
//! let block = writer.delta();          // goes in `ServerMsg::Delta { compact, .. }`
//!
//! let mut rows = DeltaRows::default();
//! decode_delta(&block.0, 0, &mut rows).unwrap(); // 0: the delta's `upsert.len()`
//! let (id, row) = rows.rows[0];
//! assert_eq!((id, row.apply(sent.quantized()).unwrap()), (7, now));
//! assert_eq!(block.0.len(), 6); // count, id, flags, three one-byte deltas
//! ```

mod quant;
mod read;
mod write;

use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};

pub use quant::{
    CompactValue, QRot, Quantized, R_MAX, R_ZERO, T_MAX, T_STEPS, dequantize, dequantize_rotation,
    f16_to_f32, f32_to_f16, is_normal_half, quantize, quantize_rotation, quantize_scale,
    quantize_translation, transform_bits,
};
pub use read::{
    ApplyError, BlockReader, CompactError, DeltaRows, RPart, Row, TPart, decode_delta,
    decode_snapshot,
};
pub use write::{
    BlockWriter, FLAG_EXACT, FLAG_R, FLAG_R_DELTA, FLAG_S, FLAG_T, FLAG_T_DELTA, FLAGS_ABSOLUTE,
};

/// The bytes of a compact block, laid out as the module docs describe.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct CompactRows(pub Vec<u8>);
