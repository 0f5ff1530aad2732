//! A cluster as the harness sees it: `GET /cluster` (admin) of each node it targets,
//! which name each URL answers to, and which node owns each room.
//!
//! Invariant: only asked when the run targets several URLs (a single server's run
//! never calls it); a room whose owner is not among the targeted URLs is reported
//! with no owner URL, never guessed.

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::{Context, ensure};
use canopy_protocol::http::ClusterView;

/// How long one `GET /cluster` may take.
const TIMEOUT: Duration = Duration::from_secs(10);

/// How long a just-created room may take to show in the first node's view.
const OWNERS_WITHIN: Duration = Duration::from_secs(10);

/// `GET /cluster` of the node at `url`.
pub(crate) async fn fetch(url: &str, token: Option<&str>) -> anyhow::Result<ClusterView> {
    let http = reqwest::Client::builder().timeout(TIMEOUT).build()?;
    let mut req = http.get(format!("{url}/cluster"));
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let resp = req
        .send()
        .await
        .with_context(|| format!("GET {url}/cluster"))?;
    ensure!(
        resp.status().is_success(),
        "GET {url}/cluster answered {}",
        resp.status()
    );
    resp.json()
        .await
        .with_context(|| format!("reading GET {url}/cluster"))
}

/// The targeted nodes: their URLs, the names they answer to, and the rooms' owners.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct NodeMap {
    pub urls: Vec<String>,
    /// `names[i]`: the cluster name of `urls[i]` (`None`: not in cluster mode).
    pub names: Vec<Option<String>>,
    /// Room id to owner name, from the first node's view.
    pub owners: BTreeMap<String, String>,
    /// Rooms per node name, from the first node's view.
    pub rooms_per_node: BTreeMap<String, u64>,
}

impl NodeMap {
    /// Asks every URL for its view; the owners come from the first node's, read again
    /// (for up to 10 s) until it lists every room of `rooms`.
    pub(crate) async fn read(
        urls: &[String],
        token: Option<&str>,
        rooms: &[String],
    ) -> anyhow::Result<NodeMap> {
        let mut map = NodeMap {
            urls: urls.to_vec(),
            ..NodeMap::default()
        };
        for (i, url) in urls.iter().enumerate() {
            let mut view = fetch(url, token).await?;
            if i == 0 {
                let deadline = tokio::time::Instant::now() + OWNERS_WITHIN;
                while !rooms.iter().all(|r| view.rooms.iter().any(|v| &v.id == r))
                    && tokio::time::Instant::now() < deadline
                {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    view = fetch(url, token).await?;
                }
                map.owners = view
                    .rooms
                    .iter()
                    .map(|r| (r.id.clone(), r.owner.clone()))
                    .collect();
                map.rooms_per_node = view.nodes.iter().map(|n| (n.id.clone(), n.rooms)).collect();
            }
            map.names.push(view.node);
        }
        Ok(map)
    }

    /// The index of the URL that owns `room`, if it is one of the targeted ones.
    pub(crate) fn owner_of(&self, room: &str) -> Option<usize> {
        let owner = self.owners.get(room)?;
        self.names
            .iter()
            .position(|n| n.as_deref() == Some(owner.as_str()))
    }

    /// The node editor `k` of `room` connects to: the room's owner (the first node when
    /// the owner is not targeted), or round robin over the nodes with `anywhere`.
    pub(crate) fn editor_node(&self, room: &str, k: usize, anywhere: bool) -> usize {
        if anywhere {
            crate::target::urls::round_robin(k, self.urls.len())
        } else {
            self.owner_of(room).unwrap_or(0)
        }
    }

    /// How node `i` is shown: its URL and its name.
    pub(crate) fn label(&self, i: usize) -> String {
        match self.names.get(i).cloned().flatten() {
            Some(name) => format!("{name} ({})", self.urls[i]),
            None => self.urls[i].clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_map_to_the_urls_that_answer_to_their_names() {
        let map = NodeMap {
            urls: vec!["http://a:1".into(), "http://b:2".into()],
            names: vec![Some("node-1".into()), Some("node-2".into())],
            owners: BTreeMap::from([
                ("r1".to_string(), "node-2".to_string()),
                ("r2".to_string(), "node-9".to_string()),
            ]),
            rooms_per_node: BTreeMap::new(),
        };
        assert_eq!(map.owner_of("r1"), Some(1));
        assert_eq!(map.owner_of("r2"), None);
        assert_eq!(map.owner_of("r3"), None);
        assert_eq!(map.label(1), "node-2 (http://b:2)");
        assert_eq!(map.editor_node("r1", 0, false), 1);
        assert_eq!(map.editor_node("r1", 7, false), 1);
        assert_eq!(map.editor_node("r2", 3, false), 0);
        let anywhere: Vec<usize> = (0..4).map(|k| map.editor_node("r1", k, true)).collect();
        assert_eq!(anywhere, [0, 1, 0, 1]);
    }
}
