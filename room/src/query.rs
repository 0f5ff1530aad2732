//! Spatial queries against one tick's state: validation of what the client sent, then
//! the octree's answer in the contract's sort order.
//!
//! Invariant: a query that fails validation touches nothing; every answer is computed
//! under one read of the scene, so it names exactly one tick.

use canopy_protocol::query::{NearestQuery, Origin, RayQuery, RegionQuery, SphereQuery};
use canopy_protocol::{NearestHit, NodeId, Query, RayHit};
use glam::Vec3;

use super::scene_state::SceneState;

/// The most hits a nearest query may ask for; larger `k` is refused as `too_large`.
pub const MAX_K: u32 = 100_000;

/// Why a query was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum QueryError {
    /// A non-finite number, an inverted box, a negative radius, a zero direction, `k` 0.
    #[error("{0}")]
    InvalidValue(String),
    /// A nearest query's `k` above [`MAX_K`].
    #[error("{0}")]
    TooLarge(String),
    /// A sphere or nearest query with no origin, or two (`center`/`point` and
    /// `around`).
    #[error("{0}")]
    BadRequest(String),
    /// The node a query is `around` does not exist at the answer's tick.
    #[error("no node {0} to measure around")]
    UnknownNode(NodeId),
}

impl QueryError {
    /// The contract's code for this refusal.
    pub fn code(&self) -> canopy_protocol::ErrorCode {
        match self {
            QueryError::InvalidValue(_) => canopy_protocol::ErrorCode::InvalidValue,
            QueryError::TooLarge(_) => canopy_protocol::ErrorCode::TooLarge,
            QueryError::BadRequest(_) => canopy_protocol::ErrorCode::BadRequest,
            QueryError::UnknownNode(_) => canopy_protocol::ErrorCode::UnknownNode,
        }
    }
}

/// A query's answer without its tick.
#[derive(Debug, Clone, PartialEq)]
pub enum QueryOutput {
    /// Region and sphere queries: the matching ids, ascending.
    Nodes(Vec<NodeId>),
    /// Ray queries: hits sorted by `t`, then id.
    Ray(Vec<RayHit>),
    /// Nearest queries: hits sorted by distance, then id.
    Nearest(Vec<NearestHit>),
}

impl QueryOutput {
    /// The number of ids or hits.
    pub fn len(&self) -> usize {
        match self {
            QueryOutput::Nodes(v) => v.len(),
            QueryOutput::Ray(v) => v.len(),
            QueryOutput::Nearest(v) => v.len(),
        }
    }

    /// True when the query found nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The unit direction of a ray query's `dir`, normalized in `f64` so that any finite
/// non-zero `dir` works however long or short (in `f32` its squared length overflows
/// near 1e19 and underflows near 1e-19). `None` for a zero (or non-finite) `dir`.
pub fn ray_direction(dir: [f32; 3]) -> Option<Vec3> {
    let d = glam::DVec3::new(f64::from(dir[0]), f64::from(dir[1]), f64::from(dir[2]));
    let len = d.length();
    if !(len.is_finite() && len > 0.0) {
        return None;
    }
    let unit = (d / len).as_vec3();
    unit.is_finite()
        .then_some(unit)
        .filter(|u| *u != Vec3::ZERO)
}

fn finite(name: &str, v: &[f32]) -> Result<(), QueryError> {
    if v.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(QueryError::InvalidValue(format!("{name} must be finite")))
    }
}

fn check_box(min: [f32; 3], max: [f32; 3]) -> Result<(), QueryError> {
    finite("min", &min)?;
    finite("max", &max)?;
    for axis in 0..3 {
        if min[axis] > max[axis] {
            return Err(QueryError::InvalidValue(format!(
                "min > max on axis {axis} ({} > {})",
                min[axis], max[axis]
            )));
        }
    }
    Ok(())
}

/// Checks a subscription's region: finite bounds, `min <= max` on every axis. The same
/// check as a region query's box.
pub fn check_region(r: &canopy_protocol::message::Region) -> Result<(), QueryError> {
    check_box(r.min, r.max)
}

fn check_origin(
    origin: Result<Origin, canopy_protocol::query::OriginError>,
    name: &str,
) -> Result<(), QueryError> {
    match origin.map_err(|e| QueryError::BadRequest(e.to_string()))? {
        Origin::Point(p) => finite(name, &p),
        Origin::Around(_) => Ok(()),
    }
}

/// The point an origin names at this tick: a node's world position for `around`.
fn resolve(
    scene: &SceneState,
    origin: Result<Origin, canopy_protocol::query::OriginError>,
) -> Result<Vec3, QueryError> {
    match origin.map_err(|e| QueryError::BadRequest(e.to_string()))? {
        Origin::Point(p) => Ok(Vec3::from_array(p)),
        Origin::Around(id) => scene
            .hierarchy()
            .world(id)
            .map(|w| Vec3::from_array(w.t))
            .ok_or(QueryError::UnknownNode(id)),
    }
}

/// Checks a query against the contract's rules.
pub fn validate(q: &Query) -> Result<(), QueryError> {
    match q {
        Query::Region(RegionQuery { min, max, .. }) => check_box(*min, *max),
        Query::Sphere(q @ SphereQuery { radius, .. }) => {
            check_origin(q.origin(), "center")?;
            finite("radius", &[*radius])?;
            // `-0.0` is zero, not negative (JSON Schema's `minimum: 0` agrees); a JSON
            // radius below the smallest f32 (such as -8.5e-76) reads as the smallest
            // negative f32, not as -0.0 (see `SphereQuery::radius`), so it is refused.
            if *radius < 0.0 {
                return Err(QueryError::InvalidValue(format!(
                    "radius must be >= 0, got {radius}"
                )));
            }
            Ok(())
        }
        Query::Ray(RayQuery {
            origin, dir, max_t, ..
        }) => {
            finite("origin", origin)?;
            finite("dir", dir)?;
            if let Some(m) = max_t {
                // An infinite max_t is a non-finite number like any other.
                finite("max_t", &[*m])?;
            }
            if ray_direction(*dir).is_none() {
                return Err(QueryError::InvalidValue("dir must be non-zero".into()));
            }
            Ok(())
        }
        Query::Nearest(q @ NearestQuery { k, max_dist, .. }) => {
            check_origin(q.origin(), "point")?;
            if let Some(m) = max_dist {
                finite("max_dist", &[*m])?;
            }
            if *k == 0 {
                return Err(QueryError::InvalidValue("k must be at least 1".into()));
            }
            if *k > MAX_K {
                return Err(QueryError::TooLarge(format!(
                    "k is {k}, the limit is {MAX_K}"
                )));
            }
            Ok(())
        }
    }
}

/// Answers a validated query; a query `around` a node that is gone at this tick is
/// refused as `unknown_node`.
pub fn run(scene: &SceneState, q: &Query) -> Result<QueryOutput, QueryError> {
    let tree = scene.octree();
    Ok(match q {
        Query::Region(r) => {
            let mut out = Vec::new();
            tree.region(
                Vec3::from_array(r.min),
                Vec3::from_array(r.max),
                r.mask,
                &mut out,
            );
            QueryOutput::Nodes(out)
        }
        Query::Sphere(s) => {
            let mut out = Vec::new();
            let center = resolve(scene, s.origin())?;
            tree.sphere(center, s.radius, s.mask, &mut out);
            QueryOutput::Nodes(out)
        }
        Query::Ray(r) => {
            let origin = Vec3::from_array(r.origin);
            let dir = ray_direction(r.dir).unwrap_or(Vec3::X);
            let max_t = r.max_t.unwrap_or(f32::INFINITY);
            let hits = if r.all {
                let mut out = Vec::new();
                tree.ray_all(origin, dir, max_t, r.mask, &mut out);
                out
            } else {
                tree.ray_first(origin, dir, max_t, r.mask)
                    .into_iter()
                    .collect()
            };
            QueryOutput::Ray(
                hits.into_iter()
                    .map(|(node, t)| RayHit { node, t })
                    .collect(),
            )
        }
        Query::Nearest(n) => {
            let mut out = Vec::new();
            tree.nearest(
                resolve(scene, n.origin())?,
                n.k as usize,
                n.max_dist,
                n.mask,
                &mut out,
            );
            QueryOutput::Nearest(
                out.into_iter()
                    .map(|(node, dist)| NearestHit { node, dist })
                    .collect(),
            )
        }
    })
}
