//! README's tour, run: every `curl` of its first block is sent as curl would send it to an
//! in-process server with the demo room, and every answer README shows is compared with
//! the server's (as JSON; tick numbers only have to be ticks, since they depend on when
//! each request arrives). The WebSocket walk's subscribe is sent as written and answered
//! with a snapshot and moving deltas. So README cannot drift from what the server says.

use crate::common;

use canopy_protocol::{Format, ServerMsg, codec};
use common::{config, start};
use serde_json::Value;

/// One `curl` of the tour and what README says it answers.
#[derive(Debug)]
struct Step {
    method: String,
    path: String,
    body: Option<String>,
    /// The JSON README shows, if any.
    answer: Option<String>,
    /// The status README names (`(409; ...)`); without one, any success.
    status: Option<u16>,
}

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap()
}

/// The body of the first fenced block after `heading`.
fn block_after<'a>(text: &'a str, heading: &str, fence: &str) -> &'a str {
    let from = text
        .find(heading)
        .unwrap_or_else(|| panic!("README has no {heading:?}"));
    let rest = &text[from..];
    let start = rest.find(fence).unwrap() + fence.len();
    let end = start + rest[start..].find("\n```").unwrap();
    &rest[start..end]
}

/// Reads the tour's shell block into steps.
fn steps(block: &str) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    let mut lines = block.lines().peekable();
    while let Some(line) = lines.next() {
        let line = line.trim_end();
        if let Some(cmd) = line.strip_prefix("curl -s ") {
            // A command runs on until its `-d '...'` body closes.
            let mut cmd = cmd.to_owned();
            while cmd.matches('\'').count() % 2 == 1 {
                cmd.push('\n');
                cmd.push_str(lines.next().expect("an unterminated body"));
            }
            let (method, rest) = match cmd.strip_prefix("-XPOST ") {
                Some(r) => ("POST", r.to_owned()),
                None => ("GET", cmd.clone()),
            };
            let (url, body) = match rest.split_once(" -d '") {
                Some((u, b)) => (
                    u.trim(),
                    Some(b.trim_end().trim_end_matches('\'').to_owned()),
                ),
                None => (rest.split("  #").next().unwrap().trim(), None),
            };
            let path = url
                .strip_prefix("localhost:7878")
                .unwrap_or_else(|| panic!("{url}"));
            steps.push(Step {
                method: method.to_owned(),
                path: path.to_owned(),
                body,
                answer: None,
                status: None,
            });
        } else if let Some(shown) = line.strip_prefix("# ") {
            let step = steps.last_mut().expect("an answer before any command");
            if let Some(note) = shown.trim_start().strip_prefix('(') {
                step.status = Some(note[..3].parse().unwrap());
            } else {
                let json = shown.split("  <-").next().unwrap().trim();
                step.answer.get_or_insert_with(String::new).push_str(json);
            }
        }
    }
    steps
}

/// Every `tick` in `v` set to 0, after checking it is a tick number.
fn without_ticks(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k == "tick" {
                    assert!(x.is_u64(), "tick {x}");
                    *x = Value::from(0);
                } else {
                    without_ticks(x);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(without_ticks),
        _ => {}
    }
}

#[tokio::test]
async fn the_readme_tour_answers_what_readme_shows() {
    let mut cfg = config();
    cfg.demo = true;
    let s = start(cfg).await;
    canopy_server::demo::create(&s.state).unwrap();
    let text = readme();
    let tour = steps(block_after(&text, "## A tour", "```sh\n"));
    assert!(tour.len() >= 9, "{tour:#?}");
    assert!(tour.iter().filter(|t| t.answer.is_some()).count() >= 6);
    for step in &tour {
        let url = format!("{}{}", s.base, step.path);
        let mut req = s.http.request(step.method.parse().unwrap(), &url);
        if let Some(body) = &step.body {
            // What `curl -d` sends.
            req = req
                .header("content-type", "application/x-www-form-urlencoded")
                .body(body.clone());
        }
        let resp = req.send().await.unwrap();
        let status = resp.status().as_u16();
        let got = resp.text().await.unwrap();
        match step.status {
            Some(want) => assert_eq!(status, want, "{} {}: {got}", step.method, step.path),
            None => assert!(
                (200..300).contains(&status),
                "{} {}: {status} {got}",
                step.method,
                step.path
            ),
        }
        if let Some(shown) = &step.answer {
            let mut want: Value = serde_json::from_str(shown)
                .unwrap_or_else(|e| panic!("README's answer to {}: {e}: {shown}", step.path));
            let mut got: Value = serde_json::from_str(&got).unwrap();
            without_ticks(&mut want);
            without_ticks(&mut got);
            assert_eq!(got, want, "{} {}", step.method, step.path);
        }
    }

    // The WebSocket walk: its subscribe, as written, and the counts it prints.
    let py = block_after(&text, "A WebSocket client in JSON mode", "```sh\n");
    let subscribe = py
        .lines()
        .find_map(|l| l.split_once("ws.send(json.dumps(").map(|(_, r)| r))
        .and_then(|r| r.strip_suffix("))"))
        .expect("the subscribe line");
    let subscribe = codec::decode_client(subscribe.as_bytes(), Format::Json)
        .unwrap_or_else(|e| panic!("README's subscribe {subscribe}: {e}"));
    let mut ws = s.ws("demo", Format::Json).await;
    ws.send(&subscribe).await;
    // What the walk prints: a snapshot of the region's nodes, then deltas moving them.
    // The counts README shows are one run's (the demo's nodes orbit in and out of the
    // region), so here they only have to make sense.
    let ServerMsg::Snapshot { nodes, .. } = ws.recv().await else {
        panic!("a snapshot first")
    };
    assert!(
        !nodes.is_empty() && nodes.len() < 200,
        "{} nodes",
        nodes.len()
    );
    for _ in 0..5 {
        let ServerMsg::Delta { update, upsert, .. } = ws.recv().await else {
            panic!("deltas after the snapshot")
        };
        assert!(!update.is_empty() && update.len() + upsert.len() <= nodes.len() + 20);
    }
    s.stop().await;
}

/// Every flag of the server (and its `CANOPY_*` variable's flag) has a row in the
/// configuration reference: a knob nobody can find is a knob nobody can use. (The
/// reference's full check, both ways and with the variables, is `loadtest/tests/docs.rs`.)
#[test]
fn every_flag_is_in_the_configuration_reference() {
    use clap::CommandFactory;
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/configuration.md"
    ))
    .unwrap();
    let cmd = canopy_server::config::ServerConfig::command();
    let missing: Vec<String> = cmd
        .get_arguments()
        .filter_map(|a| a.get_long())
        .filter(|long| !["help", "version"].contains(long))
        .map(|long| format!("--{long}"))
        .filter(|flag| !text.contains(&format!("`{flag}`")) && !text.contains(&format!("`{flag} ")))
        .collect();
    assert!(
        missing.is_empty(),
        "flags docs/configuration.md does not document: {missing:?}"
    );
}
