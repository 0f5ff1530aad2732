//! [`PackedOps`]: the ops of a batch waiting for its tick, kept in their bincode form
//! rather than as decoded [`Op`]s.
//!
//! A decoded op takes 64 bytes whatever its kind; packed, a `set_parent` takes 3 to 12,
//! a `set_local` of a translation 16 to 20, an `add` at most 62. Pending batches are the
//! largest memory a client can make the server hold for it (up to
//! `--max-pending-ops` per room), and they wait a tick or more, so they wait packed; the
//! tick unpacks each batch as it applies it, one op at a time.
//!
//! Invariant: `bytes` holds exactly `len` ops, each encoded by the protocol's codec, one
//! after the other; so unpacking cannot fail, and yields the packed ops in order.

use canopy_protocol::Op;
use canopy_protocol::codec::{append_bincode, bincode_prefix};

/// A batch's ops, packed (see the module docs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PackedOps {
    bytes: Box<[u8]>,
    len: usize,
}

impl PackedOps {
    /// Packs `ops`, in order.
    pub fn pack(ops: &[Op]) -> PackedOps {
        // Most ops take at most this much packed; a batch of `add`s grows the buffer
        // once or twice, and the exact size is kept (`into_boxed_slice`).
        const TYPICAL_OP_BYTES: usize = 24;
        let mut bytes = Vec::with_capacity(ops.len() * TYPICAL_OP_BYTES);
        for op in ops {
            append_bincode(op, &mut bytes);
        }
        PackedOps {
            bytes: bytes.into_boxed_slice(),
            len: ops.len(),
        }
    }

    /// How many ops.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for a batch of no ops.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The memory the packed ops take.
    pub fn byte_len(&self) -> usize {
        self.bytes.len()
    }

    /// The ops, decoded one at a time, in order.
    pub fn iter(&self) -> Unpack<'_> {
        Unpack {
            rest: &self.bytes,
            left: self.len,
        }
    }

    /// The ops, decoded all at once (for the durable log and the relays, which keep or
    /// send the batch as a list).
    pub fn to_vec(&self) -> Vec<Op> {
        let mut ops = Vec::with_capacity(self.len);
        ops.extend(self.iter());
        ops
    }

    /// Checks the invariant: the bytes decode to exactly `len` ops, with nothing left.
    pub fn assert_well_formed(&self) {
        let mut rest: &[u8] = &self.bytes;
        for i in 0..self.len {
            let (_, used) = bincode_prefix::<Op>(rest)
                .unwrap_or_else(|e| panic!("packed op {i} of {} does not decode: {e}", self.len));
            rest = &rest[used..];
        }
        assert!(
            rest.is_empty(),
            "{} bytes after the {} packed ops",
            rest.len(),
            self.len
        );
    }
}

/// The iterator of [`PackedOps::iter`].
#[derive(Debug)]
pub struct Unpack<'a> {
    rest: &'a [u8],
    left: usize,
}

impl Iterator for Unpack<'_> {
    type Item = Op;

    fn next(&mut self) -> Option<Op> {
        if self.left == 0 {
            return None;
        }
        let (op, used) = bincode_prefix::<Op>(self.rest)
            .expect("packed ops were encoded by the same codec (PackedOps invariant)");
        self.rest = &self.rest[used..];
        self.left -= 1;
        Some(op)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Unpack<'_> {}

#[cfg(test)]
mod tests {
    use canopy_protocol::Transform;
    use proptest::prelude::*;

    use super::*;

    fn any_f32() -> impl Strategy<Value = f32> + Clone {
        prop_oneof![
            Just(0.0f32),
            Just(-0.0f32),
            -1e9f32..1e9f32,
            Just(f32::MIN_POSITIVE)
        ]
    }

    fn any_op() -> impl Strategy<Value = Op> {
        let id = any::<u32>();
        let opt_id = proptest::option::of(any::<u32>());
        let v3 = [any_f32(), any_f32(), any_f32()];
        let v4 = [any_f32(), any_f32(), any_f32(), any_f32()];
        prop_oneof![
            (
                opt_id.clone(),
                opt_id.clone(),
                v3.clone(),
                v4.clone(),
                any_f32(),
                v3.clone(),
                any::<u32>()
            )
                .prop_map(|(id, parent, t, r, s, extent, mask)| Op::Add {
                    id,
                    parent,
                    local: Transform { t, r, s },
                    extent,
                    mask,
                }),
            (
                id,
                proptest::option::of(v3.clone()),
                proptest::option::of(v4),
                proptest::option::of(any_f32())
            )
                .prop_map(|(node, t, r, s)| Op::SetLocal { node, t, r, s }),
            (id, opt_id).prop_map(|(node, parent)| Op::SetParent { node, parent }),
            (
                id,
                proptest::option::of(v3),
                proptest::option::of(any::<u32>())
            )
                .prop_map(|(node, extent, mask)| Op::SetShape { node, extent, mask }),
            id.prop_map(|node| Op::Remove { node }),
        ]
    }

    proptest! {
        #[test]
        fn unpacking_gives_back_every_op_in_order(ops in proptest::collection::vec(any_op(), 0..64)) {
            let packed = PackedOps::pack(&ops);
            packed.assert_well_formed();
            prop_assert_eq!(packed.len(), ops.len());
            prop_assert_eq!(packed.iter().len(), ops.len());
            prop_assert_eq!(packed.iter().collect::<Vec<_>>(), ops.clone());
            prop_assert_eq!(packed.to_vec(), ops);
        }
    }

    #[test]
    fn a_packed_set_parent_takes_a_small_part_of_a_decoded_op() {
        // The soak's heavy no-op batch: the node at depth 1,000 under its own parent.
        let ops = vec![
            Op::SetParent {
                node: 1000,
                parent: Some(999),
            };
            262_143
        ];
        let packed = PackedOps::pack(&ops);
        packed.assert_well_formed();
        let decoded = ops.len() * std::mem::size_of::<Op>();
        // tag 1 + node 3 + option 1 + parent 3.
        assert_eq!(packed.byte_len(), ops.len() * 8);
        assert!(
            packed.byte_len() * 8 <= decoded,
            "{} vs {decoded}",
            packed.byte_len()
        );
    }

    #[test]
    fn no_packed_op_is_larger_than_a_decoded_one() {
        // The largest of each kind: every option present, every id and mask 5 bytes.
        let big = u32::MAX;
        let largest = [
            Op::add(Some(big), Some(big), Transform::IDENTITY)
                .with_extent([1.0; 3])
                .with_mask(big),
            Op::SetLocal {
                node: big,
                t: Some([1.0; 3]),
                r: Some([0.0, 0.0, 0.0, 1.0]),
                s: Some(2.0),
            },
            Op::SetParent {
                node: big,
                parent: Some(big),
            },
            Op::SetShape {
                node: big,
                extent: Some([1.0; 3]),
                mask: Some(big),
            },
            Op::Remove { node: big },
        ];
        let sizes: Vec<usize> = largest
            .iter()
            .map(|op| PackedOps::pack(std::slice::from_ref(op)).byte_len())
            .collect();
        assert_eq!(sizes, [62, 41, 12, 25, 6]);
        assert!(sizes.iter().all(|&s| s <= std::mem::size_of::<Op>()));
    }
}
