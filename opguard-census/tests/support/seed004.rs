//! The structure of seed 004's published census, as recipes for the builder.
//!
//! Seed 004 publishes, per family, operator calls / non-numeric shape entries of
//! one decode step of a 27B model: at TP1 gemm 257/514, attention 64/304,
//! normalisation 273/802, allocation 566/803 (control 565), view 921/1736 (control
//! 922), bookkeeping 83/21, total 2,521 / 5,016 of 12,544 entries; at TP2 the same
//! three families plus collective 133/266, total 2,662 / 5,297 of 13,107. The
//! operators it names are used by name (aiter.gemm_a16w16 ×257, linear attention
//! ×48 + unified attention ×16, the fused QK RMSNorm ×129 plus mean/pow/rsqrt ×48
//! each); where the seed gives only a family total the rows below are one
//! plausible split. Control and symbolic captures differ in one call:
//! `lift_fresh_copy` (control) where the symbolic pass has `scalar_tensor`. At TP2
//! the value 2 appears 73 times as the group's width.

use super::builder::{build, only, row, Only, Row, Shot, E, E::*};
use serde_json::Value;

pub const NARROW: i64 = 2;
pub const WIDE: i64 = 8;

fn s() -> E {
    S
}

/// Recipe rows for TP1 (`tp == 1`) or TP2 (`tp == 2`).
pub fn rows(tp: u8) -> Vec<Row> {
    let two_or_three = if tp == 2 { 2 } else { 3 };
    let select_lead = if tp == 2 { 2 } else { 4 };
    let mut r = vec![
        // gemm: 257 calls, 2 non-numeric each
        row(
            "aiter.gemm_a16w16.default",
            256,
            vec![
                vec![s(), C(5120)],
                vec![C(17408), C(5120)],
                vec![s(), C(17408)],
            ],
        ),
        row(
            "aiter.gemm_a16w16.default",
            1,
            vec![
                vec![s(), C(5120)],
                vec![C(248320), C(5120)],
                vec![s(), C(248320)],
            ],
        ),
        // attention: 48 linear (5 each) + 16 unified (4 each)
        row(
            "aiter.linear_attention_with_output_base.default",
            48,
            vec![
                vec![s(), C(6144)],
                vec![s(), C(1024)],
                vec![s(), C(1024)],
                vec![s(), C(6144)],
                vec![s()],
            ],
        ),
        row(
            "aiter.unified_attention_with_output_base.default",
            16,
            vec![
                vec![s(), C(48), C(256)],
                vec![s(), C(4), C(256)],
                vec![s(), C(4), C(256)],
                vec![s(), C(48), C(256)],
            ],
        ),
        // normalisation: fused QK RMSNorm 129 + mean/pow/rsqrt 48 each
        row(
            "aiter._fused_qk_rmsnorm_group_quant_kernel.default",
            128,
            vec![
                vec![s(), C(6144)],
                vec![s(), C(1024)],
                vec![C(256)],
                vec![s(), C(6144)],
                vec![s(), C(1024)],
            ],
        ),
        row(
            "aiter._fused_qk_rmsnorm_group_quant_kernel.default",
            1,
            vec![vec![s(), C(5120)], vec![C(5120)], vec![s(), C(5120)]],
        ),
        row(
            "aten.mean.dim",
            48,
            vec![vec![s(), C(5120)], vec![s(), C(1)]],
        ),
        row(
            "aten.pow.Tensor_Scalar",
            48,
            vec![vec![s(), C(5120)], vec![s(), C(5120)]],
        ),
        row(
            "aten.rsqrt.default",
            48,
            vec![vec![s(), C(1)], vec![s(), C(1)]],
        ),
        // allocation
        row(
            "aten.empty.memory_format",
            401,
            vec![vec![s(), C(16), C(1024)]],
        ),
        row(
            "aten.zeros.default",
            134,
            vec![vec![s(), Plus(1), Times(28)]],
        ),
        row(
            "aten.full.default",
            5,
            vec![vec![C(two_or_three), C(16384), C(513), C(4), C(64), C(6)]],
        ),
        row(
            "aten.full.default",
            25,
            vec![vec![C(3), C(16384), C(513), C(4), C(64), C(6)]],
        ),
        only(
            row("aten.scalar_tensor.default", 1, vec![vec![]]),
            Only::Symbolic,
        ),
        // view
        row(
            "aten.view.default",
            800,
            vec![vec![s(), C(6144)], vec![s(), C(48), C(128)]],
        ),
        row(
            "aten.slice.Tensor",
            68,
            vec![vec![s(), C(513)], vec![s(), C(512)]],
        ),
        row(
            "aten.select.int",
            53,
            vec![
                vec![C(select_lead), C(16), C(128), C(64)],
                vec![C(16), C(128), C(64), C(1)],
            ],
        ),
        only(
            row("aten.lift_fresh_copy.default", 1, vec![vec![]]),
            Only::Control,
        ),
        // bookkeeping: the seam markers and metadata asserts
        row("profiler._record_function_enter_new.default", 31, vec![]),
        row("profiler._record_function_exit._RecordFunction", 31, vec![]),
        row(
            "aten._assert_tensor_metadata.default",
            21,
            vec![vec![s(), C(4)]],
        ),
        // the rest
        row(
            "aiter.masked_embedding.default",
            1,
            vec![vec![C(248320), C(5120)], vec![s()], vec![s(), C(5120)]],
        ),
        row(
            "aiter.mixed_sample_outer_exponential.default",
            1,
            vec![vec![s(), C(248320)], vec![s()]],
        ),
        row(
            "aten.exponential_.default",
            1,
            vec![vec![s(), C(248320)], vec![s(), C(248320)]],
        ),
        row(
            "aiter.silu_and_mul.default",
            64,
            vec![vec![s(), C(34816)], vec![s(), C(17408)]],
        ),
        row("aten._to_copy.default", 10, vec![vec![s()], vec![s()]]),
        row(
            "aten.add.Tensor",
            200,
            vec![vec![s(), C(5120)], vec![s(), C(5120)], vec![s(), C(5120)]],
        ),
        row(
            "aten.mul.Tensor",
            41,
            vec![vec![s(), C(5120)], vec![C(5120)], vec![s(), C(5120)]],
        ),
        row(
            "aten.fill_.Scalar",
            39,
            vec![
                vec![C(3), C(16), C(513), C(4), C(64), C(6)],
                vec![C(3), C(16), C(513), C(4), C(64)],
            ],
        ),
    ];
    if tp == 2 {
        r.extend([
            row(
                "_c10d_functional.all_reduce.default",
                66,
                vec![vec![s(), C(5120)], vec![s(), C(5120)]],
            ),
            row(
                "_c10d_functional.wait_tensor.default",
                66,
                vec![vec![s(), C(5120)], vec![s(), C(5120)]],
            ),
            row(
                "_c10d_functional.all_gather_into_tensor.default",
                1,
                vec![vec![s(), C(124160)], vec![Times(2), C(124160)]],
            ),
            row(
                "aten.cat.default",
                7,
                vec![vec![s(), C(2)], vec![s(), C(2)]],
            ),
            row("aten.permute.default", 1, vec![vec![s(), C(2), C(64)]]),
        ]);
    }
    r
}

/// The 20 conversions over 16 lines of seed 004's table (finding 1), as the
/// builder's host lines. Written independently of the fixture file it is compared to.
pub fn host_lines() -> Vec<(String, u64)> {
    let aiter = "atom/model_ops/attentions/aiter_attention.py";
    let runner = "atom/model_engine/model_runner.py";
    let backends = "atom/model_ops/attentions/backends.py";
    let gdn = "atom/model_ops/attentions/gdn_attn.py";
    let mut v = Vec::new();
    for (line, n) in [
        (1106, 2),
        (1115, 1),
        (1121, 1),
        (1122, 1),
        (1123, 2),
        (1131, 1),
        (1132, 2),
    ] {
        v.push((format!("{aiter}:{line} in prepare_decode"), n));
    }
    for (line, n) in [(2441, 1), (2452, 2), (2454, 1)] {
        v.push((format!("{runner}:{line} in prepare_inputs"), n));
    }
    for line in [510, 513] {
        v.push((format!("{runner}:{line} in prepare_input_ids"), 1));
    }
    v.push((format!("{runner}:2537 in prepare_sample"), 1));
    for line in [398, 400] {
        v.push((format!("{backends}:{line} in _mrope_cpu_view"), 1));
    }
    v.push((format!("{gdn}:1237 in _attach_gdn_decode_metadata"), 1));
    v
}

const TP1_GUARDS_NARROW: &[&str] = &["28*{s} <= 8192", "{s} < 128", "{s} <= 512", "Eq({a}, {s})"];
const TP1_GUARDS_WIDE: &[&str] = &[
    "28*{s} <= 8192",
    "{s} < 128",
    "{s} <= 512",
    "Eq({a}, {s})",
    "{s} + 1 > 8",
];
const TP2_GUARDS_NARROW: &[&str] = &["{s} < 128", "{s} <= 512", "Eq({a}, {s})"];
const TP2_GUARDS_WIDE: &[&str] = &["{s} < 128", "{s} <= 512", "Eq({a}, {s})", "{s} + 1 > 8"];

/// The symbolic capture at `width`. Symbol names differ by width, as torch's
/// hash-derived names may: nothing may depend on them.
pub fn symbolic(tp: u8, width: i64) -> Value {
    let (symbol, alias) = if width == NARROW {
        ("s0", "s52")
    } else {
        ("s41", "s97")
    };
    let guards = match (tp, width == NARROW) {
        (1, true) => TP1_GUARDS_NARROW,
        (1, false) => TP1_GUARDS_WIDE,
        (_, true) => TP2_GUARDS_NARROW,
        (_, false) => TP2_GUARDS_WIDE,
    };
    let label = format!("tp{tp}-step-w{width}");
    build(
        &rows(tp),
        &Shot {
            label: &label,
            width,
            symbol: Some(symbol),
            guards,
            alias: Some(alias),
            host_lines: &host_lines(),
        },
    )
}

/// The concrete control at `width`.
pub fn control(tp: u8, width: i64) -> Value {
    let label = format!("tp{tp}-control-w{width}");
    build(
        &rows(tp),
        &Shot {
            label: &label,
            width,
            symbol: None,
            guards: &[],
            alias: None,
            host_lines: &[],
        },
    )
}

/// The seed's family table (fixture `seed004_families.json`).
pub fn families() -> opguard_census::FamilyTable {
    opguard_census::FamilyTable::from_path(super::fixture("seed004_families.json")).unwrap()
}
