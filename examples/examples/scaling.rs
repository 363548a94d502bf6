//! The example that opens the `opguard-scaling` crate documentation, verbatim
//! (`tests/doc_examples.rs` keeps the two identical).
//!
//! `cargo run -p opguard-examples --example scaling`

#[rustfmt::skip]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    use opguard_scaling::{run_trials_file, Metric};
    use opguard_testdata::kineto_writer::KinetoTrace;
    // (opguard-testdata is the workspace's unpublished test support: here it
    // writes the trace a PyTorch profiler would.)

    let dir = tempfile::tempdir()?;
    for (i, cost) in [10, 20, 30].into_iter().enumerate() {
        let mut t = KinetoTrace::new();
        // Different timestamps and thread ids: different artifacts.
        let thread = (1000 + i as i64, 7);
        t.cpu_op(thread, "reverse_scan", 5_000 * i as i64, cost, Some(1));
        t.cpu_op(thread, "aten::zeros", 100_000, 500, Some(2));
        std::fs::write(dir.path().join(format!("t{}.json.gz", i + 1)), t.to_gzip()?)?;
    }
    let trials = r#"{"trials": [
      {"id": "t1", "input": 1, "variant": "base", "traces": ["t1.json.gz"]},
      {"id": "t2", "input": 2, "variant": "base", "traces": ["t2.json.gz"]},
      {"id": "t3", "input": 3, "variant": "base", "traces": ["t3.json.gz"]}
    ], "metric": "inclusive_ns"}"#;
    std::fs::write(dir.path().join("trials.json"), trials)?;

    let report = run_trials_file(dir.path().join("trials.json"), Some(Metric::InclusiveNs))?;
    assert_eq!(report.hotspots.len(), 1);
    let hot = &report.hotspots[0];
    assert_eq!(hot.series.name, "reverse_scan");
    assert_eq!((hot.spearman_rho, hot.independent_trial_count), (1.0, 3));
    // aten::zeros costs the same everywhere: no rho, and not a rho of 0.
    assert_eq!(report.not_correlatable[0].series.name, "aten::zeros");
    println!("opguard-scaling: the documented example ran");
    Ok(())
}
