//! The seed's traps: prefix-matched families, width-1 captures, hint-dependent
//! guards, and the ways a free-symbol verdict could be bought cheaply.

use opguard_census::{
    Capture, Census, FamilyTable, GuardRelation, StepAxisStatus, WidthComparison,
};

use crate::support::fixture;
use crate::support::seed004::families;

const PREFIX_TRAPS: [&str; 4] = [
    "aten.addmm.default",
    "aten.addbmm.default",
    "aten.slice_scatter.default",
    "aten.select_scatter.default",
];

#[test]
fn prefix_names_land_in_unclassified_not_in_add_slice_select() {
    let c = Census::compute(
        &Capture::from_path(fixture("prefix_traps.capture.json")).unwrap(),
        &families(),
    );
    for name in PREFIX_TRAPS {
        assert_eq!(c.unclassified.by_name.get(name), Some(&1), "{name}");
    }
    assert_eq!(c.unclassified.ops, 4);
    // Exactly the one aten.add / aten.slice / aten.select call each.
    assert_eq!(c.family("elementwise").unwrap().ops, 1);
    assert_eq!(c.family("view").unwrap().ops, 2);
    let err = c.require_classified().unwrap_err();
    assert_eq!(err.code(), "unclassified_operators");
    for name in PREFIX_TRAPS {
        assert!(err.to_string().contains(name), "{err}");
    }
}

#[test]
fn default_table_never_files_addmm_under_add_or_scatters_under_views() {
    let t = FamilyTable::default();
    assert_eq!(t.family_of("aten.add.Tensor"), Some("elementwise"));
    assert_eq!(t.family_of("aten.addmm.default"), Some("gemm"));
    assert_eq!(t.family_of("aten.addbmm.default"), Some("gemm"));
    assert_eq!(t.family_of("aten.slice.Tensor"), Some("view"));
    assert_eq!(t.family_of("aten.slice_scatter.default"), Some("indexing"));
    assert_eq!(t.family_of("aten.select_scatter.default"), Some("indexing"));
    // A name the table does not list is unclassified even when a listed name is
    // its prefix.
    assert_eq!(t.family_of("aten.add_relu.Tensor"), None);
    assert_eq!(t.family_of("aten.viewx.default"), None);
}

#[test]
fn width_one_capture_claiming_a_symbol_is_refused() {
    let err = Capture::from_path(fixture("width1_claims_symbol.capture.json")).unwrap_err();
    assert_eq!(err.code(), "step_axis_not_symbolic");
    let msg = err.to_string();
    assert!(msg.contains("torch specialises a size of 0 or 1"), "{msg}");
    assert!(msg.contains("width1-claims-symbol"), "{msg}");
}

#[test]
fn numeric_step_axis_is_refused() {
    let err = Capture::from_path(fixture("width1_numeric_axis.capture.json")).unwrap_err();
    assert_eq!(err.code(), "step_axis_not_symbolic");
    assert!(
        err.to_string().contains("not a symbol but a number"),
        "{err}"
    );
    // An integer step_axis and an expression are refused the same way.
    for axis in ["1", "0", "\"s0 + 1\"", "\"2\""] {
        let doc = format!(
            r#"{{"format": "opguard.census/capture-v1", "label": "x", "step_axis": {axis},
                "step_hint": 2, "ops": [], "guards": [], "replacements": {{}},
                "host_resolutions": []}}"#
        );
        let err = Capture::from_slice(doc.as_bytes()).unwrap_err();
        assert_eq!(err.code(), "step_axis_not_symbolic", "{axis}: {err}");
    }
}

#[test]
fn hint_dependent_guard_is_reported_as_such_not_as_structure() {
    let w2 = Capture::from_path(fixture("hint_guard_w2.capture.json")).unwrap();
    let w8 = Capture::from_path(fixture("hint_guard_w8.capture.json")).unwrap();
    let cmp = WidthComparison::compare(&w2, &w8, None).unwrap();
    assert!(cmp.free_symbol, "{}", cmp.verdict);
    let g = cmp
        .guards
        .iter()
        .find(|g| g.second.as_deref() == Some("s41 + 1 > 8"))
        .unwrap();
    assert_eq!(g.relation, GuardRelation::HintDependent);
    assert!(g.note.contains("vacuous at width 2"), "{}", g.note);
    assert_eq!(
        cmp.guards
            .iter()
            .filter(|g| g.relation == GuardRelation::Identical)
            .count(),
        3
    );
    assert!(cmp.evidence.guards_match_modulo_hint.held);
}

fn doc(label: &str, sym: &str, hint: u64, shapes: &str, guards: &str, repl: &str) -> Capture {
    let d = format!(
        r#"{{"format": "opguard.census/capture-v1", "label": "{label}", "step_axis": "{sym}",
            "step_hint": {hint},
            "ops": [{{"name": "aten.mm.default", "shapes": {shapes}}}],
            "guards": {guards}, "replacements": {repl}, "host_resolutions": []}}"#
    );
    Capture::from_slice(d.as_bytes()).unwrap()
}

#[test]
fn a_guard_not_explained_by_the_hint_fails_the_guard_check() {
    let a = doc("a", "s0", 2, r#"[["s0", 64]]"#, r#"["s0 < 128"]"#, "{}");
    // At width 8 the bound is different: not hint-dependent, a difference.
    let b = doc("b", "s9", 8, r#"[["s9", 64]]"#, r#"["s9 < 64"]"#, "{}");
    let cmp = WidthComparison::compare(&a, &b, None).unwrap();
    assert!(!cmp.evidence.guards_match_modulo_hint.held);
    assert!(!cmp.free_symbol);
    assert_eq!(
        cmp.guards
            .iter()
            .filter(|g| g.relation == GuardRelation::Differs)
            .count(),
        2
    );
    // A hint-mentioning guard that is not vacuous at the other width differs too.
    let c = doc(
        "c",
        "s9",
        8,
        r#"[["s9", 64]]"#,
        r#"["s9 < 128", "s9 <= 8"]"#,
        "{}",
    );
    let a2 = doc("a2", "s0", 2, r#"[["s0", 64]]"#, r#"["s0 < 128"]"#, "{}");
    let cmp = WidthComparison::compare(&a2, &c, None).unwrap();
    assert!(
        !cmp.evidence.guards_match_modulo_hint.held,
        "{:#?}",
        cmp.guards
    );
    let row = cmp
        .guards
        .iter()
        .find(|g| g.second.as_deref() == Some("s9 <= 8"))
        .unwrap();
    assert_eq!(
        row.relation,
        GuardRelation::Differs,
        "s9 <= 8 is not vacuous at width 2"
    );
}

#[test]
fn a_lost_symbol_records_no_replacement_but_the_digest_sees_it() {
    // Seed 004 finding 10: the wide capture has one entry that took the hint (a
    // tensor built from the hint) with replacements still empty.
    let a = doc("a", "s0", 2, r#"[["s0", 64], ["s0", 64]]"#, "[]", "{}");
    let b = doc("b", "s7", 8, r#"[["s7", 64], [8, 64]]"#, "[]", "{}");
    let cmp = WidthComparison::compare(&a, &b, None).unwrap();
    assert!(cmp.evidence.no_replacement_solves_step_axis.held);
    assert!(cmp.evidence.no_guard_pins_step_axis.held);
    assert!(!cmp.evidence.same_digest.held);
    assert!(!cmp.evidence.second_width_absent.held);
    assert!(!cmp.free_symbol, "{}", cmp.verdict);
    assert!(cmp
        .evidence
        .no_replacement_solves_step_axis
        .proves
        .contains("load-bearing"));
}

#[test]
fn a_replacement_to_a_number_is_a_specialisation_a_unification_is_not() {
    let free = doc("a", "s0", 2, r#"[["s0", 64]]"#, "[]", r#"{"s52": "s0"}"#);
    let free8 = doc("b", "s0", 8, r#"[["s0", 64]]"#, "[]", r#"{"s52": "s0"}"#);
    let cmp = WidthComparison::compare(&free, &free8, None).unwrap();
    assert!(cmp.free_symbol, "{}", cmp.verdict);

    // After a host int(): s52 is solved to the width. The guard Eq(s52, s0) unifies
    // it with the axis, so solving it solves the axis, whatever the shapes say.
    let spec = doc(
        "c",
        "s0",
        8,
        r#"[["s0", 64]]"#,
        r#"["Eq(s52, s0)"]"#,
        r#"{"s52": "8"}"#,
    );
    let spec2 = doc("d", "s0", 2, r#"[["s0", 64]]"#, r#"["Eq(s52, s0)"]"#, "{}");
    let cmp = WidthComparison::compare(&spec2, &spec, None).unwrap();
    assert!(!cmp.evidence.no_replacement_solves_step_axis.held);
    assert!(!cmp.free_symbol);
    let s = &cmp.specialisations[0];
    assert_eq!(
        (s.symbol.as_str(), s.value, s.reason),
        ("s52", 8, "step_axis")
    );
    let census = Census::compute(&spec, &FamilyTable::default());
    assert_eq!(census.step_axis.status, StepAxisStatus::Specialised);
    assert_eq!(census.step_axis.solved_to, Some(8));
}

#[test]
fn a_guard_pinning_a_symbol_unified_by_replacement_is_a_pin() {
    // s52 is unified with the axis by the replacement {"s52": "s0"}; a guard that
    // equates s52 with a number pins the axis, even though it never names s0.
    let a = doc("a", "s0", 2, r#"[["s0", 64]]"#, "[]", r#"{"s52": "s0"}"#);
    let b = doc(
        "b",
        "s0",
        8,
        r#"[["s0", 64]]"#,
        r#"["Eq(s52, 16)"]"#,
        r#"{"s52": "s0"}"#,
    );
    let cmp = WidthComparison::compare(&a, &b, None).unwrap();
    assert!(!cmp.evidence.no_guard_pins_step_axis.held);
    assert!(!cmp.free_symbol);
    assert!(cmp
        .evidence
        .no_guard_pins_step_axis
        .observed
        .contains("Eq(s52, 16)"));
}

#[test]
fn unknown_entries_count_as_non_numeric_and_block_the_verdict() {
    let a = doc("a", "s0", 2, r#"[["s0", null]]"#, "[]", "{}");
    let b = doc("b", "s5", 8, r#"[["s5", null]]"#, "[]", "{}");
    let census = Census::compute(&a, &FamilyTable::default());
    assert_eq!((census.totals.non_numeric, census.totals.unknown), (2, 1));
    assert_eq!(census.family("gemm").unwrap().non_numeric, 2);
    let cmp = WidthComparison::compare(&a, &b, None).unwrap();
    assert!(cmp.evidence.same_digest.held);
    assert!(!cmp.evidence.no_unknown_entries.held);
    assert!(!cmp.free_symbol);
}

#[test]
fn a_step_axis_no_shape_carries_is_reported_absent() {
    let a = doc("a", "s0", 2, r#"[[2, 64]]"#, "[]", "{}");
    let census = Census::compute(&a, &FamilyTable::default());
    assert_eq!(census.step_axis.status, StepAxisStatus::AbsentFromShapes);
    let b = doc("b", "s0", 8, r#"[[8, 64]]"#, "[]", "{}");
    let cmp = WidthComparison::compare(&a, &b, None).unwrap();
    assert!(!cmp.evidence.step_axis_in_shapes.held);
    assert!(!cmp.free_symbol);
}

#[test]
fn concrete_dims_compare_as_multisets() {
    // The same values at both widths, but 64 appears three times at width 2 and
    // twice at width 8: one of them followed the width somewhere.
    let a = doc("a", "s0", 2, r#"[["s0", 64], [64, 64]]"#, "[]", "{}");
    let b = doc("b", "s7", 8, r#"[["s7", 64], ["s7", 64]]"#, "[]", "{}");
    let cmp = WidthComparison::compare(&a, &b, None).unwrap();
    assert!(!cmp.evidence.same_concrete_dims.held);
    assert!(
        cmp.evidence
            .same_concrete_dims
            .observed
            .contains("64: 3 → 2"),
        "{}",
        cmp.evidence.same_concrete_dims.observed
    );
}

#[test]
fn a_linear_equality_in_the_step_symbol_is_a_pin() {
    let a = doc("a", "s0", 2, r#"[["s0", 64]]"#, r#"["Eq(2*s0, 4)"]"#, "{}");
    let census = Census::compute(&a, &FamilyTable::default());
    assert_eq!(census.step_axis.status, StepAxisStatus::Specialised);
    assert_eq!(census.step_axis.solved_to, Some(2));
    let b = doc(
        "b",
        "s0",
        8,
        r#"[["s0", 64]]"#,
        r#"["Eq(s0 + 1, 9)"]"#,
        "{}",
    );
    let cmp = WidthComparison::compare(&a, &b, None).unwrap();
    assert!(!cmp.evidence.no_guard_pins_step_axis.held);
    assert!(!cmp.free_symbol);
}

/// Seed 004, issue 30: a bound equal to the hint pins the symbol whatever its
/// spelling. Each row is (spelling, guards at width 2, guards at width 8,
/// what width 8's guards admit alone when only one value); at width 2 every
/// row admits only 2 over a size symbol's range [2, ∞).
const PINNING_SPELLINGS: [(&str, &str, &str, Option<i64>); 9] = [
    ("<=", r#"["s0 <= 2"]"#, r#"["s0 <= 8"]"#, None),
    ("<", r#"["s0 < 3"]"#, r#"["s0 < 9"]"#, None),
    (
        ">= (reversed operands)",
        r#"["2 >= s0"]"#,
        r#"["8 >= s0"]"#,
        None,
    ),
    (
        "> (reversed operands)",
        r#"["3 > s0"]"#,
        r#"["9 > s0"]"#,
        None,
    ),
    ("==", r#"["s0 == 2"]"#, r#"["s0 == 8"]"#, Some(8)),
    ("Eq", r#"["Eq(s0, 2)"]"#, r#"["Eq(s0, 8)"]"#, Some(8)),
    (
        "Eq (reversed operands)",
        r#"["Eq(2, s0)"]"#,
        r#"["Eq(8, s0)"]"#,
        Some(8),
    ),
    (
        "Ne beside a bound",
        r#"["s0 < 4", "Ne(s0, 3)"]"#,
        r#"["s0 < 10", "Ne(s0, 9)"]"#,
        None,
    ),
    (
        ">= and <=",
        r#"["s0 >= 2", "s0 <= 2"]"#,
        r#"["s0 >= 8", "s0 <= 8"]"#,
        Some(8),
    ),
];

#[test]
fn a_guard_admitting_only_the_hint_pins_the_step_axis_in_every_spelling() {
    for (spelling, at2, at8, pinned_at8) in PINNING_SPELLINGS {
        let a = doc("a", "s0", 2, r#"[["s0", 64]]"#, at2, "{}");
        let b = doc("b", "s0", 8, r#"[["s0", 64]]"#, at8, "{}");
        let census = Census::compute(&a, &FamilyTable::default());
        assert_eq!(
            (census.step_axis.status, census.step_axis.solved_to),
            (StepAxisStatus::Specialised, Some(2)),
            "{spelling}: {}",
            census.step_axis.note
        );
        let census = Census::compute(&b, &FamilyTable::default());
        assert_eq!(census.step_axis.solved_to, pinned_at8, "{spelling}");
        let cmp = WidthComparison::compare(&a, &b, None).unwrap();
        assert!(!cmp.evidence.no_guard_pins_step_axis.held, "{spelling}");
        assert!(!cmp.free_symbol, "{spelling}: {}", cmp.verdict);
        assert!(
            cmp.evidence
                .no_guard_pins_step_axis
                .observed
                .contains("admitting only 2"),
            "{spelling}: {}",
            cmp.evidence.no_guard_pins_step_axis.observed
        );
        assert!(cmp
            .specialisations
            .iter()
            .any(|s| s.capture == "a" && s.value == 2 && s.via == "guard"));
    }
}

#[test]
fn bounds_that_admit_more_than_one_width_pin_nothing() {
    for (spelling, guards) in [
        ("<=", r#"["s0 <= 512"]"#),
        ("<", r#"["s0 < 128"]"#),
        (">= at the range's minimum", r#"["s0 >= 2", "2 <= s0"]"#),
        ("Ne alone", r#"["Ne(s0, 3)"]"#),
        ("Ne beside a wider bound", r#"["s0 < 5", "Ne(s0, 3)"]"#),
    ] {
        let a = doc("a", "s0", 2, r#"[["s0", 64]]"#, guards, "{}");
        let b = doc("b", "s0", 8, r#"[["s0", 64]]"#, guards, "{}");
        let census = Census::compute(&a, &FamilyTable::default());
        assert_eq!(
            census.step_axis.status,
            StepAxisStatus::Symbolic,
            "{spelling}"
        );
        let cmp = WidthComparison::compare(&a, &b, None).unwrap();
        assert!(cmp.evidence.no_guard_pins_step_axis.held, "{spelling}");
        assert!(cmp.free_symbol, "{spelling}: {}", cmp.verdict);
    }
}

#[test]
fn guards_admitting_no_width_at_all_are_not_free() {
    let guards = r#"["Eq(2*s0, 15)"]"#;
    let a = doc("a", "s0", 2, r#"[["s0", 64]]"#, guards, "{}");
    let b = doc("b", "s0", 8, r#"[["s0", 64]]"#, guards, "{}");
    let census = Census::compute(&a, &FamilyTable::default());
    assert_eq!(census.step_axis.status, StepAxisStatus::Specialised);
    assert!(
        census.step_axis.note.contains("admits no value"),
        "{}",
        census.step_axis.note
    );
    let cmp = WidthComparison::compare(&a, &b, None).unwrap();
    assert!(!cmp.evidence.no_guard_pins_step_axis.held);
    assert!(!cmp.free_symbol);
}
