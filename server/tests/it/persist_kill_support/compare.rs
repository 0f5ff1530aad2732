//! The recovered room (`GET /rooms/{room}/nodes`) against the scene model.

use std::collections::{BTreeMap, BTreeSet};

use canopy_protocol::NodeId;
use glam::{DQuat, DVec3};
use serde_json::Value;

use canopy_scene_model::Model;

/// What differs between the room's nodes (`GET /rooms/{room}/nodes`) and the model: ids,
/// parents, extents and masks exactly; world transforms within f32 rounding of the
/// model's f64 propagation. At most `limit` lines, then a count.
pub(crate) fn differences(m: &Model, got: &Value, limit: usize) -> Vec<String> {
    let mut out = Vec::new();
    let Some(nodes) = got["nodes"].as_array() else {
        return vec![format!("no `nodes` array in {got}")];
    };
    let mut seen = BTreeMap::new();
    for n in nodes {
        let Some(id) = n["id"].as_u64() else {
            out.push(format!("a node without an id: {n}"));
            continue;
        };
        if seen.insert(id as NodeId, n).is_some() {
            out.push(format!("node {id} listed twice"));
        }
    }
    let want: BTreeSet<NodeId> = m.nodes.keys().copied().collect();
    let have: BTreeSet<NodeId> = seen.keys().copied().collect();
    let missing: Vec<_> = want.difference(&have).collect();
    let extra: Vec<_> = have.difference(&want).collect();
    if !missing.is_empty() {
        out.push(format!(
            "{} nodes missing: {:?}",
            missing.len(),
            &missing[..missing.len().min(12)]
        ));
    }
    if !extra.is_empty() {
        out.push(format!(
            "{} nodes that should not exist: {:?}",
            extra.len(),
            &extra[..extra.len().min(12)]
        ));
    }
    let f = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
    for (&id, n) in &m.nodes {
        let Some(g) = seen.get(&id) else { continue };
        let parent = g["parent"].as_u64().map(|p| p as NodeId);
        if parent != n.parent || (!g["parent"].is_null() && parent.is_none()) {
            out.push(format!(
                "node {id}: parent {} (want {:?})",
                g["parent"], n.parent
            ));
        }
        let extent: Vec<f32> = g["extent"]
            .as_array()
            .map(|a| a.iter().map(|x| f(x) as f32).collect())
            .unwrap_or_default();
        if extent.len() != 3
            || extent
                .iter()
                .zip(n.extent)
                .any(|(a, b)| a.to_bits() != b.to_bits())
        {
            out.push(format!(
                "node {id}: extent {} (want {:?})",
                g["extent"], n.extent
            ));
        }
        if g["mask"].as_u64() != Some(u64::from(n.mask)) {
            out.push(format!("node {id}: mask {} (want {})", g["mask"], n.mask));
        }
        let w = &g["world"];
        let arr = |v: &Value, k: usize| -> Option<Vec<f64>> {
            let a = v.as_array()?;
            (a.len() == k).then(|| a.iter().map(f).collect())
        };
        let (Some(t), Some(r), s) = (arr(&w["t"], 3), arr(&w["r"], 4), f(&w["s"])) else {
            out.push(format!("node {id}: malformed world transform {w}"));
            continue;
        };
        let want = m.world(id);
        let tol = 1e-6 * (want.depth as f64 + 1.0);
        let dt = (DVec3::new(t[0], t[1], t[2]) - want.t).length();
        let gr = DQuat::from_xyzw(r[0], r[1], r[2], r[3]);
        let dr = (gr - want.r).length().min((gr + want.r).length());
        let ds = (s - want.s).abs();
        if !(dt <= 8.0 * tol * (want.mag + 1.0) && dr <= 8.0 * tol && ds <= 8.0 * tol * want.s) {
            let local = (n.t, n.r, n.s);
            out.push(format!(
                "node {id}: world t {t:?} r {r:?} s {s} (want t {:?} r {:?} s {}; local \
                 t, r, s {local:?}; off by t {dt:e}, r {dr:e}, s {ds:e})",
                want.t.to_array(),
                want.r.to_array(),
                want.s
            ));
        }
    }
    if out.len() > limit {
        let more = out.len() - limit;
        out.truncate(limit);
        out.push(format!("... and {more} more"));
    }
    out
}
