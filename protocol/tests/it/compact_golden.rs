//! Golden vectors of the compact layout in `protocol/testdata/compact/`, for decoders in
//! other languages (the TypeScript client is tested against the same files).
//!
//! Each case is a block (`NAME.bin`) and its description (`NAME.json`: every row's flags,
//! parts and the node's value after it, as integers, floats and float bits; or the
//! error a decoder must report). Every run rebuilds both and compares them with the
//! files; `CANOPY_BLESS=1` rewrites them instead. Besides, each block built with the
//! writer must decode to the values the case was built from, so the files are checked
//! against the cases' intent and not only against themselves. `README.md` there
//! describes the JSON.

#[path = "compact_golden/cases.rs"]
mod cases;

use std::path::{Path, PathBuf};

use canopy_protocol::Transform;
use canopy_protocol::compact::{
    ApplyError, BlockReader, CompactError, CompactValue, QRot, RValue, Row, transform_bits,
};
use cases::{Case, cases};
use serde::Serialize;

// ---- the JSON twin ----

#[derive(Serialize)]
struct World {
    t: [f32; 3],
    r: [f32; 4],
    s: f32,
}

#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Value {
    Quantized {
        t: [i32; 3],
        r: Rot,
        s: u16,
        world: World,
        world_bits: [u32; 8],
    },
    Exact {
        world: World,
        world_bits: [u32; 8],
    },
}

#[derive(Serialize)]
struct Rot {
    index: u8,
    values: [u16; 3],
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum TJson {
    /// Per axis, the grid value or `null` when omitted.
    Absolute([Option<i32>; 3]),
    /// Per axis, the difference in grid steps or `null` when omitted.
    Delta([Option<i32>; 3]),
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum RValueJson {
    Absolute(u16),
    Delta(i32),
}

#[derive(Serialize)]
struct RJson {
    index: u8,
    values: [Option<RValueJson>; 3],
}

#[derive(Serialize)]
struct Parts {
    #[serde(skip_serializing_if = "Option::is_none")]
    exact: Option<World>,
    /// Flag A: what the row omits is the identity's.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    absolute: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    t: Option<TJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    r: Option<RJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    s: Option<u16>,
}

#[derive(Serialize)]
struct RowJson {
    /// The row's position among the absolute rows, or `None` for an id-coded row.
    #[serde(skip_serializing_if = "Option::is_none")]
    index: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<u32>,
    offset: usize,
    flags: u8,
    parts: Parts,
    result: Option<Value>,
}

#[derive(Serialize)]
struct ErrorJson {
    stage: &'static str,
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    at: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    row: Option<usize>,
}

fn world(x: &Transform) -> World {
    World {
        t: x.t,
        r: x.r,
        s: x.s,
    }
}

fn rot(r: QRot) -> Rot {
    Rot {
        index: r.index(),
        values: r.values(),
    }
}

fn value(v: &CompactValue) -> Value {
    let x = v.to_transform();
    match v {
        CompactValue::Quantized(q) => Value::Quantized {
            t: q.t(),
            r: rot(q.r()),
            s: q.s(),
            world: world(&x),
            world_bits: transform_bits(&x),
        },
        CompactValue::Exact(_) => Value::Exact {
            world: world(&x),
            world_bits: transform_bits(&x),
        },
    }
}

fn parts(row: &Row) -> Parts {
    match row {
        Row::Exact(x) => Parts {
            exact: Some(world(x)),
            absolute: false,
            t: None,
            r: None,
            s: None,
        },
        Row::Parts { absolute, t, r, s } => Parts {
            exact: None,
            absolute: *absolute,
            t: t.map(|t| match t.absolute {
                true => TJson::Absolute(t.axes),
                false => TJson::Delta(t.axes),
            }),
            r: r.map(|r| RJson {
                index: r.index,
                values: r.values.map(|v| {
                    v.map(|v| match v {
                        RValue::Absolute(a) => RValueJson::Absolute(a),
                        RValue::Delta(d) => RValueJson::Delta(d),
                    })
                }),
            }),
            s: *s,
        },
    }
}

/// Decodes a case as a client would, returning the rows, the decoded values and the
/// first error.
fn decode(case: &Case) -> (Vec<RowJson>, Vec<CompactValue>, Option<ErrorJson>) {
    let mut reader = BlockReader::new(&case.bytes);
    let mut rows = Vec::new();
    let mut values = Vec::new();
    let decode_err = |e: CompactError| {
        Some(ErrorJson {
            stage: "decode",
            kind: e.kind(),
            at: Some(e.offset(case.bytes.len())),
            row: None,
        })
    };
    for index in 0..case.absolute_rows {
        let offset = reader.position();
        match reader.absolute_row() {
            Ok(row) => {
                let v = row.apply(None).expect("an absolute row applies");
                rows.push(RowJson {
                    index: Some(index),
                    id: None,
                    offset,
                    flags: row.flags(),
                    parts: parts(&row),
                    result: Some(value(&v)),
                });
                values.push(v);
            }
            Err(e) => return (rows, values, decode_err(e)),
        }
    }
    if !case.snapshot {
        let n = match reader.count() {
            Ok(n) => n,
            Err(e) => return (rows, values, decode_err(e)),
        };
        let mut baseline = case.baseline.clone();
        for _ in 0..n {
            let offset = reader.position();
            let (id, row) = match reader.update() {
                Ok(r) => r,
                Err(e) => return (rows, values, decode_err(e)),
            };
            let base = baseline.iter().find(|(b, _)| *b == id).map(|(_, v)| *v);
            let applied = row.apply(base.as_ref().and_then(|b| b.quantized()));
            let result = applied.as_ref().ok().map(value);
            rows.push(RowJson {
                index: None,
                id: Some(id),
                offset,
                flags: row.flags(),
                parts: parts(&row),
                result,
            });
            match applied {
                Ok(v) => {
                    baseline.retain(|(b, _)| *b != id);
                    baseline.push((id, v));
                    values.push(v);
                }
                Err(e) => {
                    let err = ErrorJson {
                        stage: "apply",
                        kind: ApplyError::kind(&e),
                        at: None,
                        row: Some(rows.len() - 1),
                    };
                    return (rows, values, Some(err));
                }
            }
        }
    }
    match reader.finish() {
        Ok(()) => (rows, values, None),
        Err(e) => (rows, values, decode_err(e)),
    }
}

/// The JSON file: one field per line, one row per line, so diffs are readable.
fn json(case: &Case) -> String {
    let (rows, _, error) = decode(case);
    let mut out = String::from("{\n");
    let mut field = |name: &str, v: String, last: bool| {
        out.push_str(&format!(
            "  \"{name}\": {v}{}\n",
            if last { "" } else { "," }
        ));
    };
    field("name", one(&case.name), false);
    field("description", one(&case.description), false);
    field(
        "block",
        one(&if case.snapshot { "snapshot" } else { "delta" }),
        false,
    );
    field("absolute_rows", one(&case.absolute_rows), false);
    field("length", one(&case.bytes.len()), false);
    let hex: Vec<String> = case.bytes.iter().map(|b| format!("{b:02x}")).collect();
    field("hex", one(&hex.join(" ")), false);
    let list = |items: Vec<String>| {
        if items.is_empty() {
            "[]".to_string()
        } else {
            format!("[\n    {}\n  ]", items.join(",\n    "))
        }
    };
    #[derive(Serialize)]
    struct Base {
        id: u32,
        value: Value,
    }
    let baseline = case
        .baseline
        .iter()
        .map(|(id, v)| {
            one(&Base {
                id: *id,
                value: value(v),
            })
        })
        .collect();
    field("baseline", list(baseline), false);
    field("rows", list(rows.iter().map(one).collect()), false);
    field("error", one(&error), true);
    out.push_str("}\n");
    out
}

/// One value as compact JSON.
fn one<T: Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).unwrap()
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/compact")
}

#[test]
fn built_blocks_decode_to_what_they_were_built_from() {
    for case in cases() {
        let (_, values, error) = decode(&case);
        match &case.intent {
            Some(intent) => {
                assert!(
                    error.is_none(),
                    "{}: {:?}",
                    case.name,
                    error.map(|e| e.kind)
                );
                assert_eq!(&values, intent, "{}", case.name);
            }
            None => assert!(
                error.is_some(),
                "{}: a hand-written case is an error case",
                case.name
            ),
        }
    }
}

#[test]
fn golden_vectors_match_the_files() {
    let bless = std::env::var("CANOPY_BLESS").is_ok_and(|v| v == "1");
    let dir = dir();
    let cases = cases();
    let mut names: Vec<String> = Vec::new();
    let mut stale = Vec::new();
    for case in &cases {
        let (bin, json_path) = (
            dir.join(format!("{}.bin", case.name)),
            dir.join(format!("{}.json", case.name)),
        );
        names.extend([format!("{}.bin", case.name), format!("{}.json", case.name)]);
        let text = json(case);
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&bin, &case.bytes).unwrap();
            std::fs::write(&json_path, &text).unwrap();
            continue;
        }
        if std::fs::read(&bin).ok().as_deref() != Some(&case.bytes[..])
            || std::fs::read_to_string(&json_path).ok().as_deref() != Some(&text[..])
        {
            stale.push(case.name);
        }
    }
    // Files of cases that no longer exist would mislead other decoders' tests.
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name != "README.md" && !names.contains(&name) {
            if bless {
                std::fs::remove_file(dir.join(&name)).unwrap();
            } else {
                stale.push("(a file of no case)");
                eprintln!("unexpected file {name}");
            }
        }
    }
    assert!(
        stale.is_empty(),
        "golden vectors differ from the code: {stale:?}; if the change is intended, run \
         CANOPY_BLESS=1 cargo test -p canopy-protocol --test it compact_golden and review the diff"
    );
}
