//! The bincode form of [`ClientMsg`], written by hand so that v1.2's additions leave
//! v1.1 readers untouched: a `subscribe` without v1.2 fields is variant 0 with the v1.1
//! fields, exactly as `#[derive(Encode)]` wrote it; one with them is variant 5, the
//! same fields followed by `follow`, `frustum`, `send_hz` and `tiers`. Every other
//! variant keeps its derived layout (index, then fields in order).
//!
//! Invariant: `decode(encode(m)) == m` for every message (the round-trip tests check it),
//! and the bytes of a message without v1.2 fields are those v1.1 wrote.

use bincode::de::{BorrowDecoder, Decoder};
use bincode::enc::Encoder;
use bincode::error::{AllowedEnumVariants, DecodeError, EncodeError};
use bincode::{BorrowDecode, Decode, Encode};

use crate::message::ClientMsg;

/// The variant index of a `subscribe` carrying v1.2 fields.
const SUBSCRIBE_V1_2: u32 = 5;

impl Encode for ClientMsg {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        let v1_2 = self.uses_v1_2();
        match self {
            ClientMsg::Subscribe {
                region,
                mask,
                since,
                encoding,
                follow,
                frustum,
                send_hz,
                tiers,
            } => {
                (if v1_2 { SUBSCRIBE_V1_2 } else { 0u32 }).encode(e)?;
                region.encode(e)?;
                mask.encode(e)?;
                since.encode(e)?;
                encoding.encode(e)?;
                if v1_2 {
                    follow.encode(e)?;
                    frustum.encode(e)?;
                    send_hz.encode(e)?;
                    tiers.encode(e)?;
                }
                Ok(())
            }
            ClientMsg::Unsubscribe => 1u32.encode(e),
            ClientMsg::Edits { seq, ops } => {
                2u32.encode(e)?;
                seq.encode(e)?;
                ops.encode(e)
            }
            ClientMsg::Query { id, query } => {
                3u32.encode(e)?;
                id.encode(e)?;
                query.encode(e)
            }
            ClientMsg::Ping { nonce } => {
                4u32.encode(e)?;
                nonce.encode(e)
            }
        }
    }
}

impl<Ctx> Decode<Ctx> for ClientMsg {
    fn decode<D: Decoder<Context = Ctx>>(d: &mut D) -> Result<ClientMsg, DecodeError> {
        Ok(match u32::decode(d)? {
            v @ (0 | SUBSCRIBE_V1_2) => {
                let region = Decode::decode(d)?;
                let mask = Decode::decode(d)?;
                let since = Decode::decode(d)?;
                let encoding = Decode::decode(d)?;
                let (follow, frustum, send_hz, tiers) = if v == SUBSCRIBE_V1_2 {
                    (
                        Decode::decode(d)?,
                        Decode::decode(d)?,
                        Decode::decode(d)?,
                        Decode::decode(d)?,
                    )
                } else {
                    (None, None, None, Vec::new())
                };
                ClientMsg::Subscribe {
                    region,
                    mask,
                    since,
                    encoding,
                    follow,
                    frustum,
                    send_hz,
                    tiers,
                }
            }
            1 => ClientMsg::Unsubscribe,
            2 => ClientMsg::Edits {
                seq: Decode::decode(d)?,
                ops: Decode::decode(d)?,
            },
            3 => ClientMsg::Query {
                id: Decode::decode(d)?,
                query: Decode::decode(d)?,
            },
            4 => ClientMsg::Ping {
                nonce: Decode::decode(d)?,
            },
            found => {
                return Err(DecodeError::UnexpectedVariant {
                    type_name: "ClientMsg",
                    allowed: &AllowedEnumVariants::Range { min: 0, max: 5 },
                    found,
                });
            }
        })
    }
}

impl<'de, Ctx> BorrowDecode<'de, Ctx> for ClientMsg {
    fn borrow_decode<D: BorrowDecoder<'de, Context = Ctx>>(
        d: &mut D,
    ) -> Result<ClientMsg, DecodeError> {
        ClientMsg::decode(d)
    }
}
