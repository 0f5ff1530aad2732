//! Which op of a batch a failed decode was reading, so that a malformed op (an unknown
//! `op`, a missing field, a wrong type) is refused with its index like any other bad op
//! (docs/protocol.md §2: "the error names the first bad op's index").
//!
//! Neither serde nor bincode tells a caller where in a list an error arose, and their
//! error types cannot carry extra data, so the decoding of each op marks its index in a
//! thread-local cursor: [`Cursor::begin`] before the op, [`Cursor::end`] after it. A
//! failed op leaves the cursor inside it; the codec (`codec.rs`) resets the cursor before
//! a decode and reads it after a failure. Decoding is synchronous, so the thread that
//! decodes is the thread that reads.
//!
//! Invariant: after a failed decode, [`failed_op`] is the index of the op being read
//! when it failed, and `None` when the failure was outside every op (the envelope, the
//! list's length, a field after the list).

use std::cell::Cell;

use bincode::de::{BorrowDecoder, Decoder};
use bincode::error::{AllowedEnumVariants, DecodeError};
use bincode::{BorrowDecode, Decode};
use serde::Deserializer;
use serde::de::{SeqAccess, Visitor};

use crate::ops::Op;

/// The cursor: the index of the next op, and whether an op is being read.
#[derive(Clone, Copy, Default)]
struct Cursor {
    next: u32,
    inside: bool,
}

thread_local! {
    static CURSOR: Cell<Cursor> = const { Cell::new(Cursor { next: 0, inside: false }) };
}

impl Cursor {
    fn begin() {
        CURSOR.with(|c| {
            c.set(Cursor {
                inside: true,
                ..c.get()
            })
        });
    }

    fn end() {
        CURSOR.with(|c| {
            let cur = c.get();
            c.set(Cursor {
                next: cur.next.saturating_add(1),
                inside: false,
            });
        });
    }

    /// Leaves the op begun last without counting it: the list ended there.
    fn leave() {
        CURSOR.with(|c| {
            c.set(Cursor {
                inside: false,
                ..c.get()
            })
        });
    }
}

/// Forgets any earlier decode: called before each one.
pub(crate) fn reset() {
    CURSOR.with(|c| c.set(Cursor::default()));
}

/// The index of the op the last decode on this thread failed in (see the module docs).
pub(crate) fn failed_op() -> Option<u32> {
    let cur = CURSOR.with(Cell::get);
    cur.inside.then_some(cur.next)
}

/// `deserialize_with` for a list of ops: each element is read between
/// [`Cursor::begin`] and [`Cursor::end`].
pub(crate) fn deserialize_ops<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Op>, D::Error> {
    struct Ops;

    impl<'de> Visitor<'de> for Ops {
        type Value = Vec<Op>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a list of ops")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Op>, A::Error> {
            // The hint comes from the input: capped, like serde's own `Vec` visitor.
            let mut ops = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
            loop {
                Cursor::begin();
                match seq.next_element::<Op>()? {
                    Some(op) => ops.push(op),
                    None => break,
                }
                Cursor::end();
            }
            // The end of the list is not an op.
            Cursor::leave();
            Ok(ops)
        }
    }

    d.deserialize_seq(Ops)
}

/// Op's bincode form, as `#[derive(Decode)]` reads it (the variant's index as a `u32`,
/// then the fields in order; `Encode` stays derived, and the codec's tests check that
/// every op decodes to itself), written out so that each op marks the cursor.
impl<Ctx> Decode<Ctx> for Op {
    fn decode<D: Decoder<Context = Ctx>>(d: &mut D) -> Result<Op, DecodeError> {
        Cursor::begin();
        let op = match u32::decode(d)? {
            0 => Op::Add {
                id: Decode::decode(d)?,
                parent: Decode::decode(d)?,
                local: Decode::decode(d)?,
                extent: Decode::decode(d)?,
                mask: Decode::decode(d)?,
            },
            1 => Op::SetLocal {
                node: Decode::decode(d)?,
                t: Decode::decode(d)?,
                r: Decode::decode(d)?,
                s: Decode::decode(d)?,
            },
            2 => Op::SetParent {
                node: Decode::decode(d)?,
                parent: Decode::decode(d)?,
            },
            3 => Op::SetShape {
                node: Decode::decode(d)?,
                extent: Decode::decode(d)?,
                mask: Decode::decode(d)?,
            },
            4 => Op::Remove {
                node: Decode::decode(d)?,
            },
            found => {
                return Err(DecodeError::UnexpectedVariant {
                    type_name: "Op",
                    allowed: &AllowedEnumVariants::Range { min: 0, max: 4 },
                    found,
                });
            }
        };
        Cursor::end();
        Ok(op)
    }
}

impl<'de, Ctx> BorrowDecode<'de, Ctx> for Op {
    fn borrow_decode<D: BorrowDecoder<'de, Context = Ctx>>(d: &mut D) -> Result<Op, DecodeError> {
        Op::decode(d)
    }
}
