//! Seed 004's published census, reconstructed as constructed captures and pinned;
//! then each pin is shown to fail when one entry, one operator name or one
//! host-resolution line changes.

use opguard_census::{Census, DeclaredHostResolutions, FamilyRow, WidthComparison};
use serde_json::json;

use crate::support::builder::{first_op, parse};
use crate::support::fixture;
use crate::support::seed004::{control, families, symbolic, NARROW, WIDE};

fn row(c: &Census, family: &str) -> (u64, u64) {
    let r: &FamilyRow = c.family(family).unwrap();
    (r.ops, r.non_numeric)
}

#[test]
fn tp1_census_pins_seed_families_and_totals() {
    let c = Census::compute(&parse(&symbolic(1, NARROW)), &families());
    assert_eq!(row(&c, "gemm"), (257, 514));
    assert_eq!(row(&c, "attention"), (64, 304));
    assert_eq!(row(&c, "normalisation"), (273, 802));
    // The review's re-derivation of the other families.
    assert_eq!(row(&c, "allocation"), (566, 803));
    assert_eq!(row(&c, "view"), (921, 1736));
    assert_eq!(row(&c, "bookkeeping"), (83, 21));
    assert_eq!(
        (c.totals.ops, c.totals.non_numeric, c.totals.shape_entries),
        (2521, 5016, 12544)
    );
    // Totals sit next to the families and add up from them.
    let sum: u64 = c.families.iter().map(|f| f.non_numeric).sum();
    assert_eq!(sum + c.unclassified.non_numeric, c.totals.non_numeric);
    c.require_classified().unwrap();
}

#[test]
fn tp1_control_pins_zero_non_numeric_and_same_operator_total() {
    let c = Census::compute(&parse(&control(1, NARROW)), &families());
    assert_eq!(
        (c.totals.ops, c.totals.non_numeric, c.totals.shape_entries),
        (2521, 0, 12544)
    );
    assert_eq!(row(&c, "allocation"), (565, 0));
    assert_eq!(row(&c, "view"), (922, 0));
    assert!(c.families.iter().all(|f| f.non_numeric == 0));
}

#[test]
fn tp2_census_pins_collective_and_totals() {
    let c = Census::compute(&parse(&symbolic(2, NARROW)), &families());
    assert_eq!(row(&c, "gemm"), (257, 514));
    assert_eq!(row(&c, "attention"), (64, 304));
    assert_eq!(row(&c, "normalisation"), (273, 802));
    assert_eq!(row(&c, "collective"), (133, 266));
    assert_eq!(
        (c.totals.ops, c.totals.non_numeric, c.totals.shape_entries),
        (2662, 5297, 13107)
    );
    let ctl = Census::compute(&parse(&control(2, NARROW)), &families());
    assert_eq!((ctl.totals.ops, ctl.totals.non_numeric), (2662, 0));
}

#[test]
fn tp1_and_tp2_are_free_across_widths_2_and_8_with_control() {
    for tp in [1, 2] {
        let narrow = parse(&symbolic(tp, NARROW));
        let wide = parse(&symbolic(tp, WIDE));
        let ctl = parse(&control(tp, NARROW));
        let cmp = WidthComparison::compare(&narrow, &wide, Some(&ctl)).unwrap();
        assert!(cmp.free_symbol, "tp{tp}: {}", cmp.verdict);
        assert_eq!(cmp.first.digest, cmp.second.digest);
        // Width 8's guard set has the lower bound, width 2's does not; it is
        // reported as hint-dependent, not as structure.
        let hint_dep: Vec<_> = cmp
            .guards
            .iter()
            .filter(|g| g.relation == opguard_census::GuardRelation::HintDependent)
            .collect();
        assert_eq!(hint_dep.len(), 1, "tp{tp}");
        assert_eq!(hint_dep[0].second.as_deref(), Some("s41 + 1 > 8"));
        assert_eq!(hint_dep[0].first, None);
        // The one value-level difference: the digest cannot see it, distinct_ops can.
        let diffs: Vec<_> = cmp
            .control_distinct_ops_differences
            .iter()
            .map(|d| (d.op.as_str(), d.first, d.second))
            .collect();
        assert_eq!(
            diffs,
            vec![
                ("aten.lift_fresh_copy.default", 1, 0),
                ("aten.scalar_tensor.default", 0, 1)
            ]
        );
    }
}

#[test]
fn tp2_group_width_two_is_an_engine_constant_not_the_step() {
    let narrow = Census::compute(&parse(&symbolic(2, NARROW)), &families());
    let dims = narrow.concrete_dims_map();
    assert_eq!(dims.get(&2), Some(&73));
    assert_eq!(dims.get(&8), None);
    let cmp = WidthComparison::compare(
        &parse(&symbolic(2, NARROW)),
        &parse(&symbolic(2, WIDE)),
        None,
    )
    .unwrap();
    let e = &cmp.evidence.first_width_absent_or_engine_constant;
    assert!(e.held);
    assert!(
        e.observed
            .contains("73 time(s) at width 2 and 73 time(s) at width 8"),
        "{}",
        e.observed
    );
    // And at TP1 the first width is simply absent.
    let tp1 = Census::compute(&parse(&symbolic(1, NARROW)), &families());
    assert_eq!(tp1.concrete_dims_map().get(&2), None);
}

#[test]
fn pin_breaks_when_one_shape_entry_is_concrete() {
    let mut v = symbolic(1, NARROW);
    let i = first_op(&v, "aiter.gemm_a16w16.default");
    assert_eq!(v["ops"][i]["shapes"][0][0], json!("s0"));
    v["ops"][i]["shapes"][0][0] = json!(2);
    let c = Census::compute(&parse(&v), &families());
    assert_ne!(row(&c, "gemm"), (257, 514));
    assert_eq!(row(&c, "gemm"), (257, 513));
    assert_eq!(c.totals.non_numeric, 5015);
    // The two-width comparison sees it too: the width leaked into one shape.
    let cmp = WidthComparison::compare(&parse(&v), &parse(&symbolic(1, WIDE)), None).unwrap();
    assert!(!cmp.free_symbol);
    assert!(!cmp.evidence.same_digest.held);
    assert!(!cmp.evidence.first_width_absent_or_engine_constant.held);
}

#[test]
fn pin_breaks_when_one_operator_is_renamed() {
    let mut v = symbolic(1, NARROW);
    let i = first_op(&v, "aiter.gemm_a16w16.default");
    v["ops"][i]["name"] = json!("aten.addmm.default");
    let c = Census::compute(&parse(&v), &families());
    assert_eq!(row(&c, "gemm"), (256, 512));
    assert_eq!(c.unclassified.by_name.get("aten.addmm.default"), Some(&1));
    assert_eq!(c.totals.ops, 2521, "totals alone would not notice");
    let err = c.require_classified().unwrap_err();
    assert_eq!(err.code(), "unclassified_operators");
    assert!(err.to_string().contains("aten.addmm.default ×1"), "{err}");
}

#[test]
fn pin_breaks_when_one_host_resolution_line_moves() {
    let declared =
        DeclaredHostResolutions::from_path(fixture("seed004_host_resolutions.declared.json"))
            .unwrap();
    let mut v = symbolic(1, NARROW);
    let c = Census::compute(&parse(&v), &families());
    c.require_host_resolutions(&declared).unwrap();

    let hr = v["host_resolutions"].as_array_mut().unwrap();
    let i = hr
        .iter()
        .position(|h| h["frames"][1].as_str().unwrap().contains(":1106 in"))
        .unwrap();
    hr[i]["frames"][1] =
        json!("atom/model_ops/attentions/aiter_attention.py:1107 in prepare_decode");
    let c = Census::compute(&parse(&v), &families());
    let diff = c.host_resolution_diff(&declared);
    assert!(!diff.matches);
    assert_eq!(diff.extra.len(), 1);
    assert_eq!(
        diff.extra[0].line,
        "atom/model_ops/attentions/aiter_attention.py:1107 in prepare_decode"
    );
    assert_eq!((diff.changed[0].declared, diff.changed[0].observed), (2, 1));
    assert_eq!(
        c.require_host_resolutions(&declared).unwrap_err().code(),
        "host_resolutions_differ"
    );
}

#[test]
fn lift_fresh_to_scalar_tensor_is_found_by_distinct_ops_not_the_digest() {
    // Replace the one differing call by a same-shaped one: the digest moves only
    // with names and shapes, so it is distinct_ops that names the difference.
    let sym = Census::compute(&parse(&symbolic(1, NARROW)), &families());
    let ctl = Census::compute(&parse(&control(1, NARROW)), &families());
    assert_eq!(sym.distinct_ops.get("aten.scalar_tensor.default"), Some(&1));
    assert_eq!(
        ctl.distinct_ops.get("aten.lift_fresh_copy.default"),
        Some(&1)
    );
    assert_eq!(sym.distinct_ops.get("aten.lift_fresh_copy.default"), None);
}
