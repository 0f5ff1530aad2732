//! A batch that fails to decode names the op it failed in (docs/protocol.md §2: "the
//! error names the first bad op's index"), in JSON and in bincode, and only then.

use canopy_protocol::codec::{self, Format};
use canopy_protocol::{Batch, ClientMsg, ErrorCode, Op};
use proptest::prelude::*;

fn batch_err(json: &str) -> canopy_protocol::DecodeError {
    codec::from_json::<Batch>(json.as_bytes()).unwrap_err()
}

#[test]
fn a_malformed_json_op_is_named() {
    let ok = r#"{"op":"remove","node":1}"#;
    for (json, op) in [
        (
            format!(r#"{{"ops":[{ok},{{"op":"explode","node":1}}]}}"#),
            1,
        ),
        (
            format!(r#"{{"ops":[{ok},{ok},{{"op":"set_parent","node":1}}]}}"#),
            2,
        ),
        (r#"{"ops":[{"op":"add","id":"10"}]}"#.to_string(), 0),
        (r#"{"ops":[{"op":"add","id":-1}]}"#.to_string(), 0),
        (
            format!(r#"{{"ops":[{ok},{{"op":"set_local","node":1,"t":[1,2]}}]}}"#),
            1,
        ),
        (format!(r#"{{"ops":[{ok},5]}}"#), 1),
        (format!(r#"{{"ops":[{ok},{{"op":1}}]}}"#), 1),
    ] {
        let e = batch_err(&json);
        assert_eq!(e.op(), Some(op), "{json}: {e}");
        assert_eq!(e.code(), ErrorCode::BadRequest, "{json}: {e}");
        assert!(e.to_string().starts_with(&format!("op {op}: ")), "{e}");
    }
    // A number beyond f64 in op 1 is still invalid_value, now with its index.
    let e = batch_err(&format!(
        r#"{{"ops":[{ok},{{"op":"add","local":{{"t":[1e400,0,0]}}}}]}}"#
    ));
    assert_eq!(
        (e.op(), e.code()),
        (Some(1), ErrorCode::InvalidValue),
        "{e}"
    );
}

#[test]
fn a_failure_outside_the_ops_names_none() {
    for json in [
        r#"{"ops":5}"#,
        r#"{}"#,
        r#"{"ops":[{"op":"remove","node":1}]"#,
        r#"{"ops":[{"op":"remove","node":1}],"ops":[]}"#,
        "",
    ] {
        let e = batch_err(json);
        assert_eq!(e.op(), None, "{json}: {e}");
    }
    // Nor does a later failure inherit an earlier one's op.
    batch_err(r#"{"ops":[{"op":"zap"}]}"#);
    let e = codec::decode_client(br#"{"type":"ping"}"#, Format::Json).unwrap_err();
    assert_eq!(e.op(), None, "{e}");
}

#[test]
fn a_websocket_edits_message_names_its_op_in_both_formats() {
    let e = codec::decode_client(
        br#"{"type":"edits","seq":9,"ops":[{"op":"remove","node":2},{"op":"zap"}]}"#,
        Format::Json,
    )
    .unwrap_err();
    assert_eq!((e.op(), e.code()), (Some(1), ErrorCode::BadRequest), "{e}");

    // `edits` (variant 2), seq 9, 3 ops; `remove` (variant 4) of node 3 is [4, 3].
    let good = [2u8, 9, 3, 4, 3, 4, 3, 4, 3];
    assert!(codec::decode_client(&good, Format::Bincode).is_ok());
    let mut bad_variant = good;
    bad_variant[5] = 9;
    let e = codec::decode_client(&bad_variant, Format::Bincode).unwrap_err();
    assert_eq!((e.op(), e.code()), (Some(1), ErrorCode::BadRequest), "{e}");
    let e = codec::decode_client(&good[..8], Format::Bincode).unwrap_err();
    assert_eq!(e.op(), Some(2), "truncated in op 2: {e}");
    let mut trailing = good.to_vec();
    trailing.push(0);
    let e = codec::decode_client(&trailing, Format::Bincode).unwrap_err();
    assert_eq!(e.op(), None, "{e}");
    // A bincode batch body likewise.
    let e = codec::from_bincode::<Batch>(&[2, 4, 3, 7]).unwrap_err();
    assert_eq!(e.op(), Some(1), "{e}");
}

proptest! {
    /// Op `bad` of `n` replaced by an unknown op: the error names exactly `bad`, and
    /// every op decodes to itself when none is bad (the hand-written bincode `Decode`
    /// against the derived `Encode`).
    #[test]
    fn the_named_op_is_the_bad_one(n in 1usize..40, bad in 0usize..40, node in any::<u32>()) {
        let bad = bad % n;
        let ops: Vec<Op> = (0..n).map(|i| match i % 3 {
            0 => Op::Remove { node },
            1 => Op::SetParent { node, parent: Some(node / 2) },
            _ => Op::SetShape { node, extent: Some([1.0, 2.0, 3.0]), mask: None },
        }).collect();
        let msg = ClientMsg::Edits { seq: 5, ops: ops.clone() };
        for format in [Format::Json, Format::Bincode] {
            let bytes = codec::encode_client(&msg, format);
            prop_assert_eq!(codec::decode_client(&bytes, format).unwrap(), msg.clone());
        }
        let mut json: serde_json::Value = serde_json::to_value(Batch { ops }).unwrap();
        json["ops"][bad] = serde_json::json!({"op": "zap"});
        let e = codec::from_json::<Batch>(json.to_string().as_bytes()).unwrap_err();
        prop_assert_eq!(e.op(), Some(bad as u32));
    }
}
