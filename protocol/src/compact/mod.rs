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
//! snapshot block := row × snapshot.nodes.len()   (rows A or X; same order as `nodes`)
//! delta block    := row × delta.upsert.len()     (rows A or X; same order as `upsert`)
//!                   uleb n, then n × (uleb id_gap, row)
//!                                                (ids strictly ascending; the gap is
//!                                                 from the previous id, the first gap
//!                                                 is the id itself, so only it may be
//!                                                 0; ids fit in u32)
//! row   := u8 flags, then the parts the flags name, in this order:
//!   bits 0, 1, 2 (TX TY TZ)  that translation axis is present
//!   bit 3 (TA)               the present axes are absolute: i24 each (two's
//!                            complement, within ±(2²³ − 1)); without TA each is an
//!                            sleb difference in grid steps
//!   bit 4 (R)                a rotation part follows (below)
//!   bit 5 (S)                a scale follows: u16, the binary16 bits of a normal half
//!   bit 6 (A)                absolute row: what it omits is the identity's (translation
//!                            axis 0, rotation component 16383, scale 0x3c00), not the
//!                            client's last value; its axes are TA and its rotation has
//!                            no differences
//!   bit 7 (X)                exact: 8 × f32 (t, r, s) follow, and no other bit is set
//!   TA needs an axis; a row that is neither A nor X carries at least one part.
//! rotation part := u8 head, then each present kept component in index order:
//!   head bits 0-1            the dropped component's index (0-3: x y z w)
//!   head bits 2, 3, 4        kept component a, b, c is present
//!   head bits 5, 6, 7        that present component is an sleb difference from the
//!                            client's last value (same dropped index only); without it,
//!                            a u16 holding the 15-bit value (bit 15 is 0)
//! ```
//!
//! A row is **absolute** (A or X) or **relative** (neither): a relative row applies to
//! the client's last value of that node, which must be quantized (not exact), and each
//! part it omits keeps that value; so does each rotation component it omits, when the
//! head names the same dropped index as that value. Under another index (and always in
//! a row A) an omitted component is 0 (16383), and a difference cannot be applied. A
//! difference's result must stay in range (translation within ±(2²³ − 1), rotation
//! values within 15 bits).
//!
//! The server sends a relative row only to a client whose last row for that node was
//! quantized and whose copy is in step with the server's: rows of a snapshot, of a
//! resumed delta, of a frame merged for a slow reader, or for a node the client has no
//! quantized value of, are absolute. A writer carries exactly the axes and components
//! that changed (in a row A: that are not the identity's), the axes as differences
//! unless absolute ones are strictly shorter (always absolute in a row A), and each
//! rotation component as a difference when that takes one byte, else absolute.
//!
//! What this costs for a node moving in a plane and turning about one axis, moved again
//! a few seconds after its last row: an id gap (1 or 2 bytes), the flags, two 2-byte
//! axis differences, the rotation head and one 2-byte component: 8 or 9 bytes. A
//! snapshot row of such a node is 1 + 9 + 3 = 13 bytes, of the identity 1 byte.

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
//! assert_eq!(block.0.len(), 4); // count, id, flags (TX), a one-byte difference of 10 steps
//! ```

mod quant;
mod read;
mod row;
mod write;

use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};

pub use quant::{
    CompactValue, QRot, Quantized, R_MAX, R_ZERO, S_ONE, T_MAX, T_STEPS, dequantize,
    dequantize_rotation, f16_to_f32, f32_to_f16, is_normal_half, quantize, quantize_rotation,
    quantize_scale, quantize_translation, transform_bits,
};
pub use read::{BlockReader, CompactError, DeltaRows, decode_delta, decode_snapshot};
pub use row::{ApplyError, RPart, RValue, Row, TPart};
pub use write::{
    BlockWriter, FLAG_A, FLAG_R, FLAG_S, FLAG_TA, FLAG_TX, FLAG_TY, FLAG_TZ, FLAG_X, ROT_DELTA,
    ROT_INDEX, ROT_PRESENT,
};

/// The bytes of a compact block, laid out as the module docs describe.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct CompactRows(pub Vec<u8>);
