//! [`QueryAnswer`]: one type for the answer to any of the four spatial queries, whether
//! it came over HTTP or as a WebSocket `query_result`; the constructors of the v1.2
//! queries measured from a node ([`sphere_around`], [`nearest_around`]); and the check
//! every sphere or nearest query passes before it is sent.
//!
//! Invariants: the variant always matches the query's kind (region and sphere give
//! [`QueryAnswer::Nodes`], ray gives [`QueryAnswer::Ray`], nearest gives
//! [`QueryAnswer::Nearest`]); an answer of another shape is reported as
//! [`ClientError::UnexpectedReply`] instead of being passed on. A sphere or nearest
//! query that names neither origin (a point or `around` a node), or both, is refused
//! with [`ClientError::InvalidArgument`] before anything is sent: such a query has no
//! bincode form, and the server would refuse it as `bad_request` anyway.

use canopy_protocol::query::{
    NearestQuery, NearestResult, NodesResult, OriginError, RayResult, SphereQuery,
};
use canopy_protocol::{ALL_LAYERS, Hits, NodeId, Query};

use crate::error::{ClientError, Result};

/// A sphere query (v1.2): the nodes whose world AABB comes within `radius` of the world
/// position of `node`, read by the server at the answer's tick, over every layer. The
/// node itself is among the answers when its box contains its origin. A node that does
/// not exist is `404 unknown_node`. For a sphere around a point use
/// [`SphereQuery::at`].
pub fn sphere_around(node: NodeId, radius: f32) -> SphereQuery {
    SphereQuery {
        center: None,
        around: Some(node),
        radius,
        mask: ALL_LAYERS,
    }
}

/// A nearest query (v1.2): the `k` nodes whose world AABB is nearest to the world
/// position of `node` (the node itself included, at distance 0 when its box contains
/// its origin), over every layer, unbounded. For a point use [`NearestQuery::at`].
pub fn nearest_around(node: NodeId, k: u32) -> NearestQuery {
    NearestQuery {
        point: None,
        around: Some(node),
        k,
        max_dist: None,
        mask: ALL_LAYERS,
    }
}

/// Checks what the client can see before sending a query: a sphere or nearest query
/// names exactly one origin.
pub(crate) fn check(query: &Query) -> Result<()> {
    let origin = match query {
        Query::Sphere(q) => q.origin().map(drop),
        Query::Nearest(q) => q.origin().map(drop),
        Query::Region(_) | Query::Ray(_) => Ok(()),
    };
    origin.map_err(|e| no_origin(query.kind(), e))
}

/// The error of a `kind` query whose origin is missing or given twice.
pub(crate) fn no_origin(kind: &str, e: OriginError) -> ClientError {
    ClientError::InvalidArgument(format!("{kind} query: {e}"))
}

/// The answer to a spatial query, against the state of one tick.
#[derive(Clone, Debug, PartialEq)]
pub enum QueryAnswer {
    /// Region and sphere queries: node ids, ascending.
    Nodes(NodesResult),
    /// Ray queries: hits sorted by `t`, then id.
    Ray(RayResult),
    /// Nearest queries: hits sorted by distance, then id.
    Nearest(NearestResult),
}

/// Which answer shape a query expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AnswerKind {
    Nodes,
    Ray,
    Nearest,
}

impl AnswerKind {
    pub(crate) fn of(query: &Query) -> Self {
        match query {
            Query::Region(_) | Query::Sphere(_) => AnswerKind::Nodes,
            Query::Ray(_) => AnswerKind::Ray,
            Query::Nearest(_) => AnswerKind::Nearest,
        }
    }
}

impl QueryAnswer {
    /// The tick whose state the query answered.
    pub fn tick(&self) -> u64 {
        match self {
            QueryAnswer::Nodes(r) => r.tick,
            QueryAnswer::Ray(r) => r.tick,
            QueryAnswer::Nearest(r) => r.tick,
        }
    }

    /// The node ids of the answer in its order (ascending ids, or hit order).
    pub fn node_ids(&self) -> Vec<NodeId> {
        match self {
            QueryAnswer::Nodes(r) => r.nodes.clone(),
            QueryAnswer::Ray(r) => r.hits.iter().map(|h| h.node).collect(),
            QueryAnswer::Nearest(r) => r.hits.iter().map(|h| h.node).collect(),
        }
    }

    /// Builds the answer from a WebSocket `query_result`, checking it has the shape the
    /// query asked for.
    pub(crate) fn from_ws(
        kind: AnswerKind,
        tick: u64,
        nodes: Option<Vec<NodeId>>,
        hits: Option<Hits>,
    ) -> Result<Self> {
        match (kind, nodes, hits) {
            (AnswerKind::Nodes, Some(nodes), None) => {
                Ok(QueryAnswer::Nodes(NodesResult { tick, nodes }))
            }
            (AnswerKind::Ray, None, Some(Hits::Ray(hits))) => {
                Ok(QueryAnswer::Ray(RayResult { tick, hits }))
            }
            // An empty hit list cannot say in JSON whether it was a ray or a nearest
            // answer (the untagged enum picks the first variant), so accept either.
            (AnswerKind::Ray, None, Some(Hits::Nearest(h))) if h.is_empty() => {
                Ok(QueryAnswer::Ray(RayResult { tick, hits: vec![] }))
            }
            (AnswerKind::Nearest, None, Some(Hits::Nearest(hits))) => {
                Ok(QueryAnswer::Nearest(NearestResult { tick, hits }))
            }
            (AnswerKind::Nearest, None, Some(Hits::Ray(h))) if h.is_empty() => {
                Ok(QueryAnswer::Nearest(NearestResult { tick, hits: vec![] }))
            }
            (kind, nodes, hits) => Err(ClientError::UnexpectedReply(format!(
                "a {kind:?} query was answered with nodes {nodes:?} and hits {hits:?}"
            ))),
        }
    }

    /// The region or sphere answer, or [`ClientError::UnexpectedReply`].
    pub fn into_nodes(self) -> Result<NodesResult> {
        match self {
            QueryAnswer::Nodes(r) => Ok(r),
            other => Err(unexpected("nodes", &other)),
        }
    }

    /// The ray answer, or [`ClientError::UnexpectedReply`].
    pub fn into_ray(self) -> Result<RayResult> {
        match self {
            QueryAnswer::Ray(r) => Ok(r),
            other => Err(unexpected("ray hits", &other)),
        }
    }

    /// The nearest answer, or [`ClientError::UnexpectedReply`].
    pub fn into_nearest(self) -> Result<NearestResult> {
        match self {
            QueryAnswer::Nearest(r) => Ok(r),
            other => Err(unexpected("nearest hits", &other)),
        }
    }
}

fn unexpected(wanted: &str, got: &QueryAnswer) -> ClientError {
    ClientError::UnexpectedReply(format!("expected {wanted}, got {got:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_protocol::{NearestHit, RayHit};

    #[test]
    fn shapes_must_match_the_query() {
        let ok = QueryAnswer::from_ws(AnswerKind::Nodes, 3, Some(vec![1, 2]), None).unwrap();
        assert_eq!(ok.tick(), 3);
        assert_eq!(ok.node_ids(), vec![1, 2]);
        let ray = Hits::Ray(vec![RayHit { node: 4, t: 1.0 }]);
        assert!(QueryAnswer::from_ws(AnswerKind::Nearest, 3, None, Some(ray.clone())).is_err());
        assert!(QueryAnswer::from_ws(AnswerKind::Ray, 3, None, Some(ray)).is_ok());
        let near = Hits::Nearest(vec![NearestHit { node: 4, dist: 1.0 }]);
        assert!(QueryAnswer::from_ws(AnswerKind::Nearest, 3, None, Some(near)).is_ok());
        assert!(QueryAnswer::from_ws(AnswerKind::Nodes, 3, None, None).is_err());
    }

    #[test]
    fn sphere_and_nearest_queries_need_exactly_one_origin() {
        assert!(check(&Query::Sphere(sphere_around(3, 1.0))).is_ok());
        assert!(check(&Query::Nearest(nearest_around(3, 2))).is_ok());
        assert!(check(&Query::Sphere(SphereQuery::at([0.0; 3], 1.0))).is_ok());
        let both = SphereQuery {
            center: Some([0.0; 3]),
            ..sphere_around(3, 1.0)
        };
        let neither = NearestQuery {
            around: None,
            ..nearest_around(3, 2)
        };
        for bad in [Query::Sphere(both), Query::Nearest(neither)] {
            assert!(
                matches!(check(&bad), Err(ClientError::InvalidArgument(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn empty_hits_fit_either_kind() {
        let empty = Hits::Ray(vec![]);
        let a = QueryAnswer::from_ws(AnswerKind::Nearest, 1, None, Some(empty)).unwrap();
        assert_eq!(a.into_nearest().unwrap().hits, vec![]);
    }
}
