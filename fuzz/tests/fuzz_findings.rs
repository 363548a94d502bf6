//! Minimized reproducers of the bugs the fuzz runs found in crates this
//! package does not own (findings 1, 2, 4, 6 and 7 of `fuzz/README.md`).
//! Each was committed `#[ignore]`d with its expected behaviour, reported,
//! and fixed by its owner during the same work; they now run as regression
//! tests, beside the raw fuzz artifacts in `regressions/`.

use opguard_fuzz::{read_outcome, OneByte, Outcome};
use opguard_model::analysis::{aggregate, launch_region};
use opguard_model::{ArtifactSpec, ModelOptions, TraceModel};
use opguard_trace::ReaderOptions;

fn outcome_whole(doc: &[u8]) -> Outcome {
    read_outcome(doc, ReaderOptions::default())
}

fn outcome_trickled(doc: &[u8]) -> Outcome {
    read_outcome(OneByte(doc), ReaderOptions::default())
}

/// FOUND (opguard-trace, reader): the error a top-level metadata value gets
/// depends on where the input's `read` calls happen to end. Found by the
/// `trace_reader` target (gzip members split the input); minimized here.
#[test]
fn metadata_value_errors_do_not_depend_on_read_boundaries() {
    // 0xD0 starts a two-byte UTF-8 sequence but is followed by a quote:
    // whole slice -> unescaped_quote at byte 7; one byte per read ->
    // invalid_utf8 at byte 6 (the earliest error, which both should report).
    let doc = b"{\"k\":\"\xd0\"x}";
    assert_eq!(outcome_whole(doc), outcome_trickled(doc));
    // A string followed by text: whole slice -> unescaped_quote at byte 7;
    // one byte per read -> json_syntax at byte 8.
    let doc = b"{\"h\":\"X\"x}";
    assert_eq!(outcome_whole(doc), outcome_trickled(doc));
}

fn model(doc: &str) -> TraceModel {
    opguard_trace::model_from_reader(
        opguard_trace::TraceReader::new(doc.as_bytes()).expect("opens"),
        ArtifactSpec::new(),
        &ModelOptions::new(),
        &mut |_, _| {},
    )
    .expect("the model reads")
}

/// Two kernels of `dur` 9223372036854775.807 us (i64::MAX ns, accepted by
/// the reader) on one stream.
const TWO_HUGE_KERNELS: &str = r#"{"schemaVersion":1,"traceEvents":[
{"ph":"X","cat":"kernel","name":"void a_kernel<int>(int)","pid":0,"tid":7,"ts":0,"dur":9223372036854775.807,"args":{"device":0,"stream":7}},
{"ph":"X","cat":"kernel","name":"void a_kernel<int>(int)","pid":0,"tid":7,"ts":1,"dur":9223372036854775.807,"args":{"device":0,"stream":7}}
]}"#;

/// FOUND (opguard-trace, analysis): `launch_region` adds `i64` durations
/// unchecked (`kernel_duration_ns`, per-kernel totals, launch durations,
/// gaps, `busy_ns`): with debug assertions it panics, in release it wraps
/// to a negative total, a silently wrong answer. Found by `trace_model`.
#[test]
fn launch_region_totals_do_not_overflow() {
    let m = model(TWO_HUGE_KERNELS);
    let r = std::panic::catch_unwind(|| launch_region(&m, 10));
    let r = r.expect("launch_region must not panic on accepted input");
    assert!(
        r.kernel_duration_ns >= 0,
        "total wrapped: {}",
        r.kernel_duration_ns
    );
}

/// FOUND (opguard-trace, analysis): a region spanning the whole i64 range
/// overflows `region_duration_ns = end - start` and the launch gap
/// `next.ts - prev.end`.
#[test]
fn launch_region_spans_do_not_overflow() {
    let doc = r#"{"schemaVersion":1,"traceEvents":[
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":-9223372036854775.808,"dur":0},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":9223372036854775.807,"dur":0}
]}"#;
    let m = model(doc);
    let r = std::panic::catch_unwind(|| launch_region(&m, 10))
        .expect("launch_region must not panic on accepted input");
    assert!(r.region_duration_ns.is_none_or(|d| d >= 0), "{r:?}");
}

/// FOUND (opguard-trace, analysis): `aggregate` adds the regions' totals
/// unchecked. Found by `trace_model` (`aggregate(&[r.clone(), r])`).
#[test]
fn aggregate_does_not_overflow() {
    let doc = r#"{"schemaVersion":1,"traceEvents":[
{"ph":"X","cat":"kernel","name":"void a_kernel<int>(int)","pid":0,"tid":7,"ts":0,"dur":9223372036854775.807,"args":{"device":0,"stream":7}}
]}"#;
    let r = launch_region(&model(doc), 10);
    let mut other = r.clone();
    other.artifact = opguard_model::Sha256Digest::of(b"another capture");
    let total = std::panic::catch_unwind(|| aggregate(&[r, other]))
        .expect("aggregate must not panic")
        .expect("two artifacts aggregate");
    let json = serde_json::to_value(&total).expect("serializes");
    assert!(!json.to_string().contains("-92"), "wrapped: {json}");
}

/// FOUND (opguard-census, capture reader): a shape entry that is a number
/// written as a string is refused (`"5"`, `"-5"`, `" 5 "` are
/// `invalid_value`), except with a plus sign: `"+5"` is accepted as a
/// symbolic expression and counted as a non-numeric entry, so the census
/// changes silently. Found while killing a mutant of `expr::integer_literal`.
#[test]
fn a_plus_signed_number_in_a_string_is_refused_like_the_others() {
    let capture = |entry: &str| {
        format!(
            r#"{{"format": "opguard.census/capture-v1", "label": "w2", "step_axis": "s0",
                "step_hint": 2, "ops": [{{"name": "aten.mm.default", "shapes": [["s0", {entry}]]}}],
                "guards": [], "replacements": {{}}, "host_resolutions": []}}"#
        )
    };
    let code = |entry: &str| {
        opguard_census::Capture::from_slice(capture(entry).as_bytes())
            .err()
            .map(|e| e.code())
    };
    assert_eq!(code("\"5\""), Some("invalid_value"));
    assert_eq!(code("\"-5\""), Some("invalid_value"));
    assert_eq!(code("\"+5\""), Some("invalid_value"));
}

/// FOUND (opguard-census, expression tokenizer, expr.rs:48): a shape entry or
/// guard holding a 3- or 4-byte UTF-8 character (or `<`/`>`/`=`/`!`/`*`
/// followed by a 2-byte one) panics slicing `&text[i..i + 2]` inside the
/// character, instead of the documented refusal ("does not occur in a sympy
/// expression", `invalid_expression`). Through the C ABI the boundary turns
/// it into `capi.internal_panic`. Found by `capi_json` (`opguard_census`).
#[test]
fn a_non_ascii_expression_is_refused_not_a_panic() {
    for entry in ["\"€\"", "\"s0 + €\"", "\"<é\"", "\"s0*é\""] {
        let text = format!(
            r#"{{"format": "opguard.census/capture-v1", "label": "w2", "step_axis": "s0",
                "step_hint": 2, "ops": [{{"name": "aten.mm.default", "shapes": [["s0", {entry}]]}}],
                "guards": [], "replacements": {{}}, "host_resolutions": []}}"#
        );
        let result = std::panic::catch_unwind(|| {
            opguard_census::Capture::from_slice(text.as_bytes()).map(|_| ())
        });
        let result = result.unwrap_or_else(|_| panic!("{entry}: the reader panicked"));
        let err = result.expect_err(entry);
        assert_eq!(err.code(), "invalid_expression", "{entry}: {err}");
    }
}

/// FOUND (opguard-trace, reader; same family as the metadata one): inside
/// `traceEvents` too, an event with a wrongly typed field followed by a
/// syntax error gets a different code depending on read boundaries. Found
/// by `trace_reader` (one byte per read).
#[test]
fn event_errors_do_not_depend_on_read_boundaries() {
    let doc = b"[{\"ts\":\"t\"x}]";
    assert_eq!(outcome_whole(doc), outcome_trickled(doc));
    let doc = b"[{\"x\":1,\"p\":2},{\"ts\":\"t\"s%:2}]s\":2}]";
    assert_eq!(outcome_whole(doc), outcome_trickled(doc));
}

/// FOUND (opguard-trace, numbers, minor): a `ts`/`dur` whose exponent has more
/// digits than an `i64` holds is refused as out of range even when the value
/// is 0 or rounds to 0 ns (`0e99999999999999999999`,
/// `1e-99999999999999999999`), while `0e400` and `1e-400` read as 0. Found
/// by `trace_gzip` (the `f64` cross-check).
#[test]
fn a_huge_exponent_on_a_zero_or_tiny_number_is_zero_ns() {
    for n in ["0e99999999999999999999", "1e-99999999999999999999"] {
        let doc = format!("[{{\"ts\":{n}}}]");
        let mut r = opguard_trace::TraceReader::new(doc.as_bytes()).expect("opens");
        let e = r.next_event().expect("reads").expect("one event");
        assert_eq!(e.ts_ns(), Ok(Some(0)), "{n}");
    }
}

/// opguard-trace, reader, finding 9 (fixed in `d70ec21`): after the
/// read-boundary fix, a gzip stream whose deflate data is corrupt still ended
/// differently by chunking: read whole it was `gzip_invalid`; one byte per
/// read the inflater handed out a few decoded bytes (`"`) before failing, and
/// the JSON check of those bytes won (`top_level_not_container`). Found by
/// `trace_reader` in run 6 (no tolerance). A corrupt stream now outranks what
/// was parsed out of it.
#[test]
fn corrupt_gzip_data_ends_the_same_whatever_the_chunking() {
    let doc = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\":\"X\"\x02\xac\x1c@";
    assert_eq!(outcome_whole(doc), outcome_trickled(doc));
}
