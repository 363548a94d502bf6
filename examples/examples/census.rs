//! The example that opens the `opguard-census` crate documentation, verbatim
//! (`tests/doc_examples.rs` keeps the two identical).
//!
//! `cargo run -p opguard-examples --example census`

#[rustfmt::skip]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    use opguard_census::{Capture, Census, FamilyTable, WidthComparison};

    let at = |width: u64, sym: &str| {
        format!(r#"{{"format": "opguard.census/capture-v1", "label": "w{width}",
           "step_axis": "{sym}", "step_hint": {width},
           "ops": [{{"name": "aten.mm.default",
                     "shapes": [["{sym}", 5120], [5120, 17408], ["{sym}", 17408]]}},
                   {{"name": "aten.add.Tensor", "shapes": [["{sym} + 1"], ["{sym} + 1"]]}}],
           "guards": ["28*{sym} <= 8192"], "replacements": {{}},
           "host_resolutions": []}}"#)
    };
    // Symbol names are not stable across captures; nothing depends on them.
    let narrow = Capture::from_slice(at(2, "s0").as_bytes())?;
    let wide = Capture::from_slice(at(8, "s77").as_bytes())?;

    let census = Census::compute(&narrow, &FamilyTable::default());
    let gemm = census.family("gemm").unwrap();
    assert_eq!((gemm.ops, gemm.shape_entries, gemm.non_numeric), (1, 6, 2));
    assert_eq!(census.totals.non_numeric, 4);
    census.require_classified()?;

    let cmp = WidthComparison::compare(&narrow, &wide, None)?;
    assert!(cmp.free_symbol, "{}", cmp.verdict);
    assert!(cmp.evidence.same_digest.held && cmp.evidence.same_digest.load_bearing);

    // A capture at width 1 cannot carry a symbol and is refused.
    let err = Capture::from_slice(at(1, "s0").as_bytes()).unwrap_err();
    assert_eq!(err.code(), "step_axis_not_symbolic");
    println!("opguard-census: the documented example ran");
    Ok(())
}
