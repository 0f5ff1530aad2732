//! The data model of a room as it travels on the wire: transforms, nodes and the compact
//! rows of a delta's `update` list.
//!
//! Geometry is always `f32` and ids and masks `u32`, as the contract fixes; the types are
//! plain arrays so that this crate needs no math library. Every fixed-size array field
//! (here and in the other modules) states its length in the OpenAPI schema
//! (`min_items`/`max_items`): utoipa writes a bare array otherwise, and schema-driven
//! clients and test generators would send lengths that the server refuses.

use bincode::{Decode, Encode};
use serde::de::{self, SeqAccess, Visitor};
use serde::ser::SerializeTuple;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A node id: any `u32`, never reused within a room's life.
pub type NodeId = u32;

/// The mask that passes every layer; the default of node and query masks.
pub const ALL_LAYERS: u32 = u32::MAX;

pub(crate) fn all_layers() -> u32 {
    ALL_LAYERS
}

fn zero3() -> [f32; 3] {
    [0.0; 3]
}

fn identity_quat() -> [f32; 4] {
    [0.0, 0.0, 0.0, 1.0]
}

fn one() -> f32 {
    1.0
}

/// Translation, rotation (unit quaternion, x,y,z,w) and uniform scale. Used for both the
/// local transform of a node and its world transform; omitted JSON fields take the
/// identity's values.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Transform {
    /// Translation `[x, y, z]`; `[0, 0, 0]` when omitted in JSON.
    #[serde(default = "zero3")]
    #[cfg_attr(feature = "openapi", schema(min_items = 3, max_items = 3))]
    pub t: [f32; 3],
    /// Rotation as a unit quaternion `[x, y, z, w]`; `[0, 0, 0, 1]` when omitted in JSON.
    #[serde(default = "identity_quat")]
    #[cfg_attr(feature = "openapi", schema(min_items = 4, max_items = 4))]
    pub r: [f32; 4],
    /// Uniform scale, greater than 0; 1 when omitted in JSON.
    #[serde(default = "one")]
    pub s: f32,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
    /// The identity transform.
    pub const IDENTITY: Transform = Transform {
        t: [0.0; 3],
        r: [0.0, 0.0, 0.0, 1.0],
        s: 1.0,
    };

    /// A translation by `t` (no rotation, scale 1).
    pub const fn from_t(t: [f32; 3]) -> Transform {
        Transform {
            t,
            ..Transform::IDENTITY
        }
    }

    /// A translation by `(x, y, z)`, as bevy's `Transform::from_xyz`.
    pub const fn from_xyz(x: f32, y: f32, z: f32) -> Transform {
        Transform::from_t([x, y, z])
    }

    /// This transform with rotation `r` (x, y, z, w).
    pub const fn with_r(self, r: [f32; 4]) -> Transform {
        Transform { r, ..self }
    }

    /// This transform with scale `s`.
    pub const fn with_s(self, s: f32) -> Transform {
        Transform { s, ..self }
    }
}

/// A node as snapshots, reads of the whole room and `upsert` lists carry it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Node {
    /// The node's id, unique in its room for the room's life.
    pub id: NodeId,
    /// The parent's id, or `null` for a root.
    pub parent: Option<NodeId>,
    /// The world transform (composed down the hierarchy), not the local one.
    pub world: Transform,
    /// Half-sizes `[hx, hy, hz]` (each at least 0) of the node's box, centred on its
    /// origin in its own frame; `[0, 0, 0]` is a point.
    #[cfg_attr(feature = "openapi", schema(min_items = 3, max_items = 3))]
    pub extent: [f32; 3],
    /// Layer bits: a query or subscription with mask `m` sees the node when `mask & m != 0`.
    pub mask: u32,
}

impl Node {
    /// A root node `id` whose world transform is a translation by `t`, with no extent and
    /// every layer: the usual fixture of tests and examples.
    pub const fn at(id: NodeId, t: [f32; 3]) -> Node {
        Node {
            id,
            parent: None,
            world: Transform::from_t(t),
            extent: [0.0; 3],
            mask: ALL_LAYERS,
        }
    }

    /// This node with parent `parent` (`None`: a root).
    pub const fn with_parent(self, parent: Option<NodeId>) -> Node {
        Node { parent, ..self }
    }

    /// This node with world transform `world`.
    pub const fn with_world(self, world: Transform) -> Node {
        Node { world, ..self }
    }

    /// This node with half-extents `extent`.
    pub const fn with_extent(self, extent: [f32; 3]) -> Node {
        Node { extent, ..self }
    }

    /// This node on the layers of `mask`.
    pub const fn with_mask(self, mask: u32) -> Node {
        Node { mask, ..self }
    }
}

/// One row of a delta's `update` list: a node whose world transform changed. On the wire
/// in JSON it is the 9-element array `[id,tx,ty,tz,rx,ry,rz,rw,s]`.
#[derive(Clone, Copy, Debug, PartialEq, Encode, Decode)]
pub struct UpdateRow {
    /// The in-scope node whose world transform changed.
    pub id: NodeId,
    /// Its new world transform.
    pub world: Transform,
}

impl Serialize for UpdateRow {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut tup = serializer.serialize_tuple(9)?;
        tup.serialize_element(&self.id)?;
        for v in self.world.t {
            tup.serialize_element(&v)?;
        }
        for v in self.world.r {
            tup.serialize_element(&v)?;
        }
        tup.serialize_element(&self.world.s)?;
        tup.end()
    }
}

impl<'de> Deserialize<'de> for UpdateRow {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RowVisitor;
        impl<'de> Visitor<'de> for RowVisitor {
            type Value = UpdateRow;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array [id,tx,ty,tz,rx,ry,rz,rw,s]")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<UpdateRow, A::Error> {
                let id: u32 = seq
                    .next_element()?
                    .ok_or_else(|| de::Error::invalid_length(0, &self))?;
                let mut v = [0f32; 8];
                for (i, slot) in v.iter_mut().enumerate() {
                    *slot = seq
                        .next_element()?
                        .ok_or_else(|| de::Error::invalid_length(i + 1, &self))?;
                }
                if seq.next_element::<de::IgnoredAny>()?.is_some() {
                    return Err(de::Error::invalid_length(10, &self));
                }
                Ok(UpdateRow {
                    id,
                    world: Transform {
                        t: [v[0], v[1], v[2]],
                        r: [v[3], v[4], v[5], v[6]],
                        s: v[7],
                    },
                })
            }
        }
        deserializer.deserialize_tuple(9, RowVisitor)
    }
}

#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for UpdateRow {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ArrayBuilder::new()
            .items(utoipa::openapi::schema::ObjectBuilder::new().schema_type(
                utoipa::openapi::schema::SchemaType::Type(utoipa::openapi::schema::Type::Number),
            ))
            .min_items(Some(9))
            .max_items(Some(9))
            .description(Some("[id,tx,ty,tz,rx,ry,rz,rw,s]"))
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for UpdateRow {}
