//! Tests written to kill mutants that `cargo mutants` found surviving (see
//! `fuzz/README.md`, "Mutation testing"): each pins one behaviour through the
//! public API that the existing suite did not distinguish.

use opguard_census::{Capture, Census, FamilyTable, GuardRelation, WidthComparison};

/// A capture at `width` whose step axis is `sym`, with the given ops JSON
/// and guards.
fn capture(width: u64, sym: &str, ops: &str, guards: &[&str]) -> String {
    let guards: Vec<String> = guards.iter().map(|g| format!("{g:?}")).collect();
    format!(
        r#"{{"format": "opguard.census/capture-v1", "label": "w{width}",
            "step_axis": "{sym}", "step_hint": {width}, "ops": {ops},
            "guards": [{}], "replacements": {{}}, "host_resolutions": []}}"#,
        guards.join(",")
    )
}

fn mm(sym: &str) -> String {
    format!(
        r#"[{{"name": "aten.mm.default", "shapes": [["{sym}", 5120], [5120, 17408], ["{sym}", 17408]]}},
            {{"name": "aten.add.Tensor", "shapes": [["{sym} + 1"], ["{sym} + 1"], []]}}]"#
    )
}

fn parse(text: &str) -> Capture {
    Capture::from_slice(text.as_bytes()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_scalar_shape_is_empty_and_others_are_not() {
    let c = parse(&capture(2, "s0", &mm("s0"), &[]));
    let add = c.ops().nth(1).expect("two ops");
    let empties: Vec<bool> = add.shapes().map(|s| s.is_empty()).collect();
    assert_eq!(empties, [false, false, true]);
}

#[test]
fn the_step_axis_report_counts_the_entries_that_mention_it() {
    let c = parse(&capture(2, "s0", &mm("s0"), &[]));
    let census = Census::compute(&c, &FamilyTable::default());
    // Two entries of the mm and two of the add mention s0.
    assert_eq!(census.step_axis.entries, 4);
}

#[test]
fn a_wrong_type_error_names_the_type_found() {
    for (value, found) in [
        ("5", "an integer"),
        ("1.5", "a non-integer number"),
        (
            "18446744073709551616",
            "a number beyond the 64-bit integer range",
        ),
        (
            "-9223372036854775809",
            "a number beyond the 64-bit integer range",
        ),
        ("1e19", "a number written with a fraction or exponent"),
        ("2.0", "a number written with a fraction or exponent"),
        ("1e20", "a number beyond the 64-bit integer range"),
        ("true", "a boolean"),
        ("[]", "an array"),
        ("{}", "an object"),
    ] {
        let text = capture(2, "s0", &mm("s0"), &[])
            .replace(r#""label": "w2""#, &format!(r#""label": {value}"#));
        let err = Capture::from_slice(text.as_bytes()).expect_err(value);
        assert_eq!(err.code(), "wrong_type", "{err}");
        assert!(err.to_string().contains(found), "{value}: {err}");
    }
}

#[test]
fn a_negative_step_hint_is_an_invalid_value() {
    let text = capture(2, "s0", &mm("s0"), &[]).replace(r#""step_hint": 2"#, r#""step_hint": -2"#);
    let err = Capture::from_slice(text.as_bytes()).expect_err("negative hint");
    assert_eq!(err.code(), "invalid_value", "{err}");
    assert!(err.to_string().contains("-2 is negative"), "{err}");
}

#[test]
fn symbol_times_constant_reads_as_constant_times_symbol() {
    let a = parse(&capture(2, "s0", &mm("s0").replace("s0 + 1", "28*s0"), &[]));
    let b = parse(&capture(2, "s0", &mm("s0").replace("s0 + 1", "s0*28"), &[]));
    let t = FamilyTable::default();
    assert_eq!(
        Census::compute(&a, &t).digest,
        Census::compute(&b, &t).digest
    );
    let c = parse(&capture(2, "s0", &mm("s0").replace("s0 + 1", "s0*29"), &[]));
    assert_ne!(
        Census::compute(&a, &t).digest,
        Census::compute(&c, &t).digest
    );
}

fn rows(g2: &[&str], g8: &[&str]) -> Vec<(Option<String>, Option<String>, String, GuardRelation)> {
    let a = parse(&capture(2, "s0", &mm("s0"), g2));
    let b = parse(&capture(8, "s3", &mm("s3"), g8));
    let cmp = WidthComparison::compare(&a, &b, None).expect("compares");
    cmp.guards
        .iter()
        .map(|g| {
            (
                g.first.clone(),
                g.second.clone(),
                g.canonical.clone(),
                g.relation,
            )
        })
        .collect()
}

#[test]
fn guards_have_a_rendered_canonical_form() {
    let r = rows(&["28*s0 <= 8192"], &["28*s3 <= 8192"]);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0].3, GuardRelation::Identical, "{r:?}");
    assert!(r[0].2.contains("$STEP") && r[0].2.contains("8192"), "{r:?}");
}

#[test]
fn a_non_linear_guard_is_rendered_with_the_step_placeholder() {
    let r = rows(&["Eq(Mod(s0, 4), 0)"], &["Eq(Mod(s3, 4), 0)"]);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0].2, "Eq(Mod($STEP, 4), 0)", "{r:?}");
    assert_eq!(r[0].3, GuardRelation::Identical, "{r:?}");
}

#[test]
fn only_a_bare_symbol_equated_with_the_hint_pins_it() {
    // A symbol equated with each width's own hint: pinned.
    let r = rows(&["Eq(s7, 2)"], &["Eq(s9, 8)"]);
    assert_eq!(r[0].3, GuardRelation::PinnedToHint, "{r:?}");
    // Either orientation gives one canonical text: symbol first.
    assert_eq!(r[0].2, "#g0 == $HINT", "{r:?}");
    let r = rows(&["Eq(2, s7)"], &["Eq(8, s9)"]);
    assert_eq!(
        (r[0].2.as_str(), r[0].3),
        ("#g0 == $HINT", GuardRelation::PinnedToHint)
    );
    // A symbol plus the hint equated with the hint is hint-relative, not a
    // pin: only `symbol == hint` itself pins.
    let r = rows(&["Eq(s7 + 2, 2)"], &["Eq(s9 + 8, 8)"]);
    assert_eq!(r[0].3, GuardRelation::SameRelativeToHint, "{r:?}");
}

#[test]
fn a_one_sided_not_equal_guard_vacuous_at_the_other_width_is_hint_dependent() {
    // 2*x != 8 read at width 2 is 2*x != 2, i.e. x != 1: vacuous for a size
    // symbol (x >= 2), so its absence at width 2 is not a difference.
    let r = rows(&[], &["Ne(2*s3, 8)"]);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0].3, GuardRelation::HintDependent, "{r:?}");
}
