//! The soak's invalid batches: each one sets a leaf's scale to [`POISON_SCALE`] and then
//! breaks the contract in one of four ways (an unknown node, a NaN, a cycle, a
//! duplicate id), so the server must refuse the whole batch with the matching code.
//!
//! Invariant: no valid batch ever carries [`POISON_SCALE`] (editors write scales just
//! above 1) and the harness's world has unit scales above the leaves, so a subscriber
//! that ever sees a world scale of exactly [`POISON_SCALE`] has seen an invalid batch
//! applied, which the subscribers count as an error.

use std::sync::Arc;

use canopy_client::{ClientError, Connection};
use canopy_protocol::{ErrorCode, NodeId, Op, Transform};

use crate::observe::errors::ErrorTally;

/// The scale only invalid batches write.
pub(crate) const POISON_SCALE: f32 = 7.0;

/// The ways an invalid batch breaks the contract, used in turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Invalid {
    UnknownNode,
    NotANumber,
    Cycle,
    DuplicateId,
}

impl Invalid {
    pub(crate) const ALL: [Invalid; 4] = [
        Invalid::UnknownNode,
        Invalid::NotANumber,
        Invalid::Cycle,
        Invalid::DuplicateId,
    ];
}

/// What an editor needs to build invalid batches.
#[derive(Clone, Copy, Debug)]
pub(crate) struct InvalidPlan {
    /// An interior node and one of its descendants: parenting the first under the
    /// second is a cycle. `None` when the world is flat.
    pub cycle: Option<(NodeId, NodeId)>,
    /// Whether NaN can travel: bincode carries it, JSON cannot, so in JSON the
    /// "bad number" is a negative scale instead (the same `invalid_value`).
    pub nan_on_wire: bool,
}

/// The batch for `kind` on `leaf` and the error code the server must answer with.
pub(crate) fn batch(kind: Invalid, leaf: NodeId, plan: &InvalidPlan) -> (Vec<Op>, ErrorCode) {
    let poison = Op::SetLocal {
        node: leaf,
        t: None,
        r: None,
        s: Some(POISON_SCALE),
    };
    let (bad, code) = match (kind, plan.cycle) {
        (Invalid::Cycle, Some((ancestor, descendant))) => (
            Op::SetParent {
                node: ancestor,
                parent: Some(descendant),
            },
            ErrorCode::Cycle,
        ),
        (Invalid::NotANumber, _) => (
            Op::SetLocal {
                node: leaf,
                t: plan.nan_on_wire.then_some([f32::NAN, 0.0, 0.0]),
                r: None,
                s: (!plan.nan_on_wire).then_some(-1.0),
            },
            ErrorCode::InvalidValue,
        ),
        (Invalid::DuplicateId, _) => (
            Op::Add {
                id: Some(leaf),
                parent: None,
                local: Transform::default(),
                extent: [0.0; 3],
                mask: u32::MAX,
            },
            ErrorCode::DuplicateId,
        ),
        // A flat world has no cycle to make: an unknown node instead.
        (Invalid::UnknownNode | Invalid::Cycle, _) => (
            Op::SetLocal {
                node: NodeId::MAX,
                t: None,
                r: None,
                s: Some(1.0),
            },
            ErrorCode::UnknownNode,
        ),
    };
    (vec![poison, bad], code)
}

/// An editor's invalid batches: how often, how to build them, where they are counted.
#[derive(Clone, Debug)]
pub(crate) struct InvalidEdits {
    /// Per editor tick, the chance of an invalid batch besides the valid one.
    pub share: f64,
    pub plan: InvalidPlan,
    /// Refusals with the expected code, by code.
    pub expected: Arc<ErrorTally>,
}

/// Sends one invalid batch and counts its answer: the expected code is expected, an
/// ack or any other answer is an error of the run.
pub(crate) async fn send(
    conn: Connection,
    ops: Vec<Op>,
    want: ErrorCode,
    inv: InvalidEdits,
    errors: Arc<ErrorTally>,
) {
    match conn.edit(ops).await {
        Ok(_) => errors.record("invalid_batch_accepted"),
        Err(ClientError::Api { code, op, .. }) if code == want => {
            inv.expected
                .record(&format!("invalid_batch_{}", code.as_str()));
            if op != Some(1) {
                // The error must name the first bad op, which is the batch's second.
                errors.record("invalid_batch_wrong_op_index");
            }
        }
        Err(e) => errors.record_client("invalid batch", &e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_batch_poisons_first_and_names_its_code() {
        let plan = InvalidPlan {
            cycle: Some((1, 9)),
            nan_on_wire: true,
        };
        for kind in Invalid::ALL {
            let (ops, _) = batch(kind, 5, &plan);
            assert_eq!(ops.len(), 2);
            assert!(matches!(
                ops[0],
                Op::SetLocal {
                    node: 5,
                    s: Some(POISON_SCALE),
                    ..
                }
            ));
        }
        assert_eq!(batch(Invalid::Cycle, 5, &plan).1, ErrorCode::Cycle);
        let flat = InvalidPlan {
            cycle: None,
            nan_on_wire: false,
        };
        assert_eq!(batch(Invalid::Cycle, 5, &flat).1, ErrorCode::UnknownNode);
        assert_eq!(
            batch(Invalid::NotANumber, 5, &flat).1,
            ErrorCode::InvalidValue
        );
    }
}
