//! Several servers at once: `--url` as a comma-separated list of a cluster's nodes, and
//! which node each client of the run connects to.
//!
//! Invariant: one URL parses to a list of one, and with one node every client is
//! assigned node 0, so a run against one server is exactly what it was before lists;
//! with several, each room's subscribers cycle through the nodes in order, so every
//! node serves its share of every room.

use anyhow::{bail, ensure};

/// The URLs of `--url`: comma-separated, each trimmed, none empty, no repeats.
pub(crate) fn parse(list: &str) -> anyhow::Result<Vec<String>> {
    let urls: Vec<String> = list
        .split(',')
        .map(|u| u.trim().trim_end_matches('/').to_string())
        .collect();
    for (i, url) in urls.iter().enumerate() {
        if url.is_empty() {
            bail!("--url {list:?}: entry {} is empty", i + 1);
        }
        ensure!(
            !urls[..i].contains(url),
            "--url {list:?}: {url} is given twice"
        );
    }
    Ok(urls)
}

/// The node of the `nth` client of a room (counted within that room), over `nodes`
/// nodes: round robin.
pub(crate) fn round_robin(nth: usize, nodes: usize) -> usize {
    nth % nodes.max(1)
}

/// The node of client `i` of a kind spread over `rooms` rooms round robin (client `i`
/// is in room `i % rooms`, and is that room's `i / rooms`-th).
pub(crate) fn node_of(i: usize, rooms: usize, nodes: usize) -> usize {
    round_robin(i / rooms.max(1), nodes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_url_is_a_list_of_one() {
        assert_eq!(
            parse("http://127.0.0.1:7000").unwrap(),
            ["http://127.0.0.1:7000"]
        );
        assert_eq!(parse("http://h:1/").unwrap(), ["http://h:1"]);
    }

    #[test]
    fn lists_are_split_and_trimmed_and_checked() {
        assert_eq!(
            parse("http://a:1, http://b:2 ,http://c:3").unwrap(),
            ["http://a:1", "http://b:2", "http://c:3"]
        );
        assert!(parse("http://a:1,,http://b:2").is_err());
        assert!(parse("http://a:1,").is_err());
        assert!(parse("http://a:1,http://a:1/").is_err());
    }

    #[test]
    fn every_room_cycles_through_the_nodes() {
        assert!((0..10).all(|i| node_of(i, 1, 1) == 0));
        let one_room: Vec<usize> = (0..7).map(|i| node_of(i, 1, 3)).collect();
        assert_eq!(one_room, [0, 1, 2, 0, 1, 2, 0]);
        // Three rooms on three nodes: room r's clients are i = r, r + 3, ...; each room
        // still reaches every node (a plain i % 3 would put each room on one node).
        for room in 0..3 {
            let nodes: Vec<usize> = (room..30).step_by(3).map(|i| node_of(i, 3, 3)).collect();
            assert_eq!(&nodes[..4], [0, 1, 2, 0]);
        }
        assert_eq!(round_robin(5, 0), 0);
    }
}
