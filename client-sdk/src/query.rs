//! [`QueryAnswer`]: one type for the answer to any of the four spatial queries, whether
//! it came over HTTP or as a WebSocket `query_result`.
//!
//! Invariant: the variant always matches the query's kind (region and sphere give
//! [`QueryAnswer::Nodes`], ray gives [`QueryAnswer::Ray`], nearest gives
//! [`QueryAnswer::Nearest`]); an answer of another shape is reported as
//! [`ClientError::UnexpectedReply`] instead of being passed on.

use canopy_protocol::query::{NearestResult, NodesResult, RayResult};
use canopy_protocol::{Hits, NodeId, Query};

use crate::error::{ClientError, Result};

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
    fn empty_hits_fit_either_kind() {
        let empty = Hits::Ray(vec![]);
        let a = QueryAnswer::from_ws(AnswerKind::Nearest, 1, None, Some(empty)).unwrap();
        assert_eq!(a.into_nearest().unwrap().hits, vec![]);
    }
}
