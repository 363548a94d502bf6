//! Census captures, family tables and declared host resolutions.

/// Arbitrary bytes as a capture, a family table and a declared
/// host-resolution set.
pub fn census_capture(data: &[u8]) {
    use opguard_census::{Capture, Census, DeclaredHostResolutions, FamilyTable, WidthComparison};
    let table = FamilyTable::default();
    if let Ok(custom) = FamilyTable::from_slice(data) {
        for (name, _) in custom.families() {
            let _ = custom.family_of(name);
        }
    }
    let declared = DeclaredHostResolutions::from_slice(data).ok();
    let Ok(capture) = Capture::from_slice(data) else {
        return;
    };
    let census = Census::compute(&capture, &table);
    serde_json::to_string(&census).expect("a census serializes");
    let _ = census.require_classified();
    let _ = census.concrete_dims_map();
    if let Some(d) = &declared {
        let diff = census.host_resolution_diff(d);
        let _ = diff.summary();
        let _ = census.require_host_resolutions(d);
    }
    // The comparison with itself is refused (same width) or reported.
    if let Ok(cmp) = WidthComparison::compare(&capture, &capture, Some(&capture)) {
        serde_json::to_string(&cmp).expect("a comparison serializes");
    }
}
