//! Refusals of the two-width comparison, and name independence.

use opguard_census::{Capture, WidthComparison};

use crate::support::builder::parse;
use crate::support::seed004::{control, symbolic, NARROW, WIDE};

#[test]
fn a_concrete_capture_offered_as_one_side_is_refused() {
    let ctl = parse(&control(1, NARROW));
    let wide = parse(&symbolic(1, WIDE));
    let err = WidthComparison::compare(&ctl, &wide, None).unwrap_err();
    assert_eq!(err.code(), "step_axis_not_symbolic");
    assert!(err.to_string().contains("pass it as the control"), "{err}");
}

#[test]
fn two_captures_at_one_width_are_refused() {
    let a = parse(&symbolic(1, NARROW));
    let err = WidthComparison::compare(&a, &a, None).unwrap_err();
    assert_eq!(err.code(), "same_width");
}

#[test]
fn a_control_with_a_step_axis_is_refused() {
    let a = parse(&symbolic(1, NARROW));
    let b = parse(&symbolic(1, WIDE));
    let err = WidthComparison::compare(&a, &b, Some(&a)).unwrap_err();
    assert_eq!(err.code(), "control_not_concrete");
}

#[test]
fn a_control_with_symbolic_entries_fails_its_check() {
    let a = parse(&symbolic(1, NARROW));
    let b = parse(&symbolic(1, WIDE));
    let mut c = control(1, NARROW);
    c["ops"][0]["shapes"][0][0] = serde_json::json!("u0");
    let cmp = WidthComparison::compare(&a, &b, Some(&parse(&c))).unwrap();
    let check = cmp.evidence.control_fully_concrete.as_ref().unwrap();
    assert!(!check.held);
    assert!(!cmp.free_symbol);
    assert!(
        cmp.verdict.contains("control_fully_concrete"),
        "{}",
        cmp.verdict
    );
}

#[test]
fn the_verdict_does_not_depend_on_symbol_names() {
    // Rename every symbol of the wide capture through its text: s41 -> s3, s97 -> s1000.
    let a = parse(&symbolic(1, NARROW));
    let text = serde_json::to_string(&symbolic(1, WIDE))
        .unwrap()
        .replace("s41", "s3")
        .replace("s97", "s1000");
    let b = Capture::from_slice(text.as_bytes()).unwrap();
    let cmp = WidthComparison::compare(&a, &b, None).unwrap();
    assert!(cmp.free_symbol, "{}", cmp.verdict);
    let b2 = parse(&symbolic(1, WIDE));
    assert_eq!(
        WidthComparison::compare(&a, &b2, None)
            .unwrap()
            .first
            .digest,
        cmp.second.digest
    );
}

#[test]
fn every_output_serialises_with_its_named_fields() {
    let a = parse(&symbolic(1, NARROW));
    let b = parse(&symbolic(1, WIDE));
    let cmp = WidthComparison::compare(&a, &b, Some(&parse(&control(1, NARROW)))).unwrap();
    let v = serde_json::to_value(&cmp).unwrap();
    for k in [
        "format",
        "first",
        "second",
        "control",
        "free_symbol",
        "verdict",
        "evidence",
        "guards",
        "specialisations",
        "distinct_ops_differences",
        "control_distinct_ops_differences",
    ] {
        assert!(v.get(k).is_some(), "{k}");
    }
    let names: Vec<&str> = cmp.evidence.checks().into_iter().map(|(n, _)| n).collect();
    for n in &names {
        let c = &v["evidence"][n];
        assert!(
            c["held"].is_boolean() && c["proves"].is_string() && c["observed"].is_string(),
            "{n}"
        );
    }
    assert_eq!(names.len(), 13);
    let census = opguard_census::Census::compute(&a, &opguard_census::FamilyTable::default());
    let v = serde_json::to_value(&census).unwrap();
    for k in [
        "label",
        "digest",
        "families",
        "totals",
        "unclassified",
        "concrete_dims",
        "host_resolutions_by_line",
        "distinct_ops",
    ] {
        assert!(v.get(k).is_some(), "{k}");
    }
    assert_eq!(
        v["families"][0]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        vec!["family", "non_numeric", "ops", "shape_entries"],
        "a family row is exactly these four fields (listed sorted)"
    );
}

/// Seed 004: "unclassified must be empty". An operator no family claims makes the
/// comparison not free, names the operator and the fix; classifying it in the
/// table frees the same two captures again.
#[test]
fn an_unclassified_operator_makes_the_comparison_not_free() {
    let with_custom = |width: i64| {
        let mut v = symbolic(1, width);
        let mut op = v["ops"][0].clone();
        op["name"] = serde_json::json!("mylib.fused_rope.default");
        v["ops"].as_array_mut().unwrap().push(op);
        parse(&v)
    };
    let (a, b) = (with_custom(NARROW), with_custom(WIDE));
    let cmp = WidthComparison::compare(&a, &b, None).unwrap();
    assert!(!cmp.free_symbol, "{}", cmp.verdict);
    let check = &cmp.evidence.every_operator_classified;
    assert!(!check.held);
    assert!(
        check.observed.contains("mylib.fused_rope.default ×1")
            && check.observed.contains("classify it in the family table"),
        "{}",
        check.observed
    );
    assert!(
        cmp.verdict.contains("every_operator_classified")
            && cmp.verdict.contains("mylib.fused_rope.default"),
        "{}",
        cmp.verdict
    );
    // Every other check still holds: the gate alone refuses.
    let failed: Vec<&str> = cmp
        .evidence
        .checks()
        .into_iter()
        .filter(|(_, c)| !c.held)
        .map(|(n, _)| n)
        .collect();
    assert_eq!(failed, ["every_operator_classified"]);

    let mut table: serde_json::Value =
        serde_json::from_str(opguard_census::DEFAULT_FAMILIES_JSON).unwrap();
    table["families"]
        .as_array_mut()
        .expect("families")
        .push(serde_json::json!({"family": "mylib_fused", "operators": ["mylib.fused_rope"]}));
    let table =
        opguard_census::FamilyTable::from_slice(&serde_json::to_vec(&table).unwrap()).unwrap();
    let cmp = WidthComparison::compare_with_families(&a, &b, None, &table).unwrap();
    assert!(cmp.free_symbol, "{}", cmp.verdict);
    assert!(cmp.evidence.every_operator_classified.held);
}
