//! The two encodings of every message: JSON (text frames, HTTP bodies) and bincode 2
//! (binary frames). This is the only module that names `serde_json` or `bincode`, so a
//! codec could be swapped here without touching the rest of Canopy.
//!
//! # The bincode layout
//!
//! Binary WebSocket frames hold exactly one value encoded with bincode 2's
//! `config::standard()`: little-endian, variable-length integers, no trailing bytes.
//! A client in another language implements it with these rules:
//!
//! * **Unsigned integers** (`u32`, `u64`) are varints: a value below 251 is one byte;
//!   otherwise a marker byte `251` (u16 follows), `252` (u32) or `253` (u64) and then the
//!   value in little-endian.
//! * **`f32`** is 4 bytes, IEEE 754, little-endian. **`bool`** is one byte, 0 or 1.
//! * **Fixed arrays** (`[f32; 3]`) are their elements back to back, with no length.
//! * **`Vec<T>`** and **`String`** are a varint length, then the elements (UTF-8 bytes for
//!   a string).
//! * **`Option<T>`** is one byte, 0 for none, 1 then the value.
//! * **Structs** are their fields in declaration order, with no names and no defaults:
//!   every field is written, including those that JSON lets a client omit.
//! * **Enums** are the variant index as a varint (`u32`), then the variant's fields.
//!
//! The top-level values are [`ClientMsg`] (client to server) and [`ServerMsg`] (server
//! to client); their variants, in index order, are listed on the types. For example a
//! `ping` with nonce 9 is the two bytes `04 09` (variant 4, nonce 9), and an `update` row
//! is the id varint followed by eight `f32`s (t, r, s).
//!
//! Decoding is bounded: no message may claim more than [`MAX_DECODE_BYTES`] of
//! allocations, so a hostile length prefix cannot make the decoder reserve memory it
//! was not sent; a message over it is refused as `too_large`. A server reads the op
//! count of a bincode `edits` message first ([`bincode_edits_header`]) and refuses one
//! over its own batch limit before decoding the ops.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::message::{ClientMsg, ServerMsg};

/// The most a single decoded message may allocate (64 MiB): room for a batch of a million
/// ops (an op takes 64 bytes decoded), so the batch limit a server sets, not the codec,
/// decides how many ops a batch may have.
pub const MAX_DECODE_BYTES: usize = 64 * 1024 * 1024;

/// The wire format of a connection or body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Format {
    /// bincode 2, standard configuration; WebSocket binary frames. The default.
    #[default]
    Bincode,
    /// JSON; WebSocket text frames and every HTTP body.
    Json,
}

impl Format {
    /// Parses the `format` query parameter (`bincode` or `json`).
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "bincode" => Some(Format::Bincode),
            "json" => Some(Format::Json),
            _ => None,
        }
    }

    /// The name used in the `format` query parameter.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Bincode => "bincode",
            Format::Json => "json",
        }
    }
}

/// Why bytes could not be decoded into a message.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// The text was not JSON, or not a message of the expected shape.
    #[error("malformed JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The bytes were not a bincode value of the expected type (or claimed too many bytes).
    #[error("malformed bincode: {0}")]
    Bincode(#[from] bincode::error::DecodeError),
    /// A whole message decoded, but this many bytes were left after it.
    #[error("{0} trailing bytes after the message")]
    TrailingBytes(usize),
    /// The failure arose inside op `op` (from 0) of a batch: an unknown op, a missing
    /// field, a value of the wrong type.
    #[error("op {op}: {source}")]
    InOp {
        /// The op's index in its batch.
        op: u32,
        /// What went wrong in it.
        #[source]
        source: Box<DecodeError>,
    },
}

impl DecodeError {
    /// The contract's code for this failure: a JSON number too large for its type (an
    /// `f32` beyond its range reads as infinite) is `invalid_value`, like any other
    /// non-finite number; a bincode message claiming more than [`MAX_DECODE_BYTES`] is
    /// `too_large`; everything else is `bad_request`.
    pub fn code(&self) -> crate::error::ErrorCode {
        match self {
            DecodeError::InOp { source, .. } => source.code(),
            // serde_json has no typed variant for this error, only its message; the
            // test `json_number_out_of_range_is_invalid_value` pins the text.
            DecodeError::Json(e) if e.to_string().starts_with("number out of range") => {
                crate::error::ErrorCode::InvalidValue
            }
            DecodeError::Bincode(bincode::error::DecodeError::LimitExceeded) => {
                crate::error::ErrorCode::TooLarge
            }
            _ => crate::error::ErrorCode::BadRequest,
        }
    }

    /// The index of the op of a batch the failure arose in, if it arose in one.
    pub fn op(&self) -> Option<u32> {
        match self {
            DecodeError::InOp { op, .. } => Some(*op),
            _ => None,
        }
    }

    /// Names the op a failure arose in (see `op_index.rs`); a message over the size
    /// limit is that, wherever the decoder noticed it, so it names no op.
    fn in_op(self) -> DecodeError {
        match crate::op_index::failed_op() {
            Some(op) if self.code() != crate::error::ErrorCode::TooLarge => DecodeError::InOp {
                op,
                source: Box::new(self),
            },
            _ => self,
        }
    }
}

/// Reads one bincode varint (the layout above) from the front of `bytes`.
fn varint(bytes: &mut &[u8]) -> Option<u64> {
    let (&first, rest) = bytes.split_first()?;
    let width = match first {
        0..=250 => {
            *bytes = rest;
            return Some(u64::from(first));
        }
        251 => 2,
        252 => 4,
        253 => 8,
        _ => return None,
    };
    let (value, rest) = rest.split_at_checked(width)?;
    let mut buf = [0u8; 8];
    buf[..width].copy_from_slice(value);
    *bytes = rest;
    Some(u64::from_le_bytes(buf))
}

/// The `seq` and op count of a bincode `edits` message, read from its first bytes
/// without decoding the ops; `None` for any other message or malformed bytes.
pub fn bincode_edits_header(bytes: &[u8]) -> Option<(u64, u64)> {
    let mut rest = bytes;
    // `ClientMsg::Edits` is variant 2 (see `message.rs`).
    (varint(&mut rest)? == 2).then_some(())?;
    let seq = varint(&mut rest)?;
    let ops = varint(&mut rest)?;
    Some((seq, ops))
}

fn bincode_config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<MAX_DECODE_BYTES>()
}

/// Encodes any bincode-encodable value with Canopy's configuration.
pub fn to_bincode<T: bincode::Encode>(value: &T) -> Vec<u8> {
    bincode::encode_to_vec(value, bincode_config()).expect("encoding into a Vec cannot fail")
}

/// Appends one value's bincode form to `out`, for compact in-memory lists of values
/// (a server keeps the ops of its pending batches so, at a fraction of their decoded
/// size); read them back with [`bincode_prefix`].
pub fn append_bincode<T: bincode::Encode>(value: &T, out: &mut Vec<u8>) {
    bincode::encode_into_std_write(value, out, bincode_config())
        .expect("encoding into a Vec cannot fail");
}

/// Decodes one value from the front of `bytes`, and how many bytes it took (the rest
/// may hold further values, see [`append_bincode`]).
pub fn bincode_prefix<T: bincode::Decode<()>>(bytes: &[u8]) -> Result<(T, usize), DecodeError> {
    Ok(bincode::decode_from_slice(bytes, bincode_config())?)
}

/// Decodes one value from the whole of `bytes`.
pub fn from_bincode<T: bincode::Decode<()>>(bytes: &[u8]) -> Result<T, DecodeError> {
    crate::op_index::reset();
    let (value, used) = bincode::decode_from_slice(bytes, bincode_config())
        .map_err(|e| DecodeError::from(e).in_op())?;
    if used != bytes.len() {
        return Err(DecodeError::TrailingBytes(bytes.len() - used));
    }
    Ok(value)
}

/// Encodes any value as JSON.
pub fn to_json<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).expect("Canopy's wire types always serialize")
}

/// Decodes one JSON value from `bytes`.
pub fn from_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, DecodeError> {
    crate::op_index::reset();
    serde_json::from_slice(bytes).map_err(|e| DecodeError::from(e).in_op())
}

/// Encodes a value in `format`.
pub fn encode<T: Serialize + bincode::Encode>(value: &T, format: Format) -> Vec<u8> {
    match format {
        Format::Json => to_json(value),
        Format::Bincode => to_bincode(value),
    }
}

/// Decodes a value in `format`.
pub fn decode<T: DeserializeOwned + bincode::Decode<()>>(
    bytes: &[u8],
    format: Format,
) -> Result<T, DecodeError> {
    match format {
        Format::Json => from_json(bytes),
        Format::Bincode => from_bincode(bytes),
    }
}

/// Encodes a server message.
pub fn encode_server(msg: &ServerMsg, format: Format) -> Vec<u8> {
    encode(msg, format)
}

/// Decodes a server message (the client SDK's side).
pub fn decode_server(bytes: &[u8], format: Format) -> Result<ServerMsg, DecodeError> {
    decode(bytes, format)
}

/// Encodes a client message (the client SDK's side).
pub fn encode_client(msg: &ClientMsg, format: Format) -> Vec<u8> {
    encode(msg, format)
}

/// Decodes a client message.
pub fn decode_client(bytes: &[u8], format: Format) -> Result<ClientMsg, DecodeError> {
    decode(bytes, format)
}
