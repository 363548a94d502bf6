//! Hostile capture text found by fuzzing (fuzz/README.md findings 4 and 6):
//! refused with a code, never a panic, never miscounted.

use opguard_census::Capture;

fn capture(entry: &str) -> String {
    format!(
        r#"{{"format": "opguard.census/capture-v1", "label": "w2", "step_axis": "s0",
            "step_hint": 2, "ops": [{{"name": "aten.mm.default", "shapes": [["s0", {entry}]]}}],
            "guards": [], "replacements": {{}}, "host_resolutions": []}}"#
    )
}

#[test]
fn a_non_ascii_expression_is_refused_not_a_panic() {
    for entry in [
        "\"€\"",
        "\"s0 + €\"",
        "\"<é\"",
        "\"s0*é\"",
        "\"=\u{1F600}\"",
    ] {
        let result =
            std::panic::catch_unwind(|| Capture::from_slice(capture(entry).as_bytes()).map(|_| ()));
        let err = result
            .unwrap_or_else(|_| panic!("{entry}: the reader panicked"))
            .expect_err(entry);
        assert_eq!(err.code(), "invalid_expression", "{entry}: {err}");
    }
}

#[test]
fn a_signed_number_in_a_string_is_refused_like_an_unsigned_one() {
    for entry in ["\"5\"", "\"-5\"", "\"+5\"", "\" +5 \""] {
        let err = Capture::from_slice(capture(entry).as_bytes()).expect_err(entry);
        assert_eq!(err.code(), "invalid_value", "{entry}: {err}");
    }
}
