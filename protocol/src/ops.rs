//! Edit batches: an ordered list of ops that a room applies atomically at its next tick.
//!
//! These types only carry what the client sent; checking an op against a room's state
//! (unknown ids, cycles, non-finite numbers) is the server's scene core's job, so that
//! the rules live in one place.

use bincode::Encode;
use serde::{Deserialize, Deserializer, Serialize};

use crate::model::{ALL_LAYERS, NodeId, Transform, all_layers};

/// One op of a batch, tagged by `"op"` in JSON. (Its bincode `Decode` is written out in
/// `op_index.rs`, so that a failed decode names the op.)
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Op {
    /// A new node; without `id` the server assigns one.
    Add {
        /// The new node's id, never used before in the room; absent: the server picks one.
        #[serde(default)]
        id: Option<NodeId>,
        /// An existing node to attach it under; absent or `null`: a root.
        #[serde(default)]
        parent: Option<NodeId>,
        /// The transform relative to the parent; omitted parts take the identity's values.
        #[serde(default)]
        local: Transform,
        /// Half-sizes of the node's box, each at least 0; `[0, 0, 0]` (a point) by default.
        #[serde(default)]
        #[cfg_attr(feature = "openapi", schema(min_items = 3, max_items = 3))]
        extent: [f32; 3],
        /// Layer bits; all 32 set by default.
        #[serde(default = "all_layers")]
        mask: u32,
    },
    /// Replaces the given parts of the local transform.
    SetLocal {
        /// The node this op acts on; must exist.
        node: NodeId,
        /// New local translation; absent: unchanged.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "openapi", schema(min_items = 3, max_items = 3))]
        t: Option<[f32; 3]>,
        /// New local rotation `[x, y, z, w]` (normalized by the server; length at least
        /// 1e-6); absent: unchanged.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "openapi", schema(min_items = 4, max_items = 4))]
        r: Option<[f32; 4]>,
        /// New local uniform scale, greater than 0; absent: unchanged.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        s: Option<f32>,
    },
    /// Moves the node with its subtree under `parent` (`null`: make it a root), keeping
    /// its local transform. `parent` must be present, even when `null`.
    SetParent {
        /// The node to move; must exist.
        node: NodeId,
        /// The new parent, which must exist and not be in `node`'s subtree; `null`: a root.
        #[serde(deserialize_with = "present_nullable")]
        #[cfg_attr(feature = "openapi", schema(required = true))]
        parent: Option<NodeId>,
    },
    /// Changes the box or the layers.
    SetShape {
        /// The node this op acts on; must exist.
        node: NodeId,
        /// New half-sizes, each at least 0; absent: unchanged.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "openapi", schema(min_items = 3, max_items = 3))]
        extent: Option<[f32; 3]>,
        /// New layer bits; absent: unchanged.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mask: Option<u32>,
    },
    /// Removes the node and its whole subtree.
    Remove {
        /// The node to remove (with its subtree); must exist.
        node: NodeId,
    },
}

/// Constructors, in the manner of bevy's `Transform::from_xyz`: an op in one call, and
/// the rarely set fields of an `add` by `with_*`.
impl Op {
    /// An `add` of node `id` (`None`: server-assigned) under `parent` (`None`: a root),
    /// with no extent and every layer.
    pub const fn add(id: Option<NodeId>, parent: Option<NodeId>, local: Transform) -> Op {
        Op::Add {
            id,
            parent,
            local,
            extent: [0.0; 3],
            mask: ALL_LAYERS,
        }
    }

    /// An `add` of the root `id` (see [`Op::add`]).
    pub const fn add_root(id: NodeId, local: Transform) -> Op {
        Op::add(Some(id), None, local)
    }

    /// An `add` of node `id` under `parent` (see [`Op::add`]).
    pub const fn add_child(id: NodeId, parent: NodeId, local: Transform) -> Op {
        Op::add(Some(id), Some(parent), local)
    }

    /// This `add` with half-extents `extent`.
    ///
    /// # Panics
    /// On any op but `add`.
    pub fn with_extent(mut self, extent: [f32; 3]) -> Op {
        match &mut self {
            Op::Add { extent: e, .. } => *e = extent,
            other => panic!("with_extent on a {} op", other.name()),
        }
        self
    }

    /// This `add` on the layers of `mask`.
    ///
    /// # Panics
    /// On any op but `add`.
    pub fn with_mask(mut self, mask: u32) -> Op {
        match &mut self {
            Op::Add { mask: m, .. } => *m = mask,
            other => panic!("with_mask on a {} op", other.name()),
        }
        self
    }

    /// A `set_local` of the given parts.
    pub const fn set_local(
        node: NodeId,
        t: Option<[f32; 3]>,
        r: Option<[f32; 4]>,
        s: Option<f32>,
    ) -> Op {
        Op::SetLocal { node, t, r, s }
    }

    /// A `set_local` of the translation only.
    pub const fn set_t(node: NodeId, t: [f32; 3]) -> Op {
        Op::set_local(node, Some(t), None, None)
    }

    /// A `set_parent` (`None`: make the node a root).
    pub const fn set_parent(node: NodeId, parent: Option<NodeId>) -> Op {
        Op::SetParent { node, parent }
    }

    /// A `set_shape` of the given parts.
    pub const fn set_shape(node: NodeId, extent: Option<[f32; 3]>, mask: Option<u32>) -> Op {
        Op::SetShape { node, extent, mask }
    }

    /// A `remove` of the node and its subtree.
    pub const fn remove(node: NodeId) -> Op {
        Op::Remove { node }
    }
}

impl Op {
    /// The `"op"` tag of this op, for messages and metrics.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Add { .. } => "add",
            Op::SetLocal { .. } => "set_local",
            Op::SetParent { .. } => "set_parent",
            Op::SetShape { .. } => "set_shape",
            Op::Remove { .. } => "remove",
        }
    }
}

/// Deserializes a field that must be present but may be `null`: with
/// `deserialize_with` and no `default`, serde reports a missing field.
fn present_nullable<'de, D: Deserializer<'de>>(d: D) -> Result<Option<NodeId>, D::Error> {
    Option::<NodeId>::deserialize(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Batch;

    #[test]
    fn add_defaults_fill_in() {
        let b: Batch =
            serde_json::from_str(r#"{"ops":[{"op":"add","local":{"t":[1,2,3]}}]}"#).unwrap();
        assert_eq!(
            b.ops[0],
            Op::Add {
                id: None,
                parent: None,
                local: Transform {
                    t: [1.0, 2.0, 3.0],
                    ..Transform::IDENTITY
                },
                extent: [0.0; 3],
                mask: u32::MAX,
            }
        );
    }

    #[test]
    fn set_parent_requires_parent_but_accepts_null() {
        assert!(serde_json::from_str::<Op>(r#"{"op":"set_parent","node":1}"#).is_err());
        let op: Op = serde_json::from_str(r#"{"op":"set_parent","node":1,"parent":null}"#).unwrap();
        assert_eq!(
            op,
            Op::SetParent {
                node: 1,
                parent: None
            }
        );
    }

    #[test]
    fn constructors_fill_in_the_defaults() {
        assert_eq!(
            Op::add_child(2, 1, Transform::from_xyz(1.0, 2.0, 3.0)).with_mask(4),
            Op::Add {
                id: Some(2),
                parent: Some(1),
                local: Transform {
                    t: [1.0, 2.0, 3.0],
                    ..Transform::IDENTITY
                },
                extent: [0.0; 3],
                mask: 4,
            }
        );
        assert_eq!(
            Op::add(None, None, Transform::IDENTITY),
            serde_json::from_str(r#"{"op":"add"}"#).unwrap()
        );
        assert_eq!(
            Op::set_t(3, [1.0; 3]),
            Op::SetLocal {
                node: 3,
                t: Some([1.0; 3]),
                r: None,
                s: None
            }
        );
    }

    #[test]
    fn unknown_op_is_an_error() {
        assert!(serde_json::from_str::<Op>(r#"{"op":"explode","node":1}"#).is_err());
    }

    #[test]
    fn huge_f32_becomes_infinite_for_the_validator() {
        let op: Op = serde_json::from_str(r#"{"op":"set_local","node":1,"s":1e39}"#).unwrap();
        match op {
            Op::SetLocal { s: Some(s), .. } => assert!(s.is_infinite()),
            _ => panic!(),
        }
    }
}
