//! The golden cases: blocks built with the writer from values (whose decoding must give
//! those values back) and blocks written by hand that a decoder must refuse.

use canopy_protocol::Transform;
use canopy_protocol::compact::{
    BlockWriter, CompactValue, QRot, Quantized, R_ZERO, T_MAX, quantize,
};

/// What a case holds: a block the writer built from values, or bytes written by hand.
pub(crate) struct Case {
    pub name: &'static str,
    pub description: &'static str,
    pub snapshot: bool,
    pub absolute_rows: usize,
    /// The client's values before the block, for rows that are not absolute.
    pub baseline: Vec<(u32, CompactValue)>,
    pub bytes: Vec<u8>,
    /// For built cases: the value each row must decode to, absolute rows first.
    pub intent: Option<Vec<CompactValue>>,
}

fn q(t: [i32; 3], index: u8, v: [u16; 3], s: u16) -> CompactValue {
    CompactValue::Quantized(Quantized::new(t, QRot::new(index, v).unwrap(), s).unwrap())
}

fn from(t: [f32; 3], r: [f32; 4], s: f32) -> CompactValue {
    quantize(&Transform { t, r, s })
}

fn exact(t: [f32; 3], r: [f32; 4], s: f32) -> CompactValue {
    let v = CompactValue::Exact(Transform { t, r, s });
    assert_eq!(
        quantize(&v.to_transform()),
        v,
        "an exact case must be out of range"
    );
    v
}

/// A case built with the writer: absolute rows, then `(id, prev, next)` updates.
fn built(
    name: &'static str,
    description: &'static str,
    snapshot: bool,
    absolute: Vec<CompactValue>,
    updates: Vec<(u32, Option<CompactValue>, CompactValue)>,
) -> Case {
    let mut w = BlockWriter::new();
    absolute.iter().for_each(|v| w.absolute(v));
    let mut intent = absolute.clone();
    let mut baseline = Vec::new();
    for (id, prev, next) in &updates {
        assert!(
            w.update(*id, prev.as_ref(), next),
            "{name}: an update that writes"
        );
        baseline.extend(prev.map(|p| (*id, p)));
        intent.push(*next);
    }
    let bytes = if snapshot {
        w.snapshot().0
    } else {
        w.delta().0
    };
    Case {
        name,
        description,
        snapshot,
        absolute_rows: absolute.len(),
        baseline,
        bytes,
        intent: Some(intent),
    }
}

fn by_hand(
    name: &'static str,
    description: &'static str,
    absolute_rows: usize,
    baseline: Vec<(u32, CompactValue)>,
    bytes: Vec<u8>,
) -> Case {
    Case {
        name,
        description,
        snapshot: false,
        absolute_rows,
        baseline,
        bytes,
        intent: None,
    }
}

const H: f32 = std::f32::consts::FRAC_1_SQRT_2;
const ID: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

pub(crate) fn cases() -> Vec<Case> {
    let base = q(
        [1000, -2000, 3000],
        3,
        [R_ZERO, R_ZERO + 100, R_ZERO - 100],
        0x3c00,
    );
    let base_far = q([T_MAX, 0, 0], 3, [R_ZERO; 3], 0x3c00);
    let out = exact([9000.0, 0.0, -0.0], ID, 1.0);
    let mut cases = vec![
        built(
            "snapshot_basic",
            "A snapshot of four nodes: the identity (a row A of flags alone), a typical \
             transform, one turned about y only (two rotation components left out as \
             zero), and one beyond the translation range sent exactly.",
            true,
            vec![
                from([0.0; 3], ID, 1.0),
                from([1.5, -2.25, 100.0], [0.1, 0.2, 0.3, 0.927_361_85], 2.5),
                from([0.0, 3.0, 0.0], [0.0, 0.6, 0.0, 0.8], 1.0),
                exact([1.0, 2.0, 1e7], [0.0, 1.0, 0.0, 0.0], 0.5),
            ],
            vec![],
        ),
        built(
            "snapshot_edges",
            "Absolute rows at the edges: translation ±(2^23-1) steps and -1 step (i24 sign \
             extension), rotation values 0, 32766 and 32767 with each dropped index, the \
             smallest and largest normal half scales and a negative one, a quarter turn, \
             and exact rows with a tiny scale, a huge scale and -0.0.",
            true,
            vec![
                q([T_MAX, -T_MAX, -1], 0, [0, 32766, R_ZERO], 0x0400),
                q([-1, 1, 0], 1, [32767, 0, 1], 0x7bff),
                q([0x12_3456, -0x12_3456, 0], 2, [1, 2, 3], 0xbc00),
                from([0.0; 3], [0.0, 0.0, H, H], 1.0),
                exact([0.0; 3], ID, 1e-6),
                exact([-0.0, 1.0, 2.0], [0.5, 0.5, 0.5, 0.5], 70000.0),
            ],
            vec![],
        ),
        built(
            "delta_empty",
            "A delta block with no upsert and no row: the count 0.",
            false,
            vec![],
            vec![],
        ),
        built(
            "delta_translation_only",
            "Relative rows carrying only translation differences: steps of 1 and -1 (z \
             unchanged, left out), then 63 and -64 (one byte each) and 64 (two bytes).",
            false,
            vec![],
            vec![
                (
                    3,
                    Some(base),
                    q(
                        [1001, -2001, 3000],
                        3,
                        [R_ZERO, R_ZERO + 100, R_ZERO - 100],
                        0x3c00,
                    ),
                ),
                (
                    4,
                    Some(base),
                    q(
                        [1063, -2064, 3064],
                        3,
                        [R_ZERO, R_ZERO + 100, R_ZERO - 100],
                        0x3c00,
                    ),
                ),
            ],
        ),
        built(
            "delta_rotation_only",
            "A relative row carrying only rotation differences under the same dropped \
             index: +1 and +40 (one byte each), and -70 sent absolute (its zigzag form, \
             139, takes two bytes: no shorter than the value).",
            false,
            vec![],
            vec![(
                10,
                Some(base),
                q(
                    [1000, -2000, 3000],
                    3,
                    [R_ZERO + 1, R_ZERO + 140, R_ZERO - 170],
                    0x3c00,
                ),
            )],
        ),
        built(
            "delta_scale_only",
            "A relative row carrying only a scale (S).",
            false,
            vec![],
            vec![(
                10,
                Some(base),
                q(
                    [1000, -2000, 3000],
                    3,
                    [R_ZERO, R_ZERO + 100, R_ZERO - 100],
                    0x4100,
                ),
            )],
        ),
        built(
            "delta_all_parts",
            "A relative row with translation and rotation differences and a scale.",
            false,
            vec![],
            vec![(
                0,
                Some(base),
                q(
                    [990, -1990, 3001],
                    3,
                    [R_ZERO - 1, R_ZERO + 99, R_ZERO - 98],
                    0x3800,
                ),
            )],
        ),
        built(
            "delta_absolute_parts",
            "Absolute parts inside relative rows: the dropped rotation index changes (the \
             components that are not zero, absolute; the zero one left out), and a jump \
             whose differences would be longer than the absolute axes (TA).",
            false,
            vec![],
            vec![
                (
                    1,
                    Some(base),
                    q(
                        [1000, -2000, 3000],
                        2,
                        [R_ZERO + 7, R_ZERO, R_ZERO - 100],
                        0x3c00,
                    ),
                ),
                (
                    2,
                    Some(base),
                    q(
                        [5_000_000, -5_000_000, 3000],
                        3,
                        [R_ZERO, R_ZERO + 100, R_ZERO - 100],
                        0x3c00,
                    ),
                ),
            ],
        ),
        built(
            "delta_exact_rows",
            "A node leaving the compact range (exact row), one coming back from an exact \
             value (row A), and an exact value changing to another.",
            false,
            vec![],
            vec![
                (7, Some(base), out),
                (8, Some(out), base),
                (
                    9,
                    Some(out),
                    exact([-1e5, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], 3.0),
                ),
            ],
        ),
        built(
            "delta_upsert_and_rows",
            "Two upsert rows (one quantized, one exact) before the count, then a row A \
             because the client has nothing to delta against (lagging or resumed).",
            false,
            vec![from([4.0, 5.0, 6.0], ID, 1.0), exact([0.0; 3], ID, 1e9)],
            vec![(42, None, from([-4.0, 5.0, 6.0], [0.0, 1.0, 0.0, 0.0], 0.25))],
        ),
        built(
            "delta_big_leb128",
            "Long LEB128 values: a first id of 0 (gap 0), then a gap of 2^32-1 (five bytes), \
             and a translation delta of 2^21 steps (four bytes), -70000 (three) and 0.",
            false,
            vec![],
            vec![
                (
                    0,
                    Some(base_far),
                    q([T_MAX, 0, 0], 3, [R_ZERO, R_ZERO, R_ZERO + 1], 0x3c00),
                ),
                (
                    u32::MAX,
                    Some(base),
                    q(
                        [1000 + (1 << 21), -72000, 3000],
                        3,
                        [R_ZERO, R_ZERO + 100, R_ZERO - 100],
                        0x3c00,
                    ),
                ),
            ],
        ),
        built(
            "delta_large_gaps",
            "Ids 5, 2^31+5 and 2^32-1: gaps of 5, 2^31 and 2^31-6.",
            false,
            vec![],
            vec![
                (5, Some(base), from([1.0; 3], ID, 1.0)),
                ((1 << 31) + 5, Some(base), from([2.0; 3], ID, 1.0)),
                (u32::MAX, Some(base), from([3.0; 3], ID, 1.0)),
            ],
        ),
    ];
    // 130 rows: the count takes two bytes (0x82 0x01); consecutive ids (gap 1).
    let many = (0..130u32)
        .map(|i| {
            let v = q([i as i32, 0, 0], 3, [R_ZERO; 3], 0x3c00);
            (100 + i, Some(base_far), v)
        })
        .collect();
    cases.push(built(
        "delta_many_rows",
        "130 rows with consecutive ids from 100: a two-byte count and gaps of 1.",
        false,
        vec![],
        many,
    ));
    cases.extend(error_cases(base, base_far, out));
    cases
}

fn error_cases(base: CompactValue, base_far: CompactValue, out: CompactValue) -> Vec<Case> {
    let scale_row = |gap: u8| vec![gap, 0x20, 0x00, 0x3c];
    vec![
        by_hand(
            "error_truncated",
            "A row A cut inside its second absolute axis.",
            1,
            vec![],
            vec![0x4b, 0, 0, 0, 0],
        ),
        by_hand(
            "error_bad_flags",
            "A row with TA and no axis.",
            0,
            vec![],
            vec![1, 0, 0x28, 0x00, 0x3c],
        ),
        by_hand(
            "error_bad_flags_exact_mixed",
            "An exact flag with another bit set.",
            0,
            vec![],
            vec![1, 0, 0x81],
        ),
        by_hand(
            "error_bad_flags_empty",
            "A relative row with no part (flags 0).",
            0,
            vec![],
            vec![1, 0, 0x00],
        ),
        by_hand(
            "error_bad_flags_absolute",
            "An absolute (upsert) row must be A or X: a relative row of one scale.",
            1,
            vec![],
            vec![0x20, 0x00, 0x3c, 0],
        ),
        by_hand(
            "error_bad_flags_absolute_axes",
            "A row A whose axes are differences (no TA).",
            1,
            vec![],
            vec![0x41, 2, 0],
        ),
        by_hand(
            "error_bad_rotation_head",
            "A rotation head marking a difference for a component it leaves out.",
            0,
            vec![(3, base)],
            vec![1, 3, 0x10, 0x23],
        ),
        by_hand(
            "error_bad_rotation_head_absolute",
            "A row A with a rotation difference: it has nothing to differ from.",
            1,
            vec![],
            vec![0x50, 0x27, 2, 0],
        ),
        by_hand(
            "error_overlong_leb128",
            "The count 0 written in two bytes (0x80 0x00).",
            0,
            vec![],
            vec![0x80, 0x00],
        ),
        by_hand(
            "error_leb128_over_32_bits",
            "A five-byte LEB128 whose last byte is over 0x0f.",
            0,
            vec![],
            vec![0xff, 0xff, 0xff, 0xff, 0x1f],
        ),
        by_hand(
            "error_trailing_bytes",
            "A valid empty delta block followed by one more byte.",
            0,
            vec![],
            vec![0x00, 0x00],
        ),
        by_hand(
            "error_translation_range",
            "An absolute translation of -2^23 steps (0x800000).",
            1,
            vec![],
            vec![0x49, 0x00, 0x00, 0x80, 0],
        ),
        by_hand(
            "error_rotation_range",
            "An absolute rotation component with bit 15 set.",
            1,
            vec![],
            vec![0x50, 0x07, 0x00, 0x80, 0],
        ),
        by_hand(
            "error_scale_subnormal",
            "A scale that is not a normal half (0x0001).",
            0,
            vec![],
            vec![1, 0, 0x20, 0x01, 0x00],
        ),
        by_hand(
            "error_id_order",
            "A second row with gap 0 (the same id twice).",
            0,
            vec![(5, base)],
            [vec![2], scale_row(5), scale_row(0)].concat(),
        ),
        by_hand(
            "error_id_overflow",
            "A gap that takes the id past 2^32-1.",
            0,
            vec![(u32::MAX, base)],
            [
                vec![2, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x20, 0x00, 0x3c],
                scale_row(1),
            ]
            .concat(),
        ),
        by_hand(
            "apply_error_no_baseline",
            "A translation difference for a node whose last value was exact: it decodes, \
             but cannot be applied.",
            0,
            vec![(4, out)],
            vec![1, 4, 0x01, 2],
        ),
        by_hand(
            "apply_error_delta_out_of_range",
            "A translation difference of +1 step from 2^23-1: it decodes, but leaves the \
             range.",
            0,
            vec![(4, base_far)],
            vec![1, 4, 0x01, 2],
        ),
        by_hand(
            "apply_error_rotation_out_of_range",
            "A rotation difference that takes a value below 0.",
            0,
            vec![(4, base)],
            vec![1, 4, 0x10, 0x03 | 0x04 | 0x20, 0xff, 0xff, 0x03],
        ),
        by_hand(
            "apply_error_index_changed",
            "A rotation difference under a dropped index other than the baseline's (x \
             instead of w).",
            0,
            vec![(4, base)],
            vec![1, 4, 0x10, 0x04 | 0x20, 2],
        ),
    ]
}
