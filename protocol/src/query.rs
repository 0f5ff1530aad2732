//! Spatial queries (region, sphere, ray, nearest) and their answers, shared by the HTTP
//! routes and the WebSocket `query` message.

use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};

use crate::model::{NodeId, all_layers};

/// Nodes whose world AABB intersects the closed box `[min, max]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RegionQuery {
    #[cfg_attr(feature = "openapi", schema(min_items = 3, max_items = 3))]
    pub min: [f32; 3],
    #[cfg_attr(feature = "openapi", schema(min_items = 3, max_items = 3))]
    pub max: [f32; 3],
    #[serde(default = "all_layers")]
    pub mask: u32,
}

/// Nodes whose world AABB is within `radius` of `center`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SphereQuery {
    #[cfg_attr(feature = "openapi", schema(min_items = 3, max_items = 3))]
    pub center: [f32; 3],
    /// At least 0 (a negative radius answers `invalid_value`).
    #[cfg_attr(feature = "openapi", schema(minimum = 0))]
    pub radius: f32,
    #[serde(default = "all_layers")]
    pub mask: u32,
}

/// The first (or every) node whose world box the ray enters at `0 <= t <= max_t`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RayQuery {
    #[cfg_attr(feature = "openapi", schema(min_items = 3, max_items = 3))]
    pub origin: [f32; 3],
    #[cfg_attr(feature = "openapi", schema(min_items = 3, max_items = 3))]
    pub dir: [f32; 3],
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_t: Option<f32>,
    #[serde(default = "all_layers")]
    pub mask: u32,
    #[serde(default)]
    pub all: bool,
}

/// The `k` nodes nearest to `point` (distance to their world AABB).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NearestQuery {
    #[cfg_attr(feature = "openapi", schema(min_items = 3, max_items = 3))]
    pub point: [f32; 3],
    /// At least 1 (a `k` of 0 answers `invalid_value`).
    #[cfg_attr(feature = "openapi", schema(minimum = 1))]
    pub k: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_dist: Option<f32>,
    #[serde(default = "all_layers")]
    pub mask: u32,
}

/// A query of any kind, tagged by `"kind"` in JSON (the WebSocket `query` message).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Query {
    Region(RegionQuery),
    Sphere(SphereQuery),
    Ray(RayQuery),
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
    pub node: NodeId,
    pub t: f32,
}

/// One nearest-neighbour hit: the node and its distance from the query point.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NearestHit {
    pub node: NodeId,
    pub dist: f32,
}

/// The `hits` of a ray or nearest answer. In JSON the two are told apart by their
/// fields (`t` or `dist`); in bincode by the variant index.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[serde(untagged)]
pub enum Hits {
    Ray(Vec<RayHit>),
    Nearest(Vec<NearestHit>),
}

/// `{"tick":N,"nodes":[ids ascending]}`: the HTTP answer to region and sphere queries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NodesResult {
    pub tick: u64,
    pub nodes: Vec<NodeId>,
}

/// `{"tick":N,"hits":[{"node","t"}]}`: the HTTP answer to ray queries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RayResult {
    pub tick: u64,
    pub hits: Vec<RayHit>,
}

/// `{"tick":N,"hits":[{"node","dist"}]}`: the HTTP answer to nearest queries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NearestResult {
    pub tick: u64,
    pub hits: Vec<NearestHit>,
}
