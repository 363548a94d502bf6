//! The real PyTorch captures in `../shared/data/torch/census/` (torch 2.15, CPU):
//! how each one must read.

use opguard_census::{
    Capture, Census, DeclaredHostResolutions, FamilyTable, StepAxisStatus, WidthComparison,
};

use crate::support::real_capture_path;

fn load(stem: &str) -> Option<Capture> {
    real_capture_path(stem).map(|p| Capture::from_path(&p).unwrap())
}

#[test]
fn real_clean_width_2_and_8_compare_as_free_with_control() {
    let (Some(w2), Some(w8), Some(ctl)) = (
        load("clean_sym_w2"),
        load("clean_sym_w8"),
        load("clean_control_w2"),
    ) else {
        return;
    };
    let cmp = WidthComparison::compare(&w2, &w8, Some(&ctl)).unwrap();
    assert!(cmp.free_symbol, "{}", cmp.verdict);
    for (name, check) in cmp.evidence.checks() {
        assert!(check.held, "{name}: {}", check.observed);
    }
    // The replacements are symbol-to-symbol unifications ({"s52": "s0"}), not
    // specialisations; and the value 2 is an engine constant present at both widths.
    assert!(cmp.specialisations.is_empty());
    assert!(cmp
        .evidence
        .first_width_absent_or_engine_constant
        .observed
        .contains("6 time(s) at width 2 and 6 time(s) at width 8"));
    // torch adds one aten.sym_size.int in the symbolic pass.
    assert_eq!(cmp.control_distinct_ops_differences.len(), 1);
    assert_eq!(
        cmp.control_distinct_ops_differences[0].op,
        "aten.sym_size.int"
    );
    let census = Census::compute(&w2, &FamilyTable::default());
    assert_eq!(census.step_axis.status, StepAxisStatus::Symbolic);
    assert_eq!(census.step_axis.entries, 214);
}

#[test]
fn real_control_has_zero_non_numeric_entries() {
    let Some(ctl) = load("clean_control_w2") else {
        return;
    };
    let c = Census::compute(&ctl, &FamilyTable::default());
    assert_eq!(c.totals.non_numeric, 0);
    assert!(c.totals.ops > 0 && c.totals.shape_entries > 0);
    assert!(c.families.iter().all(|f| f.non_numeric == 0));
    assert_eq!(c.step_axis.status, StepAxisStatus::Concrete);
}

#[test]
fn real_width_one_attempt_is_refused() {
    let Some(p) = real_capture_path("clean_sym_w1") else {
        return;
    };
    let err = Capture::from_path(&p).unwrap_err();
    assert_eq!(err.code(), "step_axis_not_symbolic");
    let msg = err.to_string();
    assert!(msg.contains("clean_sym_w1"), "{msg}");
    assert!(msg.contains("torch specialises"), "{msg}");
    assert!(msg.contains("step_axis is null"), "{msg}");
}

#[test]
fn real_hostres_widths_are_not_free_and_the_report_names_why() {
    let (Some(h2), Some(h8)) = (load("hostres_sym_w2"), load("hostres_sym_w8")) else {
        return;
    };
    let cmp = WidthComparison::compare(&h2, &h8, None).unwrap();
    assert!(!cmp.free_symbol);
    let e = &cmp.evidence;
    assert!(!e.same_digest.held);
    assert!(!e.same_concrete_dims.held);
    assert!(!e.second_width_absent.held);
    assert!(!e.step_axis_in_shapes.held);
    assert!(!e.no_replacement_solves_step_axis.held);
    assert!(!e.no_guard_pins_step_axis.held);
    // The report names the specialisation: Eq(s52, W) and s52 -> W at each width.
    assert!(e
        .no_replacement_solves_step_axis
        .observed
        .contains("s52 → 2"));
    assert!(e
        .no_replacement_solves_step_axis
        .observed
        .contains("s52 → 8"));
    assert!(e.no_guard_pins_step_axis.observed.contains("Eq(s52, 2)"));
    assert!(e.no_guard_pins_step_axis.observed.contains("Eq(s52, 8)"));
    assert!(e.second_width_absent.observed.contains("179 time(s)"));
    for name in [
        "same_digest",
        "no_replacement_solves_step_axis",
        "no_guard_pins_step_axis",
    ] {
        assert!(cmp.verdict.contains(name), "{}", cmp.verdict);
    }
    let census = Census::compute(&h2, &FamilyTable::default());
    assert_eq!(census.step_axis.status, StepAxisStatus::Specialised);
    assert_eq!(census.step_axis.solved_to, Some(2));
    assert_eq!(census.totals.non_numeric, 0);
}

#[test]
fn real_captures_are_fully_classified_by_the_default_table() {
    for stem in [
        "clean_sym_w2",
        "clean_sym_w8",
        "clean_control_w2",
        "hostres_sym_w2",
        "hostres_sym_w8",
    ] {
        let Some(c) = load(stem) else {
            return;
        };
        Census::compute(&c, &FamilyTable::default())
            .require_classified()
            .unwrap();
    }
}

#[test]
fn real_hostres_host_resolutions_match_a_declared_set_at_both_widths() {
    let (Some(h2), Some(h8)) = (load("hostres_sym_w2"), load("hostres_sym_w8")) else {
        return;
    };
    let declared = DeclaredHostResolutions::from_lines([
        ("mymodel/model.py:53 in prepare", 1),
        ("mymodel/model.py:54 in prepare", 1),
    ])
    .unwrap();
    for c in [&h2, &h8] {
        Census::compute(c, &FamilyTable::default())
            .require_host_resolutions(&declared)
            .unwrap();
    }
    // The clean captures convert nowhere: the same declared set fails on them.
    if let Some(w2) = load("clean_sym_w2") {
        let diff = Census::compute(&w2, &FamilyTable::default()).host_resolution_diff(&declared);
        assert_eq!(diff.missing.len(), 2);
    }
}
