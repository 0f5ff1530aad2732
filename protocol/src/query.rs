//! Spatial queries (region, sphere, ray, nearest) and their answers, shared by the HTTP
//! routes and the WebSocket `query` message.

use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};

use crate::model::{NodeId, all_layers};

/// Nodes whose world AABB intersects the closed box `[min, max]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RegionQuery {
    /// The box's low corner; above `max` on any axis answers `invalid_value`.
    #[cfg_attr(feature = "openapi", schema(min_items = 3, max_items = 3))]
    pub min: [f32; 3],
    /// The box's high corner (the box is closed: touching it counts).
    #[cfg_attr(feature = "openapi", schema(min_items = 3, max_items = 3))]
    pub max: [f32; 3],
    /// Only nodes with `node.mask & mask != 0` take part; all 32 bits by default.
    #[serde(default = "all_layers")]
    pub mask: u32,
}

/// Nodes whose world AABB is within `radius` of `center`, or (v1.2) of the world
/// position of the node `around`: exactly one of the two is given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SphereQuery {
    /// The sphere's centre, world units (absent when `around` is given).
    #[cfg_attr(feature = "openapi", schema(min_items = 3, max_items = 3))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub center: Option<[f32; 3]>,
    /// (v1.2) The node whose world position is the centre, read at the answer's tick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub around: Option<NodeId>,
    /// At least 0 (a negative radius answers `invalid_value`; `-0.0` is 0).
    #[cfg_attr(feature = "openapi", schema(minimum = 0))]
    #[serde(deserialize_with = "f32_negative_stays_negative")]
    pub radius: f32,
    /// Only nodes with `node.mask & mask != 0` take part; all 32 bits by default.
    #[serde(default = "all_layers")]
    pub mask: u32,
}

/// The first (or every) node whose world box the ray enters at `0 <= t <= max_t`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RayQuery {
    /// Where the ray starts; a node containing it is hit at `t = 0`.
    #[cfg_attr(feature = "openapi", schema(min_items = 3, max_items = 3))]
    pub origin: [f32; 3],
    /// The ray's direction: any finite non-zero vector, normalized by the server.
    #[cfg_attr(feature = "openapi", schema(min_items = 3, max_items = 3))]
    pub dir: [f32; 3],
    /// The farthest distance along the ray that counts; absent: no bound (a negative
    /// value finds nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_t: Option<f32>,
    /// Only nodes with `node.mask & mask != 0` take part; all 32 bits by default.
    #[serde(default = "all_layers")]
    pub mask: u32,
    /// Return every hit (sorted by `t`, then id) instead of only the nearest; false by
    /// default.
    #[serde(default)]
    pub all: bool,
}

/// The `k` nodes nearest to `point` (distance to their world AABB), or (v1.2) to the
/// world position of the node `around`: exactly one of the two is given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NearestQuery {
    /// The point to measure from; a node whose world AABB contains it is at distance 0
    /// (absent when `around` is given).
    #[cfg_attr(feature = "openapi", schema(min_items = 3, max_items = 3))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point: Option<[f32; 3]>,
    /// (v1.2) The node whose world position is the point, read at the answer's tick.
    /// The node itself is among the answers like any other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub around: Option<NodeId>,
    /// At least 1 (a `k` of 0 answers `invalid_value`).
    #[cfg_attr(feature = "openapi", schema(minimum = 1))]
    pub k: u32,
    /// The farthest distance that counts; absent: no bound (a negative value finds
    /// nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_dist: Option<f32>,
    /// Only nodes with `node.mask & mask != 0` take part; all 32 bits by default.
    #[serde(default = "all_layers")]
    pub mask: u32,
}

/// Where a sphere or nearest query measures from: a point, or (v1.2) a node's world
/// position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Origin {
    /// A point in world units.
    Point([f32; 3]),
    /// The world position of this node, at the answer's tick.
    Around(NodeId),
}

/// Why a sphere or nearest query names no origin, or two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OriginError {
    /// Neither the point nor `around` was given.
    #[error("give `{0}` or `around`")]
    Missing(&'static str),
    /// Both were given.
    #[error("give `{0}` or `around`, not both")]
    Both(&'static str),
}

fn origin(
    point: Option<[f32; 3]>,
    around: Option<NodeId>,
    name: &'static str,
) -> Result<Origin, OriginError> {
    match (point, around) {
        (Some(p), None) => Ok(Origin::Point(p)),
        (None, Some(id)) => Ok(Origin::Around(id)),
        (None, None) => Err(OriginError::Missing(name)),
        (Some(_), Some(_)) => Err(OriginError::Both(name)),
    }
}

impl SphereQuery {
    /// A sphere of `radius` around a point, over every layer.
    pub fn at(center: [f32; 3], radius: f32) -> SphereQuery {
        SphereQuery {
            center: Some(center),
            around: None,
            radius,
            mask: crate::model::ALL_LAYERS,
        }
    }

    /// Where the sphere is centred.
    pub fn origin(&self) -> Result<Origin, OriginError> {
        origin(self.center, self.around, "center")
    }
}

impl NearestQuery {
    /// The `k` nearest to a point, over every layer, unbounded.
    pub fn at(point: [f32; 3], k: u32) -> NearestQuery {
        NearestQuery {
            point: Some(point),
            around: None,
            k,
            max_dist: None,
            mask: crate::model::ALL_LAYERS,
        }
    }

    /// Where distances are measured from.
    pub fn origin(&self) -> Result<Origin, OriginError> {
        origin(self.point, self.around, "point")
    }
}

/// A query of any kind, tagged by `"kind"` in JSON (the WebSocket `query` message).
///
/// Its bincode form is written by hand (`query_bincode.rs`): a sphere or nearest query
/// with a point keeps the v1.1 layout (variants 1 and 3); one `around` a node is
/// variant 4 or 5.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Query {
    /// `"kind":"region"`: nodes meeting a box; answered with `nodes`.
    Region(RegionQuery),
    /// `"kind":"sphere"`: nodes within a distance of a point; answered with `nodes`.
    Sphere(SphereQuery),
    /// `"kind":"ray"`: nodes a ray enters; answered with ray `hits`.
    Ray(RayQuery),
    /// `"kind":"nearest"`: the `k` nearest nodes; answered with nearest `hits`.
    Nearest(NearestQuery),
}

impl Query {
    /// The `kind` tag of this query, for messages and metrics.
    pub fn kind(&self) -> &'static str {
        match self {
            Query::Region(_) => "region",
            Query::Sphere(_) => "sphere",
            Query::Ray(_) => "ray",
            Query::Nearest(_) => "nearest",
        }
    }
}

/// One ray hit: the node and the distance along the (normalized) ray where it enters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RayHit {
    /// The node hit.
    pub node: NodeId,
    /// Distance from the origin to where the ray enters the node's world box; 0 inside.
    pub t: f32,
}

/// One nearest-neighbour hit: the node and its distance from the query point.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NearestHit {
    /// The node found.
    pub node: NodeId,
    /// Distance from the query point to the node's world AABB; 0 inside.
    pub dist: f32,
}

/// The `hits` of a ray or nearest answer. In JSON the two are told apart by their
/// fields (`t` or `dist`); in bincode by the variant index.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[serde(untagged)]
pub enum Hits {
    /// Ray hits, sorted by `t`, then id (bincode variant 0).
    Ray(Vec<RayHit>),
    /// Nearest hits, sorted by `dist`, then id (bincode variant 1).
    Nearest(Vec<NearestHit>),
}

/// `{"tick":N,"nodes":[ids ascending]}`: the HTTP answer to region and sphere queries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NodesResult {
    /// The tick whose state the query was answered against.
    pub tick: u64,
    /// The matching node ids, ascending.
    pub nodes: Vec<NodeId>,
}

/// `{"tick":N,"hits":[{"node","t"}]}`: the HTTP answer to ray queries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RayResult {
    /// The tick whose state the query was answered against.
    pub tick: u64,
    /// The hits, sorted by `t`, then id; only the nearest unless the query set `all`.
    pub hits: Vec<RayHit>,
}

/// `{"tick":N,"hits":[{"node","dist"}]}`: the HTTP answer to nearest queries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NearestResult {
    /// The tick whose state the query was answered against.
    pub tick: u64,
    /// At most `k` hits, sorted by distance, then id.
    pub hits: Vec<NearestHit>,
}

/// An `f32` read from JSON, where a negative number too small for `f32` (such as
/// `-8.5e-76`) reads as the smallest negative `f32` rather than as `-0.0`: the client
/// sent a negative number, which a check for `< 0` must still see, while a `-0` the client
/// sent stays zero, which is not negative.
fn f32_negative_stays_negative<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
    let wide = f64::deserialize(d)?;
    let narrow = wide as f32;
    Ok(if narrow == 0.0 && wide < 0.0 {
        -f32::from_bits(1)
    } else {
        narrow
    })
}
